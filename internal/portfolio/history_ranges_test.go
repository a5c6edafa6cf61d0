package portfolio

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestHistoryCollapsesBeforeRange: summing what came before a range per metal gives exactly
// the curve that replaying every day gives, for every range.
func TestHistoryCollapsesBeforeRange(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		u := member(t, s, "ranges@example.com", db.TierGold)
		rng := rand.New(rand.NewPCG(3, 4))
		metalsList := []string{"gold", "silver", "platinum", "palladium"}
		for i := 0; i < 60; i++ {
			day := now.AddDate(0, 0, -rng.IntN(2500)).Format("2006-01-02")
			h := create(t, svc, u, metalsList[rng.IntN(4)], 2+rng.IntN(5), "0.5", fmt.Sprint(10+rng.IntN(2000)), "1.25", day)
			if i%3 == 0 {
				if _, err := svc.RecordSale(ctx, u, h.ID, saleIn(t, `{"quantity":1,"price_per_unit":50}`)); err != nil {
					t.Fatal(err)
				}
			}
		}
		all, err := s.PositionChanges(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		points := 0
		for _, r := range Ranges {
			var since db.Date
			if r != prices.RangeAll {
				since = db.NewDate(earliestStart(svc.market, r, now))
			}
			part, err := s.HistoryChanges(ctx, u.ID, since)
			if err != nil {
				t.Fatal(err)
			}
			want, got := valueHistory(svc.market, all, r, now), valueHistory(svc.market, part, r, now)
			points += len(want)
			if len(want) != len(got) {
				t.Fatalf("%s: %d points, want %d", r, len(got), len(want))
			}
			for i := range want {
				if !want[i].Date.Equal(got[i].Date) || !want[i].Value.Equal(got[i].Value) || !want[i].Cost.Equal(got[i].Cost) {
					t.Fatalf("%s point %d: %+v, want %+v", r, i, got[i], want[i])
				}
			}
		}
		if points < 5 {
			t.Fatalf("only %d points compared", points)
		}
	})
}

// TestYTDWindow: YTD starts on January 1 of the day the window ends on (today, or the newest
// close when the data ends before today), never falling back to another range.
func TestYTDWindow(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse("2006-01-02", s); return d }
	if r, err := ParseRange("YTD"); err != nil || r != RangeYTD {
		t.Fatalf("YTD parses to %q, %v", r, err)
	}
	start, end, anchored := window(RangeYTD, day("2026-11-20"), day("2026-08-17"))
	if !start.Equal(day("2026-01-01")) || !end.Equal(day("2026-08-17")) || !anchored {
		t.Errorf("anchored YTD: %v %v %v", start, end, anchored)
	}
	start, _, anchored = window(RangeYTD, day("2026-11-20"), day("2026-11-20"))
	if !start.Equal(day("2026-01-01")) || anchored {
		t.Errorf("YTD: %v %v", start, anchored)
	}
	if _, err := ParseRange("2W"); err == nil {
		t.Error("2W is not a range")
	}
}
