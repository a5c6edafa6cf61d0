package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
)

// Sale is a sale of some or all of the units of one holding.
type Sale struct {
	ID           string          `db:"id"`
	UserID       int64           `db:"user_id"`
	HoldingID    string          `db:"holding_id"`
	Metal        string          `db:"metal"`
	Quantity     int64           `db:"quantity"`
	Oz           decimal.Decimal `db:"oz"`
	PricePerUnit decimal.Decimal `db:"price_per_unit"`
	Fees         decimal.Decimal `db:"fees"`
	SoldOn       Date            `db:"sold_on"`
	// Proceeds is quantity × price per unit.
	Proceeds decimal.Decimal `db:"proceeds"`
	// CostBasis is the sold units' share of the holding's cost basis.
	CostBasis decimal.Decimal `db:"cost_basis"`
	// RealizedPL is proceeds − fees − cost basis.
	RealizedPL decimal.Decimal `db:"realized_pl"`
	CreatedAt  time.Time       `db:"created_at"`
	// Currency is the ISO 4217 code of the price, fees and every amount above: the lot's
	// purchase currency (issue 25).
	Currency string `db:"currency"`
	// DisposalID names the disposal across lots this sale is a slice of; empty for a
	// per-lot sale (POST /v1/holdings/{id}/sales).
	DisposalID string `db:"disposal_id"`
	// LotCost is the units' cost in their lot's currency when the sale is in another (a slice
	// of a disposal across lots bought in several currencies: CostBasis is then LotCost at the
	// exchange rate of the lot's purchase day); not Valid when the sale is in its lot's
	// currency, where the lot's cost is CostBasis.
	LotCost decimal.NullDecimal `db:"lot_cost"`
}

// LotCostBasis is the sale's cost basis in its lot's currency: what the lot gave up.
func (s Sale) LotCostBasis() decimal.Decimal {
	if s.LotCost.Valid {
		return s.LotCost.Decimal
	}
	return s.CostBasis
}

const saleCols = `id, user_id, holding_id, metal, quantity, oz, price_per_unit, fees, sold_on, proceeds, cost_basis, realized_pl, created_at, currency, COALESCE(disposal_id, '') AS disposal_id, lot_cost`

// saleInsertCols are the columns a sale row is written with.
const saleInsertCols = `id, user_id, holding_id, metal, quantity, oz, price_per_unit, fees, sold_on, proceeds, cost_basis, realized_pl, created_at, currency, disposal_id, oz_int, oz_e8, cost_int, cost_c, pl_int, pl_c, lot_cost, lot_cost_int, lot_cost_c`

// ErrOversold (an ErrConflict) means a sale asked for more units than are still held; the
// error returned is an *OversoldError saying how many.
var ErrOversold = fmt.Errorf("oversold: %w", ErrConflict)

// OversoldError reports a sale of more units than the holding still holds.
type OversoldError struct{ Asked, Held int64 }

// Error says how many units were asked for and how many are held.
func (e *OversoldError) Error() string {
	return fmt.Sprintf("cannot sell %d units: %d of this holding are still held", e.Asked, e.Held)
}

// Unwrap makes errors.Is(err, ErrOversold) and errors.Is(err, ErrConflict) hold.
func (e *OversoldError) Unwrap() error { return ErrOversold }

// SaleLot is what a sale is decided on: the holding as stored (SoldQuantity included), read
// for update, with its whole cost basis and the part of it still held.
type SaleLot struct {
	Holding
	// Cost is the lot's whole cost basis as stored; HeldCost what of it is still held.
	Cost, HeldCost decimal.Decimal
}

// LotHeld is what a holding holds once a sale is recorded or undone.
type LotHeld struct {
	// Sold is the holding's new sold quantity.
	Sold int64
	// HeldOz and HeldCost are the fine ounces and cost basis it still holds.
	HeldOz, HeldCost decimal.Decimal
}

// SaleRule decides a sale of in.Quantity units (at in.PricePerUnit, less in.Fees, on
// in.SoldOn) from lot: it returns the sale with its figures (Oz, Proceeds, CostBasis,
// RealizedPL) and what the holding holds after it, or an error (*OversoldError for more
// than is held). The rule is the portfolio service's (portfolio.DecideSale); the store reads
// the lot for update, calls it and writes what it decided, in one transaction.
type SaleRule func(lot SaleLot, in Sale) (Sale, LotHeld, error)

// UndoRule decides what lot holds once sale is undone (portfolio.UndoSale).
type UndoRule func(lot SaleLot, sale Sale) (LotHeld, error)

// InsertSale records the sale of in.Quantity units of the user's holding, as decide decides
// it: in one transaction it reads the holding for update, records the sale and reduces what
// the holding still holds. Another user's holding is ErrNotFound; decide's errors come back
// as they are (ErrOversold, an ErrConflict, for more than is held).
func (s *Store) InsertSale(ctx context.Context, userID int64, holdingID string, in Sale, decide SaleRule) (Sale, error) {
	var out Sale
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, err = s.insertSale(ctx, tx, userID, holdingID, in, s.now(), decide)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) || errors.Is(err, errDecided) {
			return Sale{}, unwrapDecided(err)
		}
		return Sale{}, fmt.Errorf("record sale: %w", err)
	}
	return out, nil
}

// decidedError carries a decide func's own error through the store unchanged.
type decidedError struct{ err error }

func (e decidedError) Error() string        { return e.err.Error() }
func (e decidedError) Unwrap() error        { return e.err }
func (e decidedError) Is(target error) bool { return target == errDecided }

var errDecided = errors.New("decided")

// unwrapDecided returns a decide func's error as it gave it.
func unwrapDecided(err error) error {
	if d, ok := errors.AsType[decidedError](err); ok {
		return d.err
	}
	return err
}

// SaleFilter narrows and pages a sales list.
type SaleFilter struct {
	Metal     string
	HoldingID string
	Limit     int
	Offset    int
}

// SalesPage is one page of sales with the count and realized total of all that match.
type SalesPage struct {
	Sales    []Sale
	Total    int
	Realized decimal.Decimal
}

// SalesByUser lists the user's sales, latest first, with the unpaged count and realized total.
func (s *Store) SalesByUser(ctx context.Context, userID int64, f SaleFilter) (SalesPage, error) {
	where := `WHERE user_id = ?`
	args := []any{userID}
	if f.Metal != "" {
		where += ` AND metal = ?`
		args = append(args, f.Metal)
	}
	if f.HoldingID != "" {
		where += ` AND holding_id = ?`
		args = append(args, f.HoldingID)
	}
	var sum struct {
		N     int             `db:"n"`
		PLInt decimal.Decimal `db:"pl_int"`
		PLC   decimal.Decimal `db:"pl_c"`
	}
	if err := s.db.GetContext(ctx, &sum, s.rebind(`SELECT count(*) AS n, COALESCE(SUM(pl_int), 0) AS pl_int, COALESCE(SUM(pl_c), 0) AS pl_c FROM sales `+where), args...); err != nil {
		return SalesPage{}, err
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	out := SalesPage{Sales: []Sale{}, Total: sum.N, Realized: join(sum.PLInt, sum.PLC, moneyPlaces)}
	err := s.db.SelectContext(ctx, &out.Sales, s.rebind(`SELECT `+saleCols+` FROM sales `+where+`
		ORDER BY sold_on DESC, created_at DESC, id DESC LIMIT ? OFFSET ?`), append(args, f.Limit, f.Offset)...)
	return out, err
}

// DeleteSale undoes one of the user's sales: in one transaction the sale is removed and the
// holding, read for update, holds what undo decides (its units, fine ounces and cost basis
// back), and the position ledger follows. A slice of a disposal across lots undoes the whole
// disposal (every slice). Another user's sale, or none, is ErrNotFound. It returns the sale
// named.
func (s *Store) DeleteSale(ctx context.Context, userID int64, saleID string, undo UndoRule) (Sale, error) {
	var sale Sale
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &sale, tx.Rebind(`SELECT `+saleCols+` FROM sales WHERE id = ? AND user_id = ?`), saleID, userID); err != nil {
			return notFound(err)
		}
		if sale.DisposalID != "" {
			// A slice of a disposal across lots: the whole disposal is undone.
			_, _, err := s.deleteDisposalTx(ctx, tx, userID, sale.DisposalID, undo)
			return err
		}
		return s.undoSaleTx(ctx, tx, userID, sale, undo)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, errDecided) {
			return Sale{}, unwrapDecided(err)
		}
		return Sale{}, fmt.Errorf("delete sale: %w", err)
	}
	return sale, nil
}

// saleLotTx reads the user's holding for update with its stored cost basis, whole and held.
func (s *Store) saleLotTx(ctx context.Context, tx *sqlx.Tx, userID int64, id string) (SaleLot, error) {
	var h struct {
		Holding
		CostInt     int64 `db:"cost_int"`
		CostC       int64 `db:"cost_c"`
		HeldCostInt int64 `db:"held_cost_int"`
		HeldCostC   int64 `db:"held_cost_c"`
	}
	if err := tx.GetContext(ctx, &h, tx.Rebind(`SELECT `+holdingCols+`, cost_int, cost_c, held_cost_int, held_cost_c FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()),
		id, userID); err != nil {
		return SaleLot{}, notFound(err)
	}
	return SaleLot{Holding: h.Holding, Cost: joinInts(h.CostInt, h.CostC, moneyPlaces), HeldCost: joinInts(h.HeldCostInt, h.HeldCostC, moneyPlaces)}, nil
}

// writeLotHeld stores what a holding read as lot holds now, at now. The sold quantity it was
// read with is part of the condition, so a change between the read and the write is a
// conflict rather than a double sale.
func (s *Store) writeLotHeld(ctx context.Context, tx *sqlx.Tx, userID int64, lot SaleLot, held LotHeld, now time.Time) error {
	heldOzInt, heldOzE8 := split(held.HeldOz, ozPlaces)
	heldCostInt, heldCostC := split(held.HeldCost, moneyPlaces)
	res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET sold_quantity = ?, held_oz_int = ?, held_oz_e8 = ?, held_cost_int = ?, held_cost_c = ?, updated_at = ?
			WHERE id = ? AND user_id = ? AND sold_quantity = ?`),
		held.Sold, heldOzInt, heldOzE8, heldCostInt, heldCostC, now, lot.ID, userID, lot.SoldQuantity)
	if err != nil {
		return fmt.Errorf("update sold holding: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// The row lock (PostgreSQL) or the write lock (SQLite) makes this unreachable;
		// refuse rather than double-sell if it ever is not.
		return fmt.Errorf("the holding changed during the sale: %w", ErrConflict)
	}
	return nil
}

// AllSales returns every sale of the user in the order they were recorded, for export.
func (s *Store) AllSales(ctx context.Context, userID int64) ([]Sale, error) {
	out := []Sale{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+saleCols+` FROM sales WHERE user_id = ? ORDER BY created_at, id`), userID)
	return out, err
}

// insertSale is InsertSale inside the caller's transaction, recorded at now; the position
// ledger gains the sale and the lot's smaller holding in the same transaction.
func (s *Store) insertSale(ctx context.Context, tx *sqlx.Tx, userID int64, holdingID string, in Sale, now time.Time, decide SaleRule) (Sale, error) {
	lot, err := s.saleLotTx(ctx, tx, userID, holdingID)
	if err != nil {
		return Sale{}, err
	}
	before, err := s.lotStateTx(ctx, tx, userID, holdingID)
	if err != nil {
		return Sale{}, err
	}
	out, held, err := decide(lot, in)
	if err != nil {
		return Sale{}, decidedError{err}
	}
	out.ID, out.UserID, out.HoldingID, out.Metal, out.CreatedAt = newID("s_"), userID, lot.ID, lot.Metal, now
	out.Currency = lotCurrency(lot.Holding)
	state, err := s.insertSaleRow(ctx, tx, out)
	if err != nil {
		return Sale{}, err
	}
	if err := s.writeLotHeld(ctx, tx, userID, lot, held, now); err != nil {
		return Sale{}, err
	}
	after, err := s.lotStateTx(ctx, tx, userID, holdingID)
	if err != nil {
		return Sale{}, err
	}
	d := ledgerDelta{}
	d.addSale(state, 1)
	d.addLot(before, -1)
	d.addLot(after, 1)
	if err := s.applyLedger(ctx, tx, userID, d); err != nil {
		return Sale{}, err
	}
	return out, nil
}

// insertSaleRow writes one sale row as it is (ids and figures decided) inside tx and returns
// what it adds to the position ledger.
func (s *Store) insertSaleRow(ctx context.Context, tx *sqlx.Tx, out Sale) (saleState, error) {
	ozInt, ozE8 := split(out.Oz, ozPlaces)
	costInt, costC := split(out.CostBasis, moneyPlaces)
	plInt, plC := split(out.RealizedPL, moneyPlaces)
	var disposal, lotCost, lotCostInt, lotCostC any
	if out.DisposalID != "" {
		disposal = out.DisposalID
	}
	if out.LotCost.Valid {
		i, c := split(out.LotCost.Decimal, moneyPlaces)
		lotCost, lotCostInt, lotCostC = out.LotCost.Decimal.String(), i, c
	}
	_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO sales (`+saleInsertCols+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		out.ID, out.UserID, out.HoldingID, out.Metal, out.Quantity, out.Oz.String(), out.PricePerUnit.String(), out.Fees.String(),
		out.SoldOn, out.Proceeds.String(), out.CostBasis.String(), out.RealizedPL.String(), out.CreatedAt, saleCurrencyOr(out.Currency), disposal,
		ozInt, ozE8, costInt, costC, plInt, plC, lotCost, lotCostInt, lotCostC)
	if err != nil {
		return saleState{}, fmt.Errorf("insert sale: %w", err)
	}
	return saleState{Metal: out.Metal, SoldOn: out.SoldOn, OzInt: ozInt, OzE8: ozE8, CostInt: costInt, CostC: costC, PLInt: plInt, PLC: plC}, nil
}

// saleCurrencyOr is the currency a sale row is written with: USD when none was decided.
func saleCurrencyOr(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}
