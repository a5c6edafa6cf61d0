package portfolio

import (
	"context"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// LedgerLot is one purchase as the ledger shows it: what was bought, what of it was sold
// (each sale), and what remains, valued at the live board.
type LedgerLot struct {
	Holding
	// Sales are the lot's sales in the order they were recorded.
	Sales []Sale
	// RemainingOz and RemainingCost are the fine ounces still held and their cost basis (the
	// lot's cost less the cost basis its sales took).
	RemainingOz, RemainingCost decimal.Decimal
	// Realized is the profit or loss of the lot's sales.
	Realized decimal.Decimal
	// Value is RemainingOz × spot to the cent; PL is Value − RemainingCost, PLPct its share
	// of RemainingCost. Nil without a price for the metal.
	Value, PL, PLPct *decimal.Decimal
}

// Ledger is a member's lots (newest purchase first, at most MaxLedgerLots) with the per-metal
// subtotals of the whole stack.
type Ledger struct {
	Lots []LedgerLot
	// Total counts every lot matching the filter; Metal is the filter ("" for all).
	Total int
	Metal string
	// Limit and Offset are the page LedgerPage listed (zero from Ledger and LedgerSearch).
	Limit, Offset int
	// Portfolio gives the per-metal subtotals (all lots, not only those listed).
	Portfolio Portfolio
}

// MaxLedgerLots is how many lots the ledger lists at once.
const MaxLedgerLots = 200

// Ledger lists the member's lots with their sales and what remains of each. metal is "" for
// every metal, else a metal in any case or its symbol.
func (s *Service) Ledger(ctx context.Context, u db.User, metal string) (Ledger, error) {
	return s.LedgerSearch(ctx, u, metal, HoldingsQuery{})
}

// LedgerSearch is the ledger of the lots q's search text, tag and location select.
func (s *Service) LedgerSearch(ctx context.Context, u db.User, metal string, q HoldingsQuery) (Ledger, error) {
	if err := requireGold(u); err != nil {
		return Ledger{}, err
	}
	if metal != "" {
		m, err := metals.Parse(metal)
		if err != nil {
			return Ledger{}, apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
		}
		metal = string(m)
	}
	rows, total, err := s.store.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Metal: metal, Q: q.Q, Tag: q.Tag, LocationID: q.LocationID, Limit: MaxLedgerLots})
	if err != nil {
		return Ledger{}, err
	}
	return s.ledgerOf(ctx, u, rows, total, metal)
}

// ledgerOf is the ledger of the lots rows (total of them matched), with their sales and
// the per-metal subtotals of the whole stack.
func (s *Service) ledgerOf(ctx context.Context, u db.User, rows []db.Holding, total int, metal string) (Ledger, error) {
	p, err := s.Portfolio(ctx, u)
	if err != nil {
		return Ledger{}, err
	}
	out := Ledger{Total: total, Metal: metal, Portfolio: p, Lots: make([]LedgerLot, len(rows))}
	idx := make(map[string]int, len(rows))
	board := s.snapshot()
	for i, r := range rows {
		h := holdingFromRow(r)
		s.localize(ctx, &h)
		out.Lots[i] = LedgerLot{Holding: h, RemainingOz: h.RemainingOz(), RemainingCost: h.TotalCost(), Realized: decimal.Zero}
		idx[h.ID] = i
	}
	var sold []string
	for _, l := range out.Lots {
		if l.SoldQuantity > 0 {
			sold = append(sold, l.ID)
		}
	}
	if len(sold) > 0 {
		// Only the listed lots' sales: a page of 50 need not read every sale of the member.
		sales, err := s.store.SalesOfHoldings(ctx, u.ID, sold)
		if err != nil {
			return Ledger{}, err
		}
		for _, r := range sales {
			i, ok := idx[r.HoldingID]
			if !ok {
				continue
			}
			l := &out.Lots[i]
			l.Sales = append(l.Sales, saleFromRow(r))
			l.RemainingCost = l.RemainingCost.Sub(r.LotCostBasis())
			pl, err := s.realizedInLot(ctx, l.Holding, r)
			if err != nil {
				return Ledger{}, err
			}
			l.Realized = l.Realized.Add(pl)
		}
	}
	for i := range out.Lots {
		l := &out.Lots[i]
		if sp, ok := board.Prices[l.Metal]; ok {
			// In the lot's own currency, as its cost is (unknown without today's rate).
			l.Value = s.valueInLot(ctx, l.Holding, l.RemainingOz.Mul(sp.Price), metals.Money)
			l.PL = sub(l.Value, l.RemainingCost)
			l.PLPct = PctOf(l.PL, l.RemainingCost)
		}
	}
	return out, nil
}

// realizedInLot is a sale's realized profit in its lot's currency: as recorded, or for a slice
// recorded in another currency (a disposal across currencies) its proceeds less fees at the
// sale day's rate less the lot's cost of the units, as the gains report counts it.
func (s *Service) realizedInLot(ctx context.Context, h Holding, r db.Sale) (decimal.Decimal, error) {
	if !r.LotCost.Valid {
		return r.RealizedPL, nil
	}
	if s.rates == nil {
		return decimal.Zero, apperr.New(apperr.Unavailable, "exchange rates are not available")
	}
	conv := &converter{ctx: ctx, rates: s.rates, to: h.Currency()}
	f, err := conv.factor(saleCurrency(r.Currency), r.SoldOn.Time)
	if err != nil {
		return decimal.Zero, err
	}
	return r.Proceeds.Sub(r.Fees).Mul(f).Sub(r.LotCost.Decimal), nil
}
