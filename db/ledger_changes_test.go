package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
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
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: metal, ProductName: metal, Quantity: 1, WeightOz: decimal.NewFromInt(1),
				PurchasePrice: decimal.NewFromInt(100), Fees: decimal.Zero, PurchaseCurrency: "USD", PurchaseDate: d(date)}))
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
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(a)); err != nil {
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
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(a)); err != nil {
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

// TestLedgerChangedDays: each write logs the days it changed; LedgerChangedDays answers them
// over a range of revisions (with the earliest), and PerformanceDaysOn reads just those days.
// A write that changed more days than are listed (an import) gives only the earliest.
func TestLedgerChangedDays(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "change-days@example.com", "h", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		d := func(v string) db.Date { x, _ := db.ParseDate(v); return x }
		lot := func(metal, date string) db.Holding {
			h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: metal, ProductName: metal, Quantity: 1, WeightOz: decimal.NewFromInt(1),
				PurchasePrice: decimal.NewFromInt(100), Fees: decimal.Zero, PurchaseCurrency: "USD", PurchaseDate: d(date)}))
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
		changed := func(since, upTo int64) string {
			t.Helper()
			ch, ok, err := s.LedgerChangedDays(ctx, u.ID, since, upTo)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				return "cannot say"
			}
			out := "from " + ch.From.String() + ":"
			if ch.Days == nil {
				return out + " every day after"
			}
			for _, x := range ch.Days {
				out += " " + x.String()
			}
			return out
		}
		lot("gold", "2024-03-01")
		r1 := rev()
		a := lot("silver", "2024-05-01")
		lot("gold", "2024-04-01")
		lot("silver", "2024-04-01")
		a.PurchaseDate = d("2024-02-01") // moving a lot changes its old day and its new one
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(a)); err != nil {
			t.Fatal(err)
		}
		r5 := rev()
		for _, c := range []struct {
			since, upTo int64
			want        string
		}{
			{r1, r1 + 1, "from 2024-05-01: 2024-05-01"},
			{r1, r1 + 3, "from 2024-04-01: 2024-04-01 2024-05-01"},
			{r1 + 3, r5, "from 2024-02-01: 2024-02-01 2024-05-01"},
			{r1, r5, "from 2024-02-01: 2024-02-01 2024-04-01 2024-05-01"},
			{r5, r5, "from : every day after"},
			{r5, r1, "cannot say"},
		} {
			if got := changed(c.since, c.upTo); got != c.want {
				t.Errorf("changed (%d, %d]: %s, want %s", c.since, c.upTo, got, c.want)
			}
		}
		days, err := s.PerformanceDaysOn(ctx, u.ID, []db.Date{d("2024-02-01"), d("2024-04-01"), d("2024-05-01")})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range days {
			got = append(got, x.Day.Format(db.DateLayout)+" "+string(x.Metal)+" "+x.Oz.String())
		}
		if want := "[2024-02-01 silver 1 2024-04-01 gold 1 2024-04-01 silver 1]"; fmt.Sprint(got) != want {
			t.Errorf("days on: %s, want %s", got, want)
		}
		// More days than are listed in one write: only the earliest is logged.
		var many []db.Holding
		for i := range 40 {
			many = append(many, db.Holding{UserID: u.ID, Metal: "gold", ProductName: "bar", Quantity: 1, WeightOz: decimal.NewFromInt(1),
				PurchasePrice: decimal.NewFromInt(100), Fees: decimal.Zero, PurchaseCurrency: "USD", PurchaseDate: db.Date{Time: d("2023-01-01").AddDate(0, 0, i)}})
		}
		if _, err := s.ImportHoldings(ctx, u.ID, totaled(many)); err != nil {
			t.Fatal(err)
		}
		if got := changed(r5, rev()); got != "from 2023-01-01: every day after" {
			t.Errorf("an import of 40 days: %s", got)
		}
	})
}
