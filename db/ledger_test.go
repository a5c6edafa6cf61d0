package db_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// ledgerRecompute rebuilds the position ledger from scratch with the backfill statements of
// migration 0014 (every holding and sale summed in SQL) and returns the rows it produced.
func ledgerRecompute(t *testing.T, s *db.Store) []string {
	t.Helper()
	ctx := context.Background()
	body, err := os.ReadFile("migrations/" + string(s.Engine) + "/0014_position_ledger.sql")
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	start := strings.Index(text, "INSERT INTO position_days")
	if start < 0 {
		t.Fatal("backfill not found in migration 0014")
	}
	for _, q := range []string{`DELETE FROM position_days`, `DELETE FROM position_totals`} {
		if _, err := s.ExecForTest(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, stmt := range strings.Split(text[start:], ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := s.ExecForTest(ctx, stmt); err != nil {
			t.Fatalf("backfill: %v", err)
		}
	}
	rows, err := s.LedgerForTest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLedgerEqualsRecomputation: after every step of a random sequence of writes to holdings
// and sales (create, edit, delete, sell, undo a sale, import with sales, a refreshed spot at
// purchase, deleting an account), the position ledger the store maintained equals the one
// recomputed from scratch, and the totals read from it equal the aggregate over the lots.
func TestLedgerEqualsRecomputation(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(12, 2))
		var users []int64
		for i := 0; i < 3; i++ {
			u, err := s.InsertUser(ctx, fmt.Sprintf("ledger%d@example.com", i), "h", db.TierGold, false)
			if err != nil {
				t.Fatal(err)
			}
			users = append(users, u.ID)
		}
		base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		day := func() db.Date {
			if rng.IntN(5) == 0 {
				return db.Date{} // undated: counts on the day it is recorded
			}
			return db.NewDate(base.AddDate(0, 0, rng.IntN(40)))
		}
		lot := func(uid int64) db.Holding {
			h := db.Holding{UserID: uid, Metal: string(metals.All[rng.IntN(4)]), ProductName: fmt.Sprintf("lot %d", rng.Int()),
				Quantity: int64(1 + rng.IntN(20)), WeightOz: decimal.New(int64(1+rng.IntN(300_000_000)), -8),
				PurchasePrice: decimal.New(int64(rng.IntN(400_000)), -2), Fees: decimal.New(int64(rng.IntN(3)*rng.IntN(900)), -2), PurchaseDate: day()}
			if rng.IntN(2) == 0 {
				h.SpotAtPurchase = decimal.NewNullDecimal(decimal.New(int64(1000+rng.IntN(300_000)), -2))
			}
			h.Ref = portfolio.PremiumRef(h.Quantity, h.WeightOz, h.PurchasePrice, h.SpotAtPurchase)
			return h
		}
		pick := func(uid int64) (db.Holding, bool) {
			all, err := s.AllHoldings(ctx, uid)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) == 0 {
				return db.Holding{}, false
			}
			return all[rng.IntN(len(all))], true
		}
		counts := map[string]int{}
		for step := 0; step < 160; step++ {
			uid := users[rng.IntN(len(users))]
			op := []string{"create", "create", "edit", "delete", "sell", "sell", "undo", "import", "spot", "account"}[rng.IntN(10)]
			if op == "account" && (step < 120 || len(users) < 3) {
				op = "create"
			}
			var err error
			switch op {
			case "create":
				_, err = s.InsertHolding(ctx, portfolio.WithTotals(lot(uid)))
			case "edit":
				h, ok := pick(uid)
				if !ok {
					continue
				}
				n := lot(uid)
				h.ProductName, h.PurchaseDate, h.SpotAtPurchase = n.ProductName, n.PurchaseDate, n.SpotAtPurchase
				if h.SoldQuantity == 0 {
					h.Metal, h.Quantity, h.WeightOz, h.PurchasePrice, h.Fees = n.Metal, n.Quantity, n.WeightOz, n.PurchasePrice, n.Fees
				}
				h.Ref = portfolio.PremiumRef(h.Quantity, h.WeightOz, h.PurchasePrice, h.SpotAtPurchase)
				_, err = s.UpdateHolding(ctx, portfolio.WithTotals(h))
			case "delete":
				h, ok := pick(uid)
				if !ok {
					continue
				}
				err = s.DeleteHolding(ctx, uid, h.ID)
			case "sell":
				h, ok := pick(uid)
				if !ok || h.Remaining() == 0 {
					continue
				}
				soldOn := db.NewDate(base.AddDate(0, 0, 40+rng.IntN(30)))
				_, err = s.InsertSale(ctx, uid, h.ID, db.Sale{Quantity: 1 + int64(rng.IntN(int(h.Remaining()))),
					PricePerUnit: decimal.New(int64(rng.IntN(500_000)), -2), Fees: decimal.New(int64(rng.IntN(500)), -2), SoldOn: soldOn}, portfolio.DecideSale)
			case "undo":
				page, e := s.SalesByUser(ctx, uid, db.SaleFilter{Limit: 100})
				if e != nil {
					t.Fatal(e)
				}
				if len(page.Sales) == 0 {
					continue
				}
				_, err = s.DeleteSale(ctx, uid, page.Sales[rng.IntN(len(page.Sales))].ID, portfolio.UndoSale)
			case "import":
				rows := make([]db.Holding, 1+rng.IntN(6))
				for i := range rows {
					rows[i] = lot(uid)
				}
				sales := []db.ImportedSale{{Row: 0, Sale: db.Sale{Quantity: 1, PricePerUnit: decimal.RequireFromString("12.34"), SoldOn: db.NewDate(base.AddDate(0, 0, 75))}}}
				_, err = s.ImportHoldingsWithSales(ctx, uid, totaled(rows), sales, portfolio.DecideSale, nil)
			case "spot":
				spots, e := s.LotSpots(ctx, "", 1000)
				if e != nil {
					t.Fatal(e)
				}
				if len(spots) == 0 {
					continue
				}
				l := spots[rng.IntN(len(spots))]
				spot := decimal.NullDecimal{}
				if rng.IntN(3) > 0 {
					spot = decimal.NewNullDecimal(decimal.New(int64(1000+rng.IntN(300_000)), -2))
				}
				err = s.SetLotSpot(ctx, l, spot, portfolio.PremiumRef(l.Quantity, l.WeightOz, l.PurchasePrice, spot))
			case "account":
				err = s.DeleteUser(ctx, uid)
				for i, u := range users {
					if u == uid {
						users = append(users[:i], users[i+1:]...)
						break
					}
				}
			}
			if err != nil && !strings.Contains(err.Error(), "conflict") {
				t.Fatalf("step %d %s: %v", step, op, err)
			}
			counts[op]++
			got, err := s.LedgerForTest(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := ledgerRecompute(t, s)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("step %d (%s): ledger drifted from its recomputation:\n got %s\nwant %s", step, op, strings.Join(got, "\n     "), strings.Join(want, "\n     "))
			}
			for _, u := range users {
				ledgerMatchesLots(t, s, u, db.NewDate(base.AddDate(0, 0, rng.IntN(80))))
			}
		}
		for _, op := range []string{"create", "edit", "delete", "sell", "undo", "import", "spot", "account"} {
			if counts[op] == 0 {
				t.Errorf("the sequence never ran %s: %v", op, counts)
			}
		}
	})
}

// ledgerMatchesLots: PositionTotals (the ledger) equals PortfolioTotals (summing the lots).
func ledgerMatchesLots(t *testing.T, s *db.Store, uid int64, before db.Date) {
	t.Helper()
	ctx := context.Background()
	want, err := s.PortfolioTotals(ctx, uid, before, db.WithPurchases)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.PositionTotals(ctx, uid, before, db.WithPurchases)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		w, g := want[i], got[i]
		w.LastChange = ""
		if fmt.Sprint(w) != fmt.Sprint(g) {
			t.Fatalf("user %d before %s: ledger totals\n %+v\nlot totals\n %+v", uid, before, g, w)
		}
	}
}
