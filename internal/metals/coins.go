package metals

import "github.com/shopspring/decimal"

// Coin describes one kind of pre-1971 US silver coin the junk-silver calculator values.
type Coin struct {
	// Param is the query parameter and the `type` in results (dimes, quarters, …).
	Param string
	// Label is the human name of the coins covered.
	Label string
	// FaceValue of one coin in US dollars.
	FaceValue decimal.Decimal
	// SilverOz is the pure silver in one uncirculated coin, troy ounces.
	SilverOz decimal.Decimal
	// Circulated coins of the 90 % series are valued at CirculatedOzPerFaceDollar per $1 face
	// on the circulated basis; the others keep SilverOz.
	NinetyPercent bool
}

// CirculatedOzPerFaceDollar is the trade convention for worn 90 % dimes, quarters and halves:
// $1 face holds about 0.715 troy oz of silver rather than the mint's 0.7234.
var CirculatedOzPerFaceDollar = decimal.RequireFromString("0.715")

// Coins is the junk-silver coin table, in the calculator's order.
var Coins = []Coin{
	{Param: "dimes", Label: "Roosevelt/Mercury dimes", FaceValue: decimal.RequireFromString("0.10"), SilverOz: decimal.RequireFromString("0.07234"), NinetyPercent: true},
	{Param: "quarters", Label: "Washington quarters", FaceValue: decimal.RequireFromString("0.25"), SilverOz: decimal.RequireFromString("0.18084"), NinetyPercent: true},
	{Param: "half_dollars", Label: "Walking Liberty/Franklin/Kennedy 1964 half dollars", FaceValue: decimal.RequireFromString("0.50"), SilverOz: decimal.RequireFromString("0.36169"), NinetyPercent: true},
	{Param: "kennedy_40", Label: "Kennedy 1965-1970 40% silver halves", FaceValue: decimal.RequireFromString("0.50"), SilverOz: decimal.RequireFromString("0.14792")},
	{Param: "dollars", Label: "Morgan/Peace dollars", FaceValue: decimal.RequireFromString("1.00"), SilverOz: decimal.RequireFromString("0.77344")},
	{Param: "war_nickels", Label: "Jefferson 1942-1945 war nickels", FaceValue: decimal.RequireFromString("0.05"), SilverOz: decimal.RequireFromString("0.05626")},
}

// OzPerCoin is the silver content of one coin on the given basis ("uncirculated" or "circulated").
func (c Coin) OzPerCoin(circulated bool) decimal.Decimal {
	if circulated && c.NinetyPercent {
		return CirculatedOzPerFaceDollar.Mul(c.FaceValue)
	}
	return c.SilverOz
}

// FaceLot is junk silver counted by face value rather than by coin: a bag of mixed 90 %
// dimes, quarters and halves, or of 40 % Kennedy halves, as dealers sell it.
type FaceLot struct {
	// Param is the query parameter and the `type` in results (face_90, face_40).
	Param string
	// Label is the human name of the coins covered.
	Label string
	// OzPerFaceDollar is the silver in $1 face of uncirculated coins, troy ounces.
	OzPerFaceDollar decimal.Decimal
	// NinetyPercent lots are valued at CirculatedOzPerFaceDollar on the circulated basis.
	NinetyPercent bool
}

// FaceLots are the by-face entries of the junk-silver calculator: $1 face of 90 % coins holds
// 0.7234 oz (ten dimes of 0.07234), $1 face of 40 % halves 0.29584 oz (two of 0.14792).
var FaceLots = []FaceLot{
	{Param: "face_90", Label: "90% dimes, quarters and halves by face value", OzPerFaceDollar: decimal.RequireFromString("0.7234"), NinetyPercent: true},
	{Param: "face_40", Label: "40% Kennedy halves by face value", OzPerFaceDollar: decimal.RequireFromString("0.29584")},
}

// OzPerDollar is the silver in $1 face on the given basis.
func (f FaceLot) OzPerDollar(circulated bool) decimal.Decimal {
	if circulated && f.NinetyPercent {
		return CirculatedOzPerFaceDollar
	}
	return f.OzPerFaceDollar
}
