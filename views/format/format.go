// Package format is the views' name for the one formatter, internal/format: pages, handlers
// and templates write figures and dates with exactly the functions articles, briefs, receipts,
// the advisor and news analysis use. It adds nothing; see internal/format for the rules (one
// minus sign U+2212, money and weights one way, one date style per context).
package format

import f "github.com/ouncehq/ounce/internal/format"

// Minus is the minus sign every page uses.
const Minus = f.Minus

// Dash stands in for an unknown value.
const Dash = f.Dash

// Dated is a name and the time the figure it names is of.
type Dated = f.Dated

// The formatters, each documented in internal/format.
var (
	Group          = f.Group
	USD            = f.USD
	Money          = f.Money
	SignedMoney    = f.SignedMoney
	MoneyPtr       = f.MoneyPtr
	PriceIn        = f.PriceIn
	PricePerUnit   = f.PricePerUnit
	Symbol         = f.Symbol
	PriceUSD       = f.PriceUSD
	SignedPriceUSD = f.SignedPriceUSD
	SignedUSD      = f.SignedUSD
	USDPtr         = f.USDPtr
	PriceUSDPtr    = f.PriceUSDPtr
	SignedUSDPtr   = f.SignedUSDPtr
	Price          = f.Price
	Pct            = f.Pct
	SignedPct      = f.SignedPct
	PctPtr         = f.PctPtr
	SignedPctPtr   = f.SignedPctPtr
	Oz             = f.Oz
	Ounces         = f.Ounces
	SignedOz       = f.SignedOz
	WholeOz        = f.WholeOz
	WholeOunces    = f.WholeOunces
	SignedWholeOz  = f.SignedWholeOz
	Number         = f.Number
	Int            = f.Int
	Count          = f.Count
	Date           = f.Date
	DateIn         = f.DateIn
	DateTime       = f.DateTime
	DateTimeIn     = f.DateTimeIn
	ISODate        = f.ISODate
	ISODateIn      = f.ISODateIn
	PriceTime      = f.PriceTime
	DatedList      = f.DatedList
	AxisLabels     = f.AxisLabels
	AxisDate       = f.AxisDate
)
