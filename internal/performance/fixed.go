package performance

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// The hot loops of a dollar timeline in integers: the ledger's ounces are exact to 1e-8 oz
// and its money to the cent, and closes to 1e-4 dollars (metals.PricePlaces), so a day's
// value Σ oz × price is an exact integer of 1e-12 dollars (128 bits), rounded to the cent as
// metals.Money rounds (half away from zero). The TWR chain's step and the benchmark's ounces
// are exact integer quotients rounded as decimal.DivRound rounds. Each gives the same number
// as the decimal arithmetic, which is used whenever an amount does not fit.

// chainOne is a chain of 1 in 1e-16; noFixed marks a chain that does not fit in an int64.
const (
	chainOne = int64(1e16)
	noFixed  = math.MinInt64
)

const (
	ozScale    = 8 // the ledger's ounces: 1e-8 oz
	priceScale = 4 // closes: 1e-4 dollars
	centScale  = 2
)

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// fixed is d in units of 10^-places when it is exactly that and fits in an int64 (of at most
// 18 digits).
func fixed(d decimal.Decimal, places int32) (int64, bool) {
	shift := d.Exponent() + places
	if shift < 0 || shift > 18 || d.NumDigits()+int(shift) > 18 {
		return 0, false
	}
	return d.CoefficientInt64() * int64(pow10[shift]), true
}

// mulAdd adds a × b (a, b ≥ 0) to the 128-bit hi:lo.
func mulAdd(hi, lo uint64, a, b int64) (uint64, uint64) {
	ph, pl := bits.Mul64(uint64(a), uint64(b))
	lo, c := bits.Add64(lo, pl, 0)
	hi, _ = bits.Add64(hi, ph, c)
	return hi, lo
}

// divRound is hi:lo / d (d > 0) rounded half away from zero (hi:lo ≥ 0); ok false when the
// quotient does not fit in an int64.
func divRound(hi, lo, d uint64) (int64, bool) {
	if hi >= d {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, d)
	if r >= d-r { // 2r ≥ d, without overflow
		q++
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// mulDivRound is a × b / d rounded half away from zero, as decimal.DivRound rounds the exact
// quotient; ok false when the quotient does not fit in an int64 (or d is 0).
func mulDivRound(a, b, d int64) (int64, bool) {
	if d == 0 || a == math.MinInt64 || b == math.MinInt64 || d == math.MinInt64 {
		return 0, false
	}
	neg := (a < 0) != (b < 0) != (d < 0)
	hi, lo := bits.Mul64(abs64(a), abs64(b))
	q, ok := divRound(hi, lo, abs64(d))
	if !ok {
		return 0, false
	}
	if neg {
		q = -q
	}
	return q, true
}

func abs64(a int64) uint64 {
	if a < 0 {
		return uint64(-a)
	}
	return uint64(a)
}

// fixedCloses are each metal's closes (and opening close) in units of 1e-4, when every one
// is exact at that precision and not negative.
func (fr *frame) fixedCloses() {
	fr.closeE4 = make([][]int64, len(fr.closes))
	fr.openE4 = make([]int64, len(fr.closes))
	fr.fixed = true
	for i, cl := range fr.closes {
		if fr.openOK[i] {
			fr.openE4[i], fr.fixed = priceE4(fr.open[i], fr.fixed)
		}
		fr.closeE4[i] = make([]int64, len(cl))
		for j, c := range cl {
			fr.closeE4[i][j], fr.fixed = priceE4(c.Price, fr.fixed)
		}
	}
}

func priceE4(p decimal.Decimal, ok bool) (int64, bool) {
	v, fits := fixed(p, priceScale)
	return v, ok && fits && v >= 0
}

// liveFixed converts the live prices to 1e-4 (-1 for a metal without one); false when one is
// not exact at that precision.
func (v *valuer) liveFixed() bool {
	v.liveE4 = make([]int64, len(metals.All))
	for i, m := range metals.All {
		v.liveE4[i] = -1
		if p, ok := v.live[m]; ok {
			e, fits := priceE4(p, true)
			if !fits {
				return false
			}
			v.liveE4[i] = e
		}
	}
	return true
}

// fixedRows converts the ledger days to value (those after the kept points before from) to
// integers; false when one is more precise than the ledger keeps.
func (v *valuer) fixedRows(kept []point, from int) bool {
	v.row0 = v.resumeRow(kept, from)
	v.rows = make([]dayE, len(v.days)-v.row0)
	for j := range v.rows {
		d := &v.days[v.row0+j]
		r := &v.rows[j]
		var ok [4]bool
		r.metal = metalIndex(d.Metal)
		r.oz, ok[0] = fixed(d.Oz, ozScale)
		r.bought, ok[1] = fixed(d.Bought, centScale)
		r.proceeds, ok[2] = fixed(d.Proceeds, centScale)
		r.realzd, ok[3] = fixed(d.Realized, centScale)
		if r.metal < 0 || !ok[0] || !ok[1] || !ok[2] || !ok[3] {
			return false
		}
	}
	return true
}

// stepFixed is step in integers; false when a sum overflows them.
func (v *valuer) stepFixed(pts []point, pi int) bool {
	p := &pts[pi]
	p.day = v.fr.dates[pi]
	var in, out, realized int64
	moved, ok := false, true
	for v.di < len(v.days) && !v.days[v.di].Day.After(p.day) {
		d := &v.rows[v.di-v.row0]
		r := &v.run[d.metal]
		r.ozE8 = add64(r.ozE8, d.oz, &ok)
		moved = true
		if pi > 0 {
			in, out, realized = add64(in, d.bought, &ok), add64(out, d.proceeds, &ok), add64(realized, d.realzd, &ok)
		}
		v.di++
	}
	if moved {
		var held int64
		for i := range v.run {
			if v.run[i].ozE8 > 0 {
				held = add64(held, v.run[i].ozE8, &ok)
			}
		}
		v.oz = decimal.Zero
		if held != 0 {
			v.oz = decimal.New(held, -ozScale)
		}
	}
	p.ok, p.oz = true, v.oz
	p.in, p.out, p.realized = cents(in), cents(out), cents(realized)
	p.fixed, p.inC, p.outC = true, in, out
	p.value, p.valueC = v.worthFixed(p)
	return ok
}

// add64 is a + b, clearing ok when that overflows an int64 (a bound far past any stack: 92
// billion ounces, 92 quadrillion dollars).
func add64(a, b int64, ok *bool) int64 {
	c := a + b
	if (c > a) != (b > 0) {
		*ok = false
	}
	return c
}

func cents(c int64) decimal.Decimal {
	if c == 0 {
		return decimal.Zero
	}
	return decimal.New(c, -centScale)
}

// worthFixed is worthOn in integers: the stack's value to the cent at p's day's prices, and
// in cents (p.fixed false when that does not fit).
func (v *valuer) worthFixed(p *point) (decimal.Decimal, int64) {
	isToday := len(v.live) > 0 && p.day.Equal(v.today)
	var hi, lo uint64
	for i := range v.run {
		r, cl := &v.run[i], v.fr.closes[i]
		for r.next < len(cl) && !cl[r.next].Date.After(p.day) {
			r.last, r.known, r.lastE4 = cl[r.next].Price, true, v.fr.closeE4[i][r.next]
			r.next++
		}
		price, known, e4 := r.last, r.known, r.lastE4
		if isToday && v.liveE4[i] >= 0 {
			price, known, e4 = v.live[metals.All[i]], true, v.liveE4[i]
		}
		if i == v.fr.bench && known {
			p.bench, p.benchOK, p.benchE4 = price, true, e4
		}
		if r.ozE8 <= 0 {
			continue
		}
		if !known {
			p.ok = false
			continue
		}
		hi, lo = mulAdd(hi, lo, r.ozE8, e4)
	}
	c, ok := divRound(hi, lo, pow10[ozScale+priceScale-centScale])
	if !ok {
		// Worth more than an int64 of cents: the same sum in decimals.
		p.fixed = false
		sum := decimal.Zero
		for i := range v.run {
			if r := &v.run[i]; r.ozE8 > 0 && r.known {
				e4 := r.lastE4
				if isToday && v.liveE4[i] >= 0 {
					e4 = v.liveE4[i]
				}
				sum = sum.Add(decimal.New(r.ozE8, -ozScale).Mul(decimal.New(e4, -priceScale)))
			}
		}
		return metals.Money(sum), 0
	}
	return decimal.New(c, -centScale), c
}
