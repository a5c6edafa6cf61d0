package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestConstraintViolationsAreTyped checks the unique and foreign-key checks read each
// driver's typed code: real violations on both engines are recognised (and not confused with
// each other), and an error that merely says the words is not.
func TestConstraintViolationsAreTyped(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "typed@example.com", "x", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}
		// A raw insert, so the driver's own error comes back unwrapped by any Store method.
		_, dup := s.ExecForTest(ctx, `INSERT INTO users (email, password_hash, tier, is_admin, created_at, updated_at) VALUES (?, 'x', 'free', false, ?, ?)`,
			u.Email, u.CreatedAt, u.CreatedAt)
		if dup == nil {
			t.Fatal("duplicate email inserted")
		}
		if !db.IsUniqueViolationForTest(fmt.Errorf("wrapped: %w", dup)) || db.IsForeignKeyViolationForTest(dup) {
			t.Errorf("%s unique violation not recognised as one: %v", s.Engine, dup)
		}
		_, fk := s.ExecForTest(ctx, `INSERT INTO holdings (id, user_id, metal, product_name, quantity, weight_oz, purchase_price, fees, created_at, updated_at)
			VALUES ('h_orphan', ?, 'gold', 'x', 1, '1', '1', '0', ?, ?)`, u.ID+1000, u.CreatedAt, u.CreatedAt)
		if fk == nil {
			t.Fatal("holding of a missing user inserted")
		}
		if !db.IsForeignKeyViolationForTest(fk) || db.IsUniqueViolationForTest(fk) {
			t.Errorf("%s foreign-key violation not recognised as one: %v", s.Engine, fk)
		}
	})
	for _, text := range []string{"UNIQUE constraint failed: users.email", `pq: duplicate key value violates unique constraint (23505)`,
		"FOREIGN KEY constraint failed", "violates foreign key constraint (23503)"} {
		if db.IsUniqueViolationForTest(errors.New(text)) || db.IsForeignKeyViolationForTest(errors.New(text)) {
			t.Errorf("plain text %q was taken for a driver's constraint error", text)
		}
	}
}

// TestInTxMakesWritesOneUnit: writes made inside InTx commit together, or not at all.
func TestInTxMakesWritesOneUnit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "intx@example.com", "x", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		lot := db.Holding{UserID: u.ID, Metal: "silver", ProductName: "coin", Quantity: 1, WeightOz: decimal.NewFromInt(1), PurchasePrice: decimal.NewFromInt(30), Fees: decimal.Zero}
		undo := errors.New("changed my mind")
		err = s.InTx(ctx, func(ctx context.Context) error {
			if _, err := s.InsertHolding(ctx, portfolio.WithTotals(lot)); err != nil {
				return err
			}
			if _, err := s.InsertHolding(ctx, portfolio.WithTotals(lot)); err != nil {
				return err
			}
			return undo
		})
		if !errors.Is(err, undo) {
			t.Fatalf("InTx returned %v", err)
		}
		if n, _ := s.CountHoldings(ctx, u.ID); n != 0 {
			t.Fatalf("%d holdings kept from a rolled-back unit", n)
		}
		if rev, _ := s.LedgerRevision(ctx, u.ID); rev != 0 {
			t.Fatalf("ledger revision %d after a rolled-back unit", rev)
		}
		err = s.InTx(ctx, func(ctx context.Context) error {
			for range 2 {
				if _, err := s.InsertHolding(ctx, portfolio.WithTotals(lot)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountHoldings(ctx, u.ID); n != 2 {
			t.Fatalf("%d holdings after a committed unit of two", n)
		}
	})
}
