package db

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
)

// Holding is one purchase: quantity units of weight_oz fine ounces each.
type Holding struct {
	ID            string          `db:"id"`
	UserID        int64           `db:"user_id"`
	Metal         string          `db:"metal"`
	ProductName   string          `db:"product_name"`
	Quantity      int64           `db:"quantity"`
	WeightOz      decimal.Decimal `db:"weight_oz"`
	PurchasePrice decimal.Decimal `db:"purchase_price"`
	Fees          decimal.Decimal `db:"fees"`
	Dealer        string          `db:"dealer"`
	PurchaseDate  Date            `db:"purchase_date"`
	Notes         string          `db:"notes"`
	// SoldQuantity is how many of the units have been sold (see InsertSale).
	SoldQuantity int64     `db:"sold_quantity"`
	CreatedAt    time.Time `db:"created_at"`
	UpdatedAt    time.Time `db:"updated_at"`
	// SpotAtPurchase is the metal's close on the purchase date (or the last close before it),
	// set by the portfolio service on every write; invalid when no close is known.
	SpotAtPurchase decimal.NullDecimal `db:"spot_at_purchase"`
	// LocationID and Tags are where the lot is kept and its tags joined by commas (custody.go).
	LocationID sql.NullString `db:"location_id"`
	Tags       string         `db:"tags"`
	// Ref is what the lot's fine ounces were worth at SpotAtPurchase (zero without a spot and
	// for gifts): the reference its premium is measured against. The portfolio service
	// computes it (portfolio.PremiumRef) beside SpotAtPurchase on every write; the store keeps
	// it in the exact columns the premium sums read and does not read it back.
	Ref decimal.Decimal `db:"-"`
	// Oz and Cost are the lot's fine ounces (quantity × weight per unit) and cost basis
	// (quantity × price per unit plus fees). The portfolio service computes them
	// (portfolio.WithTotals) on every write, as it does Ref; the store keeps them in the exact
	// columns the portfolio sums read, refuses a holding written without them
	// (ErrMissingTotals), and does not read them back.
	Oz, Cost decimal.NullDecimal `db:"-"`

	// PurchaseCurrency is the ISO 4217 code PurchasePrice and Fees are in (issue 25).
	PurchaseCurrency string `db:"purchase_currency"`
	// WeightAmount and WeightUnit are the weight per unit as entered (100 g stays 100 g);
	// WeightAmount is invalid for a weight entered in troy ounces, which WeightOz is exactly.
	WeightAmount decimal.NullDecimal `db:"weight_amount"`
	WeightUnit   string              `db:"weight_unit"`
}

// Remaining is how many units are still held after sales.
func (h Holding) Remaining() int64 { return h.Quantity - h.SoldQuantity }

const holdingCols = `id, user_id, metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes, sold_quantity, created_at, updated_at, spot_at_purchase, location_id, tags` +
	lotCurrencyCols

// lotCurrencyCols are the columns of a lot's currency and entered weight (issue 25).
const lotCurrencyCols = `, purchase_currency, weight_amount, weight_unit`

// holdingInsertCols are the columns a new holding is written with: its fields and the exact
// integer totals the portfolio aggregates (see lotTotals).
const holdingInsertCols = `id, user_id, metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes, created_at, updated_at,
	oz_int, oz_e8, cost_int, cost_c, fees_c, held_oz_int, held_oz_e8, held_cost_int, held_cost_c, spot_at_purchase, ref_int, ref_e8` + lotCurrencyCols

const holdingInsertPlaceholders = `?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?` + `, ?, ?, ?`

// holdingInsertArgs are the values for holdingInsertCols.
func holdingInsertArgs(h Holding) []any {
	t := lotTotalsOf(h)
	return []any{h.ID, h.UserID, h.Metal, h.ProductName, h.Quantity, h.WeightOz.String(), h.PurchasePrice.String(), h.Fees.String(),
		h.Dealer, h.PurchaseDate, h.Notes, h.CreatedAt, h.UpdatedAt,
		t.OzInt, t.OzE8, t.CostInt, t.CostC, t.FeesC, t.HeldOzInt, t.HeldOzE8, t.HeldCostInt, t.HeldCostC, spotArg(h.SpotAtPurchase), t.RefInt, t.RefE8,
		lotCurrency(h), spotArg(h.WeightAmount), lotWeightUnit(h)}
}

// lotCurrency is a lot's stored currency: USD when none was given.
func lotCurrency(h Holding) string {
	if h.PurchaseCurrency == "" {
		return "USD"
	}
	return h.PurchaseCurrency
}

// lotWeightUnit is the unit of a lot's entered weight: oz when none was given.
func lotWeightUnit(h Holding) string {
	if h.WeightUnit == "" || !h.WeightAmount.Valid {
		return "oz"
	}
	return h.WeightUnit
}

// spotArg is the stored form of a spot at purchase: decimal text, or NULL.
func spotArg(d decimal.NullDecimal) any {
	if !d.Valid {
		return nil
	}
	return d.Decimal.String()
}

// newID returns an opaque, unguessable identifier with a readable prefix.
func newID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// InsertHolding stores a new holding for h.UserID, filling ID and timestamps, and adds it to
// the member's position ledger in the same transaction. A holding without its totals (Oz,
// Cost) is ErrMissingTotals.
func (s *Store) InsertHolding(ctx context.Context, h Holding) (Holding, error) {
	if err := checkTotals(h); err != nil {
		return Holding{}, err
	}
	now := s.now()
	h.ID = newID("h_")
	h.CreatedAt, h.UpdatedAt = now, now
	h.SoldQuantity = 0
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO holdings (`+holdingInsertCols+`) VALUES (`+holdingInsertPlaceholders+`)`), holdingInsertArgs(h)...); err != nil {
			return err
		}
		d := ledgerDelta{}
		d.addLot(stateOfNew(h), 1)
		return s.applyLedger(ctx, tx, h.UserID, d)
	})
	if err != nil {
		return Holding{}, fmt.Errorf("insert holding: %w", err)
	}
	return h, nil
}

// HoldingByID returns the user's holding; another user's id is ErrNotFound.
func (s *Store) HoldingByID(ctx context.Context, userID int64, id string) (Holding, error) {
	return memberRow[Holding](ctx, s, holdingCols, "holdings", userID, id)
}

// HoldingFilter narrows, orders and pages a holdings list.
type HoldingFilter struct {
	Metal string
	// Q, Tag and LocationID ("none": unassigned) narrow by custody (custody.go).
	Q, Tag, LocationID string
	// Products, when not nil, keeps only the lots whose product name is one of them (the
	// portfolio service's form filter: it knows each name's form).
	Products []string
	// From and To keep only the lots bought on or after From and on or before To; an
	// undated lot has no purchase day and is left out by either.
	From, To Date
	// Sort is the order (lot_query.go); Ranks places each metal, product name or location
	// id for the sorts that need them, Prices each metal's price for SortValue.
	Sort   LotSort
	Desc   bool
	Ranks  map[string]int
	Prices map[string]decimal.Decimal
	Limit  int
	Offset int
}

// HoldingsByUser lists the user's holdings in f's order (newest purchase first unless it
// names another), with the unpaged total.
func (s *Store) HoldingsByUser(ctx context.Context, userID int64, f HoldingFilter) ([]Holding, int, error) {
	where, args, err := f.where(userID)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := s.db.GetContext(ctx, &total, s.rebind(`SELECT count(*) FROM holdings `+where), args...); err != nil {
		return nil, 0, err
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	order, oargs, err := f.orderBy()
	if err != nil {
		return nil, 0, err
	}
	out := []Holding{}
	// The page's ids are chosen first, sorting only the sort keys and ids, then the page's
	// rows are read: a deep page of a large stack no longer sorts every lot's whole row.
	args = append(append(args, oargs...), f.Limit, f.Offset)
	args = append(args, oargs...)
	err = s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+holdingCols+` FROM holdings WHERE id IN (SELECT id FROM holdings `+where+`
		ORDER BY `+order+` LIMIT ? OFFSET ?) ORDER BY `+order), args...)
	return out, total, err
}

// UpdateHolding overwrites the editable fields of the user's holding. Once units of it have
// been sold, its economics (metal, quantity, weight, price, fees) are fixed, because recorded
// sales took their cost basis from them; changing them then, or dating the purchase after its
// first sale, is ErrConflict. A holding without its totals (Oz, Cost) is ErrMissingTotals.
func (s *Store) UpdateHolding(ctx context.Context, h Holding) (Holding, error) {
	if err := checkTotals(h); err != nil {
		return Holding{}, err
	}
	h.UpdatedAt = s.now()
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var cur Holding
		if err := tx.GetContext(ctx, &cur, tx.Rebind(`SELECT `+holdingCols+` FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()), h.ID, h.UserID); err != nil {
			return notFound(err)
		}
		before, err := s.lotStateTx(ctx, tx, h.UserID, h.ID)
		if err != nil {
			return err
		}
		if err := s.updateHoldingRow(ctx, tx, cur, h); err != nil {
			return err
		}
		return s.relocateLot(ctx, tx, h.UserID, h.ID, before)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
			return Holding{}, err
		}
		return Holding{}, fmt.Errorf("update holding: %w", err)
	}
	return s.HoldingByID(ctx, h.UserID, h.ID)
}

// relocateLot moves a holding's contribution to the ledger from before to what its row holds
// now, inside the transaction that changed it.
func (s *Store) relocateLot(ctx context.Context, tx *sqlx.Tx, userID int64, id string, before lotState) error {
	after, err := s.lotStateTx(ctx, tx, userID, id)
	if err != nil {
		return err
	}
	d := ledgerDelta{}
	d.addLot(before, -1)
	d.addLot(after, 1)
	return s.applyLedger(ctx, tx, userID, d)
}

// updateHoldingRow writes UpdateHolding's change of cur to h.
func (s *Store) updateHoldingRow(ctx context.Context, tx *sqlx.Tx, cur, h Holding) error {
	if cur.SoldQuantity > 0 {
		if cur.Metal != h.Metal || cur.Quantity != h.Quantity || !cur.WeightOz.Equal(h.WeightOz) || !cur.PurchasePrice.Equal(h.PurchasePrice) || !cur.Fees.Equal(h.Fees) ||
			lotCurrency(cur) != lotCurrency(h) {
			return fmt.Errorf("units of this holding have been sold, so its metal, quantity, weight, price, fees and currency can no longer change: %w", ErrConflict)
		}
		var first Date
		if err := tx.GetContext(ctx, &first, tx.Rebind(`SELECT MIN(sold_on) FROM sales WHERE holding_id = ?`), h.ID); err != nil {
			return err
		}
		if !h.PurchaseDate.IsZero() && !first.IsZero() && h.PurchaseDate.After(first.Time) {
			return fmt.Errorf("the purchase date cannot be after the first sale of this holding (%s): %w", first, ErrConflict)
		}
		ri, re := split(h.Ref, ozPlaces)
		_, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET product_name = ?, dealer = ?, purchase_date = ?, notes = ?, updated_at = ?,
				spot_at_purchase = ?, ref_int = ?, ref_e8 = ? WHERE id = ? AND user_id = ?`),
			h.ProductName, h.Dealer, h.PurchaseDate, h.Notes, h.UpdatedAt, spotArg(h.SpotAtPurchase), ri, re, h.ID, h.UserID)
		if err != nil {
			return err
		}
		return s.updateLotWeight(ctx, tx, h)
	}
	t := lotTotalsOf(h)
	_, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET metal = ?, product_name = ?, quantity = ?, weight_oz = ?, purchase_price = ?,
			fees = ?, dealer = ?, purchase_date = ?, notes = ?, updated_at = ?,
			oz_int = ?, oz_e8 = ?, cost_int = ?, cost_c = ?, fees_c = ?, held_oz_int = ?, held_oz_e8 = ?, held_cost_int = ?, held_cost_c = ?,
			spot_at_purchase = ?, ref_int = ?, ref_e8 = ?
			WHERE id = ? AND user_id = ? AND sold_quantity = 0`),
		h.Metal, h.ProductName, h.Quantity, h.WeightOz.String(), h.PurchasePrice.String(), h.Fees.String(), h.Dealer, h.PurchaseDate, h.Notes,
		h.UpdatedAt, t.OzInt, t.OzE8, t.CostInt, t.CostC, t.FeesC, t.HeldOzInt, t.HeldOzE8, t.HeldCostInt, t.HeldCostC,
		spotArg(h.SpotAtPurchase), t.RefInt, t.RefE8, h.ID, h.UserID)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET purchase_currency = ? WHERE id = ? AND user_id = ? AND sold_quantity = 0`),
		lotCurrency(h), h.ID, h.UserID); err != nil {
		return err
	}
	if lotCurrency(cur) != lotCurrency(h) {
		// The ledger's sums do not move, but what is derived from the lot's currency does.
		if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE users SET ledger_rev = ledger_rev + 1 WHERE id = ?`), h.UserID); err != nil {
			return err
		}
	}
	return s.updateLotWeight(ctx, tx, h)
}

// updateLotWeight writes the weight as entered (the same weight in troy ounces is checked above).
func (s *Store) updateLotWeight(ctx context.Context, tx *sqlx.Tx, h Holding) error {
	_, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE holdings SET weight_amount = ?, weight_unit = ? WHERE id = ? AND user_id = ?`),
		spotArg(h.WeightAmount), lotWeightUnit(h), h.ID, h.UserID)
	return err
}

// DeleteHolding removes the user's holding, and its contribution to the position ledger in
// the same transaction. A holding with recorded sales is kept, because the sales (and their
// realized profit) refer to it: that is ErrConflict.
func (s *Store) DeleteHolding(ctx context.Context, userID int64, id string) error {
	defer s.dropHoldingBlobs(ctx, userID, id)() // its documents' files (documents.go)
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		before, err := s.lotStateTx(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM holdings WHERE id = ? AND user_id = ?
			AND NOT EXISTS (SELECT 1 FROM sales WHERE sales.holding_id = holdings.id)`), id, userID)
		if err != nil {
			if isForeignKeyViolation(err) {
				// A sale was recorded between the check and the delete.
				return errHoldingHasSales
			}
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errHoldingHasSales
		}
		d := ledgerDelta{}
		d.addLot(before, -1)
		return s.applyLedger(ctx, tx, userID, d)
	})
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrConflict) {
		if isForeignKeyViolation(err) {
			return errHoldingHasSales
		}
		return fmt.Errorf("delete holding: %w", err)
	}
	return err
}

var errHoldingHasSales = fmt.Errorf("this holding has recorded sales and cannot be deleted: %w", ErrConflict)

// forUpdate locks selected rows until the transaction ends on PostgreSQL; SQLite transactions
// here take the write lock up front (_txlock=immediate), which serialises them already.
func (s *Store) forUpdate() string {
	if s.Engine == Postgres {
		return ` FOR UPDATE`
	}
	return ``
}

// LotSpot is what the spot-at-purchase refresh needs of one dated lot.
type LotSpot struct {
	ID             string              `db:"id"`
	Metal          string              `db:"metal"`
	PurchaseDate   Date                `db:"purchase_date"`
	Quantity       int64               `db:"quantity"`
	WeightOz       decimal.Decimal     `db:"weight_oz"`
	PurchasePrice  decimal.Decimal     `db:"purchase_price"`
	SpotAtPurchase decimal.NullDecimal `db:"spot_at_purchase"`
	// Ref is what the lot's fine ounces were worth at SpotAtPurchase (zero without a spot and
	// for gifts): the reference its premium is measured against. The portfolio service
	// computes it (portfolio.PremiumRef) beside SpotAtPurchase on every write; the store keeps
	// it in the exact columns the premium sums read and does not read it back.
	Ref decimal.Decimal `db:"-"`
}

// LotSpots lists every lot of every member that has a purchase date or a stored spot, after
// the id given (keyset paging, at most limit rows), for the refresh that follows corrections
// of the price history.
func (s *Store) LotSpots(ctx context.Context, after string, limit int) ([]LotSpot, error) {
	out := []LotSpot{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT id, metal, purchase_date, quantity, weight_oz, purchase_price, spot_at_purchase
		FROM holdings WHERE id > ? AND (purchase_date IS NOT NULL OR spot_at_purchase IS NOT NULL) ORDER BY id LIMIT ?`), after, limit)
	return out, err
}

// SetLotSpot stores a new spot at purchase for a lot and ref, the reference value the
// portfolio service derived from it (portfolio.PremiumRef). A lot edited since it was read keeps what its edit stored: the condition on the old
// spot and date makes the write a no-op then.
func (s *Store) SetLotSpot(ctx context.Context, l LotSpot, spot decimal.NullDecimal, ref decimal.Decimal) error {
	ri, re := split(ref, ozPlaces)
	q := `UPDATE holdings SET spot_at_purchase = ?, ref_int = ?, ref_e8 = ? WHERE id = ? AND weight_oz = ? AND purchase_price = ? AND quantity = ? AND metal = ?`
	args := []any{spotArg(spot), ri, re, l.ID, l.WeightOz.String(), l.PurchasePrice.String(), l.Quantity, l.Metal}
	if l.PurchaseDate.IsZero() {
		q += ` AND purchase_date IS NULL`
	} else {
		q += ` AND purchase_date = ?`
		args = append(args, l.PurchaseDate)
	}
	// In one transaction with the ledger, whose premium sums follow the lot's reference.
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var userID int64
		if err := tx.GetContext(ctx, &userID, tx.Rebind(`SELECT user_id FROM holdings WHERE id = ?`), l.ID); err != nil {
			return notFound(err)
		}
		before, err := s.lotStateTx(ctx, tx, userID, l.ID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(q), args...)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return s.relocateLot(ctx, tx, userID, l.ID, before)
	})
}
