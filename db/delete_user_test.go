package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// userRef is a column of a table that refers to users, read from the schema.
type userRef struct {
	Table, Column, OnDelete string
}

// userRefs discovers every column that refers to users (by foreign key, or named user_id
// without one), so tables added by later migrations are covered without editing this test.
func userRefs(t *testing.T, s *db.Store) []userRef {
	t.Helper()
	var refs []userRef
	err := s.WithTx(context.Background(), func(tx *sqlx.Tx) error {
		seen := map[string]bool{}
		if s.Engine == db.Postgres {
			var fks []struct {
				Table    string `db:"table_name"`
				Column   string `db:"column_name"`
				OnDelete string `db:"delete_rule"`
			}
			if err := tx.Select(&fks, `SELECT kcu.table_name, kcu.column_name, rc.delete_rule
				FROM information_schema.referential_constraints rc
				JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = rc.constraint_name AND kcu.constraint_schema = rc.constraint_schema
				JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = rc.unique_constraint_name AND ccu.constraint_schema = rc.unique_constraint_schema
				WHERE rc.constraint_schema = current_schema() AND ccu.table_name = 'users'`); err != nil {
				return err
			}
			for _, f := range fks {
				refs = append(refs, userRef{f.Table, f.Column, f.OnDelete})
				seen[f.Table+"."+f.Column] = true
			}
			var plain []struct {
				Table  string `db:"table_name"`
				Column string `db:"column_name"`
			}
			if err := tx.Select(&plain, `SELECT table_name, column_name FROM information_schema.columns
				WHERE table_schema = current_schema() AND column_name = 'user_id'`); err != nil {
				return err
			}
			for _, p := range plain {
				if !seen[p.Table+"."+p.Column] {
					refs = append(refs, userRef{p.Table, p.Column, "none"})
				}
			}
			return nil
		}
		var tables []string
		if err := tx.Select(&tables, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`); err != nil {
			return err
		}
		for _, tb := range tables {
			rows, err := tx.Queryx(fmt.Sprintf(`SELECT "table", "from", on_delete FROM pragma_foreign_key_list('%s')`, tb))
			if err != nil {
				return err
			}
			for rows.Next() {
				var to, from, onDelete string
				if err := rows.Scan(&to, &from, &onDelete); err != nil {
					rows.Close()
					return err
				}
				if to == "users" {
					refs = append(refs, userRef{tb, from, onDelete})
					seen[tb+"."+from] = true
				}
			}
			rows.Close()
			var cols []string
			if err := tx.Select(&cols, fmt.Sprintf(`SELECT name FROM pragma_table_info('%s')`, tb)); err != nil {
				return err
			}
			for _, c := range cols {
				if c == "user_id" && !seen[tb+"."+c] {
					refs = append(refs, userRef{tb, c, "none"})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

// countRows counts, per table.column, the rows that refer to the user.
func countRows(t *testing.T, s *db.Store, refs []userRef, id int64) map[string]int {
	t.Helper()
	out := map[string]int{}
	err := s.WithTx(context.Background(), func(tx *sqlx.Tx) error {
		for _, r := range refs {
			var n int
			if err := tx.Get(&n, tx.Rebind(fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s = ?`, r.Table, r.Column)), id); err != nil {
				return err
			}
			out[r.Table+"."+r.Column] = n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeleteUserRemovesEveryRow: deleting an account leaves no row of any table that refers to
// it (tables found from the schema, so new ones are covered), every user reference says what
// happens on delete, and another member's rows are untouched.
func TestDeleteUserRemovesEveryRow(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		refs := userRefs(t, s)
		found := map[string]bool{}
		for _, r := range refs {
			found[r.Table] = true
			// A reference without ON DELETE would block the delete or leave rows behind.
			switch r.OnDelete {
			case "CASCADE", "SET NULL":
			default:
				t.Errorf("%s.%s refers to users with ON DELETE %s: use CASCADE (or SET NULL for shared records)", r.Table, r.Column, r.OnDelete)
			}
		}
		for _, want := range []string{"holdings", "sales", "api_keys", "article_likes", "article_comments"} {
			if !found[want] {
				t.Fatalf("schema discovery missed %s (found %v)", want, found)
			}
		}
		seed := func(email string) db.User {
			u, err := s.InsertUser(ctx, email, "x", db.TierGold, false)
			if err != nil {
				t.Fatal(err)
			}
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "silver", Quantity: 5, WeightOz: decimal.NewFromInt(10), PurchasePrice: decimal.NewFromInt(310), Fees: decimal.Zero}))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: 2, PricePerUnit: decimal.NewFromInt(330), Fees: decimal.Zero, SoldOn: db.NewDate(h.CreatedAt)}, portfolio.DecideSale); err != nil {
				t.Fatal(err)
			}
			if _, err := s.InsertAPIKey(ctx, u.ID, "k", "ounce_"+email[:3], "hash-"+email); err != nil {
				t.Fatal(err)
			}
			a := socialArticle(t, s, "delete-"+email[:3])
			if _, _, err := s.ToggleLike(ctx, a.ID, u.ID); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.RecordView(ctx, a.ID, fmt.Sprintf("u:%d", u.ID), db.NewDate(h.CreatedAt)); err != nil {
				t.Fatal(err)
			}
			return u
		}
		ann, bob := seed("ann@example.com"), seed("bob@example.com")
		before, bobBefore := countRows(t, s, refs, ann.ID), countRows(t, s, refs, bob.ID)
		nonzero := 0
		for _, n := range before {
			if n > 0 {
				nonzero++
			}
		}
		if nonzero < 4 {
			t.Fatalf("seeding reached only %d tables: %v", nonzero, before)
		}
		if err := s.DeleteUser(ctx, ann.ID); err != nil {
			t.Fatal(err)
		}
		for k, n := range countRows(t, s, refs, ann.ID) {
			if n != 0 {
				t.Errorf("%s still has %d rows of the deleted member (had %d)", k, n, before[k])
			}
		}
		for k, n := range countRows(t, s, refs, bob.ID) {
			if n != bobBefore[k] {
				t.Errorf("%s: the other member's rows went from %d to %d", k, bobBefore[k], n)
			}
		}
		var views int
		_ = s.WithTx(ctx, func(tx *sqlx.Tx) error {
			return tx.Get(&views, tx.Rebind(`SELECT count(*) FROM article_views WHERE viewer = ?`), fmt.Sprintf("u:%d", ann.ID))
		})
		if views != 0 {
			t.Errorf("%d article views still name the deleted member", views)
		}
		if _, err := s.UserByID(ctx, ann.ID); err == nil {
			t.Error("the account is still there")
		}
		if err := s.DeleteUser(ctx, ann.ID); err == nil {
			t.Error("deleting twice succeeded")
		}
	})
}
