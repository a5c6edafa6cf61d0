package performance

import (
	"math"
	"time"
)

// cashFlow is one dated amount of the money-weighted return, from the member's side:
// money put in is negative, money taken out (and the value held at the end) positive.
type cashFlow struct {
	Day    time.Time
	Amount float64
}

// xirr solves Σ cf_k · (1+r)^−(t_k − t_0)/365 = 0 for the rate r per year of 365 days
// (actual/365, as spreadsheets' XIRR), returning r and the growth over the whole span,
// (1+r)^(days/365) − 1, which is what a period of a year or less reports.
//
// The root is found in float64 by bisection on h = ln(1+r) × span (the log growth of the
// whole span), bounded to ±30 (a factor of e^±30), so a one-day period and a ten-year one are
// searched with the same precision; 64 halvings reach float64 resolution. Results are
// rounded when they are reported. ok is false when the flows do not change sign (no rate
// solves them) or when no root lies in the bounds.
func xirr(flows []cashFlow) (annual, period float64, ok bool) {
	if len(flows) < 2 {
		return 0, 0, false
	}
	t0 := flows[0].Day
	span := 0.0
	ys := make([]float64, len(flows))
	pos, neg := false, false
	for i, f := range flows {
		ys[i] = f.Day.Sub(t0).Hours() / 24
		span = math.Max(span, ys[i])
		pos = pos || f.Amount > 0
		neg = neg || f.Amount < 0
	}
	if !pos || !neg || span <= 0 {
		return 0, 0, false
	}
	for i := range ys {
		ys[i] /= span
	}
	npv := func(h float64) float64 {
		s := 0.0
		for i, f := range flows {
			s += f.Amount * math.Exp(-h*ys[i])
		}
		return s
	}
	lo, hi := -30.0, 30.0
	flo, fhi := npv(lo), npv(hi)
	if math.IsNaN(flo) || math.IsNaN(fhi) || (flo > 0) == (fhi > 0) {
		return 0, 0, false
	}
	for range 64 { // 60 / 2^64: below float64 resolution of h
		mid := (lo + hi) / 2
		fm := npv(mid)
		if fm == 0 {
			lo, hi = mid, mid
			break
		}
		if (fm > 0) == (flo > 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
	}
	h := (lo + hi) / 2
	years := span / 365
	return math.Expm1(h / years), math.Expm1(h), true
}
