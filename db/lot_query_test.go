package db_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestHoldingsSortFilterPage: HoldingsByUser orders by each sort in both directions with the
// default order (then the id) for equal keys, so pages never repeat or skip a lot; the value
// sort is exact (two lots a hundred-millionth of an ounce apart keep their order) and puts a
// metal without a price last both ways; ranks order metals, product names and locations
// (NULL as ""); the product, date and custody filters combine (both engines).
func TestHoldingsSortFilterPage(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "sort@example.com", "x", db.TierGold, false)
		vault, err := s.InsertLocation(ctx, db.Location{UserID: u.ID, Name: "Vault", Kind: "vault"})
		if err != nil {
			t.Fatal(err)
		}
		type spec struct {
			metal, name, oz, price, date string
			vault                        bool
		}
		specs := []spec{
			{"gold", "Eagle", "1", "2000", "2025-01-01", true},
			{"silver", "Bar", "10.00000001", "30", "2025-02-01", false},
			{"silver", "Bar", "10", "30", "2025-02-01", false}, // same day and cost: the default order decides
			{"platinum", "Round", "1", "900", "", true},        // undated; no platinum price below
			{"gold", "Eagle", "0.5", "1500", "2024-06-01", false},
		}
		ids := make([]string, len(specs))
		for i, sp := range specs {
			var d db.Date
			if sp.date != "" {
				d, _ = db.ParseDate(sp.date)
			}
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: sp.metal, ProductName: sp.name, Quantity: 1, WeightOz: decimal.RequireFromString(sp.oz),
				PurchasePrice: decimal.RequireFromString(sp.price), Fees: decimal.Zero, PurchaseDate: d}))
			if err != nil {
				t.Fatal(err)
			}
			if sp.vault {
				if err := s.PlaceHolding(ctx, u.ID, h.ID, sql.NullString{String: vault.ID, Valid: true}, nil); err != nil {
					t.Fatal(err)
				}
			}
			ids[i] = h.ID
		}
		list := func(f db.HoldingFilter) []int {
			t.Helper()
			f.Limit = 100
			rows, total, err := s.HoldingsByUser(ctx, u.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			if total != len(rows) {
				t.Errorf("total %d, listed %d", total, len(rows))
			}
			var out []int
			for _, r := range rows {
				out = append(out, slices.Index(ids, r.ID))
			}
			return out
		}
		// The default: newest purchase first, undated last; equal days newest recorded first.
		def := list(db.HoldingFilter{})
		if want := []int{2, 1, 0, 4, 3}; !slices.Equal(def, want) {
			t.Fatalf("default order %v, want %v", def, want)
		}
		if got := list(db.HoldingFilter{Sort: db.SortDate, Desc: true}); !slices.Equal(got, def) {
			t.Errorf("date desc %v differs from the default %v", got, def)
		}
		if got, want := list(db.HoldingFilter{Sort: db.SortDate}), []int{3, 4, 0, 1, 2}; !slices.Equal(got, want) {
			t.Errorf("date asc %v, want %v", got, want)
		}
		if got, want := list(db.HoldingFilter{Sort: db.SortCost}), []int{2, 1, 3, 4, 0}; !slices.Equal(got, want) {
			t.Errorf("cost asc %v, want %v", got, want)
		}
		prices := map[string]decimal.Decimal{"gold": decimal.RequireFromString("2650.4"), "silver": decimal.RequireFromString("31.2525")}
		if got, want := list(db.HoldingFilter{Sort: db.SortValue, Prices: prices}), []int{2, 1, 4, 0, 3}; !slices.Equal(got, want) {
			t.Errorf("value asc %v, want %v", got, want)
		}
		if got, want := list(db.HoldingFilter{Sort: db.SortValue, Desc: true, Prices: prices}), []int{0, 4, 1, 2, 3}; !slices.Equal(got, want) {
			t.Errorf("value desc %v, want %v", got, want)
		}
		metalRanks := map[string]int{"gold": 0, "silver": 1, "platinum": 2}
		if got, want := list(db.HoldingFilter{Sort: db.SortMetal, Ranks: metalRanks}), []int{0, 4, 2, 1, 3}; !slices.Equal(got, want) {
			t.Errorf("metal asc %v, want %v", got, want)
		}
		if got, want := list(db.HoldingFilter{Sort: db.SortLocation, Desc: true, Ranks: map[string]int{"": 1, vault.ID: 0}}), []int{2, 1, 4, 0, 3}; !slices.Equal(got, want) {
			t.Errorf("location desc %v, want %v", got, want)
		}
		if got, want := list(db.HoldingFilter{Sort: db.SortForm, Ranks: map[string]int{"Round": 0, "Bar": 1}}), []int{3, 2, 1, 0, 4}; !slices.Equal(got, want) {
			t.Errorf("form asc %v, want %v", got, want)
		}
		// Pages of two by cost hold every lot once.
		var paged []int
		for off := 0; off < 5; off += 2 {
			rows, _, err := s.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Sort: db.SortCost, Limit: 2, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				paged = append(paged, slices.Index(ids, r.ID))
			}
		}
		if want := []int{2, 1, 3, 4, 0}; !slices.Equal(paged, want) {
			t.Errorf("pages by cost %v, want %v", paged, want)
		}
		// Filters.
		from, _ := db.ParseDate("2025-01-01")
		to, _ := db.ParseDate("2025-01-31")
		if got := list(db.HoldingFilter{From: from}); !slices.Equal(got, []int{2, 1, 0}) {
			t.Errorf("from: %v", got)
		}
		if got := list(db.HoldingFilter{From: from, To: to, Products: []string{"Eagle"}, LocationID: vault.ID}); !slices.Equal(got, []int{0}) {
			t.Errorf("from, to, product and location: %v", got)
		}
		if got := list(db.HoldingFilter{Products: []string{}}); got != nil {
			t.Errorf("no product names: %v", got)
		}
		if got := list(db.HoldingFilter{Products: []string{"Bar", "Round"}, LocationID: "none"}); !slices.Equal(got, []int{2, 1}) {
			t.Errorf("products unassigned: %v", got)
		}
		if _, _, err := s.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Sort: "weight"}); err == nil {
			t.Errorf("an unknown sort was accepted")
		}
	})
}
