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

// TestNewerClosesBecomeThePrice: a close stored newer than the board's price becomes that
// metal's price, stale and marked FromClose — picked up by a running service when an import
// moves the price revision (CheckImports), and by a service starting after an import made
// while none ran; a correction of an earlier day re-reads the history but moves no price.
func TestNewerClosesBecomeThePrice(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		clock := func() time.Time { return time.Date(2026, 2, 9, 12, 0, 0, 0, time.UTC) }
		// The last live palladium price was stored on 2026-02-05.
		if err := s.SaveLatest(ctx, []db.LatestQuote{{Metal: "palladium", Price: pickupDec("1724.5"), PrevClose: pickupDec("1700"), AsOf: time.Date(2026, 2, 5, 20, 0, 0, 0, time.UTC), Source: "gold-api"}},
			db.NewDate(time.Date(2026, 2, 5, 0, 0, 0, 0, time.UTC))); err != nil {
			t.Fatal(err)
		}
		running, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		if sp := running.Snapshot().Prices[metals.Palladium]; !sp.Price.Equal(pickupDec("1724.5")) || sp.FromClose {
			t.Fatalf("palladium before any import %+v", sp)
		}
		// A correction of an earlier day: history re-read, no price moves.
		if err := prices.ImportCloses(ctx, s, metals.Palladium, db.Daily, []prices.Close{{Date: time.Date(2023, 12, 22, 0, 0, 0, 0, time.UTC), Price: pickupDec("1250.50")}}, "import:old.csv", nil); err != nil {
			t.Fatal(err)
		}
		if ok, err := running.CheckImports(ctx); err != nil || !ok {
			t.Fatalf("correction not picked up: %v %v", ok, err)
		}
		if ok, err := running.CheckImports(ctx); err != nil || ok {
			t.Fatalf("nothing new, yet re-read: %v %v", ok, err)
		}
		if c, _ := running.CloseOn(metals.Palladium, time.Date(2023, 12, 22, 0, 0, 0, 0, time.UTC)); !c.Equal(pickupDec("1250.50")) {
			t.Fatalf("corrected close %s", c)
		}
		if sp := running.Snapshot().Prices[metals.Palladium]; !sp.Price.Equal(pickupDec("1724.5")) || sp.FromClose {
			t.Fatalf("a past correction moved the price: %+v", sp)
		}
		// A newer close: the running service takes it as its price.
		newer := []prices.Close{{Date: time.Date(2026, 2, 6, 0, 0, 0, 0, time.UTC), Price: pickupDec("1850")}}
		if err := prices.ImportCloses(ctx, s, metals.Palladium, db.Daily, newer, "import:new.csv", nil); err != nil {
			t.Fatal(err)
		}
		if ok, err := running.CheckImports(ctx); err != nil || !ok {
			t.Fatalf("import not picked up: %v %v", ok, err)
		}
		check := func(who string, svc *prices.Service) {
			t.Helper()
			sp := svc.Snapshot().Prices[metals.Palladium]
			if !sp.Price.Equal(pickupDec("1850")) || !sp.Stale || !sp.FromClose || !sp.AsOf.Equal(newer[0].Date) || sp.Source != "daily close" {
				t.Errorf("%s: palladium %+v, want the 2026-02-06 close 1850, stale, from a close", who, sp)
			}
			if g := svc.Snapshot().Prices[metals.Gold]; g.FromClose {
				t.Errorf("%s: gold, not imported, is marked from a close: %+v", who, g)
			}
		}
		check("running service", running)
		// The same holds for a service started after the import.
		started, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		check("service started later", started)
	})
}

func pickupDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
