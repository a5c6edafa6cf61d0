package db

import (
	"math"

	"github.com/shopspring/decimal"
)

// The exact-integer column codec. The store keeps each sum the portfolio reads (ounces, cost,
// fees, reference values) as an integer part and a scaled fraction in integer columns, so
// SQL sums them exactly on both engines; these functions turn decimals into those pairs and
// back. They compute no money rule: the values come from the portfolio service.

// Scales of the exact integer columns: fine ounces to 1e-8, money to cents.
const (
	ozPlaces    = 8
	moneyPlaces = 2
)

// split returns floor(d) and the rest scaled by 10^places. Callers pass values with at most
// places decimals (weights have 8, money 2), so nothing is lost.
func split(d decimal.Decimal, places int32) (whole, frac int64) {
	w := d.Floor()
	return w.IntPart(), d.Sub(w).Shift(places).Floor().IntPart()
}

// scaledInt is d in units of 10^-places as one integer (fees in cents), with at most places
// decimals as for split.
func scaledInt(d decimal.Decimal, places int32) int64 {
	return d.Shift(places).Floor().IntPart()
}

// join is the inverse of split over sums: whole + frac/10^places, exact.
func join(whole, frac decimal.Decimal, places int32) decimal.Decimal {
	return whole.Add(frac.Shift(-places))
}

// joinInts is join over int64 parts: whole + frac/10^places, exact.
func joinInts(whole, frac int64, places int32) decimal.Decimal {
	scale := int64(1)
	for range places {
		scale *= 10
	}
	// One small coefficient when whole × 10^places + frac fits in int64 (always, for stacks
	// below 90 billion ounces or dollars); the general sum otherwise.
	if limit := (math.MaxInt64 - scale) / scale / 2; whole > -limit && whole < limit && frac > -limit && frac < limit {
		return decimal.New(whole*scale+frac, -places)
	}
	return decimal.NewFromInt(whole).Add(decimal.New(frac, -places))
}

// scaled is n / 10^places, sharing decimal.Zero for zero (most days have no sale).
func scaled(n int64, places int32) decimal.Decimal {
	if n == 0 {
		return decimal.Zero
	}
	return decimal.New(n, -places)
}
