package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
)

// Disposal is a disposal of units of one product (lots of the same metal and product name)
// across lots; its slices are sales rows carrying its id.
type Disposal struct {
	ID           string          `db:"id"`
	UserID       int64           `db:"user_id"`
	Metal        string          `db:"metal"`
	ProductName  string          `db:"product_name"`
	Kind         string          `db:"kind"`
	Method       string          `db:"method"`
	Quantity     int64           `db:"quantity"`
	PricePerUnit decimal.Decimal `db:"price_per_unit"`
	Fees         decimal.Decimal `db:"fees"`
	SoldOn       Date            `db:"sold_on"`
	// Received names the lot a trade became (kind traded), or is empty.
	Received  string    `db:"received"`
	CreatedAt time.Time `db:"created_at"`
	// Currency is the currency the rule records the disposal in ("" for its lots' own), as
	// the rule was told; the store keeps it on the slices, not here.
	Currency string `db:"-"`
}

const disposalCols = `id, user_id, metal, product_name, kind, method, quantity, price_per_unit, fees, sold_on, received, created_at`

// LotPick names units of one lot for a disposal (method specific, or a disposal replayed by
// an import).
type LotPick struct {
	HoldingID string `json:"holding_id"`
	Quantity  int64  `json:"quantity"`
}

// DisposalReplay is the rule that records again a disposal of the given method from the lots
// and units named, as an import does (portfolio.DecideDisposal).
type DisposalReplay func(method string, picks []LotPick) DisposalRule

// DisposalSlice is one lot's part of a disposal: Lot indexes the lots the rule was given,
// Sale carries the slice's figures (Quantity, Oz, PricePerUnit, Fees, SoldOn, Proceeds,
// CostBasis, RealizedPL).
type DisposalSlice struct {
	Lot  int
	Sale Sale
}

// DisposalDecision is what a disposal rule decided: the slices, and what every lot whose
// holding changes holds afterwards (by index into the lots).
type DisposalDecision struct {
	Slices []DisposalSlice
	Held   map[int]LotHeld
}

// DisposalRule decides a disposal from the product's lots as stored (read for update, in id
// order): the rule is the portfolio service's (portfolio.DecideDisposal).
type DisposalRule func(lots []SaleLot, in Disposal) (DisposalDecision, error)

// productLotsTx reads the user's lots of one metal and product name that still hold units,
// in id order (locking them on PostgreSQL, the same order for every writer).
func (s *Store) productLotsTx(ctx context.Context, q sqlx.QueryerContext, userID int64, metal, product string, lock bool) ([]SaleLot, error) {
	var rows []struct {
		Holding
		CostInt     int64 `db:"cost_int"`
		CostC       int64 `db:"cost_c"`
		HeldCostInt int64 `db:"held_cost_int"`
		HeldCostC   int64 `db:"held_cost_c"`
	}
	tail := ""
	if lock {
		tail = s.forUpdate()
	}
	err := sqlx.SelectContext(ctx, q, &rows, s.rebind(`SELECT `+holdingCols+`, cost_int, cost_c, held_cost_int, held_cost_c FROM holdings
		WHERE user_id = ? AND metal = ? AND product_name = ? AND sold_quantity < quantity ORDER BY id`+tail), userID, metal, product)
	if err != nil {
		return nil, err
	}
	out := make([]SaleLot, len(rows))
	for i, h := range rows {
		out[i] = SaleLot{Holding: h.Holding, Cost: joinInts(h.CostInt, h.CostC, moneyPlaces), HeldCost: joinInts(h.HeldCostInt, h.HeldCostC, moneyPlaces)}
	}
	return out, nil
}

// ProductLots reads the user's lots of one metal and product name that still hold units, for
// a preview (nothing is locked or written).
func (s *Store) ProductLots(ctx context.Context, userID int64, metal, product string) ([]SaleLot, error) {
	return s.productLotsTx(ctx, s.db, userID, metal, product, false)
}

// InsertDisposal records a disposal of in.Quantity units of the user's lots of in.Metal and
// in.ProductName as decide decides it: in one transaction the lots are read for update, the
// disposal and its slices (sales rows) are written, every changed lot holds what decide said
// and the position ledger follows. decide's errors come back as they are (an
// *OversoldError for more units than are held); any failure leaves nothing written.
func (s *Store) InsertDisposal(ctx context.Context, userID int64, in Disposal, decide DisposalRule) (Disposal, []Sale, error) {
	var out Disposal
	var slices []Sale
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, slices, err = s.insertDisposalTx(ctx, tx, userID, in, decide, s.now())
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) || errors.Is(err, errDecided) {
			return Disposal{}, nil, unwrapDecided(err)
		}
		return Disposal{}, nil, fmt.Errorf("record disposal: %w", err)
	}
	return out, slices, nil
}

// DisposalByID returns one of the user's disposals with its slices in the order recorded;
// another user's, or none, is ErrNotFound.
func (s *Store) DisposalByID(ctx context.Context, userID int64, id string) (Disposal, []Sale, error) {
	d, err := memberRow[Disposal](ctx, s, disposalCols, "disposals", userID, id)
	if err != nil {
		return Disposal{}, nil, err
	}
	sales := []Sale{}
	err = s.db.SelectContext(ctx, &sales, s.rebind(`SELECT `+saleCols+` FROM sales WHERE disposal_id = ? AND user_id = ? ORDER BY created_at, id`), id, userID)
	return d, sales, err
}

// AllDisposals returns every disposal of the user in the order recorded, for export and the
// gains report.
func (s *Store) AllDisposals(ctx context.Context, userID int64) ([]Disposal, error) {
	out := []Disposal{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+disposalCols+` FROM disposals WHERE user_id = ? ORDER BY created_at, id`), userID)
	return out, err
}

// DeleteDisposal undoes one of the user's disposals: in one transaction every slice is
// removed, each lot holds what undo decides (as DeleteSale) and the disposal is gone.
// Another user's disposal, or none, is ErrNotFound. It returns the disposal and its slices.
func (s *Store) DeleteDisposal(ctx context.Context, userID int64, id string, undo UndoRule) (Disposal, []Sale, error) {
	var d Disposal
	var sales []Sale
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		d, sales, err = s.deleteDisposalTx(ctx, tx, userID, id, undo)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, errDecided) {
			return Disposal{}, nil, unwrapDecided(err)
		}
		return Disposal{}, nil, fmt.Errorf("delete disposal: %w", err)
	}
	return d, sales, nil
}

func (s *Store) deleteDisposalTx(ctx context.Context, tx *sqlx.Tx, userID int64, id string, undo UndoRule) (Disposal, []Sale, error) {
	var d Disposal
	if err := tx.GetContext(ctx, &d, tx.Rebind(`SELECT `+disposalCols+` FROM disposals WHERE id = ? AND user_id = ?`+s.forUpdate()), id, userID); err != nil {
		return Disposal{}, nil, notFound(err)
	}
	sales := []Sale{}
	if err := tx.SelectContext(ctx, &sales, tx.Rebind(`SELECT `+saleCols+` FROM sales WHERE disposal_id = ? AND user_id = ? ORDER BY holding_id, created_at DESC, id`), id, userID); err != nil {
		return Disposal{}, nil, err
	}
	for _, sale := range sales {
		if err := s.undoSaleTx(ctx, tx, userID, sale, undo); err != nil {
			return Disposal{}, nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM disposals WHERE id = ? AND user_id = ?`), id, userID); err != nil {
		return Disposal{}, nil, fmt.Errorf("delete disposal: %w", err)
	}
	return d, sales, nil
}

// undoSaleTx removes one sale row and gives its lot back what undo decides, inside tx.
func (s *Store) undoSaleTx(ctx context.Context, tx *sqlx.Tx, userID int64, sale Sale, undo UndoRule) error {
	lot, err := s.saleLotTx(ctx, tx, userID, sale.HoldingID)
	if err != nil {
		return err
	}
	before, err := s.lotStateTx(ctx, tx, userID, lot.ID)
	if err != nil {
		return err
	}
	var gone saleState
	if err := tx.GetContext(ctx, &gone, tx.Rebind(`SELECT metal, sold_on, oz_int, oz_e8, cost_int, cost_c, pl_int, pl_c FROM sales WHERE id = ?`), sale.ID); err != nil {
		return err
	}
	held, err := undo(lot, sale)
	if err != nil {
		return decidedError{err}
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM sales WHERE id = ? AND user_id = ?`), sale.ID, userID); err != nil {
		return fmt.Errorf("delete sale: %w", err)
	}
	if err := s.writeLotHeld(ctx, tx, userID, lot, held, s.now()); err != nil {
		return err
	}
	after, err := s.lotStateTx(ctx, tx, userID, lot.ID)
	if err != nil {
		return err
	}
	d := ledgerDelta{}
	d.addSale(gone, -1)
	d.addLot(before, -1)
	d.addLot(after, 1)
	return s.applyLedger(ctx, tx, userID, d)
}

// TaxSlice is one sale row as the gains report reads it: the slice, the lot it came from and
// its disposal's kind and method (sold and specific for a per-lot sale).
type TaxSlice struct {
	Sale
	ProductName  string    `db:"product_name"`
	PurchaseDate Date      `db:"purchase_date"`
	LotCreatedAt time.Time `db:"lot_created_at"`
	Kind         string    `db:"kind"`
	Method       string    `db:"method"`
	// TaxAdvantaged is true when the lot is kept at an IRA custodian (a location of kind ira).
	TaxAdvantaged bool `db:"tax_advantaged"`
	// LotCurrency is the lot's purchase currency: the currency of its cost.
	LotCurrency string `db:"lot_currency"`
}

// LotCost is the slice's cost basis in its lot's currency.
func (t TaxSlice) LotCost() decimal.Decimal { return t.LotCostBasis() }

// TaxSlices returns the user's sale rows sold on from ≤ day < to, in date order.
func (s *Store) TaxSlices(ctx context.Context, userID int64, from, to Date) ([]TaxSlice, error) {
	out := []TaxSlice{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT s.id, s.user_id, s.holding_id, s.metal, s.quantity, s.oz, s.price_per_unit, s.fees, s.sold_on,
		s.proceeds, s.cost_basis, s.realized_pl, s.created_at, s.currency, COALESCE(s.disposal_id, '') AS disposal_id, s.lot_cost,
		h.product_name, h.purchase_date, h.created_at AS lot_created_at, h.purchase_currency AS lot_currency,
		COALESCE(d.kind, 'sold') AS kind, COALESCE(d.method, 'specific') AS method,
		COALESCE(l.kind = 'ira', false) AS tax_advantaged
		FROM sales s JOIN holdings h ON h.id = s.holding_id LEFT JOIN disposals d ON d.id = s.disposal_id
		LEFT JOIN locations l ON l.id = h.location_id AND l.user_id = h.user_id
		WHERE s.user_id = ? AND s.sold_on >= ? AND s.sold_on < ?
		ORDER BY s.sold_on, s.created_at, s.id`), userID, from, to)
	return out, err
}

// insertDisposalTx is InsertDisposal inside the caller's transaction, recorded at now.
func (s *Store) insertDisposalTx(ctx context.Context, tx *sqlx.Tx, userID int64, in Disposal, decide DisposalRule, now time.Time) (Disposal, []Sale, error) {
	var out Disposal
	var slices []Sale
	lots, err := s.productLotsTx(ctx, tx, userID, in.Metal, in.ProductName, true)
	if err != nil {
		return Disposal{}, nil, fmt.Errorf("read lots: %w", err)
	}
	dec, err := decide(lots, in)
	if err != nil {
		return Disposal{}, nil, decidedError{err}
	}
	out = in
	out.ID, out.UserID, out.CreatedAt = newID("d_"), userID, now
	if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO disposals (`+disposalCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		out.ID, out.UserID, out.Metal, out.ProductName, out.Kind, out.Method, out.Quantity, out.PricePerUnit.String(), out.Fees.String(),
		out.SoldOn, out.Received, out.CreatedAt); err != nil {
		return Disposal{}, nil, fmt.Errorf("insert disposal: %w", err)
	}
	d := ledgerDelta{}
	before := map[int]lotState{}
	for i := range dec.Held {
		st, err := s.lotStateTx(ctx, tx, userID, lots[i].ID)
		if err != nil {
			return Disposal{}, nil, err
		}
		before[i] = st
	}
	for n, sl := range dec.Slices {
		if sl.Lot < 0 || sl.Lot >= len(lots) {
			return Disposal{}, nil, fmt.Errorf("slice %d names no lot", n)
		}
		if _, ok := dec.Held[sl.Lot]; !ok {
			return Disposal{}, nil, fmt.Errorf("slice %d: lot %s changes without its holding", n, lots[sl.Lot].ID)
		}
		sale := sl.Sale
		sale.ID, sale.UserID, sale.HoldingID, sale.Metal, sale.DisposalID = newID("s_"), userID, lots[sl.Lot].ID, lots[sl.Lot].Metal, out.ID
		if sale.Currency == "" {
			sale.Currency = lotCurrency(lots[sl.Lot].Holding)
		}
		// Slices are ordered by created_at: a microsecond apart, as an import records them.
		sale.CreatedAt = now.Add(time.Duration(n) * time.Microsecond)
		st, err := s.insertSaleRow(ctx, tx, sale)
		if err != nil {
			return Disposal{}, nil, err
		}
		d.addSale(st, 1)
		slices = append(slices, sale)
	}
	for i, held := range dec.Held {
		if err := s.writeLotHeld(ctx, tx, userID, lots[i], held, now); err != nil {
			return Disposal{}, nil, err
		}
		after, err := s.lotStateTx(ctx, tx, userID, lots[i].ID)
		if err != nil {
			return Disposal{}, nil, err
		}
		d.addLot(before[i], -1)
		d.addLot(after, 1)
	}
	return out, slices, s.applyLedger(ctx, tx, userID, d)
}
