package db_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestBulkHoldingsAllOrNothing: a bulk move records a transfer per lot; one naming another
// member's lot (after one of the member's) is a BulkMissingError naming it and leaves every lot
// where it was; bulk tags likewise (both engines).
func TestBulkHoldingsAllOrNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "bulk@example.com", "x", db.TierGold, false)
		o, _ := s.InsertUser(ctx, "other@example.com", "x", db.TierGold, false)
		lot := func(userID int64) string {
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: userID, Metal: "gold", ProductName: "Bar", Quantity: 1, WeightOz: decimal.NewFromInt(1),
				PurchasePrice: decimal.NewFromInt(2000), Fees: decimal.Zero}))
			if err != nil {
				t.Fatal(err)
			}
			return h.ID
		}
		a, b, theirs := lot(u.ID), lot(u.ID), lot(o.ID)
		l, err := s.InsertLocation(ctx, db.Location{UserID: u.ID, Name: "Vault", Kind: "vault"})
		if err != nil {
			t.Fatal(err)
		}
		to := sql.NullString{String: l.ID, Valid: true}
		on, _ := db.ParseDate("2026-11-10")
		count := func(id string) int {
			ts, err := s.TransfersOf(ctx, u.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return len(ts)
		}
		_, err = s.BulkMoveHoldings(ctx, u.ID, []string{a, theirs}, to, on, "")
		var miss *db.BulkMissingError
		if !errors.As(err, &miss) || miss.ID != theirs {
			t.Fatalf("bulk move with a foreign lot: %v", err)
		}
		if count(a) != 0 {
			t.Fatal("a refused bulk move recorded a transfer")
		}
		if h, _ := s.HoldingByID(ctx, u.ID, a); h.LocationID.Valid {
			t.Fatal("a refused bulk move moved a lot")
		}
		ts, err := s.BulkMoveHoldings(ctx, u.ID, []string{a, b}, to, on, "in")
		if err != nil || len(ts) != 2 || count(a) != 1 || count(b) != 1 {
			t.Fatalf("bulk move: %v %v", err, ts)
		}
		if err := s.BulkSetHoldingTags(ctx, u.ID, []string{a, theirs}, map[string]string{a: "x", theirs: "x"}); !errors.As(err, &miss) {
			t.Fatalf("bulk tags with a foreign lot: %v", err)
		}
		if h, _ := s.HoldingByID(ctx, u.ID, a); h.Tags != "" {
			t.Fatalf("a refused bulk tag tagged: %q", h.Tags)
		}
		if _, err := s.BulkMoveHoldings(ctx, u.ID, []string{a}, sql.NullString{String: "loc_nowhere", Valid: true}, on, ""); !errors.Is(err, db.ErrNoSuchLocation) {
			t.Fatalf("bulk move to an unknown location: %v", err)
		}
	})
}
