package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestHasLotsOutside: a member's lots and sales are outside a currency when any lot was bought,
// or any sale made (in its lot's currency), in a currency sorting before it or after it.
func TestHasLotsOutside(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "outside@example.com", "h", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		outside := func(cur string) bool {
			t.Helper()
			ok, err := s.HasLotsOutside(ctx, u.ID, cur)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		lot := func(cur string) db.Holding {
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", ProductName: "bar", Quantity: 2, WeightOz: decimal.NewFromInt(1),
				PurchasePrice: decimal.NewFromInt(100), Fees: decimal.Zero, PurchaseCurrency: cur, PurchaseDate: db.NewDate(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))}))
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		if outside("USD") {
			t.Error("no lots: outside USD")
		}
		h := lot("GBP")
		if outside("GBP") || !outside("EUR") || !outside("USD") {
			t.Errorf("a GBP lot: outside GBP %v, EUR %v, USD %v", outside("GBP"), outside("EUR"), outside("USD"))
		}
		if _, err := s.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: 1, PricePerUnit: decimal.NewFromInt(120), Fees: decimal.Zero,
			SoldOn: db.NewDate(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))}, portfolio.DecideSale); err != nil {
			t.Fatal(err)
		}
		if outside("GBP") || !outside("USD") {
			t.Errorf("a sale of the GBP lot (in its currency): outside GBP %v, USD %v", outside("GBP"), outside("USD"))
		}
	})
}
