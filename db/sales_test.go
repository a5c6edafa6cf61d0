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

func TestSalesCostBasisAndRealized(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "sell@example.com", "h", db.TierGold, false)
		// 3 units at 100.00 plus 0.01 fees: 300.01, which does not split evenly in thirds.
		h, err := s.InsertHolding(ctx, portfolio.WithTotals(pfLot(u.ID, "silver", 3, "10", "100", "0.01", "2025-02-01")))
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			qty                            int64
			price, fees                    string
			proceeds, cost, realized, left string
		}{
			{1, "130", "2.50", "130", "100", "27.5", "200.01"},  // 300.01 / 3 = 100.0033 → 100.00
			{1, "90.10", "0", "90.1", "100.01", "-9.91", "100"}, // 200.01 / 2 = 100.005 → 100.01
			{1, "0", "0", "0", "100", "-100", "0"},              // the last unit takes all that is left
		}
		for i, c := range cases {
			sale, err := s.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: c.qty, PricePerUnit: pfDec(c.price), Fees: pfDec(c.fees), SoldOn: pfDay("2025-06-01")}, portfolio.DecideSale)
			if err != nil {
				t.Fatalf("sale %d: %v", i, err)
			}
			pfEq(t, "proceeds", sale.Proceeds, c.proceeds)
			pfEq(t, "cost basis", sale.CostBasis, c.cost)
			pfEq(t, "realized", sale.RealizedPL, c.realized)
			pfEq(t, "oz", sale.Oz, "10")
			if sale.Metal != "silver" || sale.HoldingID != h.ID || sale.SoldOn.String() != "2025-06-01" {
				t.Errorf("sale fields: %+v", sale)
			}
			pfEq(t, "cost left", pfTotals(t, s, u.ID, "2026-01-01")[metals.Silver].HeldCost, c.left)
		}
		x := pfTotals(t, s, u.ID, "2026-01-01")[metals.Silver]
		if !x.HeldOz.IsZero() || x.Lots != 0 || x.Purchases != 1 || x.Sales != 3 {
			t.Errorf("after full sale: %+v", x)
		}
		pfEq(t, "realized total", x.Realized, "-82.41")
		if _, err := s.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: 1, PricePerUnit: pfDec("1"), SoldOn: pfDay("2025-06-02")}, portfolio.DecideSale); !errors.Is(err, db.ErrOversold) || !errors.Is(err, db.ErrConflict) {
			t.Fatalf("selling from an empty lot: %v", err)
		}
		got, _ := s.HoldingByID(ctx, u.ID, h.ID)
		if got.SoldQuantity != 3 || got.Remaining() != 0 {
			t.Fatalf("sold quantity: %+v", got)
		}
		pg, err := s.SalesByUser(ctx, u.ID, db.SaleFilter{Limit: 2})
		if err != nil || pg.Total != 3 || len(pg.Sales) != 2 {
			t.Fatalf("list: %d/%d %v", len(pg.Sales), pg.Total, err)
		}
		pfEq(t, "listed realized", pg.Realized, "-82.41")
		if pg.Sales[0].CostBasis.String() != "100" || pg.Sales[0].SoldOn.String() != "2025-06-01" {
			t.Fatalf("first listed: %+v", pg.Sales[0])
		}
		if only, _ := s.SalesByUser(ctx, u.ID, db.SaleFilter{Metal: "gold"}); only.Total != 0 || len(only.Sales) != 0 || !only.Realized.IsZero() {
			t.Fatalf("metal filter: %+v", only)
		}
		if only, _ := s.SalesByUser(ctx, u.ID, db.SaleFilter{HoldingID: h.ID}); only.Total != 3 || len(only.Sales) != 3 {
			t.Fatalf("holding filter: %+v", only)
		}
		var oe *db.OversoldError
		if _, err := s.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: 2, PricePerUnit: pfDec("1"), SoldOn: pfDay("2025-06-02")}, portfolio.DecideSale); !errors.As(err, &oe) || oe.Asked != 2 || oe.Held != 0 {
			t.Fatalf("oversold error: %v", err)
		}
	})
}

func TestSalesRulesAndIsolation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		ann, _ := s.InsertUser(ctx, "ann@example.com", "h", db.TierGold, false)
		bob, _ := s.InsertUser(ctx, "bob@example.com", "h", db.TierGold, false)
		h, _ := s.InsertHolding(ctx, portfolio.WithTotals(pfLot(ann.ID, "gold", 10, "1", "2000", "0", "2025-02-01")))
		plain, _ := s.InsertHolding(ctx, portfolio.WithTotals(pfLot(ann.ID, "gold", 1, "1", "2000", "0", "2025-02-01")))
		if _, err := s.InsertSale(ctx, bob.ID, h.ID, db.Sale{Quantity: 1, PricePerUnit: pfDec("1"), SoldOn: pfDay("2025-03-01")}, portfolio.DecideSale); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("selling another user's holding: %v", err)
		}
		if _, err := s.InsertSale(ctx, ann.ID, h.ID, db.Sale{Quantity: 11, PricePerUnit: pfDec("1"), SoldOn: pfDay("2025-03-01")}, portfolio.DecideSale); !errors.Is(err, db.ErrOversold) {
			t.Fatalf("overselling: %v", err)
		}
		// Twenty concurrent sales of one unit each: exactly ten succeed.
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.InsertSale(ctx, ann.ID, h.ID, db.Sale{Quantity: 1, PricePerUnit: pfDec("2100"), SoldOn: pfDay("2025-03-01")}, portfolio.DecideSale)
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
				t.Fatalf("concurrent sale: %v", err)
			}
		}
		if ok != 10 || refused != 10 {
			t.Fatalf("ok=%d refused=%d, want 10/10", ok, refused)
		}
		x := pfTotals(t, s, ann.ID, "2026-01-01")[metals.Gold]
		pfEq(t, "held oz", x.HeldOz, "1")
		pfEq(t, "held cost", x.HeldCost, "2000")
		pfEq(t, "realized", x.Realized, "1000")

		// A holding with sales cannot be deleted, nor its economics changed.
		if err := s.DeleteHolding(ctx, ann.ID, h.ID); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("deleting a sold holding: %v", err)
		}
		if err := s.DeleteHolding(ctx, bob.ID, h.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("another user deleting: %v", err)
		}
		cur, _ := s.HoldingByID(ctx, ann.ID, h.ID)
		changed := cur
		changed.PurchasePrice = pfDec("1")
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(changed)); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("repricing a sold holding: %v", err)
		}
		late := cur
		late.PurchaseDate = pfDay("2025-04-01")
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(late)); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("dating the purchase after its sale: %v", err)
		}
		renamed := cur
		renamed.ProductName, renamed.Notes = "1 oz bar", "vault"
		got, err := s.UpdateHolding(ctx, portfolio.WithTotals(renamed))
		if err != nil || got.ProductName != "1 oz bar" || got.SoldQuantity != 10 {
			t.Fatalf("renaming a sold holding: %+v %v", got, err)
		}
		pfEq(t, "held cost after rename", pfTotals(t, s, ann.ID, "2026-01-01")[metals.Gold].HeldCost, "2000")

		// A holding without sales is edited freely and its totals follow.
		plain.Quantity, plain.WeightOz = 2, pfDec("0.5")
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(plain)); err != nil {
			t.Fatal(err)
		}
		pfEq(t, "held oz after edit", pfTotals(t, s, ann.ID, "2026-01-01")[metals.Gold].HeldOz, "1")
		pfEq(t, "held cost after edit", pfTotals(t, s, ann.ID, "2026-01-01")[metals.Gold].HeldCost, "4000")
		if err := s.DeleteHolding(ctx, ann.ID, plain.ID); err != nil {
			t.Fatal(err)
		}
		// Deleting the account removes its holdings and sales together.
		if _, err := s.ExecForTest(ctx, `DELETE FROM users WHERE id = ?`, ann.ID); err != nil {
			t.Fatalf("deleting a user with sales: %v", err)
		}
	})
}
