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
}

const saleCols = `id, user_id, holding_id, metal, quantity, oz, price_per_unit, fees, sold_on, proceeds, cost_basis, realized_pl, created_at`

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

// saleShare is the cost basis of selling qty of the remaining units of a lot whose remaining
// cost basis is heldCost: the proportional share, to the cent, and all of it for the last units.
// Taking the share of what remains (rather than of the original cost) keeps the remaining
// cost basis between zero and its start however the cents were rounded before.
func saleShare(heldCost decimal.Decimal, remaining, qty int64) decimal.Decimal {
	if qty >= remaining {
		return heldCost
	}
	return heldCost.Mul(decimal.NewFromInt(qty)).Div(decimal.NewFromInt(remaining)).Round(moneyPlaces)
}

// InsertSale records the sale of in.Quantity units of the user's holding at in.PricePerUnit,
// less in.Fees, on in.SoldOn. In one transaction it takes the units' share of the remaining cost
// basis, computes proceeds and realized profit, and reduces what the holding still holds.
// Selling more than is held is ErrOversold; another user's holding is ErrNotFound.
func (s *Store) InsertSale(ctx context.Context, userID int64, holdingID string, in Sale) (Sale, error) {
	if in.Quantity <= 0 {
		return Sale{}, fmt.Errorf("sale quantity must be positive")
	}
	var out Sale
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		out, err = s.insertSale(ctx, tx, userID, holdingID, in, s.now())
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
			return Sale{}, err
		}
		return Sale{}, fmt.Errorf("record sale: %w", err)
	}
	return out, nil
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

// DeleteSale undoes one of the user's sales: in one transaction the sale is removed and its
// units, fine ounces and cost basis go back to the holding (all of its original cost once no
// sale is left), and the position ledger follows. Another user's sale, or none, is ErrNotFound.
// It returns the sale removed.
func (s *Store) DeleteSale(ctx context.Context, userID int64, saleID string) (Sale, error) {
	var sale Sale
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &sale, tx.Rebind(`SELECT `+saleCols+` FROM sales WHERE id = ? AND user_id = ?`), saleID, userID); err != nil {
			return notFound(err)
		}
		var h struct {
			Holding
			CostInt     int64 `db:"cost_int"`
			CostC       int64 `db:"cost_c"`
			HeldCostInt int64 `db:"held_cost_int"`
			HeldCostC   int64 `db:"held_cost_c"`
		}
		if err := tx.GetContext(ctx, &h, tx.Rebind(`SELECT `+holdingCols+`, cost_int, cost_c, held_cost_int, held_cost_c FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()),
			sale.HoldingID, userID); err != nil {
			return notFound(err)
		}
		before, err := s.lotStateTx(ctx, tx, userID, h.ID)
		if err != nil {
			return err
		}
		var gone saleState
		if err := tx.GetContext(ctx, &gone, tx.Rebind(`SELECT metal, sold_on, oz_int, oz_e8, cost_int, cost_c, pl_int, pl_c FROM sales WHERE id = ?`), saleID); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM sales WHERE id = ? AND user_id = ?`), saleID, userID); err != nil {
			return fmt.Errorf("delete sale: %w", err)
		}
		sold := h.SoldQuantity - sale.Quantity
		if sold < 0 {
			sold = 0
		}
		heldCost := join(decimal.NewFromInt(h.HeldCostInt), decimal.NewFromInt(h.HeldCostC), moneyPlaces).Add(sale.CostBasis)
		if sold == 0 {
			heldCost = join(decimal.NewFromInt(h.CostInt), decimal.NewFromInt(h.CostC), moneyPlaces)
		}
		heldOzInt, heldOzE8 := split(h.WeightOz.Mul(decimal.NewFromInt(h.Quantity-sold)), ozPlaces)
		heldCostInt, heldCostC := split(heldCost, moneyPlaces)
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET sold_quantity = ?, held_oz_int = ?, held_oz_e8 = ?, held_cost_int = ?, held_cost_c = ?, updated_at = ?
			WHERE id = ? AND user_id = ?`), sold, heldOzInt, heldOzE8, heldCostInt, heldCostC, s.now(), h.ID, userID); err != nil {
			return err
		}
		after, err := s.lotStateTx(ctx, tx, userID, h.ID)
		if err != nil {
			return err
		}
		d := ledgerDelta{}
		d.addSale(gone, -1)
		d.addLot(before, -1)
		d.addLot(after, 1)
		return s.applyLedger(ctx, tx, userID, d)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return Sale{}, err
		}
		return Sale{}, fmt.Errorf("delete sale: %w", err)
	}
	return sale, nil
}

// AllSales returns every sale of the user in the order they were recorded, for export.
func (s *Store) AllSales(ctx context.Context, userID int64) ([]Sale, error) {
	out := []Sale{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+saleCols+` FROM sales WHERE user_id = ? ORDER BY created_at, id`), userID)
	return out, err
}

// insertSale is InsertSale inside the caller's transaction, recorded at now; the position
// ledger gains the sale and the lot's smaller holding in the same transaction.
func (s *Store) insertSale(ctx context.Context, tx *sqlx.Tx, userID int64, holdingID string, in Sale, now time.Time) (Sale, error) {
	var h struct {
		Holding
		HeldCostInt int64 `db:"held_cost_int"`
		HeldCostC   int64 `db:"held_cost_c"`
	}
	err := tx.GetContext(ctx, &h, tx.Rebind(`SELECT `+holdingCols+`, held_cost_int, held_cost_c FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()), holdingID, userID)
	if err != nil {
		return Sale{}, notFound(err)
	}
	before, err := s.lotStateTx(ctx, tx, userID, holdingID)
	if err != nil {
		return Sale{}, err
	}
	remaining := h.Remaining()
	if in.Quantity > remaining {
		return Sale{}, &OversoldError{Asked: in.Quantity, Held: remaining}
	}
	heldCost := join(decimal.NewFromInt(h.HeldCostInt), decimal.NewFromInt(h.HeldCostC), moneyPlaces)
	out := Sale{
		ID: newID("s_"), UserID: userID, HoldingID: h.ID, Metal: h.Metal, Quantity: in.Quantity,
		Oz: h.WeightOz.Mul(decimal.NewFromInt(in.Quantity)), PricePerUnit: in.PricePerUnit, Fees: in.Fees, SoldOn: in.SoldOn,
		Proceeds:  in.PricePerUnit.Mul(decimal.NewFromInt(in.Quantity)),
		CostBasis: saleShare(heldCost, remaining, in.Quantity),
		CreatedAt: now,
	}
	out.RealizedPL = out.Proceeds.Sub(out.Fees).Sub(out.CostBasis)
	ozInt, ozE8 := split(out.Oz, ozPlaces)
	costInt, costC := split(out.CostBasis, moneyPlaces)
	plInt, plC := split(out.RealizedPL, moneyPlaces)
	_, err = tx.ExecContext(ctx, tx.Rebind(`INSERT INTO sales (`+saleCols+`, oz_int, oz_e8, cost_int, cost_c, pl_int, pl_c)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		out.ID, out.UserID, out.HoldingID, out.Metal, out.Quantity, out.Oz.String(), out.PricePerUnit.String(), out.Fees.String(),
		out.SoldOn, out.Proceeds.String(), out.CostBasis.String(), out.RealizedPL.String(), out.CreatedAt,
		ozInt, ozE8, costInt, costC, plInt, plC)
	if err != nil {
		return Sale{}, fmt.Errorf("insert sale: %w", err)
	}
	left := remaining - in.Quantity
	heldOzInt, heldOzE8 := split(h.WeightOz.Mul(decimal.NewFromInt(left)), ozPlaces)
	heldCostInt, heldCostC := split(heldCost.Sub(out.CostBasis), moneyPlaces)
	res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET sold_quantity = ?, held_oz_int = ?, held_oz_e8 = ?, held_cost_int = ?, held_cost_c = ?, updated_at = ?
			WHERE id = ? AND user_id = ? AND sold_quantity = ?`),
		h.SoldQuantity+in.Quantity, heldOzInt, heldOzE8, heldCostInt, heldCostC, now, h.ID, userID, h.SoldQuantity)
	if err != nil {
		return Sale{}, fmt.Errorf("update sold holding: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// The row lock (PostgreSQL) or the write lock (SQLite) makes this unreachable;
		// refuse rather than double-sell if it ever is not.
		return Sale{}, fmt.Errorf("the holding changed during the sale: %w", ErrConflict)
	}
	after, err := s.lotStateTx(ctx, tx, userID, holdingID)
	if err != nil {
		return Sale{}, err
	}
	d := ledgerDelta{}
	d.addSale(saleState{Metal: out.Metal, SoldOn: out.SoldOn, OzInt: ozInt, OzE8: ozE8, CostInt: costInt, CostC: costC, PLInt: plInt, PLC: plC}, 1)
	d.addLot(before, -1)
	d.addLot(after, 1)
	if err := s.applyLedger(ctx, tx, userID, d); err != nil {
		return Sale{}, err
	}
	return out, nil
}
