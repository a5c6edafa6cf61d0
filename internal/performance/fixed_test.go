package performance

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestFixedValuationEqualsDecimal: a dollar timeline valued in integers (fixed.go) has exactly
// the points, sums and period figures of the same timeline valued in decimals, for random
// stacks of every size (ounces to 1e-8, money to the cent, prices to 1e-4, sales and losses,
// live prices today, a day without a price), valued whole and resumed from a kept point.
func TestFixedValuationEqualsDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	today := day("2025-03-14")
	first := day("2023-01-01")
	for round := range 40 {
		mk := &fakeMarket{closes: map[metals.Metal][]prices.Close{}}
		scale := []int64{1, 1e3, 1e6, 1e9}[round%4] // from a coin to a vault
		for d := first; !d.After(today); d = d.AddDate(0, 0, 1) {
			if d.Weekday() == time.Sunday || (round%5 == 0 && d.Equal(day("2024-02-02"))) {
				continue
			}
			mk.closes[metals.Gold] = append(mk.closes[metals.Gold], prices.Close{Date: d, Price: decimal.New(18000000+rng.Int64N(9000000), -4)})
			mk.closes[metals.Silver] = append(mk.closes[metals.Silver], prices.Close{Date: d, Price: decimal.New(150000+rng.Int64N(200000), -4)})
			if d.After(day("2023-06-01")) || round%3 != 0 { // platinum's closes start late in some rounds
				mk.closes[metals.Platinum] = append(mk.closes[metals.Platinum], prices.Close{Date: d, Price: decimal.New(9000+rng.Int64N(900), 0)})
			}
		}
		var days []db.PerformanceDay
		for d := first; !d.After(today); d = d.AddDate(0, 0, 1+rng.IntN(6)) {
			for _, m := range []metals.Metal{metals.Gold, metals.Platinum, metals.Silver} {
				if rng.IntN(3) == 0 {
					continue
				}
				oz := rng.Int64N(100_000_000*scale) + 1
				pd := db.PerformanceDay{Metal: m, Day: db.Date{Time: d}, Oz: decimal.New(oz, -8), Bought: decimal.New(rng.Int64N(300000*scale), -2),
					Proceeds: decimal.Zero, Realized: decimal.Zero}
				if rng.IntN(4) == 0 { // a sale
					pd.Oz = decimal.New(-oz/3, -8)
					pd.Bought = decimal.Zero
					pd.Proceeds = decimal.New(rng.Int64N(100000*scale), -2)
					pd.Realized = decimal.New(rng.Int64N(20000*scale)-10000*scale, -2)
				}
				days = append(days, pd)
			}
		}
		var live map[metals.Metal]decimal.Decimal
		if round%2 == 0 {
			live = map[metals.Metal]decimal.Decimal{metals.Gold: dec("2701.1234"), metals.Silver: dec("31.5"), metals.Platinum: dec("990")}
		}
		bench := []metals.Metal{metals.Gold, metals.Silver, metals.Palladium}[round%3]
		extra := []time.Time{day("2024-12-31"), day("2024-03-14"), day("2025-03-09")}
		lo := first.AddDate(0, 0, 3)
		fast := newFrame(heldMask(days, bench), mk, bench, lo, today, extra)
		if !fast.fixed {
			t.Fatal("the closes are exact to 1e-4: the frame should be valued in integers")
		}
		slow := *fast
		slow.fixed = false
		want, wantOz, _ := slow.value(days, USD{}, live, today, nil, ozSnap{}, 0)
		got, gotOz, _ := fast.value(days, USD{}, live, today, nil, ozSnap{}, 0)
		// A vault of a billion ounces a lot overflows the integers: valued in decimals.
		if gotOz.fixed != (scale < 1e9) || wantOz.fixed {
			t.Fatalf("round %d: modes: integers %v, decimals %v", round, gotOz.fixed, wantOz.fixed)
		}
		same(t, fmt.Sprintf("round %d", round), want, got)
		// Resumed from a kept point, after the ledger changed from a day on.
		from := len(got) / 2
		changed := append([]db.PerformanceDay(nil), days...)
		for i := range changed {
			if !changed[i].Day.Before(got[from].day) && i%7 == 0 {
				changed[i].Oz = changed[i].Oz.Add(decimal.New(12345, -8))
				changed[i].Bought = changed[i].Bought.Add(decimal.New(99, -2))
			}
		}
		want, _, _ = slow.value(changed, USD{}, live, today, nil, ozSnap{}, 0)
		resumed, _, at := fast.value(changed, USD{}, live, today, got, gotOz, from)
		if at != from {
			t.Fatalf("round %d: resumed at %d, want %d", round, at, from)
		}
		same(t, fmt.Sprintf("round %d resumed", round), want, resumed)
		if x, y := prepareFrom(resumed, prepare(got), from), prepare(want); fmt.Sprint(x.chain) != fmt.Sprint(y.chain) {
			t.Errorf("round %d: the resumed chain differs", round)
		}
	}
}

// same fails unless two valued timelines and everything measured from them are equal.
func same(t *testing.T, what string, want, got []point) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d points, want %d", what, len(got), len(want))
	}
	for i := range want {
		w, g := want[i], got[i]
		if !w.day.Equal(g.day) || w.ok != g.ok || w.benchOK != g.benchOK || w.value.String() != g.value.String() || !w.in.Equal(g.in) ||
			!w.out.Equal(g.out) || !w.realized.Equal(g.realized) || !w.oz.Equal(g.oz) || !w.bench.Equal(g.bench) {
			t.Fatalf("%s: point %d (%s):\n got %+v\nwant %+v", what, i, isoDay(w.day), g, w)
		}
	}
	xw, xg := prepare(want), prepare(got)
	for i := range want {
		if !xw.chain[i].Equal(xg.chain[i]) || !xw.benchOz[i].Equal(xg.benchOz[i]) || !xw.in[i].Equal(xg.in[i]) || !xw.realized[i].Equal(xg.realized[i]) ||
			xw.linked[i] != xg.linked[i] || xw.zeros[i] != xg.zeros[i] || xw.unknown[i] != xg.unknown[i] || xw.fin[i] != xg.fin[i] || xw.fout[i] != xg.fout[i] {
			t.Fatalf("%s: sums at point %d differ: chain %s / %s, bench oz %s / %s", what, i, xg.chain[i], xw.chain[i], xg.benchOz[i], xw.benchOz[i])
		}
	}
	for _, s := range []int{0, 1, len(want) / 3, len(want) / 2, len(want) - 2} {
		if w, g := figString(xw.measure(s, len(want)-1)), figString(xg.measure(s, len(want)-1)); w != g {
			t.Errorf("%s: the figures from point %d differ:\n got %s\nwant %s", what, s, g, w)
		}
	}
}

// figString shows a period's figures by value.
func figString(f figures) string {
	v := func(d *decimal.Decimal) string {
		if d == nil {
			return "nil"
		}
		return d.String()
	}
	return fmt.Sprint(v(f.start), v(f.end), v(f.net), v(f.gain), v(f.unrealized), v(f.realized), v(f.twr), v(f.mwrAnnual), v(f.mwrPeriod),
		f.annualized, f.ozStart, f.ozEnd, v(f.benchEnd), v(f.benchGain), v(f.benchTWR), f.notes)
}
