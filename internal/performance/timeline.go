package performance

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// frame is what a timeline is valued on and does not change with the ledger (only with the
// metals held, the span and the stored closes): its days, and each held metal's closes in it.
type frame struct {
	dates []time.Time
	// Per metal, in metals.All order: its closes after the first day, and its close on or
	// before the first day (openOK false when it has none). A metal not held has no closes.
	closes []([]prices.Close)
	open   []decimal.Decimal
	openOK []bool
	held   uint // bit i set when metals.All[i] is held (or the benchmark)
	bench  int  // the benchmark's index in metals.All
	// The closes in units of 1e-4 (fixed.go), when fixed: each is exact at that precision.
	closeE4 [][]int64
	openE4  []int64
	fixed   bool
}

// heldMask is the metals of days and the benchmark, as frame.held.
func heldMask(days []db.PerformanceDay, bench metals.Metal) uint {
	mask := uint(1) << metalIndex(bench)
	for i := range days {
		mask |= 1 << metalIndex(days[i].Metal)
	}
	return mask
}

func metalIndex(m metals.Metal) int { return slices.Index(metals.All, m) }

// newFrame reads the closes of the metals in held and of the benchmark in [first, last] and
// lays out the timeline's days: every such close, first, last and each extra day in between.
func newFrame(held uint, mk Pricer, bench metals.Metal, first, last time.Time, extra []time.Time) *frame {
	n := len(metals.All)
	fr := &frame{closes: make([][]prices.Close, n), open: make([]decimal.Decimal, n), openOK: make([]bool, n), held: held, bench: metalIndex(bench)}
	var dates []time.Time
	for i, m := range metals.All {
		if held&(1<<i) == 0 {
			continue
		}
		fr.closes[i] = mk.Closes(m, first.AddDate(0, 0, 1), last)
		fr.open[i], fr.openOK[i] = mk.CloseOn(m, first)
		for _, c := range fr.closes[i] {
			dates = append(dates, c.Date)
		}
	}
	dates = append(dates, first, last)
	for _, e := range extra {
		if !e.Before(first) && !e.After(last) {
			dates = append(dates, e)
		}
	}
	// Days have no fraction of a second: their Unix seconds order them as Time.Compare does, cheaper.
	slices.SortFunc(dates, func(a, b time.Time) int { return cmp.Compare(a.Unix(), b.Unix()) })
	fr.dates = slices.CompactFunc(dates, func(a, b time.Time) bool { return a.Equal(b) })
	fr.fixedCloses()
	return fr
}

// metalRun is one metal's walk along a timeline: the next close to take, the price it is at,
// the ounces held, and whether either moved since its worth was computed.
type metalRun struct {
	next  int
	last  decimal.Decimal
	known bool
	oz    decimal.Decimal
	dirty bool
	// In integers (fixed.go): the ounces in 1e-8 oz, the price in 1e-4.
	ozE8, lastE4 int64
}

// dayE is a ledger day in integers: ounces in 1e-8 oz, money in cents.
type dayE struct {
	metal                        int
	oz, bought, proceeds, realzd int64
}

// ozSnap is each metal's ounces after each point (len(metals.All) per point), in decimals or,
// for a timeline valued in integers, in 1e-8 oz.
type ozSnap struct {
	fixed bool
	dec   []decimal.Decimal
	e8    []int64
}

// valuer values a frame's days from a ledger.
type valuer struct {
	fr    *frame
	days  []db.PerformanceDay
	conv  Converter
	unit  bool // a dollar answer: every rate is exactly 1
	live  map[metals.Metal]decimal.Decimal
	today time.Time
	di    int             // the next ledger day to take
	oz    decimal.Decimal // the ounces held of the metals held at all
	run   []metalRun
	worth []decimal.Decimal
	// fast values in integers (fixed.go); rows are the ledger days from row0 on, so.
	fast   bool
	rows   []dayE
	row0   int
	liveE4 []int64 // per metal, -1 when not live
}

// timeline values the stack at every close of the metals it holds and of the benchmark in
// [first, last], and on each extra day (the days before periods start and the days they
// end), priced at the close on or before it (live prices, when given, for the day today).
// days is the ledger, oldest first, already narrowed to the metals measured; what happened
// on or before first is the starting position, not a flow.
func timeline(days []db.PerformanceDay, mk Pricer, conv Converter, bench metals.Metal, first, last time.Time, extra []time.Time, live map[metals.Metal]decimal.Decimal, today time.Time) []point {
	fr := newFrame(heldMask(days, bench), mk, bench, first, last, extra)
	pts, _, _ := fr.value(days, conv, live, today, nil, ozSnap{}, 0)
	return pts
}

// value values the frame's days from the ledger days. With kept points (and the ounces of each
// metal after each, as value returns them) valued from the same frame, the points before from
// are taken as they are (the ledger and prices are the same up to them) and the rest valued
// again; from 0 values every day. It returns the points, the ounces of each metal after each,
// and the first point valued (0 when the kept ones could not be taken).
func (fr *frame) value(days []db.PerformanceDay, conv Converter, live map[metals.Metal]decimal.Decimal, today time.Time, kept []point, keptOz ozSnap, from int) ([]point, ozSnap, int) {
	pts, snap, at, ok := fr.valueAs(true, days, conv, live, today, kept, keptOz, from)
	if !ok {
		// A sum past an int64: in decimals.
		pts, snap, at, _ = fr.valueAs(false, days, conv, live, today, kept, keptOz, from)
	}
	return pts, snap, at
}

// valueAs is value, in integers when fast is true and they can; ok is false when a sum
// overflowed them.
func (fr *frame) valueAs(fast bool, days []db.PerformanceDay, conv Converter, live map[metals.Metal]decimal.Decimal, today time.Time, kept []point, keptOz ozSnap, from int) ([]point, ozSnap, int, bool) {
	n, nm := len(fr.dates), len(metals.All)
	v := &valuer{fr: fr, days: days, conv: conv, unit: conv.Currency() == "USD", live: live, today: today,
		run: make([]metalRun, nm), worth: make([]decimal.Decimal, nm)}
	if from > len(kept) || from > n {
		from = 0
	}
	// Integers when every price and ledger amount to value from is exact at their precision.
	v.fast = fast && v.unit && fr.fixed && v.liveFixed() && v.fixedRows(kept, from)
	if keptOz.fixed != v.fast {
		from = 0
		v.fast = v.fast && v.fixedRows(kept, 0)
	}
	pts := make([]point, n)
	copy(pts, kept[:from])
	snap := ozSnap{fixed: v.fast}
	if v.fast {
		snap.e8 = make([]int64, n*nm)
		copy(snap.e8, keptOz.e8[:from*nm])
	} else {
		snap.dec = make([]decimal.Decimal, n*nm)
		copy(snap.dec, keptOz.dec[:from*nm])
	}
	v.start(pts, snap, from)
	for pi := from; pi < n; pi++ {
		if v.fast {
			if !v.stepFixed(pts, pi) {
				return nil, ozSnap{}, 0, false
			}
			for i := range v.run {
				snap.e8[pi*nm+i] = v.run[i].ozE8
			}
			continue
		}
		v.step(pts, pi)
		for i := range v.run {
			snap.dec[pi*nm+i] = v.run[i].oz
		}
	}
	return pts, snap, from, true
}

// resumeRow is the first ledger day after the points before from.
func (v *valuer) resumeRow(kept []point, from int) int {
	if from == 0 {
		return 0
	}
	prev := kept[from-1].day
	return sort.Search(len(v.days), func(j int) bool { return v.days[j].Day.After(prev) })
}

// start sets the walk to resume at point from: after the ledger days of the points before it,
// holding what the point before held, at each metal's close on or before it.
func (v *valuer) start(pts []point, snap ozSnap, from int) {
	fr, nm := v.fr, len(metals.All)
	v.oz = decimal.Zero
	for i := range v.worth {
		v.worth[i] = decimal.Zero
	}
	for i := range v.run {
		v.run[i] = metalRun{last: fr.open[i], known: fr.openOK[i], oz: decimal.Zero, dirty: true, lastE4: fr.openE4[i]}
	}
	v.di = 0
	if from == 0 {
		return
	}
	prev := pts[from-1].day
	v.oz = pts[from-1].oz
	v.di = v.resumeRow(pts, from)
	for i := range v.run {
		r, cl := &v.run[i], fr.closes[i]
		if snap.fixed {
			r.ozE8 = snap.e8[(from-1)*nm+i]
		} else {
			r.oz = snap.dec[(from-1)*nm+i]
		}
		r.next = sort.Search(len(cl), func(j int) bool { return cl[j].Date.After(prev) })
		if r.next > 0 {
			r.last, r.known, r.lastE4 = cl[r.next-1].Price, true, fr.closeE4[i][r.next-1]
		}
	}
}

// step values point pi: the ledger days up to its day, then the stack at its prices.
func (v *valuer) step(pts []point, pi int) {
	p := &pts[pi]
	day := v.fr.dates[pi]
	p.day, p.in, p.out, p.realized = day, decimal.Zero, decimal.Zero, decimal.Zero
	rate, rateOK := one, true
	if !v.unit {
		rate, rateOK = v.conv.Factor("USD", day)
	}
	if v.flows(p, pi > 0) {
		// The ounces held (of the metals held at all) change only with the ledger.
		v.oz = decimal.Zero
		for i := range v.run {
			if v.run[i].oz.IsPositive() {
				v.oz = v.oz.Add(v.run[i].oz)
			}
		}
	}
	p.ok, p.oz = rateOK, v.oz
	value := v.worthOn(p, rate, rateOK)
	if !v.unit {
		value = value.Mul(rate)
	}
	p.value = metals.Money(value)
	if !p.in.IsZero() {
		p.in = metals.Money(p.in)
	}
	if !p.out.IsZero() {
		p.out = metals.Money(p.out)
	}
	if !p.realized.IsZero() {
		p.realized = metals.Money(p.realized)
	}
}

// flows takes the ledger days up to p's day: the ounces they move and, unless they are the
// starting position (the first point), their money into p. It says whether ounces moved.
func (v *valuer) flows(p *point, money bool) bool {
	moved := false
	for v.di < len(v.days) && !v.days[v.di].Day.After(p.day) {
		d := &v.days[v.di]
		r := &v.run[metalIndex(d.Metal)]
		r.oz = r.oz.Add(d.Oz)
		r.dirty, moved = true, true
		if money {
			// The ledger's money is already in the answer's currency (each flow at its day's rate).
			if !d.Bought.IsZero() {
				p.in = p.in.Add(d.Bought)
			}
			if !d.Proceeds.IsZero() {
				p.out = p.out.Add(d.Proceeds)
			}
			if !d.Realized.IsZero() {
				p.realized = p.realized.Add(d.Realized)
			}
		}
		v.di++
	}
	return moved
}

// worthOn is the stack's worth in dollars at p's day's prices (live ones today), unrounded;
// it sets p's benchmark price, and p.ok false when a metal held has no price.
func (v *valuer) worthOn(p *point, rate decimal.Decimal, rateOK bool) decimal.Decimal {
	value := decimal.Zero
	isToday := len(v.live) > 0 && p.day.Equal(v.today)
	for i, m := range metals.All {
		r, cl := &v.run[i], v.fr.closes[i]
		for r.next < len(cl) && !cl[r.next].Date.After(p.day) {
			r.last, r.known = cl[r.next].Price, true
			r.next++
			r.dirty = true
		}
		price, known := r.last, r.known
		if isToday {
			if lp, ok := v.live[m]; ok {
				price, known, r.dirty = lp, true, true
			}
		}
		if i == v.fr.bench && known {
			p.bench, p.benchOK = price, rateOK
			if !v.unit {
				p.bench = price.Mul(rate)
			}
		}
		if !r.oz.IsPositive() {
			continue
		}
		if !known {
			p.ok = false
			continue
		}
		if r.dirty {
			// Only a move of the ounces or the price recomputes the product.
			v.worth[i], r.dirty = r.oz.Mul(price), false
		}
		value = value.Add(v.worth[i])
	}
	return value
}
