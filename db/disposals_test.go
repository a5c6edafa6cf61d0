package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

func disposalLots(t *testing.T, s *db.Store, uid int64) {
	t.Helper()
	for _, l := range []struct {
		qty         int64
		price, date string
	}{{10, "20", "2024-01-01"}, {10, "25", "2024-02-01"}, {10, "30", "2024-03-01"}, {10, "22", "2024-04-01"}, {10, "28", "2024-05-01"}} {
		h := pfLot(uid, "silver", l.qty, "1", l.price, "0", l.date)
		h.ProductName = "Eagle"
		if _, err := s.InsertHolding(context.Background(), portfolio.WithTotals(h)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDisposalConcurrentNeverOversells: thirty disposals of two units each across five lots
// of ten race; exactly twenty-five succeed, the rest are refused as oversold, and units sold
// equal units held before.
func TestDisposalConcurrentNeverOversells(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "race@example.com", "h", db.TierGold, false)
		disposalLots(t, s, u.ID)
		var wg sync.WaitGroup
		errs := make(chan error, 30)
		for i := range 30 {
			method := []string{"fifo", "lifo", "hifo", "average"}[i%4]
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _, err := s.InsertDisposal(ctx, u.ID, db.Disposal{Metal: "silver", ProductName: "Eagle", Kind: "sold", Method: method, Quantity: 2,
					PricePerUnit: pfDec("31"), Fees: pfDec("0.01"), SoldOn: pfDay("2025-06-01")}, portfolio.DecideDisposal(method, nil))
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		ok, refused := 0, 0
		for err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, db.ErrOversold):
				refused++
			default:
				t.Fatalf("concurrent disposal: %v", err)
			}
		}
		if ok != 25 || refused != 5 {
			t.Fatalf("ok=%d refused=%d, want 25/5", ok, refused)
		}
		all, _ := s.AllSales(ctx, u.ID)
		var sold int64
		for _, x := range all {
			sold += x.Quantity
		}
		if sold != 50 {
			t.Fatalf("units sold %d, held 50", sold)
		}
		x := pfTotals(t, s, u.ID, "2026-01-01")[metals.Silver]
		if !x.HeldOz.IsZero() || !x.HeldCost.IsZero() || x.Lots != 0 {
			t.Fatalf("after selling everything: %+v", x)
		}
	})
}

// TestDisposalFailureLeavesNothing: a disposal whose second slice cannot be written leaves no
// disposal, no slice and the lots as they were.
func TestDisposalFailureLeavesNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "fail@example.com", "h", db.TierGold, false)
		disposalLots(t, s, u.ID)
		before := pfTotals(t, s, u.ID, "2026-01-01")[metals.Silver]
		failing := func(lots []db.SaleLot, in db.Disposal) (db.DisposalDecision, error) {
			dec, err := portfolio.DecideDisposal("fifo", nil)(lots, in)
			if err != nil {
				return dec, err
			}
			dec.Slices[1].Sale.Quantity = 0 // the sales table refuses a slice of no units
			return dec, nil
		}
		_, _, err := s.InsertDisposal(ctx, u.ID, db.Disposal{Metal: "silver", ProductName: "Eagle", Kind: "sold", Method: "fifo", Quantity: 15,
			PricePerUnit: pfDec("31"), SoldOn: pfDay("2025-06-01")}, failing)
		if err == nil {
			t.Fatal("the failing disposal was recorded")
		}
		if all, _ := s.AllSales(ctx, u.ID); len(all) != 0 {
			t.Fatalf("slices left behind: %d", len(all))
		}
		if ds, _ := s.AllDisposals(ctx, u.ID); len(ds) != 0 {
			t.Fatalf("disposals left behind: %d", len(ds))
		}
		lots, _ := s.ProductLots(ctx, u.ID, "silver", "Eagle")
		for _, l := range lots {
			if l.SoldQuantity != 0 {
				t.Fatalf("lot %s sold %d", l.ID, l.SoldQuantity)
			}
		}
		after := pfTotals(t, s, u.ID, "2026-01-01")[metals.Silver]
		if !after.HeldCost.Equal(before.HeldCost) || after.Sales != 0 {
			t.Fatalf("ledger moved: %+v vs %+v", after, before)
		}
	})
}

// TestDisposalUserDeleted: deleting a member with disposals removes them with their slices.
func TestDisposalUserDeleted(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "gone@example.com", "h", db.TierGold, false)
		disposalLots(t, s, u.ID)
		if _, _, err := s.InsertDisposal(ctx, u.ID, db.Disposal{Metal: "silver", ProductName: "Eagle", Kind: "sold", Method: "fifo", Quantity: 15,
			PricePerUnit: pfDec("31"), SoldOn: pfDay("2025-06-01")}, portfolio.DecideDisposal("fifo", nil)); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteUser(ctx, u.ID); err != nil {
			t.Fatalf("delete user with disposals: %v", err)
		}
		if ds, _ := s.AllDisposals(ctx, u.ID); len(ds) != 0 {
			t.Fatalf("disposals left: %d", len(ds))
		}
	})
}
