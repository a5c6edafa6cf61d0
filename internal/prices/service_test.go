package prices_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

func TestServiceFirstStartLoadsHistoryAndSeedsStalePrices(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := func() time.Time { return time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC) }
		start := time.Now()
		svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("first start with history load: %v", time.Since(start))
		n, _ := s.CountCloses(ctx)
		if n < 50000 {
			t.Fatalf("only %d closes loaded", n)
		}
		snap := svc.Snapshot()
		g, ok := snap.Prices[metals.Gold]
		if !ok || !g.Stale {
			t.Fatalf("gold seed = %+v", g)
		}
		if g.AsOf.Format("2006-01-02") != "2026-08-17" || g.PrevClose.IsZero() {
			t.Fatalf("gold seeded from the last embedded close: %+v", g)
		}
		// A second start loads nothing again.
		if _, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: now}); err != nil {
			t.Fatal(err)
		}
		if n2, _ := s.CountCloses(ctx); n2 != n {
			t.Fatalf("history loaded twice: %d → %d", n, n2)
		}
		// ALL reaches back to 1950 for gold through monthly averages.
		all := svc.History(metals.Gold, prices.RangeAll, 1000)
		if all.From.Year() != 1950 || all.Granularity != "monthly+daily" || len(all.Points) > 1000 || len(all.Points) < 900 {
			t.Fatalf("ALL: from %v gran %s n %d", all.From, all.Granularity, len(all.Points))
		}
		// Silver's data ends on 2026-08-10: 5Y counts back from there.
		y := svc.History(metals.Silver, prices.Range5Y, 50)
		if len(y.Points) > 50 || len(y.Points) < 40 || y.From.Before(time.Date(2021, 8, 10, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("5Y: %v %d", y.From, len(y.Points))
		}
		// The 1980 peak survives downsampling of the whole gold series.
		peak := decimal.RequireFromString("850")
		found := false
		for _, p := range all.Points {
			if p.Date.Year() == 1980 && p.Price.GreaterThanOrEqual(peak) {
				found = true
			}
		}
		if !found {
			t.Fatal("gold's 1980 peak of $850 lost in downsampling")
		}
		// Every peak the old LTTB dropped from ALL at the default size survives (issue 10).
		for _, c := range []struct {
			m     metals.Metal
			day   string
			price string
		}{{metals.Gold, "2011-09-05", "1895"}, {metals.Silver, "1980-01-18", "49.45"}, {metals.Gold, "1980-01-21", "850"}} {
			res, err := svc.PriceHistory(ctx, prices.HistoryQuery{Metal: c.m, Range: prices.RangeAll})
			if err != nil {
				t.Fatal(err)
			}
			kept := false
			for _, p := range res.Points {
				kept = kept || (p.Date.Format(time.DateOnly) == c.day && p.Price.Equal(decimal.RequireFromString(c.price)))
			}
			if !kept {
				t.Errorf("%s ALL lost the close of %s, $%s", c.m, c.day, c.price)
			}
		}
		c, ok := svc.CloseOn(metals.Gold, time.Date(1980, 1, 21, 0, 0, 0, 0, time.UTC))
		if !ok || !c.Equal(peak) {
			t.Fatalf("close on 1980-01-21 = %s", c)
		}
		if c, ok := svc.CloseOn(metals.Gold, time.Date(1955, 6, 15, 0, 0, 0, 0, time.UTC)); !ok || c.IsZero() {
			t.Fatal("no monthly close for 1955")
		}
	})
}

// TestHistoryAnchorsAtThroughWhenDataEnds is issue 10, case 4: offline in November with the
// data ending in August, 1M and 3M were empty (count 0) with nothing saying why.
func TestHistoryAnchorsAtThroughWhenDataEnds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) }
		svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			r        prices.Range
			from     string
			stale    bool
			minCount int
		}{
			{prices.Range1M, "2026-07-17", true, 15},
			{prices.Range3M, "2026-05-18", true, 50},
			{prices.Range1Y, "2025-08-18", true, 200}, // 17 Aug 2025 is a Sunday
		} {
			res, err := svc.PriceHistory(ctx, prices.HistoryQuery{Metal: metals.Gold, Range: c.r})
			if err != nil {
				t.Fatal(err)
			}
			if res.Through.Format(time.DateOnly) != "2026-08-17" || res.Stale != c.stale || len(res.Points) < c.minCount ||
				res.From.Format(time.DateOnly) != c.from || res.To.Format(time.DateOnly) != "2026-08-17" {
				t.Errorf("gold %s: through %s stale %t, %d points %s..%s; want through 2026-08-17 stale %t, ≥%d points from %s",
					c.r, res.Through.Format(time.DateOnly), res.Stale, len(res.Points), res.From.Format(time.DateOnly), res.To.Format(time.DateOnly), c.stale, c.minCount, c.from)
			}
		}
	})
}
