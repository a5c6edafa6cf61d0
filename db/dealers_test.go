package db_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestDealerCatalogueImportIsUpsert(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		first := db.DealerCatalogueRows{
			Dealers:  []db.DealerRow{{Slug: "coin-shop", Name: "Coin Shop", Site: "https://coins.example", AffiliateTemplate: "{url}"}},
			Products: []db.DealerProductRow{{ID: "silver-libertad-1oz", Name: "Mexican Silver Libertad 1 oz", Metal: "silver", WeightOz: dec("1"), Form: "coin", Purity: dec("0.999")}},
			Listings: []db.DealerListingRow{{Dealer: "coin-shop", Product: "silver-libertad-1oz", URL: "https://coins.example/libertad"}},
			Feeds:    []db.DealerFeedRow{{Dealer: "coin-shop", URL: "https://coins.example/feed.json", SKUField: "sku", PriceField: "price", SKUs: `{"LIB1":"silver-libertad-1oz"}`}},
		}
		if err := s.ImportDealerCatalogue(ctx, first); err != nil {
			t.Fatal(err)
		}
		second := db.DealerCatalogueRows{
			Dealers:  []db.DealerRow{{Slug: "coin-shop", Name: "Coin Shop Inc.", Site: "https://coins.example", AffiliateTemplate: "https://aff.example/?u={url}"}},
			Listings: []db.DealerListingRow{{Dealer: "coin-shop", Product: "silver-libertad-1oz", URL: "https://coins.example/libertad-2"}},
		}
		if err := s.ImportDealerCatalogue(ctx, second); err != nil {
			t.Fatal(err)
		}
		got, err := s.DealerCatalogue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Dealers) != 1 || got.Dealers[0].Name != "Coin Shop Inc." || got.Dealers[0].AffiliateTemplate != "https://aff.example/?u={url}" {
			t.Errorf("dealers %+v", got.Dealers)
		}
		if len(got.Products) != 1 || !got.Products[0].WeightOz.Equal(dec("1")) || !got.Products[0].Purity.Equal(dec("0.999")) {
			t.Errorf("products %+v", got.Products)
		}
		if len(got.Listings) != 1 || got.Listings[0].URL != "https://coins.example/libertad-2" {
			t.Errorf("listings %+v", got.Listings)
		}
		if len(got.Feeds) != 1 || got.Feeds[0].SKUs != `{"LIB1":"silver-libertad-1oz"}` {
			t.Errorf("feeds %+v", got.Feeds)
		}
	})
}

func TestDealerQuotesHistoryAndClicks(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 8, 10, 14, 0, 0, 0, time.UTC)
		q := db.DealerQuoteRow{Dealer: "apmex", Product: "silver-american-eagle-1oz", Price: dec("76.99"), InStock: true, URL: "https://www.apmex.com/p/1",
			Tiers: `[{"min":1,"max":19,"price":"76.99"}]`, Source: "page", FetchedAt: t0}
		old := db.DealerQuoteRow{Dealer: "sd-bullion", Product: "silver-american-eagle-1oz", Price: dec("74.5"), InStock: false, URL: "https://sdbullion.com/x",
			Source: "feed", FetchedAt: t0.Add(-48 * time.Hour)}
		obs := []db.DealerObservationRow{
			{Dealer: "apmex", Product: "silver-american-eagle-1oz", Day: db.NewDate(t0), ObservedAt: t0, Price: dec("76.99"), Spot: dec("63.935"), PremiumPct: dec("20.4223")},
			{Dealer: "apmex", Product: "silver-american-eagle-1oz", Day: db.NewDate(t0.AddDate(0, 0, -40)), ObservedAt: t0.AddDate(0, 0, -40), Price: dec("70"), Spot: dec("60"), PremiumPct: dec("16.6667")},
		}
		if err := s.SaveDealerQuotes(ctx, []db.DealerQuoteRow{q, old}, obs); err != nil {
			t.Fatal(err)
		}
		// A newer fetch replaces the latest quote, not adds one.
		q.Price, q.FetchedAt = dec("77.25"), t0.Add(time.Hour)
		if err := s.SaveDealerQuotes(ctx, []db.DealerQuoteRow{q}, nil); err != nil {
			t.Fatal(err)
		}
		fresh, err := s.DealerQuotesSince(ctx, t0.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(fresh) != 1 || !fresh[0].Price.Equal(dec("77.25")) || !fresh[0].InStock || fresh[0].Tiers != `[{"min":1,"max":19,"price":"76.99"}]` || !fresh[0].FetchedAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("fresh quotes %+v", fresh)
		}
		all, _ := s.DealerQuotesSince(ctx, time.Time{})
		if len(all) != 2 || all[1].Dealer != "sd-bullion" || all[1].InStock || all[1].Tiers != "[]" {
			t.Fatalf("all quotes %+v", all)
		}

		hist, err := s.DealerObservations(ctx, "silver-american-eagle-1oz", db.NewDate(t0.AddDate(0, 0, -30)))
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 1 || !hist[0].PremiumPct.Equal(dec("20.4223")) || !hist[0].Spot.Equal(dec("63.935")) || hist[0].Day.String() != "2026-08-10" {
			t.Fatalf("history %+v", hist)
		}
		if n, err := s.PruneDealerObservations(ctx, db.NewDate(t0.AddDate(0, 0, -30))); err != nil || n != 1 {
			t.Fatalf("pruned %d %v", n, err)
		}

		u, err := s.InsertUser(ctx, "clicker@example.com", "x", "free", false)
		if err != nil {
			t.Fatal(err)
		}
		clicks := []db.DealerClickRow{
			{Dealer: "apmex", Product: "silver-american-eagle-1oz", UserID: sql.NullInt64{Int64: u.ID, Valid: true}, Referrer: "/dealers", Via: "web", ClickedAt: t0},
			{Dealer: "apmex", Product: "gold-bar-1oz", Via: "api", ClickedAt: t0.Add(time.Minute)},
			{Dealer: "jm-bullion", Product: "gold-bar-1oz", Via: "api", ClickedAt: t0.Add(2 * time.Minute)},
			{Dealer: "jm-bullion", Product: "gold-bar-1oz", Via: "api", ClickedAt: t0.AddDate(0, 0, -10)},
		}
		for _, c := range clicks {
			if _, err := s.InsertDealerClick(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		counts, err := s.DealerClickCounts(ctx, t0.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if len(counts) != 2 || counts[0] != (db.DealerClickCount{Dealer: "apmex", Clicks: 2}) || counts[1] != (db.DealerClickCount{Dealer: "jm-bullion", Clicks: 1}) {
			t.Fatalf("counts %+v", counts)
		}
		got, _ := s.DealerClicks(ctx, t0)
		if len(got) != 3 || got[0].UserID.Int64 != u.ID || got[0].Referrer != "/dealers" || got[1].UserID.Valid {
			t.Fatalf("clicks %+v", got)
		}
	})
}
