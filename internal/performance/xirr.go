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
// The root is found in float64 on h = ln(1+r) × span (the log growth of the whole span),
// bounded to ±30 (a factor of e^±30), so a one-day period and a ten-year one are searched with
// the same precision: 20 halvings, then Newton's method safeguarded by bisection to float64
// resolution (a few steps where bisection alone took 64 more). Results are rounded when they are reported. ok is
// false when the flows do not change sign (no rate solves them) or when no root lies in the
// bounds.
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
	gaps := dayGaps(ys)
	for i := range ys {
		ys[i] /= span
	}
	npv := (&discounter{flows: flows, ys: ys, gaps: gaps, span: span}).npv
	lo, hi := -30.0, 30.0
	flo, _ := npv(lo)
	fhi, _ := npv(hi)
	if math.IsNaN(flo) || math.IsNaN(fhi) || (flo > 0) == (fhi > 0) {
		return 0, 0, false
	}
	// Bisection first, narrowing the bracket to 60/2^20 (so with several roots, flows that
	// change sign more than once, the one found is the one plain bisection finds); then
	// Newton's method kept inside the bracket: a step that would leave it, or that does not
	// halve it, is a bisection instead. It stops at float64 resolution (or an NPV of zero).
	for range 20 {
		mid := (lo + hi) / 2
		fm, _ := npv(mid)
		if (fm > 0) == (flo > 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
	}
	x := (lo + hi) / 2
	for range 200 {
		fx, dfx := npv(x)
		if fx == 0 {
			lo, hi = x, x
			break
		}
		if (fx > 0) == (flo > 0) {
			lo, flo = x, fx
		} else {
			hi = x
		}
		if hi-lo <= 4e-16*math.Max(1, math.Abs(x)) {
			break
		}
		next := x - fx/dfx
		if dfx == 0 || math.IsNaN(next) || next <= lo || next >= hi || math.Abs(next-x) > (hi-lo)/2 {
			next = (lo + hi) / 2
		}
		step := math.Abs(next - x)
		x = next
		if step <= 1e-15*math.Max(1, math.Abs(x)) {
			break
		}
	}
	if lo == hi {
		x = lo
	}
	h := x
	years := span / 365
	return math.Expm1(h / years), math.Expm1(h), true
}

// maxGap is the longest gap between flows' days a discount recurrence takes (a timeline's
// flows are days apart; a longer gap falls back to one exponential per flow).
const maxGap = 64

// dayGaps is the whole days between each flow and the one before (0 for the first), or nil
// when the days are not whole, not in order, or farther apart than maxGap.
func dayGaps(days []float64) []int {
	gaps := make([]int, len(days))
	for i := 1; i < len(days); i++ {
		g := days[i] - days[i-1]
		if g < 0 || g > maxGap || g != math.Trunc(g) || days[i] != math.Trunc(days[i]) {
			return nil
		}
		gaps[i] = int(g)
	}
	return gaps
}

// discounter is the NPV of flows at a log growth h over the span, and its derivative in h:
// one exponential per flow, or, for flows on whole days in order (a timeline's), each flow's
// discount the one before it times that of the days between, one exponential per distinct
// gap (a rate, not money: its float64 rounding, relative 1e-16 a step, is far below the four
// places a percentage shows).
type discounter struct {
	flows  []cashFlow
	ys     []float64 // each flow's time as a fraction of the span
	gaps   []int     // dayGaps, nil when the days are not whole and in order
	span   float64
	gapExp [maxGap + 1]float64
}

func (c *discounter) npv(h float64) (v, dv float64) {
	if c.gaps == nil {
		for i, f := range c.flows {
			e := f.Amount * math.Exp(-h*c.ys[i])
			v += e
			dv -= e * c.ys[i]
		}
		return v, dv
	}
	clear(c.gapExp[:])
	disc := 1.0
	for i, f := range c.flows {
		if g := c.gaps[i]; g > 0 {
			if c.gapExp[g] == 0 {
				c.gapExp[g] = math.Exp(-h * float64(g) / c.span)
			}
			disc *= c.gapExp[g]
		}
		e := f.Amount * disc
		v += e
		dv -= e * c.ys[i]
	}
	return v, dv
}
