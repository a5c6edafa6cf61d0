package prices

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestOpenHistoryKeepsOnlyOpenSeries: a database seeded with the full embedded history, then
// started with OUNCE_HISTORY=open, holds no licensed embedded close any more, holds the World
// Bank monthly series, and keeps what the server recorded or an operator imported.
func TestOpenHistoryKeepsOnlyOpenSeries(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		if _, err := NewService(ctx, s, ServiceConfig{Offline: true}); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountClosesFrom(ctx, embeddedMark); n == 0 {
			t.Fatal("the full history was not loaded first")
		}
		own := db.PriceClose{Metal: "gold", Granularity: db.Daily, Day: db.NewDate(time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)), Price: decimal.RequireFromString("2650.5"), Source: "gold-api"}
		if err := s.UpsertCloses(ctx, []db.PriceClose{own}); err != nil {
			t.Fatal(err)
		}
		svc, err := NewService(ctx, s, ServiceConfig{Offline: true, OpenHistoryOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var daily, monthly []db.PriceClose
		if daily, err = s.Closes(ctx, db.Daily); err != nil {
			t.Fatal(err)
		}
		if monthly, err = s.Closes(ctx, db.Monthly); err != nil {
			t.Fatal(err)
		}
		perMetal := map[string]int{}
		for _, c := range append(daily, monthly...) {
			if strings.HasSuffix(c.Source, embeddedMark) {
				t.Fatalf("licensed close left: %+v", c)
			}
			if c.Source == OpenHistorySource {
				perMetal[c.Metal]++
			}
		}
		if len(daily) != 1 || daily[0].Source != "gold-api" || !daily[0].Price.Equal(own.Price) {
			t.Fatalf("daily closes: %+v, want only the recorded one", daily)
		}
		// 797 months (1960-01 … 2026-05) of gold, silver and platinum; no open palladium series.
		if perMetal["gold"] != 797 || perMetal["silver"] != 797 || perMetal["platinum"] != 797 || perMetal["palladium"] != 0 {
			t.Fatalf("open monthly closes per metal: %v", perMetal)
		}
		svc.mu.RLock()
		m := svc.monthly[metals.Gold]
		svc.mu.RUnlock()
		if len(m) != 797 || m[0].Price.String() != "35.27" || m[0].Date.Format("2006-01-02") != "1960-01-01" {
			t.Fatalf("service monthly gold: %d rows, first %+v", len(m), m[:1])
		}
	})
}
