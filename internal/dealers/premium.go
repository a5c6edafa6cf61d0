package dealers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

var (
	hundred = decimal.NewFromInt(100)
	two     = decimal.NewFromInt(2)
)

// PremiumPct is how far a unit price sits over the metal it holds at spot, in percent:
// (price ÷ (spot × fine oz) − 1) × 100. For junk silver the unit is $1 face and fineOz the
// silver in $1 face, so the same formula measures the premium over melt. ok is false when the
// spot or the weight is unknown.
func PremiumPct(price, spot, fineOz decimal.Decimal) (decimal.Decimal, bool) {
	melt := spot.Mul(fineOz)
	if !melt.IsPositive() || !price.IsPositive() {
		return decimal.Zero, false
	}
	return price.Div(melt).Sub(decimal.NewFromInt(1)).Mul(hundred), true
}

// PricePerOz is the unit price divided by the fine ounces in a unit.
func PricePerOz(price, fineOz decimal.Decimal) decimal.Decimal {
	if !fineOz.IsPositive() {
		return decimal.Zero
	}
	return price.Div(fineOz)
}

// Median is the middle value (the mean of the two middle ones for an even count); zero for none.
func Median(xs []decimal.Decimal) decimal.Decimal {
	if len(xs) == 0 {
		return decimal.Zero
	}
	s := append([]decimal.Decimal(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i].LessThan(s[j]) })
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1].Add(s[n/2]).Div(two)
}

// Outliers marks the prices more than OutlierPct percent away from their median: a misread
// page (a tube or box price, a sale banner, the wrong product) rather than a market. With one
// or two prices nothing is an outlier, since there is no majority to judge by.
func Outliers(xs []decimal.Decimal) (out []bool, median decimal.Decimal) {
	out = make([]bool, len(xs))
	if len(xs) < 3 {
		return out, Median(xs)
	}
	median = Median(xs)
	if !median.IsPositive() {
		return out, median
	}
	limit := decimal.NewFromInt(OutlierPct)
	for i, x := range xs {
		dev := x.Sub(median).Abs().Div(median).Mul(hundred)
		out[i] = dev.GreaterThan(limit)
	}
	return out, median
}

// weightTolerance is how close (relative) a product's fine weight must be to a requested
// weight: a 30 g Panda is a "30g" coin, and gram-sized products carry rounded ounces.
var weightTolerance = decimal.RequireFromString("0.005")

// WeightMatches reports whether a product's fine weight is the requested one (within 0.5 %).
func WeightMatches(p metals.Product, w decimal.Decimal) bool {
	return p.FineOz.Sub(w).Abs().LessThanOrEqual(w.Mul(weightTolerance))
}

var maxWeight = decimal.NewFromInt(100000)

// ParseWeight reads a weight in troy ounces: "1", "0.1", "1/10", "1/2 oz", or in grams or
// kilograms with a unit ("30g", "1 kg").
func ParseWeight(raw string) (decimal.Decimal, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	unit := decimal.NewFromInt(1)
	switch {
	case strings.HasSuffix(s, "kg"):
		s, unit = strings.TrimSuffix(s, "kg"), decimal.NewFromInt(1000).Div(metals.GramsPerTroyOz)
	case strings.HasSuffix(s, "oz"):
		s = strings.TrimSuffix(s, "oz")
	case strings.HasSuffix(s, "g"):
		s, unit = strings.TrimSuffix(s, "g"), decimal.NewFromInt(1).Div(metals.GramsPerTroyOz)
	}
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("must be troy ounces like 1, 0.1 or 1/10 (or grams with a unit: 30g, 1kg)")
	if s == "" || len(s) > 20 {
		return decimal.Zero, bad
	}
	var w decimal.Decimal
	if num, den, ok := strings.Cut(s, "/"); ok {
		n, err1 := plainDecimal(strings.TrimSpace(num))
		d, err2 := plainDecimal(strings.TrimSpace(den))
		if err1 != nil || err2 != nil || !d.IsPositive() {
			return decimal.Zero, bad
		}
		w = n.Div(d)
	} else {
		v, err := plainDecimal(s)
		if err != nil {
			return decimal.Zero, bad
		}
		w = v
	}
	w = w.Mul(unit).Round(8)
	if !w.IsPositive() || w.GreaterThan(maxWeight) {
		return decimal.Zero, fmt.Errorf("must be more than 0 and at most 100000 oz")
	}
	return w, nil
}

// plainDecimal accepts digits with at most one decimal point: no signs, exponents or spaces.
func plainDecimal(s string) (decimal.Decimal, error) {
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 || s == "." {
		return decimal.Zero, fmt.Errorf("not a plain number")
	}
	return decimal.NewFromString(s)
}

// mustDec is decimal.RequireFromString for the constant tables of this package.
func mustDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
