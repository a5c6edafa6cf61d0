package db_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

func TestImportHoldingsSkipsDuplicates(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "imp@example.com", "h", db.TierGold, false)
		other, _ := s.InsertUser(ctx, "other@example.com", "h", db.TierGold, false)
		existing := pfLot(u.ID, "silver", 20, "1", "32.50", "12.40", "2026-11-02")
		existing.ProductName, existing.Dealer = "1 oz Eagle", "APMEX"
		if _, err := s.InsertHolding(ctx, portfolio.WithTotals(existing)); err != nil {
			t.Fatal(err)
		}
		// The same purchase in another account is not a duplicate of this one.
		theirs := pfLot(other.ID, "gold", 1, "1", "2000", "0", "2025-01-01")
		if _, err := s.InsertHolding(ctx, portfolio.WithTotals(theirs)); err != nil {
			t.Fatal(err)
		}
		dupExisting := existing
		dupExisting.WeightOz, dupExisting.PurchasePrice = pfDec("1.000"), pfDec("32.5") // equal by value
		dupExisting.Notes = "notes are not part of the key"
		a := pfLot(0, "gold", 1, "1", "2000", "0", "2025-01-01")
		b := pfLot(0, "gold", 1, "1", "2000", "0", "2025-01-02")
		rows := []db.Holding{dupExisting, a, b, a}
		res, err := s.ImportHoldings(ctx, u.ID, totaled(rows))
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != 2 || fmt.Sprint(res.Duplicates) != "[0 3]" {
			t.Fatalf("import: %+v", res)
		}
		list, err := s.AllHoldings(ctx, u.ID)
		if err != nil || len(list) != 3 {
			t.Fatalf("all holdings: %d %v", len(list), err)
		}
		if list[0].PurchaseDate.String() != "2025-01-01" || list[2].PurchaseDate.String() != "2026-11-02" {
			t.Fatalf("export order: %s … %s", list[0].PurchaseDate, list[2].PurchaseDate)
		}
		pfEq(t, "imported gold cost", pfTotals(t, s, u.ID, "2026-11-20")[metals.Gold].HeldCost, "4000")
		// Importing the same rows again adds nothing.
		res, err = s.ImportHoldings(ctx, u.ID, totaled(rows))
		if err != nil || res.Imported != 0 || len(res.Duplicates) != 4 {
			t.Fatalf("re-import: %+v %v", res, err)
		}
	})
}

func TestImportHoldingsLargeAndConcurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "big@example.com", "h", db.TierGold, false)
		rows := make([]db.Holding, 10_000)
		for i := range rows {
			rows[i] = pfLot(0, string(metals.All[i%4]), int64(1+i%7), "0.1", "25.01", "0.99", "2024-01-01")
			rows[i].ProductName = fmt.Sprintf("coin %d", i)
		}
		// Two imports of the same file at once: one stores everything, the other only duplicates.
		var wg sync.WaitGroup
		results := make([]db.ImportResult, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() { defer wg.Done(); results[i], errs[i] = s.ImportHoldings(ctx, u.ID, totaled(rows)) }()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		if results[0].Imported+results[1].Imported != 10_000 || len(results[0].Duplicates)+len(results[1].Duplicates) != 10_000 {
			t.Fatalf("concurrent imports: %d+%d imported", results[0].Imported, results[1].Imported)
		}
		_, total, _ := s.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Limit: 1})
		if total != 10_000 {
			t.Fatalf("%d holdings stored", total)
		}
	})
}
