package portfolio

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// TestSaleRules pins the money rules the store applies through its decide funcs: shares of
// what remains to the cent, the last units take the rest, realized P/L is proceeds − fees −
// cost, and undoing every sale restores the whole original cost.
func TestSaleRules(t *testing.T) {
	d := decimal.RequireFromString
	lot := db.SaleLot{Holding: db.Holding{Quantity: 3, WeightOz: d("1.5")}, Cost: d("100.00"), HeldCost: d("100.00")}
	sale, held, err := DecideSale(lot, db.Sale{Quantity: 1, PricePerUnit: d("40"), Fees: d("1.50")})
	if err != nil {
		t.Fatal(err)
	}
	if !sale.CostBasis.Equal(d("33.33")) || !sale.Proceeds.Equal(d("40")) || !sale.RealizedPL.Equal(d("5.17")) || !sale.Oz.Equal(d("1.5")) {
		t.Errorf("first sale %+v", sale)
	}
	if held.Sold != 1 || !held.HeldCost.Equal(d("66.67")) || !held.HeldOz.Equal(d("3")) {
		t.Errorf("held after the first sale %+v", held)
	}
	lot.SoldQuantity, lot.HeldCost = held.Sold, held.HeldCost
	last, held2, err := DecideSale(lot, db.Sale{Quantity: 2, PricePerUnit: d("30"), Fees: decimal.Zero})
	if err != nil || !last.CostBasis.Equal(d("66.67")) || !held2.HeldCost.IsZero() || !held2.HeldOz.IsZero() || held2.Sold != 3 {
		t.Errorf("the last units take the rest: %+v %+v %v", last, held2, err)
	}
	var oe *db.OversoldError
	if _, _, err := DecideSale(lot, db.Sale{Quantity: 3}); !errors.As(err, &oe) || oe.Held != 2 || !errors.Is(err, db.ErrConflict) {
		t.Errorf("overselling: %v", err)
	}
	if _, _, err := DecideSale(lot, db.Sale{Quantity: 0}); err == nil {
		t.Error("a sale of no units was decided")
	}
	// Undo the first sale after the second: the whole cost comes back, cents included.
	lot2 := db.SaleLot{Holding: db.Holding{Quantity: 3, WeightOz: d("1.5"), SoldQuantity: 1}, Cost: d("100.00"), HeldCost: d("66.67")}
	if h, _ := UndoSale(lot2, sale); h.Sold != 0 || !h.HeldCost.Equal(d("100.00")) || !h.HeldOz.Equal(d("4.5")) {
		t.Errorf("undo of the only sale %+v", h)
	}
	lot3 := db.SaleLot{Holding: db.Holding{Quantity: 3, WeightOz: d("1.5"), SoldQuantity: 3}, Cost: d("100.00"), HeldCost: d("0")}
	if h, _ := UndoSale(lot3, last); h.Sold != 1 || !h.HeldCost.Equal(d("66.67")) || !h.HeldOz.Equal(d("3")) {
		t.Errorf("undo of one of two sales %+v", h)
	}
}

// TestPremiumRef: ounces × spot to 1e-8; nothing without a spot or for a gift.
func TestPremiumRef(t *testing.T) {
	d := decimal.RequireFromString
	if r := PremiumRef(3, d("0.1"), d("300"), decimal.NewNullDecimal(d("3277.555555555"))); !r.Equal(d("983.26666667")) {
		t.Errorf("ref %s", r)
	}
	if r := PremiumRef(3, d("0.1"), d("300"), decimal.NullDecimal{}); !r.IsZero() {
		t.Errorf("no spot: %s", r)
	}
	if r := PremiumRef(3, d("0.1"), d("0"), decimal.NewNullDecimal(d("3000"))); !r.IsZero() {
		t.Errorf("gift: %s", r)
	}
}
