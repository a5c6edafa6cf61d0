// Package metals is the shared vocabulary of Ounce: the four metals, their symbols,
// units, the junk-silver coin table and the rounding rules money and ounces follow.
// It imports nothing of ours, so every other package may use it.
package metals

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/enum"
)

// Metal identifies one of the four precious metals Ounce tracks.
type Metal string

// The four metals, in display order.
const (
	Gold      Metal = "gold"
	Silver    Metal = "silver"
	Platinum  Metal = "platinum"
	Palladium Metal = "palladium"
)

// All lists the metals in display order.
var All = []Metal{Gold, Silver, Platinum, Palladium}

// Names lists the metal identifiers as strings, for enums in documents and errors.
func Names() []string { return enum.Strings(All) }

// Parse accepts a metal identifier (case-insensitive, surrounding space ignored) or its
// ISO 4217 symbol (XAU, XAG, XPT, XPD).
func Parse(s string) (Metal, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	for _, m := range All {
		if v == string(m) || strings.EqualFold(v, m.Symbol()) {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown metal %q: want one of %s", s, strings.Join(Names(), ", "))
}

// Valid reports whether m is one of the four metals.
func (m Metal) Valid() bool { return slices.Contains(All, m) }

// Symbol is the ISO 4217 code of the metal (XAU for gold, and so on).
func (m Metal) Symbol() string {
	switch m {
	case Gold:
		return "XAU"
	case Silver:
		return "XAG"
	case Platinum:
		return "XPT"
	case Palladium:
		return "XPD"
	}
	return ""
}

// Title is the metal's display name.
func (m Metal) Title() string {
	if m == "" {
		return ""
	}
	return strings.ToUpper(string(m[:1])) + string(m[1:])
}

// TroyOunceGrams is the mass of one troy ounce in grams.
var TroyOunceGrams = decimal.RequireFromString("31.1034768")

// Rounding used when numbers leave the service (JSON, pages).
const (
	MoneyPlaces   = 2 // currency amounts
	PricePlaces   = 4 // prices per ounce: kept (and served) at their source's precision up to this
	PercentPlaces = 2 // percentages
	OuncePlaces   = 5 // ounces
)

// Money rounds a currency amount to cents (half away from zero).
func Money(d decimal.Decimal) decimal.Decimal { return d.Round(MoneyPlaces) }

// Price bounds a price per ounce to PricePlaces, which keeps every source's own precision
// (LBMA silver fixes have three places): prices are never rounded to cents before the
// arithmetic, only when an amount of money is shown.
func Price(d decimal.Decimal) decimal.Decimal { return d.Round(PricePlaces) }

// Percent rounds a percentage to two places.
func Percent(d decimal.Decimal) decimal.Decimal { return d.Round(PercentPlaces) }

// Ounces rounds a weight in troy ounces to five places.
func Ounces(d decimal.Decimal) decimal.Decimal { return d.Round(OuncePlaces) }

// PctChange is (to-from)/from×100, or zero when from is zero.
func PctChange(from, to decimal.Decimal) decimal.Decimal {
	if from.IsZero() {
		return decimal.Zero
	}
	return to.Sub(from).Div(from).Mul(decimal.NewFromInt(100))
}
