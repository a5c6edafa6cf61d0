package alerts_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestImportedCloseFiresAlertOnce: an offline server's palladium price is its last stored
// close (1724.5 on 2026-02-05). An operator imports the close of 2026-02-06, 1850, while the
// server runs: the board takes it and the armed "above 1800" alert fires, once. Seeing the
// same crossing again — the same file imported again, the same price as a tick — fires
// nothing more. Both engines.
func TestImportedCloseFiresAlertOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx, cancel := context.WithCancel(t.Context())
		clock := func() time.Time { return time.Date(2026, 2, 9, 12, 0, 0, 0, time.UTC) }
		s.Now = clock
		market, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: clock, ImportCheck: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		svc := alerts.New(alerts.Deps{Store: s, Market: market, Now: clock})
		u, err := s.InsertUser(ctx, "imported-close@example.com", "h", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		a, err := svc.Create(ctx, u, alerts.AlertInput{Metal: ptr("palladium"), Direction: ptr(alerts.Above), TargetPrice: ptr(decimal.RequireFromString("1800")), Repeat: ptr(alerts.Rearm)})
		if err != nil {
			t.Fatal(err)
		}
		running := make(chan struct{}, 2)
		go func() { defer func() { running <- struct{}{} }(); market.Run(ctx) }()
		go func() { defer func() { running <- struct{}{} }(); svc.Run(ctx) }()
		defer func() { cancel(); <-running; <-running }()

		closes := []prices.Close{{Date: time.Date(2026, 2, 6, 0, 0, 0, 0, time.UTC), Price: decimal.RequireFromString("1850")}}
		if err := prices.ImportCloses(ctx, s, metals.Palladium, db.Daily, closes, "import:palladium.csv", nil); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			n, err := svc.Unread(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the imported close crossing the alert's target did not fire it")
			}
			select {
			case <-market.Reloaded():
			case <-time.After(20 * time.Millisecond):
			}
		}
		if sp := market.Snapshot().Prices[metals.Palladium]; !sp.Price.Equal(decimal.RequireFromString("1850")) || !sp.Stale || !sp.FromClose {
			t.Errorf("board's palladium %+v, want the imported 1850, stale and marked FromClose", sp)
		}

		// The same crossing again: the file imported a second time, then the same price as a tick.
		reloaded := market.Reloaded()
		if err := prices.ImportCloses(ctx, s, metals.Palladium, db.Daily, closes, "import:palladium.csv", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-reloaded:
		case <-time.After(15 * time.Second):
			t.Fatal("second import not picked up")
		}
		svc.EvaluateSnapshot(ctx, market.Snapshot())
		if r, err := svc.Evaluate(ctx, alerts.Tick{Metal: metals.Palladium, Price: decimal.RequireFromString("1850"), AsOf: closes[0].Date}); err != nil || r.Fired != 0 {
			t.Errorf("the same crossing as a tick fired %d (%v)", r.Fired, err)
		}
		ns, err := svc.Notifications(ctx, u, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) != 1 || ns[0].AlertID != a.ID || !ns[0].Price.Equal(decimal.RequireFromString("1850")) || !ns[0].PriceAsOf.Equal(closes[0].Date) {
			t.Fatalf("notifications %+v, want one for alert %d at 1850 as of 2026-02-06", ns, a.ID)
		}
	})
}
