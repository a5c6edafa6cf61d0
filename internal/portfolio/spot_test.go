package portfolio

import (
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestSpotAtPurchaseStored: each lot stores the close of its purchase day (or the last before
// it); an edit of the date or metal recomputes it; a corrected history is picked up by
// RefreshSpots; analytics' premium comes from the stored spots.
func TestSpotAtPurchaseStored(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "spot@example.com", db.TierGold)
		// Gold closes: 2025-01-10 2687.45, 2025-05-30 3277.55, 2025-06-02 3370.85.
		h := create(t, svc, u, "gold", 2, "1", "2800", "10", "2025-06-01") // a Sunday: Friday's close
		if !h.SpotAtPurchase.Valid || !h.SpotAtPurchase.Decimal.Equal(d("3277.55")) {
			t.Fatalf("spot at purchase %v, want 3277.55", h.SpotAtPurchase)
		}
		// premium = 2800 / 3277.55 − 1 = −14.57 %
		if p := h.PremiumPct(); p == nil || p.StringFixed(2) != "-14.57" {
			t.Errorf("premium %v", p)
		}
		undated, err := svc.CreateHolding(ctx, u, holdingIn(t, `{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":100}`))
		if err != nil || undated.SpotAtPurchase.Valid || undated.PremiumPct() != nil {
			t.Fatalf("undated lot: %v %+v", err, undated.SpotAtPurchase)
		}
		if _, err := svc.UpdateHolding(ctx, u, undated.ID, holdingIn(t, `{"purchase_date":"2025-01-10"}`)); err != nil {
			t.Fatal(err)
		}
		if got, _ := svc.GetHolding(ctx, u, undated.ID); !got.SpotAtPurchase.Valid || !got.SpotAtPurchase.Decimal.Equal(d("2687.45")) {
			t.Errorf("after dating: %+v", got.SpotAtPurchase)
		}
		// Changing the metal re-prices against silver's history (2024-03-15 25.22).
		if got, err := svc.UpdateHolding(ctx, u, undated.ID, holdingIn(t, `{"metal":"silver","purchase_date":"2024-06-01"}`)); err != nil ||
			!got.SpotAtPurchase.Valid || !got.SpotAtPurchase.Decimal.Equal(d("25.22")) {
			t.Errorf("after metal change: %v %+v", err, got.SpotAtPurchase)
		}
		// A lot with sales can still be re-dated, and its spot follows.
		if _, err := svc.RecordSale(ctx, u, h.ID, saleIn(t, `{"quantity":1,"price_per_unit":3000,"sold_on":"2025-07-01"}`)); err != nil {
			t.Fatal(err)
		}
		if got, err := svc.UpdateHolding(ctx, u, h.ID, holdingIn(t, `{"purchase_date":"2025-06-02"}`)); err != nil || !got.SpotAtPurchase.Decimal.Equal(d("3370.85")) {
			t.Errorf("re-dated sold lot: %v %+v", err, got.SpotAtPurchase)
		}

		// The history is corrected: the 2025-06-02 close was 3300. Nothing changes until the
		// refresh, which rewrites only that lot.
		fm := svc.market.(fakeMarket)
		fm.closes = map[metals.Metal][]prices.Close{metals.Gold: closes("2025-01-10", "2687.45", "2025-05-30", "3277.55", "2025-06-02", "3300", "2025-12-31", "2600"),
			metals.Silver: fm.closes[metals.Silver], metals.Platinum: fm.closes[metals.Platinum], metals.Palladium: fm.closes[metals.Palladium]}
		fm.gen++
		svc.market = fm
		n, err := svc.RefreshSpots(ctx)
		if err != nil || n != 1 {
			t.Fatalf("refresh changed %d lots: %v", n, err)
		}
		if got, _ := svc.GetHolding(ctx, u, h.ID); !got.SpotAtPurchase.Decimal.Equal(d("3300")) {
			t.Errorf("after correction: %+v", got.SpotAtPurchase)
		}
		if n, _ := svc.RefreshSpots(ctx); n != 0 {
			t.Errorf("second refresh changed %d lots", n)
		}
		// Analytics: gold paid 2 × 2800 against 2 oz × 3300; silver 100 against 1 oz × 25.22.
		a, err := svc.Analytics(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range a.Metals {
			switch m.Metal {
			case metals.Gold:
				eq(t, "gold premium", m.AvgPremiumPct, "-15.15") // 5600/6600 − 1
			case metals.Silver:
				if m.AvgPremiumPct == nil || m.AvgPremiumPct.StringFixed(2) != "296.51" {
					t.Errorf("silver premium %v", m.AvgPremiumPct)
				}
			}
		}
	})
}
