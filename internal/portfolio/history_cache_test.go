package portfolio

import (
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestChartKeptUntilItsInputsMove: a member's chart is served again while their ledger, the
// stored closes and the day stay the same, and after any of them moves it is the chart a
// fresh replay draws — including a write that leaves the totals unchanged (a lot's date).
func TestChartKeptUntilItsInputsMove(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "chart@example.com", db.TierGold)
		other := member(t, s, "other@example.com", db.TierGold)
		h := create(t, svc, u, "gold", 2, "1", "2700", "0", "2025-01-10")
		create(t, svc, u, "silver", 100, "1", "26", "0", "2024-03-15")
		create(t, svc, other, "platinum", 3, "1", "990", "0", "2025-02-01")

		check := func(step string) []HistoryPoint {
			t.Helper()
			got, err := svc.History(ctx, u, "ALL")
			if err != nil {
				t.Fatal(err)
			}
			all, err := s.PositionChanges(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := valueHistory(svc.market, all, prices.RangeAll, svc.now())
			if len(got.Points) != len(want) {
				t.Fatalf("%s: %d points, a fresh replay draws %d", step, len(got.Points), len(want))
			}
			for i := range want {
				if !want[i].Date.Equal(got.Points[i].Date) || !want[i].Value.Equal(got.Points[i].Value) || !want[i].Cost.Equal(got.Points[i].Cost) {
					t.Fatalf("%s: point %d is %+v, a fresh replay draws %+v", step, i, got.Points[i], want[i])
				}
			}
			return got.Points
		}
		first := check("first")
		if again := check("again"); &again[0] != &first[0] {
			t.Fatal("nothing moved, yet the chart was drawn again")
		}
		// Another member's write leaves this chart alone.
		create(t, svc, other, "palladium", 1, "1", "950", "0", "2025-03-03")
		if again := check("after another member's write"); &again[0] != &first[0] {
			t.Fatal("another member's write rebuilt this chart")
		}
		// A later date for the same lot: the totals stay, the curve moves.
		before := check("before the date change")
		if _, err := svc.UpdateHolding(ctx, u, h.ID, holdingIn(t, `{"purchase_date":"2025-05-30"}`)); err != nil {
			t.Fatal(err)
		}
		if after := check("after the date change"); samePoints(after, before) {
			t.Fatal("the date change did not move the chart")
		}
		if _, err := svc.RecordSale(ctx, u, h.ID, saleIn(t, `{"quantity":1,"price_per_unit":3300,"sold_on":"2025-06-02"}`)); err != nil {
			t.Fatal(err)
		}
		check("after a sale")
		// New closes (another generation) and a new day are drawn too.
		fm := svc.market.(fakeMarket)
		fm.gen++
		fm.closes = map[metals.Metal][]prices.Close{}
		for m, cs := range svc.market.(fakeMarket).closes {
			fm.closes[m] = append(append([]prices.Close(nil), cs...), prices.Close{Date: day("2026-01-02").Time, Price: cs[len(cs)-1].Price.Add(d("10"))})
		}
		svc.market = fm
		check("after new closes")
		svc.now = func() time.Time { return now.AddDate(0, 0, 1) }
		check("on the next day")
	})
}

func samePoints(a, b []HistoryPoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Date.Equal(b[i].Date) || !a[i].Value.Equal(b[i].Value) || !a[i].Cost.Equal(b[i].Cost) {
			return false
		}
	}
	return true
}
