package portfolio

import (
	"context"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// The orders a lots table may take (the store sorts in SQL).
const (
	LotsByProduct = db.LotsByProduct
	LotsByMetal   = db.LotsByMetal
	LotsByOz      = db.LotsByOz
	LotsByCost    = db.LotsByCost
	LotsByValue   = db.LotsByValue
	LotsByPL      = db.LotsByPL
	LotsByDate    = db.LotsByDate
)

var lotOrders = []string{LotsByProduct, LotsByMetal, LotsByOz, LotsByCost, LotsByValue, LotsByPL, LotsByDate}

// Lot is a holding with units still held, valued at the live board.
type Lot struct {
	Holding
	// HeldOz and HeldCost are the fine ounces and the cost basis left after sales.
	HeldOz, HeldCost decimal.Decimal
	// Value is HeldOz × spot to the cent; PL is Value − HeldCost, PLPct its share of
	// HeldCost. Nil without a price for the metal.
	Value, PL, PLPct *decimal.Decimal
}

// LotsPage is the first lots of a member in the order asked for, with the count of all.
type LotsPage struct {
	Lots []Lot
	// Total counts every lot still held.
	Total int
	// Order and Desc are the order applied (an unknown order falls back to value, largest first).
	Order string
	Desc  bool
}

// HeldLots lists up to limit of the member's lots still held, sorted in SQL by order
// (LotsBy…), descending unless dir is "asc"; an unknown order is by value.
func (s *Service) HeldLots(ctx context.Context, u db.User, order, dir string, limit int) (LotsPage, error) {
	if err := requireGold(u); err != nil {
		return LotsPage{}, err
	}
	if !slices.Contains(lotOrders, order) {
		order = LotsByValue
	}
	desc := dir != "asc"
	board := s.snapshot()
	spot := map[metals.Metal]float64{}
	for m, sp := range board.Prices {
		spot[m], _ = sp.Price.Float64() // ordering only; every amount returned is exact
	}
	rows, total, err := s.store.HeldLots(ctx, u.ID, order, desc, spot, limit)
	if err != nil {
		return LotsPage{}, err
	}
	out := LotsPage{Total: total, Order: order, Desc: desc, Lots: make([]Lot, len(rows))}
	for i, r := range rows {
		l := Lot{Holding: holdingFromRow(r.Holding), HeldOz: r.HeldOz, HeldCost: r.HeldCost}
		s.localize(ctx, &l.Holding)
		if sp, ok := board.Prices[l.Metal]; ok {
			// In the lot's own currency, as its cost is (unknown without today's rate).
			l.Value = s.valueInLot(ctx, l.Holding, r.HeldOz.Mul(sp.Price), func(d decimal.Decimal) decimal.Decimal {
				if l.Currency() != "USD" {
					return metals.Money(d)
				}
				return d
			})
			l.PL = sub(l.Value, r.HeldCost)
			l.PLPct = PctOf(l.PL, r.HeldCost)
		}
		out.Lots[i] = l
	}
	return out, nil
}
