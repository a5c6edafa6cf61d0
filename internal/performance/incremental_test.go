package performance

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// countingStore is the real store, counting whole and partial reads of the ledger's days.
type countingStore struct {
	*db.Store
	full, partial int
}

func (c *countingStore) PerformanceDays(ctx context.Context, id int64) ([]db.PerformanceDay, error) {
	c.full++
	return c.Store.PerformanceDays(ctx, id)
}

func (c *countingStore) PerformanceDaysFrom(ctx context.Context, id int64, from db.Date) ([]db.PerformanceDay, error) {
	c.partial++
	return c.Store.PerformanceDaysFrom(ctx, id, from)
}

func (c *countingStore) PerformanceDaysOn(ctx context.Context, id int64, days []db.Date) ([]db.PerformanceDay, error) {
	c.partial++
	return c.Store.PerformanceDaysOn(ctx, id, days)
}

// waveMarket has gold and silver closes on weekdays from first to last, in triangle waves: up
// and down again, cent by cent.
func waveMarket(first, last time.Time) *fakeMarket {
	mk := &fakeMarket{closes: map[metals.Metal][]prices.Close{}}
	for d, i := first, 0; !d.After(last); d, i = d.AddDate(0, 0, 1), i+1 {
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			continue
		}
		wave := func(step, top int) int64 {
			t := (i * step) % (2 * top)
			return int64(min(t, 2*top-t))
		}
		mk.closes[metals.Gold] = append(mk.closes[metals.Gold], prices.Close{Date: d, Price: decimal.New(120000+wave(37, 9000), -2)})
		mk.closes[metals.Silver] = append(mk.closes[metals.Silver], prices.Close{Date: d, Price: decimal.New(1500+wave(13, 900), -2)})
	}
	return mk
}

// everyAnswer is the summary and a custom period of the stack, of gold and of silver against
// silver, as JSON.
func everyAnswer(t *testing.T, s *Service, u db.User) string {
	t.Helper()
	ctx := context.Background()
	var out []any
	for _, q := range []Query{{Metal: ""}, {Metal: "gold"}, {Metal: "silver", Benchmark: "silver"}} {
		sum, err := s.Summary(ctx, u, q.Metal, q.Benchmark)
		if err != nil {
			t.Fatal(err)
		}
		one, err := s.Performance(ctx, u, Query{From: "2016-05-04", To: "2024-11-29", Metal: q.Metal, Benchmark: q.Benchmark})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sum, one)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIncrementalAnswersEqualFullOnes: after each write (a back-dated lot edited, a lot bought
// today, a sale, a lot deleted, a lot's currency changed), the answer of a service that kept
// the ledger's days and re-read only those changed is exactly that of a new service over the
// same store, for every preset period, a custom one and each metal; the kept service re-read
// only part of the ledger, except after the currency change, which the change log does not
// record (it reads everything).
func TestIncrementalAnswersEqualFullOnes(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, st *db.Store) {
		ctx := context.Background()
		u, err := st.InsertUser(ctx, "incremental@example.com", "h", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		today := day("2025-01-08")
		mk := waveMarket(day("2013-01-01"), today)
		lot := func(metal, date string, qty int64, oz, price, fees string) db.Holding {
			h := db.Holding{UserID: u.ID, Metal: metal, ProductName: metal, Quantity: qty, WeightOz: dec(oz),
				PurchasePrice: dec(price), Fees: dec(fees), PurchaseCurrency: "USD", PurchaseDate: db.Date{Time: day(date)}}
			got, err := st.InsertHolding(ctx, portfolio.WithTotals(h))
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		var lots []db.Holding
		for d, i := day("2014-02-03"), 0; d.Before(today); d, i = d.AddDate(0, 0, 17), i+1 {
			m, price := "gold", fmt.Sprintf("%d.%02d", 1150+i%200, i%100)
			if i%3 == 0 {
				m, price = "silver", fmt.Sprintf("%d.%02d", 15+i%9, i%100)
			}
			lots = append(lots, lot(m, d.Format(time.DateOnly), int64(1+i%4), "1", price, "3.25"))
		}
		cs := &countingStore{Store: st}
		svc := func(store Store) *Service {
			s := New(Deps{Store: store, Now: func() time.Time { return today.Add(15 * time.Hour) }})
			s.market = mk
			return s
		}
		kept := svc(cs)
		same := func(what string) {
			t.Helper()
			got, want := everyAnswer(t, kept, u), everyAnswer(t, svc(st), u)
			if got != want {
				t.Errorf("%s: the kept service's answer differs from a fresh one:\n got %.600s\nwant %.600s", what, got, want)
			}
		}
		// wantWhole is the timelines valued whole again: those of the custom period, for a change
		// before it starts (its starting position); after a read of every day, all of them.
		check := func(what string, wantFull int, wantWhole int64) {
			t.Helper()
			full, partial, whole := cs.full, cs.partial, kept.wholeValuations.Load()
			same(what)
			if cs.full-full != wantFull || (wantFull == 0 && cs.partial == partial) {
				t.Errorf("%s: %d whole and %d partial reads of the ledger, want %d whole", what, cs.full-full, cs.partial-partial, wantFull)
			}
			// The kept timelines are valued again from the day changed on, not from their start.
			if n := kept.wholeValuations.Load() - whole; n != wantWhole {
				t.Errorf("%s: %d timelines valued whole, want %d", what, n, wantWhole)
			}
		}
		check("first answer", 1, 6)

		back := lots[40] // a lot of 2016, edited: more of it, bought a week later
		back.Quantity, back.PurchaseDate = back.Quantity+2, db.Date{Time: back.PurchaseDate.AddDate(0, 0, 7)}
		if _, err := st.UpdateHolding(ctx, portfolio.WithTotals(back)); err != nil {
			t.Fatal(err)
		}
		check("back-dated lot edited", 0, 3)

		lot("gold", "2025-01-08", 2, "1", "2650", "0")
		check("lot bought today", 0, 0)

		if _, err := st.InsertSale(ctx, u.ID, lots[200].ID, db.Sale{Quantity: 1, PricePerUnit: dec("1400"), Fees: dec("5"),
			SoldOn: db.Date{Time: day("2024-03-01")}, Currency: "USD"}, portfolio.DecideSale); err != nil {
			t.Fatal(err)
		}
		check("lot sold", 0, 0)

		if err := st.DeleteHolding(ctx, u.ID, lots[10].ID); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteHolding(ctx, u.ID, lots[len(lots)-1].ID); err != nil {
			t.Fatal(err)
		}
		check("two lots deleted", 0, 3)

		// The live board: today is valued at its prices, and again when they tick.
		mk.board = prices.Snapshot{Prices: map[metals.Metal]prices.Spot{
			metals.Gold: {Metal: metals.Gold, Price: dec("2701.5")}, metals.Silver: {Metal: metals.Silver, Price: dec("31.25")}}, Seq: 1}
		whole := kept.wholeValuations.Load()
		same("prices live")
		mk.board.Prices[metals.Gold] = prices.Spot{Metal: metals.Gold, Price: dec("2688.75")}
		mk.board.Seq++
		same("a live tick")
		if n := kept.wholeValuations.Load() - whole; n != 0 {
			t.Errorf("live prices: %d timelines valued whole, want none", n)
		}
		mk.board = prices.Snapshot{}

		cur := lots[5]
		cur.PurchaseCurrency = "EUR"
		if _, err := st.UpdateHolding(ctx, portfolio.WithTotals(cur)); err != nil {
			t.Fatal(err)
		}
		check("a lot's currency changed (not in the change log)", 1, 6)
	})
}
