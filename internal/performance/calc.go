package performance

import (
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// ratioPlaces is the precision of the time-weighted chain and the benchmark's ounces: far
// below what a percentage to four places or an amount to the cent can show.
const ratioPlaces = 16

var one = decimal.NewFromInt(1)
var hundred = decimal.NewFromInt(100)

// Pricer is what the math reads of prices: a metal's close on or before a day and the closes
// of a span, in USD per troy ounce. *prices.Service provides it.
type Pricer interface {
	CloseOn(m metals.Metal, day time.Time) (decimal.Decimal, bool)
	Closes(m metals.Metal, from, to time.Time) []prices.Close
}

// point is the stack at one day of the timeline: what it held after that day's flows, its
// value at that day's prices, and the flows since the point before.
type point struct {
	day time.Time
	// value is the stack's worth (to the cent); ok false when a held metal had no price.
	value decimal.Decimal
	ok    bool
	// in is purchases at cost (fees included), out net sale proceeds, realized the sales'
	// profit or loss, all since the point before (the first point carries none).
	in, out, realized decimal.Decimal
	oz                decimal.Decimal
	// bench is the benchmark metal's price that day in the currency (benchOK when known).
	bench   decimal.Decimal
	benchOK bool
	// fixed says the point was valued in integers (fixed.go): valueC, inC and outC are its
	// value, in and out in cents, benchE4 the benchmark's price in 1e-4.
	fixed                      bool
	valueC, inC, outC, benchE4 int64
}

// figures are one period's measures over points s..e of a timeline (see Result for their
// meaning); nil where they cannot be computed, with notes saying why.
type figures struct {
	start, end, net, gain, unrealized, realized *decimal.Decimal
	twr                                         *decimal.Decimal // ratio
	mwrAnnual, mwrPeriod                        *decimal.Decimal // ratios
	annualized                                  bool
	ozStart, ozEnd                              decimal.Decimal
	benchEnd, benchGain, benchTWR               *decimal.Decimal
	notes                                       []string
}

// sums are running totals over a timeline, so each period is a difference of two of them
// rather than a walk over its days: index i holds the sum over points 1..i.
type sums struct {
	pts                    []point
	in, out, realized      []decimal.Decimal
	chain                  []decimal.Decimal // the TWR chain, restarted at 1 after a factor of 0
	linked, zeros, unknown []int             // factors chained, factors of 0, flows without a benchmark price
	benchOz                []decimal.Decimal // the flows' benchmark ounces
	fin, fout              []float64         // the flows for XIRR
	chainE                 []int64           // the chain in 1e-16, noFixed when it does not fit (fixed.go)
}

func prepare(pts []point) *sums { return prepareFrom(pts, nil, 0) }

// prepareFrom is prepare, taking the sums up to point from (excluded) from kept ones of a
// timeline whose points before from are the same.
func prepareFrom(pts []point, kept *sums, from int) *sums {
	n := len(pts)
	x := &sums{pts: pts, in: make([]decimal.Decimal, n), out: make([]decimal.Decimal, n), realized: make([]decimal.Decimal, n),
		chain: make([]decimal.Decimal, n), linked: make([]int, n), zeros: make([]int, n), unknown: make([]int, n),
		benchOz: make([]decimal.Decimal, n), fin: make([]float64, n), fout: make([]float64, n), chainE: make([]int64, n)}
	if kept == nil || from < 1 || from > len(kept.pts) || from > n {
		from = 1
		if n == 0 {
			return x
		}
		x.in[0], x.out[0], x.realized[0], x.chain[0], x.benchOz[0] = decimal.Zero, decimal.Zero, decimal.Zero, one, decimal.Zero
		x.chainE[0] = chainOne
	} else {
		copy(x.in, kept.in[:from])
		copy(x.out, kept.out[:from])
		copy(x.realized, kept.realized[:from])
		copy(x.chain, kept.chain[:from])
		copy(x.linked, kept.linked[:from])
		copy(x.zeros, kept.zeros[:from])
		copy(x.unknown, kept.unknown[:from])
		copy(x.benchOz, kept.benchOz[:from])
		copy(x.fin, kept.fin[:from])
		copy(x.fout, kept.fout[:from])
		copy(x.chainE, kept.chainE[:from])
	}
	for i := from; i < n; i++ {
		p, prev := pts[i], pts[i-1]
		x.in[i], x.out[i], x.realized[i] = x.in[i-1], x.out[i-1], x.realized[i-1]
		if !p.in.IsZero() {
			x.in[i] = x.in[i].Add(p.in)
		}
		if !p.out.IsZero() {
			x.out[i] = x.out[i].Add(p.out)
		}
		if !p.realized.IsZero() {
			x.realized[i] = x.realized[i].Add(p.realized)
		}
		x.chain[i], x.linked[i], x.zeros[i], x.unknown[i], x.benchOz[i] = x.chain[i-1], x.linked[i-1], x.zeros[i-1], x.unknown[i-1], x.benchOz[i-1]
		x.chainE[i] = x.chainE[i-1]
		if !p.in.IsZero() || !p.out.IsZero() {
			x.fin[i], x.fout[i] = flowFloats(p)
			if p.benchOK && p.bench.IsPositive() {
				x.benchOz[i] = x.benchOz[i].Add(benchOunces(p))
			} else {
				x.unknown[i]++
			}
		}
		if p.ok && prev.ok {
			x.link(i, p, prev)
		}
	}
	return x
}

// flowFloats are the point's in and out as float64 for XIRR: from cents, one division each
// (correctly rounded, so the same float64 as the decimal's), when valued in integers.
func flowFloats(p point) (in, out float64) {
	const exact = 1 << 53 // cents a float64 holds exactly
	if p.fixed && p.inC < exact && p.inC > -exact && p.outC < exact && p.outC > -exact {
		return float64(p.inC) / 100, float64(p.outC) / 100
	}
	in, _ = p.in.Float64()
	out, _ = p.out.Float64()
	return in, out
}

// benchOunces is the benchmark metal's ounces the point's flows buy (in less out, at its
// price), to 16 places.
func benchOunces(p point) decimal.Decimal {
	if p.fixed {
		if q, ok := mulDivRound(p.inC-p.outC, int64(pow10[ratioPlaces+priceScale-centScale]), p.benchE4); ok {
			return decimal.New(q, -ratioPlaces)
		}
	}
	return p.in.Sub(p.out).DivRound(p.bench, ratioPlaces)
}

// link chains point i's return (V_i + out_i) / (V_{i−1} + in_i) onto the TWR chain.
func (x *sums) link(i int, p, prev point) {
	if p.fixed && prev.fixed && x.chainE[i-1] != noFixed {
		den := prev.valueC + p.inC
		if den <= 0 {
			return
		}
		x.linked[i]++
		f := p.valueC + p.outC
		if f == 0 {
			x.zeros[i]++
			x.chain[i], x.chainE[i] = one, chainOne
			return
		}
		if q, ok := mulDivRound(x.chainE[i-1], f, den); ok {
			x.chain[i], x.chainE[i] = decimal.New(q, -ratioPlaces), q
			return
		}
		x.linked[i]-- // counted again below
	}
	den := prev.value.Add(p.in)
	if !den.IsPositive() {
		return
	}
	x.linked[i]++
	f := p.value.Add(p.out)
	if f.IsZero() {
		x.zeros[i]++
		x.chain[i], x.chainE[i] = one, chainOne
		return
	}
	x.chain[i] = x.chain[i].Mul(f).DivRound(den, ratioPlaces)
	x.chainE[i] = noFixed
	if q, ok := fixed(x.chain[i], ratioPlaces); ok {
		x.chainE[i] = q
	}
}

// measure computes a period's figures from points s (the close before it starts) to e (its
// end). The conventions:
//   - net flows = purchases at cost (fees included) − net sale proceeds (after sale fees);
//   - gain = end − start − net flows; realized = the profit or loss of the period's sales
//     against their cost basis; unrealized = gain − realized (the change in the unrealized
//     profit or loss of what is held);
//   - time-weighted return: each point's return (V_i + out_i) / (V_{i−1} + in_i) − 1,
//     purchases counted at the start of their day and proceeds at its end (Portfolio
//     Performance's TTWROR), chain-linked; a day that starts with nothing held and nothing
//     bought is skipped (no division by zero);
//   - money-weighted return: XIRR (actual/365) of −start at the close before the period,
//     −purchases and +proceeds on their days, +end at its end; annual when the period is
//     longer than 365 days, else the growth over the period itself;
//   - benchmark: the start value and every flow put into (or taken out of) the benchmark
//     metal at its day's close, held to the end; its TWR is the metal's own price change.
func (x *sums) measure(s, e int) figures {
	var f figures
	pts := x.pts
	a, b := pts[s], pts[e]
	f.ozStart, f.ozEnd = a.oz, b.oz
	if !a.ok || !b.ok {
		f.notes = append(f.notes, "a metal held has no price on "+isoDay(firstUnpriced(pts, s, e))+", so the stack cannot be valued")
		return f
	}
	in, out, realized := x.in[e].Sub(x.in[s]), x.out[e].Sub(x.out[s]), x.realized[e].Sub(x.realized[s])
	net := in.Sub(out)
	gain := b.value.Sub(a.value).Sub(net)
	unreal := gain.Sub(realized)
	f.start, f.end, f.net, f.gain, f.realized, f.unrealized = &a.value, &b.value, &net, &gain, &realized, &unreal
	switch {
	case x.linked[e] == x.linked[s]:
		f.notes = append(f.notes, "nothing was held during the period, so it has no time-weighted return")
	case x.zeros[e] > x.zeros[s]:
		t := one.Neg() // everything was lost on some day: the chain is zero
		f.twr = &t
	case x.chain[s].IsZero():
		// The chain rounded to nothing before the period (a loss beyond 16 places): a ratio
		// to it has no value, and dividing by it would fail the request.
		f.notes = append(f.notes, "the stack's earlier losses leave no base to measure the period's time-weighted return from")
	default:
		t := x.chain[e].DivRound(x.chain[s], ratioPlaces).Sub(one)
		f.twr = &t
	}
	start, _ := a.value.Float64()
	end, _ := b.value.Float64()
	flows := []cashFlow{{Day: a.day, Amount: -start}}
	for i := s + 1; i <= e; i++ {
		if x.fin[i] != 0 || x.fout[i] != 0 {
			flows = append(flows, cashFlow{Day: pts[i].day, Amount: x.fout[i] - x.fin[i]})
		}
	}
	flows = append(flows, cashFlow{Day: b.day, Amount: end})
	if ann, per, ok := xirr(flows); ok {
		ad, pd := decimal.NewFromFloat(ann).Round(ratioPlaces-4), decimal.NewFromFloat(per).Round(ratioPlaces-4)
		f.mwrAnnual, f.mwrPeriod = &ad, &pd
	} else {
		f.notes = append(f.notes, "the period's flows and values have no money-weighted return (no money both in and out)")
	}
	f.annualized = b.day.Sub(a.day) > 365*24*time.Hour
	if a.benchOK && a.bench.IsPositive() && b.benchOK && x.unknown[e] == x.unknown[s] {
		oz := x.benchOz[e].Sub(x.benchOz[s])
		if a.value.IsPositive() {
			oz = oz.Add(a.value.DivRound(a.bench, ratioPlaces))
		}
		be := metals.Money(oz.Mul(b.bench))
		bg := be.Sub(a.value).Sub(net)
		bt := b.bench.DivRound(a.bench, ratioPlaces).Sub(one)
		f.benchEnd, f.benchGain, f.benchTWR = &be, &bg, &bt
	} else {
		f.notes = append(f.notes, "the benchmark metal has no close for a day of the period")
	}
	return f
}

func firstUnpriced(pts []point, s, e int) time.Time {
	for i := s; i <= e; i++ {
		if !pts[i].ok {
			return pts[i].day
		}
	}
	return pts[s].day
}

func isoDay(t time.Time) string { return t.Format(db.DateLayout) }

// pct turns a ratio into a percentage to four places.
func pct(r *decimal.Decimal) *decimal.Decimal {
	if r == nil {
		return nil
	}
	v := r.Mul(hundred).Round(4)
	return &v
}
