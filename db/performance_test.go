package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestPerformanceDaysPerCurrency: the ledger's days for the performance engine (ounces and
// money per metal and day, oldest first, metals in name order on a day) and the same money
// split by purchase currency, on both engines, against sums worked out by hand; the currency
// rows add up to the ledger's money on every metal-day.
func TestPerformanceDaysPerCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "perf-days@example.com", "h", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		d := func(v string) db.Date { x, _ := db.ParseDate(v); return x }
		lot := func(metal, cur, date string, qty int64, oz, price, fees string) db.Holding {
			h := db.Holding{UserID: u.ID, Metal: metal, ProductName: metal + " " + cur, Quantity: qty, WeightOz: decimal.RequireFromString(oz),
				PurchasePrice: decimal.RequireFromString(price), Fees: decimal.RequireFromString(fees), PurchaseCurrency: cur}
			if date != "" {
				h.PurchaseDate = d(date)
			}
			h.Ref = portfolio.PremiumRef(h.Quantity, h.WeightOz, h.PurchasePrice, h.SpotAtPurchase)
			got, err := s.InsertHolding(ctx, portfolio.WithTotals(h))
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		eurGold := lot("gold", "EUR", "2024-01-02", 2, "1", "100", "1.50") // €201.50
		lot("gold", "USD", "2024-01-02", 1, "0.5", "60", "0")              // $60
		lot("silver", "USD", "2024-01-02", 10, "1", "25", "0")             // $250
		lot("gold", "GBP", "2024-01-05", 1, "1", "90", "0")                // £90
		lot("platinum", "EUR", "", 1, "1", "900", "0")                     // undated: the day it was recorded
		// Sell one of the two euro ounces: €120 less €2 fees = €118 net, basis €100.75, +€17.25.
		if _, err := s.InsertSale(ctx, u.ID, eurGold.ID, db.Sale{Quantity: 1, PricePerUnit: decimal.RequireFromString("120"),
			Fees: decimal.RequireFromString("2"), SoldOn: d("2024-02-01"), Currency: "EUR"}, portfolio.DecideSale); err != nil {
			t.Fatal(err)
		}
		today := time.Now().UTC().Format(time.DateOnly)

		days, err := s.PerformanceDays(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range days {
			got = append(got, fmt.Sprintf("%s %s oz %s in %s out %s pl %s", x.Day, x.Metal, x.Oz, x.Bought, x.Proceeds, x.Realized))
		}
		want := []string{
			"2024-01-02 gold oz 2.5 in 261.5 out 0 pl 0", // the ledger adds €201.50 and $60: only the currency rows say which
			"2024-01-02 silver oz 10 in 250 out 0 pl 0",
			"2024-01-05 gold oz 1 in 90 out 0 pl 0",
			"2024-02-01 gold oz -1 in 0 out 118 pl 17.25",
			today + " platinum oz 1 in 900 out 0 pl 0",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("performance days:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}

		rows, err := s.PerformanceCurrencyDays(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		sums := map[string]decimal.Decimal{}
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%s %s %s in %s out %s pl %s", r.Day, r.Metal, r.Currency, r.Bought, r.Proceeds, r.Realized))
			k := r.Day.String() + string(r.Metal)
			sums[k] = sums[k].Add(r.Bought).Add(r.Proceeds.Mul(decimal.NewFromInt(1000))).Add(r.Realized.Mul(decimal.NewFromInt(1_000_000)))
		}
		want = []string{
			"2024-01-02 gold EUR in 201.5 out 0 pl 0",
			"2024-01-02 gold USD in 60 out 0 pl 0",
			"2024-01-02 silver USD in 250 out 0 pl 0",
			"2024-01-05 gold GBP in 90 out 0 pl 0",
			"2024-02-01 gold EUR in 0 out 118 pl 17.25",
			today + " platinum EUR in 900 out 0 pl 0",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("currency days:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
		}
		for _, x := range days {
			k := x.Day.String() + string(x.Metal)
			if w := x.Bought.Add(x.Proceeds.Mul(decimal.NewFromInt(1000))).Add(x.Realized.Mul(decimal.NewFromInt(1_000_000))); !sums[k].Equal(w) {
				t.Errorf("%s: currency rows add to %s, the ledger's money to %s", k, sums[k], w)
			}
		}
	})
}
