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

func pfDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func pfDay(s string) db.Date {
	if s == "" {
		return db.Date{}
	}
	d, err := db.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// totaled is rows as the portfolio service writes them: with their totals.
func totaled(rows []db.Holding) []db.Holding {
	out := make([]db.Holding, len(rows))
	for i, h := range rows {
		out[i] = portfolio.WithTotals(h)
	}
	return out
}

func pfLot(uid int64, metal string, qty int64, w, price, fees, date string) db.Holding {
	return db.Holding{UserID: uid, Metal: metal, Quantity: qty, WeightOz: pfDec(w), PurchasePrice: pfDec(price), Fees: pfDec(fees), PurchaseDate: pfDay(date)}
}

func pfTotals(t *testing.T, s *db.Store, uid int64, before string) map[metals.Metal]db.MetalTotals {
	t.Helper()
	list, err := s.PortfolioTotals(context.Background(), uid, pfDay(before), db.WithPurchases)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 {
		t.Fatalf("PortfolioTotals returned %d metals, want all 4", len(list))
	}
	out := map[metals.Metal]db.MetalTotals{}
	for i, m := range metals.All {
		if list[i].Metal != m {
			t.Fatalf("metal %d is %s, want %s", i, list[i].Metal, m)
		}
		out[m] = list[i]
	}
	return out
}

func pfEq(t *testing.T, what string, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Equal(pfDec(want)) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

// TestPortfolioTotalsHandComputed checks the SQL aggregates against sums worked out by hand:
// fractional ounces, fees, several lots, a zero-cost gift, a partial sale, every metal.
func TestPortfolioTotalsHandComputed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		ann, _ := s.InsertUser(ctx, "ann@example.com", "h", db.TierGold, false)
		bob, _ := s.InsertUser(ctx, "bob@example.com", "h", db.TierGold, false)
		for _, h := range []db.Holding{
			pfLot(ann.ID, "gold", 2, "1", "2000.00", "30.50", "2025-01-10"),        // 2 oz, 4030.50
			pfLot(ann.ID, "gold", 10, "0.1", "215.25", "0", "2025-06-01"),          // 1 oz, 2152.50
			pfLot(ann.ID, "gold", 3, "0.03215", "80.00", "4.99", "2026-11-20"),     // 0.09645 oz, 244.99 (bought "today")
			pfLot(ann.ID, "silver", 100, "0.7734", "18.40", "12.00", "2024-03-15"), // 77.34 oz, 1852.00
			pfLot(ann.ID, "silver", 5, "1", "0", "0", "2023-12-25"),                // gift: 5 oz, 0
			pfLot(ann.ID, "platinum", 1, "1", "1010.10", "0.01", ""),               // undated: 1 oz, 1010.11
			pfLot(ann.ID, "palladium", 7, "0.00000001", "0.01", "0", "2020-02-29"), // 0.00000007 oz, 0.07
			pfLot(bob.ID, "gold", 1000, "100", "99999.99", "1", "2025-01-01"),      // someone else's
		} {
			if _, err := s.InsertHolding(ctx, portfolio.WithTotals(h)); err != nil {
				t.Fatal(err)
			}
		}
		got := pfTotals(t, s, ann.ID, "2026-11-20")
		g := got[metals.Gold]
		pfEq(t, "gold oz", g.HeldOz, "3.09645")
		pfEq(t, "gold cost", g.HeldCost, "6427.99")
		pfEq(t, "gold oz bought today", g.HeldOzSince, "0.09645")
		pfEq(t, "gold fees", g.BoughtFees, "35.49")
		if g.Lots != 3 || g.Purchases != 3 || g.FirstPurchase.String() != "2025-01-10" || g.LastPurchase.String() != "2026-11-20" {
			t.Errorf("gold counts/dates: %+v", g)
		}
		sv := got[metals.Silver]
		pfEq(t, "silver oz", sv.HeldOz, "82.34")
		pfEq(t, "silver cost", sv.HeldCost, "1852")
		pt := got[metals.Platinum]
		pfEq(t, "platinum oz", pt.HeldOz, "1")
		pfEq(t, "platinum cost", pt.HeldCost, "1010.11")
		// Undated and recorded now (after the day's start): not held before today.
		pfEq(t, "platinum since", pt.HeldOzSince, "1")
		if !pt.FirstPurchase.IsZero() {
			t.Errorf("undated first purchase = %s", pt.FirstPurchase)
		}
		pfEq(t, "palladium oz", got[metals.Palladium].HeldOz, "0.00000007")
		pfEq(t, "palladium cost", got[metals.Palladium].HeldCost, "0.07")

		// With tomorrow as the day, the undated lot counts as held before it.
		tomorrow := db.NewDate(time.Now().UTC().AddDate(0, 0, 1)).String()
		pfEq(t, "platinum since tomorrow", pfTotals(t, s, ann.ID, tomorrow)[metals.Platinum].HeldOzSince, "0")

		// A user with nothing still gets four zero rows.
		carl, _ := s.InsertUser(ctx, "carl@example.com", "h", db.TierGold, false)
		for m, x := range pfTotals(t, s, carl.ID, "2026-11-20") {
			if !x.HeldOz.IsZero() || !x.HeldCost.IsZero() || x.Purchases != 0 {
				t.Errorf("%s of empty portfolio: %+v", m, x)
			}
		}
	})
}

// TestPortfolioTotalsExtremes: the validation maxima sum exactly, with no float and no overflow.
func TestPortfolioTotalsExtremes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "max@example.com", "h", db.TierGold, false)
		const n = 50
		rows := make([]db.Holding, n)
		for i := range rows {
			rows[i] = pfLot(u.ID, "gold", 1_000_000, "99999.99999999", "99999999.99", "99999999.99", "")
			rows[i].ProductName = "max " + strings.Repeat("x", i)
		}
		if _, err := s.ImportHoldings(ctx, u.ID, totaled(rows)); err != nil {
			t.Fatal(err)
		}
		g := pfTotals(t, s, u.ID, "2026-11-20")[metals.Gold]
		oneOz := pfDec("99999.99999999").Mul(pfDec("1000000"))
		oneCost := pfDec("99999999.99").Mul(pfDec("1000000")).Add(pfDec("99999999.99"))
		pfEq(t, "oz", g.HeldOz, oneOz.Mul(decimal.NewFromInt(n)).String())
		pfEq(t, "cost", g.HeldCost, oneCost.Mul(decimal.NewFromInt(n)).String())
	})
}

// TestPortfolioTotalsProperties: for random stacks with random partial sales, the SQL sums
// equal the sums of the rows computed in Go, and nothing is ever negative.
func TestPortfolioTotalsProperties(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(7, 11))
		for trial := 0; trial < 8; trial++ {
			u, _ := s.InsertUser(ctx, "p"+string(rune('a'+trial))+"@example.com", "h", db.TierGold, false)
			wantOz := map[string]decimal.Decimal{}
			wantCost := map[string]decimal.Decimal{}
			var realized decimal.Decimal
			for i := 0; i < 25; i++ {
				m := metals.All[rng.IntN(4)]
				qty := int64(1 + rng.IntN(40))
				w := decimal.New(int64(1+rng.IntN(100_000_000)), -8)     // up to 1 oz, 8 places
				p := decimal.New(int64(rng.IntN(500_000)), -2)           // 0 .. 5,000.00
				f := decimal.New(int64(rng.IntN(3)*rng.IntN(5_000)), -2) // often zero
				h, err := s.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: string(m), Quantity: qty, WeightOz: w, PurchasePrice: p, Fees: f}))
				if err != nil {
					t.Fatal(err)
				}
				held, cost := qty, portfolio.LotCost(qty, p, f)
				for k := 0; k < 3 && held > 0 && rng.IntN(2) == 0; k++ {
					q := int64(1 + rng.IntN(int(held)))
					sale, err := s.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: q, PricePerUnit: decimal.New(int64(rng.IntN(600_000)), -2), Fees: decimal.New(int64(rng.IntN(1000)), -2), SoldOn: pfDay("2026-01-02")}, portfolio.DecideSale)
					if err != nil {
						t.Fatal(err)
					}
					if sale.CostBasis.IsNegative() || sale.CostBasis.GreaterThan(cost) {
						t.Fatalf("sale cost %s outside [0, %s]", sale.CostBasis, cost)
					}
					held -= q
					cost = cost.Sub(sale.CostBasis)
					realized = realized.Add(sale.RealizedPL)
				}
				if held == 0 && !cost.IsZero() {
					t.Fatalf("fully sold lot keeps cost %s", cost)
				}
				wantOz[string(m)] = wantOz[string(m)].Add(w.Mul(decimal.NewFromInt(held)))
				wantCost[string(m)] = wantCost[string(m)].Add(cost)
			}
			var gotRealized decimal.Decimal
			for m, x := range pfTotals(t, s, u.ID, "2026-11-20") {
				if x.HeldOz.IsNegative() || x.HeldCost.IsNegative() {
					t.Fatalf("negative totals for %s: %+v", m, x)
				}
				pfEq(t, string(m)+" held oz", x.HeldOz, wantOz[string(m)].String())
				pfEq(t, string(m)+" held cost", x.HeldCost, wantCost[string(m)].String())
				gotRealized = gotRealized.Add(x.Realized)
			}
			pfEq(t, "realized", gotRealized, realized.String())
		}
	})
}

func TestPositionChanges(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, _ := s.InsertUser(ctx, "pc@example.com", "h", db.TierGold, false)
		a, _ := s.InsertHolding(ctx, portfolio.WithTotals(pfLot(u.ID, "gold", 4, "0.5", "1000", "20", "2025-03-03")))
		_, _ = s.InsertHolding(ctx, portfolio.WithTotals(pfLot(u.ID, "gold", 1, "1", "2100", "0", "2025-03-03")))
		_, _ = s.InsertHolding(ctx, portfolio.WithTotals(pfLot(u.ID, "silver", 10, "1", "0", "0", "2025-01-01"))) // gift
		_, _ = s.InsertHolding(ctx, portfolio.WithTotals(pfLot(u.ID, "silver", 2, "1", "30", "1", "")))
		if _, err := s.InsertSale(ctx, u.ID, a.ID, db.Sale{Quantity: 1, PricePerUnit: pfDec("1300"), Fees: pfDec("5"), SoldOn: pfDay("2025-04-01")}, portfolio.DecideSale); err != nil {
			t.Fatal(err)
		}
		ch, err := s.PositionChanges(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch) != 4 {
			t.Fatalf("%d changes: %+v", len(ch), ch)
		}
		gift, gold, sale, undated := ch[0], ch[1], ch[2], ch[3]
		if gift.Metal != metals.Silver || gift.Day.String() != "2025-01-01" || !gift.Oz.Equal(pfDec("10")) || !gift.Cost.IsZero() || !gift.PricedOz.IsZero() {
			t.Errorf("gift: %+v", gift)
		}
		if gold.Day.String() != "2025-03-03" || !gold.Oz.Equal(pfDec("3")) || !gold.Cost.Equal(pfDec("6120")) || !gold.Paid.Equal(pfDec("6100")) || !gold.PricedOz.Equal(pfDec("3")) {
			t.Errorf("gold day: %+v", gold)
		}
		if sale.Day.String() != "2025-04-01" || !sale.Oz.Equal(pfDec("-0.5")) || !sale.Cost.Equal(pfDec("-1005")) {
			t.Errorf("sale: %+v", sale)
		}
		if undated.Dated || undated.Metal != metals.Silver || !undated.Cost.Equal(pfDec("61")) || undated.Day.String() != db.NewDate(time.Now().UTC()).String() {
			t.Errorf("undated: %+v", undated)
		}
	})
}

// TestMigrationBackfillIsExact runs the 0004 backfill over rows written as before the
// migration (no integer totals) and checks the totals equal the decimal arithmetic.
func TestMigrationBackfillIsExact(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		body, err := os.ReadFile("migrations/" + string(s.Engine) + "/0004_portfolio.sql")
		if err != nil {
			t.Fatal(err)
		}
		text := string(body)
		start := strings.Index(text, "UPDATE holdings SET")
		end := strings.Index(text[start:], "WHERE holdings.id = p.id;")
		if start < 0 || end < 0 {
			t.Fatal("backfill statement not found in the migration")
		}
		backfill := text[start : start+end+len("WHERE holdings.id = p.id")]
		u, _ := s.InsertUser(ctx, "legacy@example.com", "h", db.TierGold, false)
		legacy := []db.Holding{
			pfLot(u.ID, "gold", 1_000_000, "99999.99999999", "99999999.99", "99999999.99", "2020-01-01"),
			pfLot(u.ID, "gold", 3, "0.1", "32.5", "0", ""),
			pfLot(u.ID, "silver", 7, "31.1034768", "0", "0.05", "2021-05-05"),
			pfLot(u.ID, "silver", 1, "0.00000001", "0.01", "0", "2021-05-05"),
			pfLot(u.ID, "platinum", 12, "1", "1000", "12.3", ""),
		}
		want := map[string][2]decimal.Decimal{}
		for i, h := range legacy {
			_, err := s.ExecForTest(ctx, `INSERT INTO holdings (id, user_id, metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes, created_at, updated_at)
				VALUES (?, ?, ?, '', ?, ?, ?, ?, '', ?, '', ?, ?)`, "h_legacy"+string(rune('a'+i)), u.ID, h.Metal, h.Quantity, h.WeightOz.String(), h.PurchasePrice.String(), h.Fees.String(), h.PurchaseDate, time.Now().UTC(), time.Now().UTC())
			if err != nil {
				t.Fatal(err)
			}
			w := want[h.Metal]
			want[h.Metal] = [2]decimal.Decimal{w[0].Add(portfolio.LotOz(h.Quantity, h.WeightOz)), w[1].Add(portfolio.LotCost(h.Quantity, h.PurchasePrice, h.Fees))}
		}
		if _, err := s.ExecForTest(ctx, backfill); err != nil {
			t.Fatalf("backfill: %v", err)
		}
		for m, x := range pfTotals(t, s, u.ID, "2026-11-20") {
			pfEq(t, string(m)+" oz", x.HeldOz, want[string(m)][0].String())
			pfEq(t, string(m)+" cost", x.HeldCost, want[string(m)][1].String())
			pfEq(t, string(m)+" bought oz", x.BoughtOz, want[string(m)][0].String())
		}
		pfEq(t, "platinum fees", pfTotals(t, s, u.ID, "2026-11-20")[metals.Platinum].BoughtFees, "12.3")
	})
}

// pfSeedBench gives a new member n holdings across the four metals, dated 2015–2026.
func pfSeedBench(b testing.TB, s *db.Store, n int) int64 {
	ctx := context.Background()
	u, err := s.InsertUser(ctx, fmt.Sprintf("bench%d@example.com", time.Now().UnixNano()), "h", db.TierGold, false)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]db.Holding, n)
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		rows[i] = db.Holding{Metal: string(metals.All[rng.IntN(4)]), ProductName: fmt.Sprintf("coin %d", i), Quantity: int64(1 + rng.IntN(100)),
			WeightOz: decimal.New(int64(1+rng.IntN(100_000_000)), -8), PurchasePrice: decimal.New(int64(rng.IntN(300_000)), -2),
			Fees: decimal.New(int64(rng.IntN(500)), -2), PurchaseDate: db.NewDate(start.AddDate(0, 0, rng.IntN(4200)))}
	}
	if _, err := s.ImportHoldings(ctx, u.ID, totaled(rows)); err != nil {
		b.Fatal(err)
	}
	return u.ID
}

// BenchmarkPortfolioTotals times the per-metal aggregate over 10,000 holdings on each engine.
func BenchmarkPortfolioTotals(b *testing.B) {
	for _, e := range pfEngines(b) {
		b.Run(e.name, func(b *testing.B) {
			uid := pfSeedBench(b, e.s, 10_000)
			day := db.NewDate(time.Now())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.s.PortfolioTotals(context.Background(), uid, day, db.HeldOnly); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPositionChanges times the purchases and sales grouped per metal and day.
func BenchmarkPositionChanges(b *testing.B) {
	for _, e := range pfEngines(b) {
		b.Run(e.name, func(b *testing.B) {
			uid := pfSeedBench(b, e.s, 10_000)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.s.PositionChanges(context.Background(), uid); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

type pfEngine struct {
	name string
	s    *db.Store
}

func pfEngines(b *testing.B) []pfEngine {
	out := []pfEngine{{"sqlite", dbtest.SQLite(b)}}
	if u, ok := dbtest.PostgresURL(b); ok {
		out = append(out, pfEngine{"postgres", dbtest.Postgres(b, u)})
	}
	return out
}
