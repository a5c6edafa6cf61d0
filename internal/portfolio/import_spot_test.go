package portfolio

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestImportedCloseReachesRunningService: `ounce prices import` (prices.ImportCloses, run by
// another process) corrects palladium's close of Friday 2023-12-22 from 1212.2 to 1250.50
// while a service runs; without a restart the service's history has the new close and the
// spot at purchase of a lot bought on Monday 2023-12-25 (Christmas: Friday's close applies)
// is recomputed by the refresh job, on both engines.
func TestImportedCloseReachesRunningService(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx, cancel := context.WithCancel(t.Context())
		clock := func() time.Time { return now }
		market, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: clock, ImportCheck: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		svc := New(Deps{Store: s, Prices: market, Now: clock})
		u := member(t, s, "import-spot@example.com", db.TierGold)
		h := create(t, svc, u, "palladium", 1, "1", "1300", "0", "2023-12-25")
		if !h.SpotAtPurchase.Valid || !h.SpotAtPurchase.Decimal.Equal(d("1212.2")) {
			t.Fatalf("spot at purchase before the import %+v, want 1212.2", h.SpotAtPurchase)
		}

		running := make(chan struct{}, 2)
		go func() { defer func() { running <- struct{}{} }(); market.Run(ctx) }()
		// An hour between looks: only the history reload can wake the refresh in time.
		go func() { defer func() { running <- struct{}{} }(); svc.RunSpotRefresh(ctx, time.Hour) }()
		defer func() { cancel(); <-running; <-running }()

		reloaded := market.Reloaded()
		day := time.Date(2023, 12, 22, 0, 0, 0, 0, time.UTC)
		if err := prices.ImportCloses(ctx, s, metals.Palladium, db.Daily, []prices.Close{{Date: day, Price: d("1250.50")}}, "import:test.csv", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-reloaded:
		case <-time.After(15 * time.Second):
			t.Fatal("the running service did not re-read its history after the import")
		}
		if c, ok := market.CloseOn(metals.Palladium, time.Date(2023, 12, 25, 0, 0, 0, 0, time.UTC)); !ok || !c.Equal(d("1250.50")) {
			t.Fatalf("running service's close for 2023-12-25 = %s, want the imported 1250.50", c)
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			got, err := svc.GetHolding(ctx, u, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.SpotAtPurchase.Valid && got.SpotAtPurchase.Decimal.Equal(d("1250.5")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("spot at purchase after the import %+v, want 1250.50", got.SpotAtPurchase)
			}
			select {
			case <-market.Reloaded():
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}
