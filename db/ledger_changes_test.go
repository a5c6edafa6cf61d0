package db_test

import (
	"context"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// TestLedgerChangeLog: each write that raises the ledger revision logs the earliest day it
// changed; LedgerChangedFrom answers the earliest over a range of revisions, and says it
// cannot when a revision in the range was raised without a record (a lot's currency changed)
// or the range is backwards. PerformanceDaysFrom is the days on or after a day.
func TestLedgerChangeLog(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "change-log@example.com", "h", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		d := func(v string) db.Date { x, _ := db.ParseDate(v); return x }
		lot := func(metal, date string) db.Holding {
			h, err := s.InsertHolding(ctx, db.Holding{UserID: u.ID, Metal: metal, ProductName: metal, Quantity: 1, WeightOz: decimal.NewFromInt(1),
				PurchasePrice: decimal.NewFromInt(100), Fees: decimal.Zero, PurchaseCurrency: "USD", PurchaseDate: d(date)})
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		rev := func() int64 {
			r, err := s.LedgerRevision(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		from := func(since, upTo int64) string {
			t.Helper()
			day, ok, err := s.LedgerChangedFrom(ctx, u.ID, since, upTo)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return "cannot say"
			}
			if day.IsZero() {
				return "nothing"
			}
			return day.Format(db.DateLayout)
		}
		lot("gold", "2024-03-01")
		r1 := rev()
		a := lot("silver", "2024-05-01")
		lot("gold", "2024-04-01")
		r3 := rev()
		if r3 != r1+2 {
			t.Fatalf("revisions %d then %d", r1, r3)
		}
		for _, c := range []struct {
			since, upTo int64
			want        string
		}{{0, r1, "2024-03-01"}, {r1, r1 + 1, "2024-05-01"}, {r1, r3, "2024-04-01"}, {0, r3, "2024-03-01"}, {r3, r3, "nothing"}, {r3, r1, "cannot say"}} {
			if got := from(c.since, c.upTo); got != c.want {
				t.Errorf("changed from (%d, %d]: %s, want %s", c.since, c.upTo, got, c.want)
			}
		}
		// Moving a lot from May back to February changes both days: the earlier counts.
		a.PurchaseDate = d("2024-02-01")
		if _, err := s.UpdateHolding(ctx, a); err != nil {
			t.Fatal(err)
		}
		if got := from(r3, rev()); got != "2024-02-01" {
			t.Errorf("lot moved back: changed from %s", got)
		}
		if err := s.DeleteHolding(ctx, u.ID, a.ID); err != nil {
			t.Fatal(err)
		}
		if got := from(r3+1, rev()); got != "2024-02-01" {
			t.Errorf("lot deleted: changed from %s", got)
		}
		r5 := rev()
		a = lot("gold", "2024-06-01")
		a.PurchaseCurrency = "EUR" // raises the revision without a change to the days' sums, nor a record
		if _, err := s.UpdateHolding(ctx, a); err != nil {
			t.Fatal(err)
		}
		if rev() != r5+2 {
			t.Fatalf("revision %d after %d", rev(), r5)
		}
		if got := from(r5, r5+1); got != "2024-06-01" {
			t.Errorf("lot added: changed from %s", got)
		}
		if got := from(r5, rev()); got != "cannot say" {
			t.Errorf("a revision without a record: %s", got)
		}
		days, err := s.PerformanceDaysFrom(ctx, u.ID, d("2024-04-01"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range days {
			got = append(got, x.Day.Format(db.DateLayout)+" "+string(x.Metal))
		}
		if len(got) != 2 || got[0] != "2024-04-01 gold" || got[1] != "2024-06-01 gold" {
			t.Errorf("days from 2024-04-01: %q", got)
		}
	})
}
