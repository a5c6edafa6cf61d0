package db

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"strings"
	"time"

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
	CreatedAt     time.Time       `db:"created_at"`
	UpdatedAt     time.Time       `db:"updated_at"`
}

// TotalOz is quantity × weight per unit.
func (h Holding) TotalOz() decimal.Decimal { return h.WeightOz.Mul(decimal.NewFromInt(h.Quantity)) }

// TotalCost is quantity × price per unit plus fees: the lot's cost basis.
func (h Holding) TotalCost() decimal.Decimal {
	return h.PurchasePrice.Mul(decimal.NewFromInt(h.Quantity)).Add(h.Fees)
}

const holdingCols = `id, user_id, metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes, created_at, updated_at`

// newID returns an opaque, unguessable identifier with a readable prefix.
func newID(prefix string) string {
	var b [10]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// InsertHolding stores a new holding for h.UserID, filling ID and timestamps.
func (s *Store) InsertHolding(ctx context.Context, h Holding) (Holding, error) {
	return insertHolding(ctx, s, s.DB, h)
}

func insertHolding(ctx context.Context, s *Store, q Q, h Holding) (Holding, error) {
	now := s.now()
	h.ID = newID("h_")
	h.CreatedAt, h.UpdatedAt = now, now
	_, err := q.ExecContext(ctx, q.Rebind(`INSERT INTO holdings (`+holdingCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		h.ID, h.UserID, h.Metal, h.ProductName, h.Quantity, h.WeightOz.String(), h.PurchasePrice.String(), h.Fees.String(),
		h.Dealer, h.PurchaseDate, h.Notes, h.CreatedAt, h.UpdatedAt)
	if err != nil {
		return Holding{}, fmt.Errorf("insert holding: %w", err)
	}
	return h, nil
}

// HoldingByID returns the user's holding; another user's id is ErrNotFound.
func (s *Store) HoldingByID(ctx context.Context, userID int64, id string) (Holding, error) {
	var h Holding
	err := s.DB.GetContext(ctx, &h, s.rebind(`SELECT `+holdingCols+` FROM holdings WHERE id = ? AND user_id = ?`), id, userID)
	return h, notFound(err)
}

// HoldingFilter narrows and pages a holdings list.
type HoldingFilter struct {
	Metal  string
	Limit  int
	Offset int
}

// HoldingsByUser lists the user's holdings, newest purchase first, with the unpaged total.
func (s *Store) HoldingsByUser(ctx context.Context, userID int64, f HoldingFilter) ([]Holding, int, error) {
	where := `WHERE user_id = ?`
	args := []any{userID}
	if f.Metal != "" {
		where += ` AND metal = ?`
		args = append(args, f.Metal)
	}
	var total int
	if err := s.DB.GetContext(ctx, &total, s.rebind(`SELECT count(*) FROM holdings `+where), args...); err != nil {
		return nil, 0, err
	}
	if f.Limit <= 0 {
		f.Limit = 50
	}
	out := []Holding{}
	err := s.DB.SelectContext(ctx, &out, s.rebind(`SELECT `+holdingCols+` FROM holdings `+where+`
		ORDER BY purchase_date DESC NULLS LAST, created_at DESC, id DESC LIMIT ? OFFSET ?`), append(args, f.Limit, f.Offset)...)
	return out, total, err
}

// UpdateHolding overwrites the editable fields of the user's holding.
func (s *Store) UpdateHolding(ctx context.Context, h Holding) (Holding, error) {
	h.UpdatedAt = s.now()
	res, err := s.DB.ExecContext(ctx, s.rebind(`UPDATE holdings SET metal = ?, product_name = ?, quantity = ?, weight_oz = ?, purchase_price = ?,
		fees = ?, dealer = ?, purchase_date = ?, notes = ?, updated_at = ? WHERE id = ? AND user_id = ?`),
		h.Metal, h.ProductName, h.Quantity, h.WeightOz.String(), h.PurchasePrice.String(), h.Fees.String(), h.Dealer, h.PurchaseDate, h.Notes,
		h.UpdatedAt, h.ID, h.UserID)
	if err != nil {
		return Holding{}, fmt.Errorf("update holding: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Holding{}, ErrNotFound
	}
	return s.HoldingByID(ctx, h.UserID, h.ID)
}

// DeleteHolding removes the user's holding.
func (s *Store) DeleteHolding(ctx context.Context, userID int64, id string) error {
	res, err := s.DB.ExecContext(ctx, s.rebind(`DELETE FROM holdings WHERE id = ? AND user_id = ?`), id, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
