package prices_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestHistoryQueryCheck(t *testing.T) {
	ok, err := prices.HistoryQuery{Metal: metals.Gold}.Check()
	if err != nil || ok.Range != prices.DefaultRange || ok.MaxPoints != prices.DefaultMaxPoints {
		t.Fatalf("defaults: %+v %v", ok, err)
	}
	for _, c := range []struct {
		q     prices.HistoryQuery
		field string
	}{
		{prices.HistoryQuery{}, "metal"},
		{prices.HistoryQuery{Metal: "tin"}, "metal"},
		{prices.HistoryQuery{Metal: "Gold"}, "metal"},
		{prices.HistoryQuery{Metal: metals.Gold, Range: "2Y"}, "range"},
		{prices.HistoryQuery{Metal: metals.Gold, Range: "1y"}, "range"},
		{prices.HistoryQuery{Metal: metals.Gold, MaxPoints: 1}, "max_points"},
		{prices.HistoryQuery{Metal: metals.Gold, MaxPoints: 3}, "max_points"}, // below 4 a window's peaks do not fit
		{prices.HistoryQuery{Metal: metals.Gold, MaxPoints: prices.MaxHistoryPoints + 1}, "max_points"},
	} {
		_, err := c.q.Check()
		if f := apperr.FieldsOf(err); len(f) != 1 || f[0].Field != c.field {
			t.Errorf("%+v: %v, want invalid %s", c.q, err, c.field)
		}
	}
}

func TestBoardFigures(t *testing.T) {
	snap := prices.Snapshot{Prices: map[metals.Metal]prices.Spot{
		metals.Gold:   {Price: dec("2650.40")},
		metals.Silver: {Price: dec("31.20"), Stale: true},
	}}
	r, ok := snap.GoldSilverRatio()
	if !ok || r.StringFixed(2) != "84.95" {
		t.Fatalf("ratio %s %v", r, ok)
	}
	if !snap.AnyStale() {
		t.Fatal("a stale silver price is not noticed")
	}
	delete(snap.Prices, metals.Silver)
	if _, ok := snap.GoldSilverRatio(); ok || snap.AnyStale() {
		t.Fatal("a ratio without silver, or staleness without a stale price")
	}

	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	res := prices.HistoryResult{Points: []prices.Close{{Date: day(1), Price: dec("30")}, {Date: day(2), Price: dec("32")}, {Date: day(3), Price: dec("29")}, {Date: day(4), Price: dec("32")}}}
	hi, lo, ok := res.Extremes()
	if !ok || !hi.Date.Equal(day(2)) || !lo.Date.Equal(day(3)) {
		t.Fatalf("extremes: high %+v low %+v", hi, lo)
	}
	if _, _, ok := (prices.HistoryResult{}).Extremes(); ok {
		t.Fatal("extremes of nothing")
	}
}

func TestPriceHistoryUseCase(t *testing.T) {
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC) }
	svc, err := prices.NewService(ctx, dbtest.SQLite(t), prices.ServiceConfig{Offline: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PriceHistory(ctx, prices.HistoryQuery{Metal: metals.Gold, Range: "2Y"}); apperr.KindOf(err) != apperr.Invalid {
		t.Fatalf("bad range: %v", err)
	}
	res, err := svc.PriceHistory(ctx, prices.HistoryQuery{Metal: metals.Silver, Range: prices.Range5Y, MaxPoints: 50})
	if err != nil || res.Metal != metals.Silver || res.Range != prices.Range5Y || len(res.Points) > 50 || len(res.Points) < 40 || res.Granularity != "daily" {
		t.Fatalf("5Y: %v %+v", err, res)
	}
	def, _ := svc.PriceHistory(ctx, prices.HistoryQuery{Metal: metals.Gold})
	if def.Range != prices.DefaultRange || len(def.Points) == 0 {
		t.Fatalf("defaults: %s %d points", def.Range, len(def.Points))
	}
	if snap := svc.SpotPrices(ctx); len(snap.Prices) != len(metals.All) || !snap.AnyStale() {
		t.Fatalf("offline board: %d prices, stale %v", len(snap.Prices), snap.AnyStale())
	}
}

func TestImportCloses(t *testing.T) {
	if _, err := prices.ParseImport(strings.NewReader("date,usd_per_oz\n"), metals.Gold); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Fatalf("empty file: %v", err)
	}
	// A per-gram file is refused before anything is stored, naming the metal and the day.
	if _, err := prices.ParseImport(strings.NewReader("date,usd_per_oz\n2026-11-19,4.10\n"), metals.Gold); err == nil ||
		!strings.Contains(err.Error(), "gold on 2026-11-19") {
		t.Fatalf("per-gram file: %v", err)
	}
	closes, err := prices.ParseImport(strings.NewReader("date,usd_per_oz\n2026-11-18,4100.50\n2026-11-19,4123.25\n"), metals.Gold)
	if err != nil || len(closes) != 2 {
		t.Fatalf("good file: %v %v", closes, err)
	}
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		if err := prices.ImportCloses(ctx, s, metals.Gold, "weekly", closes, "import:test", nil); err == nil {
			t.Fatal("unknown granularity accepted")
		}
		var done []int
		if err := prices.ImportCloses(ctx, s, metals.Gold, db.Daily, closes, "import:test", func(n int) { done = append(done, n) }); err != nil {
			t.Fatal(err)
		}
		if len(done) != 1 || done[0] != 2 {
			t.Fatalf("progress: %v", done)
		}
		rows, err := s.Closes(ctx, db.Daily)
		if err != nil || len(rows) != 2 || !rows[1].Price.Equal(dec("4123.25")) || rows[1].Source != "import:test" {
			t.Fatalf("stored: %+v %v", rows, err)
		}
	})
}
