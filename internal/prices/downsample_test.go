package prices

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// checkPeaks asserts the guarantee of Downsample: at most maxPoints ascending original
// closes, the first and last kept, and the lowest and highest close of every window of
// DownsampleWindow(n, maxPoints) consecutive closes present.
func checkPeaks(t *testing.T, pts, got []Close, maxPoints int) {
	t.Helper()
	n := len(pts)
	if len(got) > maxPoints && n > maxPoints {
		t.Fatalf("n=%d max=%d: %d points, over the budget", n, maxPoints, len(got))
	}
	at := map[time.Time]decimal.Decimal{}
	for i, p := range got {
		if i > 0 && !p.Date.After(got[i-1].Date) {
			t.Fatalf("n=%d max=%d: output not ascending at %d", n, maxPoints, i)
		}
		at[p.Date] = p.Price
	}
	if n == 0 || maxPoints < 2 {
		return
	}
	checkExtremes(t, pts, got, maxPoints)
	if maxPoints < 4 && n > maxPoints {
		return // the budget holds the series' extremes, not every window's
	}
	if !got[0].Date.Equal(pts[0].Date) || !got[len(got)-1].Date.Equal(pts[n-1].Date) {
		t.Fatalf("n=%d max=%d: first or last close dropped", n, maxPoints)
	}
	w := DownsampleWindow(n, maxPoints)
	if w == 0 {
		if n <= maxPoints && len(got) != n {
			t.Fatalf("n=%d max=%d: a series within the budget lost points", n, maxPoints)
		}
		return
	}
	for lo := 0; lo < n; lo += w {
		win := pts[lo:min(lo+w, n)]
		hi := slices.MaxFunc(win, func(a, b Close) int { return a.Price.Cmp(b.Price) })
		lw := slices.MinFunc(win, func(a, b Close) int { return a.Price.Cmp(b.Price) })
		for _, want := range []Close{hi, lw} {
			// Equal prices may be represented by any close of the window with that price.
			found := false
			for _, c := range win {
				if p, ok := at[c.Date]; ok && p.Equal(want.Price) && c.Price.Equal(want.Price) {
					found = true
					break
				}
			}
			if !found {
				t.Fatalf("n=%d max=%d window %d..%d: extreme %s (%s) missing", n, maxPoints, lo, lo+len(win)-1, want.Price, want.Date.Format(time.DateOnly))
			}
		}
	}
}

// checkExtremes asserts that the series' lowest and highest close are among the kept ones
// (an equal close of the same price stands for either).
func checkExtremes(t *testing.T, pts, got []Close, maxPoints int) {
	t.Helper()
	if len(pts) == 0 {
		return
	}
	byPrice := func(a, b Close) int { return a.Price.Cmp(b.Price) }
	hi, lo := slices.MaxFunc(pts, byPrice), slices.MinFunc(pts, byPrice)
	for _, want := range []Close{lo, hi} {
		if !slices.ContainsFunc(got, func(c Close) bool { return c.Price.Equal(want.Price) }) {
			t.Fatalf("n=%d max=%d: the series' extreme %s (%s) is missing from %d points", len(pts), maxPoints, want.Price, want.Date.Format(time.DateOnly), len(got))
		}
	}
}

// TestDownsampleKeepsGlobalExtremes is issue 23, item 9: max_points 2 and 3 kept the first and
// last close and lost the series' low (and high) in 15 of 16 cases. For random series and
// every budget from 2 up to the series' length, the lowest and highest close survive, within
// the budget.
func TestDownsampleKeepsGlobalExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 9))
	for iter := 0; iter < 60; iter++ {
		pts := randomSeries(r, 2+r.IntN(150))
		for maxPoints := 2; maxPoints <= len(pts)+1; maxPoints++ {
			got := Downsample(pts, maxPoints)
			if len(got) > maxPoints {
				t.Fatalf("n=%d max=%d: %d points", len(pts), maxPoints, len(got))
			}
			checkExtremes(t, pts, got, maxPoints)
		}
	}
}

func randomSeries(r *rand.Rand, n int) []Close {
	out := make([]Close, n)
	d := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	p := decimal.NewFromInt(1000)
	for i := range out {
		step := decimal.New(int64(r.IntN(2001)-1000), -2) // ±10.00
		if r.IntN(50) == 0 {
			step = step.Mul(decimal.NewFromInt(20)) // the odd spike
		}
		p = decimal.Max(p.Add(step), decimal.New(1, -4))
		if r.IntN(7) == 0 {
			p = p.Add(decimal.New(int64(r.IntN(10000)), -4)) // four-place prices too
		}
		out[i] = Close{Date: d.AddDate(0, 0, i), Price: p}
	}
	return out
}

// TestDownsampleKeepsEveryWindowsPeaks is the property test: for random series, sizes and
// budgets, every window's lowest and highest close survives.
func TestDownsampleKeepsEveryWindowsPeaks(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 2026))
	for iter := 0; iter < 400; iter++ {
		n := r.IntN(3000)
		maxPoints := 2 + r.IntN(300)
		if iter%5 == 0 {
			maxPoints = 4 + r.IntN(6)
		}
		pts := randomSeries(r, n)
		checkPeaks(t, pts, Downsample(pts, maxPoints), maxPoints)
	}
	// Exact fits and off-by-ones around the budget.
	for _, n := range []int{0, 1, 2, 3, 4, 5, 99, 100, 101, 199, 200, 201} {
		for _, m := range []int{2, 3, 4, 5, 100, 101} {
			pts := randomSeries(r, n)
			checkPeaks(t, pts, Downsample(pts, m), m)
		}
	}
}

// TestDownsampleRealPeaks names the closes the old LTTB dropped from the ALL range at the
// default size of 1,000 points.
func TestDownsampleRealPeaks(t *testing.T) {
	for _, c := range []struct {
		metal       metals.Metal
		date, price string
	}{
		{metals.Gold, "2011-09-05", "1895"},
		{metals.Silver, "1980-01-18", "49.45"},
		{metals.Gold, "1980-01-21", "850"},
	} {
		daily, monthly, err := Embedded(c.metal)
		if err != nil {
			t.Fatal(err)
		}
		all := MergeSeries(daily, monthly)
		got := Downsample(all, DefaultMaxPoints)
		want := Close{Date: mustDate(c.date), Price: decimal.RequireFromString(c.price)}
		if !slices.ContainsFunc(got, func(p Close) bool { return p.Date.Equal(want.Date) && p.Price.Equal(want.Price) }) {
			t.Errorf("%s ALL: close %s $%s missing from %d points", c.metal, c.date, c.price, len(got))
		}
		checkPeaks(t, all, got, DefaultMaxPoints)
	}
}

func mustDate(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// BenchmarkDownsample compares Downsample with the LTTB it replaced (the baseline) on the
// real gold ALL series at the default 1,000 points.
func BenchmarkDownsample(b *testing.B) {
	daily, monthly, err := Embedded(metals.Gold)
	if err != nil {
		b.Fatal(err)
	}
	all := MergeSeries(daily, monthly)
	b.Run("Downsample", func(b *testing.B) {
		for range b.N {
			Downsample(all, DefaultMaxPoints)
		}
	})
	b.Run("LTTB-baseline", func(b *testing.B) {
		for range b.N {
			LTTB(all, DefaultMaxPoints)
		}
	})
}
