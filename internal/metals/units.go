package metals

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/enum"
)

// Unit is a unit of weight a member enters and reads metal in. Ounces are always troy ounces.
type Unit string

// The weight units, in the order forms offer them.
const (
	Ounce    Unit = "oz"
	Gram     Unit = "g"
	Kilogram Unit = "kg"
	// Tola is the South Asian unit: 11.6638038 g, exactly three eighths of a troy ounce.
	Tola Unit = "tola"
)

// Units lists the weight units in display order.
var Units = []Unit{Ounce, Gram, Kilogram, Tola}

// UnitNames lists the unit codes as strings, for enums in documents and errors.
func UnitNames() []string { return enum.Strings(Units) }

// unitGrams is each unit's exact mass in grams: the troy ounce is defined as 31.1034768 g
// and the tola (the Indian government's 180 grains, as traded) as 11.6638038 g.
var unitGrams = map[Unit]decimal.Decimal{
	Ounce:    TroyOunceGrams,
	Gram:     decimal.NewFromInt(1),
	Kilogram: decimal.NewFromInt(1000),
	Tola:     decimal.RequireFromString("11.6638038"),
}

// unitAliases are the spellings ParseUnit accepts beside the codes.
var unitAliases = map[string]Unit{
	"oz": Ounce, "ozt": Ounce, "toz": Ounce, "troy oz": Ounce, "troy ounce": Ounce, "troy ounces": Ounce, "ounce": Ounce, "ounces": Ounce,
	"g": Gram, "gr": Gram, "gram": Gram, "grams": Gram, "gramme": Gram, "grammes": Gram,
	"kg": Kilogram, "kilo": Kilogram, "kilos": Kilogram, "kilogram": Kilogram, "kilograms": Kilogram,
	"tola": Tola, "tolas": Tola, "tolah": Tola,
}

// ParseUnit accepts a unit code (oz, g, kg, tola) or a common spelling of it ("grams",
// "troy oz", "kilo"), case-insensitive.
func ParseUnit(s string) (Unit, error) {
	v := strings.Join(strings.Fields(strings.ToLower(s)), " ")
	if u, ok := unitAliases[v]; ok {
		return u, nil
	}
	return "", fmt.Errorf("unknown weight unit %q: want one of %s", s, strings.Join(UnitNames(), ", "))
}

// Valid reports whether u is one of the weight units.
func (u Unit) Valid() bool {
	_, ok := unitGrams[u]
	return ok
}

// Grams is the exact mass of one u in grams (zero for an unknown unit).
func (u Unit) Grams() decimal.Decimal { return unitGrams[u] }

// Suffix is how a price per unit is written after the amount: "/oz", "/g", "/kg", "/tola".
func (u Unit) Suffix() string { return "/" + string(u) }

// convertPlaces bounds a conversion whose quotient does not terminate (grams to ounces):
// twenty decimal places, far below any weight anyone can measure.
const convertPlaces = 20

// Convert expresses amount of from in to. Ounces, grams, kilograms and tolas are all exact
// multiples of a gram, so the result is exact whenever it terminates (1 tola is 0.375 oz,
// 1 oz is 31.1034768 g); otherwise (100 g is 3.2150746568… oz) it is rounded to 20 places.
func Convert(amount decimal.Decimal, from, to Unit) (decimal.Decimal, error) {
	if !from.Valid() {
		return decimal.Zero, fmt.Errorf("unknown weight unit %q", from)
	}
	if !to.Valid() {
		return decimal.Zero, fmt.Errorf("unknown weight unit %q", to)
	}
	if from == to {
		return amount, nil
	}
	return quotient(amount.Mul(from.Grams()), to.Grams()), nil
}

// quotient is a/b, exact when it terminates within convertPlaces.
func quotient(a, b decimal.Decimal) decimal.Decimal {
	q := a.DivRound(b, convertPlaces)
	if q.Mul(b).Equal(a) {
		return q.Truncate(convertPlaces) // normalised: no trailing zeros to carry
	}
	return q
}

// Weight is an amount of metal in the unit it was entered or is shown in.
type Weight struct {
	Amount decimal.Decimal
	Unit   Unit
}

// Ounces is the weight in troy ounces (see Convert for its precision).
func (w Weight) Ounces() decimal.Decimal {
	oz, _ := Convert(w.Amount, w.Unit, Ounce)
	return oz
}

// In is the weight expressed in another unit.
func (w Weight) In(u Unit) Weight {
	a, err := Convert(w.Amount, w.Unit, u)
	if err != nil {
		return w
	}
	return Weight{Amount: a, Unit: u}
}

// String writes the weight as it was given, without trailing zeros: "100 g", "1 kg",
// "0.375 oz", "2 tola".
func (w Weight) String() string { return w.Amount.String() + " " + string(w.Unit) }

// Format writes the weight with at most places decimals (trailing zeros dropped): "3.21507 oz".
func (w Weight) Format(places int32) string {
	return w.Amount.Round(places).String() + " " + string(w.Unit)
}

// ParseWeight reads a weight a member typed: a positive number and a unit, with or without a
// space ("100 g", "1kg", "2.5 troy oz", "1,000 grams"). A bare number is in def.
func ParseWeight(s string, def Unit) (Weight, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == ',') {
		i++
	}
	num, unit := strings.ReplaceAll(t[:i], ",", ""), strings.TrimSpace(t[i:])
	if num == "" {
		return Weight{}, fmt.Errorf("weight %q: start with a number, such as 100 g or 1 oz", s)
	}
	if strings.Contains(t[:i], ",") && !groupedThousands(t[:i]) {
		return Weight{}, fmt.Errorf("weight %q: a comma may only group thousands (1,000 g)", s)
	}
	d, err := decimal.NewFromString(num)
	if err != nil {
		return Weight{}, fmt.Errorf("weight %q: %q is not a number", s, t[:i])
	}
	if !d.IsPositive() {
		return Weight{}, fmt.Errorf("weight %q: must be more than zero", s)
	}
	u := def
	if unit != "" {
		if u, err = ParseUnit(unit); err != nil {
			return Weight{}, fmt.Errorf("weight %q: %w", s, err)
		}
	}
	if !u.Valid() {
		return Weight{}, fmt.Errorf("weight %q: name a unit (%s)", s, strings.Join(UnitNames(), ", "))
	}
	return Weight{Amount: d, Unit: u}, nil
}

// groupedThousands reports whether the integer part of n groups its digits by three with
// commas ("1,000", "12,500.5").
func groupedThousands(n string) bool {
	intPart, _, _ := strings.Cut(n, ".")
	groups := strings.Split(intPart, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return !strings.Contains(n[len(intPart):], ",")
}

// PricePer is a price per troy ounce expressed per unit u (price × ounces in one u), exact
// when the quotient terminates: $3,110.34768/oz is $100/g.
func PricePer(perOz decimal.Decimal, u Unit) (decimal.Decimal, error) {
	if !u.Valid() {
		return decimal.Zero, fmt.Errorf("unknown weight unit %q", u)
	}
	if u == Ounce {
		return perOz, nil
	}
	return quotient(perOz.Mul(u.Grams()), TroyOunceGrams), nil
}
