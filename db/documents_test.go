package db_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestDocumentsGoWithTheLotAndTheAccount: a document's bytes are files under the data
// directory on SQLite and rows on PostgreSQL; deleting its lot or the account removes both,
// another member's document is not found, and the allowance is kept.
func TestDocumentsGoWithTheLotAndTheAccount(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "docs@example.com", "x", db.TierGold, false)
		other, _ := s.InsertUser(ctx, "other@example.com", "x", db.TierGold, false)
		lot := func() db.Holding {
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", Quantity: 1, WeightOz: decimal.NewFromInt(1), PurchasePrice: decimal.NewFromInt(2000), Fees: decimal.Zero}))
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		blobs := func() int {
			n, err := s.CountBlobsForTest(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		put := func(h db.Holding, body string) db.Document {
			d, err := s.InsertDocument(ctx, db.Document{UserID: u.ID, HoldingID: h.ID, Name: "r.pdf", ContentType: "application/pdf"}, []byte(body), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		exists := func(d db.Document) bool {
			p := s.DocumentPathForTest(u.ID, d.ID)
			if p == "" {
				return true
			}
			_, err := os.Stat(p)
			return err == nil
		}
		a, b := lot(), lot()
		da, db1 := put(a, "%PDF-1.4 first"), put(b, "%PDF-1.4 second")
		if got, err := s.DocumentBody(ctx, u.ID, da.ID); err != nil || string(got) != "%PDF-1.4 first" {
			t.Fatalf("body: %q %v", got, err)
		}
		if _, err := s.DocumentBody(ctx, other.ID, da.ID); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("another member read the document: %v", err)
		}
		if _, err := s.InsertDocument(ctx, db.Document{UserID: u.ID, HoldingID: a.ID, Name: "x", ContentType: "application/pdf"}, make([]byte, 1<<20), 1<<20); !errors.Is(err, db.ErrQuota) {
			t.Errorf("past the allowance: %v", err)
		}
		if _, err := s.InsertDocument(ctx, db.Document{UserID: other.ID, HoldingID: a.ID, Name: "x", ContentType: "application/pdf"}, []byte("%PDF-"), 1<<20); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("attached to another member's lot: %v", err)
		}
		if s.Engine == db.Postgres && blobs() != 2 {
			t.Fatalf("blob rows: %d", blobs())
		}
		if !exists(da) || !exists(db1) {
			t.Fatal("document files missing")
		}
		if err := s.DeleteHolding(ctx, u.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DocumentByID(ctx, u.ID, da.ID); !errors.Is(err, db.ErrNotFound) {
			t.Errorf("document outlived its lot: %v", err)
		}
		if s.Engine == db.SQLite && exists(da) {
			t.Error("the deleted lot's file is still on disk")
		}
		if s.Engine == db.Postgres && blobs() != 1 {
			t.Errorf("blob rows after the lot went: %d", blobs())
		}
		if err := s.DeleteUser(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
		if s.Engine == db.SQLite && exists(db1) {
			t.Error("the deleted account's file is still on disk")
		}
		if s.Engine == db.Postgres && blobs() != 0 {
			t.Errorf("blob rows after the account went: %d", blobs())
		}
	})
}
