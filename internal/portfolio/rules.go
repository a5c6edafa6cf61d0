package portfolio

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// The money rules of lots and sales. The store reads a lot for update, calls these through
// its decide funcs (db.SaleRule, db.UndoRule) and writes what they return, so every figure
// below is decided here and only stored by db.

// Precision of the stored figures: money to the cent, fine ounces to 1e-8.
const (
	moneyPlaces = 2
	ozPlaces    = 8
)

// SaleShare is the cost basis of selling qty of the remaining units of a lot whose remaining
// cost basis is heldCost: the proportional share, to the cent, and all of it for the last
// units. Taking the share of what remains (rather than of the original cost) keeps the
// remaining cost basis between zero and its start however the cents were rounded before.
func SaleShare(heldCost decimal.Decimal, remaining, qty int64) decimal.Decimal {
	if qty >= remaining {
		return heldCost
	}
	return heldCost.Mul(decimal.NewFromInt(qty)).Div(decimal.NewFromInt(remaining)).Round(moneyPlaces)
}

// DecideSale is the sale rule (a db.SaleRule): in.Quantity units of what lot still holds,
// sold at in.PricePerUnit less in.Fees. Proceeds are quantity × price, the cost basis the
// units' SaleShare, the realized profit or loss proceeds − fees − cost basis; the lot keeps
// the rest of its units, ounces and cost basis. More units than are held is a
// *db.OversoldError.
func DecideSale(lot db.SaleLot, in db.Sale) (db.Sale, db.LotHeld, error) {
	if in.Quantity <= 0 {
		return db.Sale{}, db.LotHeld{}, fmt.Errorf("sale quantity must be positive")
	}
	remaining := lot.Remaining()
	if in.Quantity > remaining {
		return db.Sale{}, db.LotHeld{}, &db.OversoldError{Asked: in.Quantity, Held: remaining}
	}
	q := decimal.NewFromInt(in.Quantity)
	out := db.Sale{Quantity: in.Quantity, PricePerUnit: in.PricePerUnit, Fees: in.Fees, SoldOn: in.SoldOn,
		Oz: lot.WeightOz.Mul(q), Proceeds: in.PricePerUnit.Mul(q), CostBasis: SaleShare(lot.HeldCost, remaining, in.Quantity)}
	out.RealizedPL = out.Proceeds.Sub(out.Fees).Sub(out.CostBasis)
	left := remaining - in.Quantity
	held := db.LotHeld{Sold: lot.SoldQuantity + in.Quantity, HeldOz: lot.WeightOz.Mul(decimal.NewFromInt(left)), HeldCost: lot.HeldCost.Sub(out.CostBasis)}
	return out, held, nil
}

// UndoSale is the rule for undoing a sale (a db.UndoRule): its units, their fine ounces and
// its cost basis in the lot's currency (a slice recorded in another currency keeps it apart)
// go back to the lot, and once no sale is left the lot holds all of its
// original cost again (so cents rounded away by earlier shares come back too).
func UndoSale(lot db.SaleLot, sale db.Sale) (db.LotHeld, error) {
	sold := max(lot.SoldQuantity-sale.Quantity, 0)
	held := db.LotHeld{Sold: sold, HeldOz: lot.WeightOz.Mul(decimal.NewFromInt(lot.Quantity - sold)), HeldCost: lot.HeldCost.Add(sale.LotCostBasis())}
	if sold == 0 {
		held.HeldCost = lot.Cost
	}
	return held, nil
}

// PremiumRef is what a lot's fine ounces were worth at spot on its purchase day, rounded to
// 1e-8: the reference its premium is measured against. It is zero for lots without a spot
// and for gifts (price zero), which have no premium.
func PremiumRef(quantity int64, weightOz, price decimal.Decimal, spot decimal.NullDecimal) decimal.Decimal {
	if !spot.Valid || !price.IsPositive() || !spot.Decimal.IsPositive() {
		return decimal.Zero
	}
	return LotOz(quantity, weightOz).Mul(spot.Decimal).Round(ozPlaces)
}
