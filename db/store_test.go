package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

func TestUsersAndKeys(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, " Ann@Example.com ", "hash", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "ann@example.com" {
			t.Fatalf("email not normalised: %q", u.Email)
		}
		if _, err := s.InsertUser(ctx, "ANN@example.com", "x", db.TierFree, false); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("duplicate email: got %v, want ErrConflict", err)
		}
		got, err := s.UserByEmail(ctx, "ann@EXAMPLE.com")
		if err != nil || got.ID != u.ID || got.Tier == db.TierGold {
			t.Fatalf("UserByEmail = %+v, %v", got, err)
		}
		if err := s.SetUserTier(ctx, "ann@example.com", db.TierGold); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.UserByID(ctx, u.ID); got.Tier != db.TierGold {
			t.Fatal("tier not updated")
		}
		if err := s.SetUserTier(ctx, "nobody@example.com", db.TierGold); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("set tier of unknown: %v", err)
		}

		// Eleven concurrent inserts: exactly ten succeed.
		var wg sync.WaitGroup
		errs := make(chan error, 11)
		for i := 0; i < 11; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				_, err := s.InsertAPIKey(ctx, u.ID, "k", "ounce_abc", "hash-"+string(rune('a'+i)))
				errs <- err
			}(i)
		}
		wg.Wait()
		close(errs)
		ok, refused := 0, 0
		for err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, db.ErrConflict):
				refused++
			default:
				t.Fatalf("insert key: %v", err)
			}
		}
		if ok != 10 || refused != 1 {
			t.Fatalf("ok=%d refused=%d, want 10/1", ok, refused)
		}
		keys, _ := s.APIKeysByUser(ctx, u.ID)
		ko, err := s.ActiveAPIKeyByHash(ctx, keys[0].KeyHash)
		if err != nil || ko.User.ID != u.ID || ko.KeyID != keys[0].ID {
			t.Fatalf("lookup by hash: %+v %v", ko, err)
		}
		at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		if err := s.TouchAPIKeys(ctx, map[int64]time.Time{keys[0].ID: at}); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeAPIKey(ctx, u.ID, keys[0].ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ActiveAPIKeyByHash(ctx, keys[0].KeyHash); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("revoked key still active: %v", err)
		}
		keys, _ = s.APIKeysByUser(ctx, u.ID)
		for _, k := range keys {
			if k.ID == ko.KeyID && (k.LastUsedAt == nil || !k.LastUsedAt.Equal(at) || k.RevokedAt == nil) {
				t.Fatalf("touched/revoked key = %+v", k)
			}
		}
		other, _ := s.InsertUser(ctx, "bob@example.com", "h", db.TierGold, false)
		if err := s.RevokeAPIKey(ctx, other.ID, keys[1].ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("revoking another user's key: %v", err)
		}
	})
}

func TestHoldingsCRUDAndIsolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		ann, _ := s.InsertUser(ctx, "ann@example.com", "h", db.TierGold, false)
		bob, _ := s.InsertUser(ctx, "bob@example.com", "h", db.TierGold, false)
		d := func(s string) db.Date { x, _ := db.ParseDate(s); return x }
		mk := func(uid int64, metal, date, w, p string) db.Holding {
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: uid, Metal: metal, Quantity: 3, WeightOz: decimal.RequireFromString(w),
				PurchasePrice: decimal.RequireFromString(p), Fees: decimal.RequireFromString("4.5"), PurchaseDate: d(date)}))
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		h1 := mk(ann.ID, "silver", "2024-01-02", "1", "25.10")
		h2 := mk(ann.ID, "gold", "2025-06-30", "0.1", "260.33")
		mk(bob.ID, "gold", "2025-07-01", "1", "2400")
		noDate, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: ann.ID, Metal: "platinum", Quantity: 1, WeightOz: decimal.RequireFromString("1"), PurchasePrice: decimal.RequireFromString("900")}))
		if err != nil {
			t.Fatal(err)
		}
		list, total, err := s.HoldingsByUser(ctx, ann.ID, db.HoldingFilter{Limit: 50})
		if err != nil || total != 3 || len(list) != 3 {
			t.Fatalf("list: %d/%d %v", len(list), total, err)
		}
		if list[0].ID != h2.ID || list[1].ID != h1.ID || list[2].ID != noDate.ID {
			t.Fatalf("order: %s %s %s", list[0].ID, list[1].ID, list[2].ID)
		}
		if !list[0].WeightOz.Equal(decimal.RequireFromString("0.1")) || !list[0].PurchasePrice.Equal(decimal.RequireFromString("260.33")) {
			t.Fatalf("decimals round-trip: %s %s", list[0].WeightOz, list[0].PurchasePrice)
		}
		if got := portfolio.LotCost(list[1].Quantity, list[1].PurchasePrice, list[1].Fees).String(); got != "79.8" {
			t.Fatalf("total cost = %s, want 79.8", got)
		}
		if list[1].PurchaseDate.String() != "2024-01-02" || !list[2].PurchaseDate.IsZero() {
			t.Fatalf("dates: %q %q", list[1].PurchaseDate, list[2].PurchaseDate)
		}
		gold, total, _ := s.HoldingsByUser(ctx, ann.ID, db.HoldingFilter{Metal: "gold", Limit: 1})
		if total != 1 || len(gold) != 1 || gold[0].ID != h2.ID {
			t.Fatalf("metal filter: %v %d", gold, total)
		}
		page, total, _ := s.HoldingsByUser(ctx, ann.ID, db.HoldingFilter{Limit: 1, Offset: 1})
		if total != 3 || len(page) != 1 || page[0].ID != h1.ID {
			t.Fatalf("paging: %v", page)
		}
		// Bob can neither read, change nor delete Ann's holding.
		if _, err := s.HoldingByID(ctx, bob.ID, h1.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("cross-user read: %v", err)
		}
		stolen := h1
		stolen.UserID = bob.ID
		stolen.Quantity = 999
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(stolen)); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("cross-user update: %v", err)
		}
		if err := s.DeleteHolding(ctx, bob.ID, h1.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("cross-user delete: %v", err)
		}
		h1.Quantity = 7
		h1.Notes = "lunar series"
		upd, err := s.UpdateHolding(ctx, portfolio.WithTotals(h1))
		if err != nil || upd.Quantity != 7 || upd.Notes != "lunar series" {
			t.Fatalf("update: %+v %v", upd, err)
		}
		if err := s.DeleteHolding(ctx, ann.ID, h1.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.HoldingByID(ctx, ann.ID, h1.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("deleted still there: %v", err)
		}
	})
}

func TestRateLimitCounter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := time.Date(2026, 11, 22, 10, 0, 30, 0, time.UTC)
		for i := 1; i <= 3; i++ {
			n, reset, err := s.HitRateLimit(ctx, "key:1", time.Minute, now)
			if err != nil || n != i || !reset.Equal(time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC)) {
				t.Fatalf("hit %d: n=%d reset=%v err=%v", i, n, reset, err)
			}
		}
		n, _, _ := s.HitRateLimit(ctx, "key:1", time.Minute, now.Add(time.Minute))
		if n != 1 {
			t.Fatalf("new window count = %d", n)
		}
		if err := s.PruneRateLimits(ctx, now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		n, err := s.Migrate(context.Background())
		if err != nil || n != 0 {
			t.Fatalf("second migrate ran %d: %v", n, err)
		}
	})
}

// TestHoldingWithoutTotalsRefused: a holding written without the totals the portfolio service
// computes (Oz, Cost) is refused by every write, and nothing is stored (both engines).
func TestHoldingWithoutTotalsRefused(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "totals@example.com", "h", db.TierGold, false)
		bare := db.Holding{UserID: u.ID, Metal: "gold", Quantity: 2, WeightOz: decimal.NewFromInt(1), PurchasePrice: decimal.NewFromInt(2000), Fees: decimal.NewFromInt(5)}
		if _, err := s.InsertHolding(ctx, bare); !errors.Is(err, db.ErrMissingTotals) {
			t.Fatalf("insert without totals: %v", err)
		}
		noCost := portfolio.WithTotals(bare)
		noCost.Cost = decimal.NullDecimal{}
		if _, err := s.InsertHolding(ctx, noCost); !errors.Is(err, db.ErrMissingTotals) {
			t.Fatalf("insert without cost: %v", err)
		}
		other := bare
		other.ProductName = "another bar" // not a duplicate of the first row
		if _, err := s.ImportHoldings(ctx, u.ID, []db.Holding{portfolio.WithTotals(bare), other}); !errors.Is(err, db.ErrMissingTotals) {
			t.Fatalf("import without totals: %v", err)
		}
		if all, err := s.AllHoldings(ctx, u.ID); err != nil || len(all) != 0 {
			t.Fatalf("stored %d holdings (%v), want none", len(all), err)
		}
		h, err := s.InsertHolding(ctx, portfolio.WithTotals(bare))
		if err != nil {
			t.Fatal(err)
		}
		read, err := s.HoldingByID(ctx, u.ID, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		read.Quantity = 3
		if _, err := s.UpdateHolding(ctx, read); !errors.Is(err, db.ErrMissingTotals) {
			t.Fatalf("update without totals: %v", err)
		}
		if got, err := s.HoldingByID(ctx, u.ID, h.ID); err != nil || got.Quantity != 2 {
			t.Fatalf("after refused update: quantity %d (%v), want 2", got.Quantity, err)
		}
		totals, err := s.PortfolioTotals(ctx, u.ID, db.Date{}, db.WithPurchases)
		if err != nil {
			t.Fatal(err)
		}
		gold := false
		for _, m := range totals {
			if m.Metal == "gold" {
				gold = true
				if !m.BoughtOz.Equal(decimal.NewFromInt(2)) || !m.BoughtCost.Equal(decimal.NewFromInt(4005)) {
					t.Fatalf("gold totals: %s oz, cost %s; want 2 oz, 4005", m.BoughtOz, m.BoughtCost)
				}
			}
		}
		if !gold {
			t.Fatal("no gold totals")
		}
	})
}
