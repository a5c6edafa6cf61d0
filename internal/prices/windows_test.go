package prices_test

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// calendarMonthsBack is the day k calendar months before d, clamped to the end of a shorter
// month (29 May less 3 months is 28 Feb): the expectation, computed here on its own.
func calendarMonthsBack(d time.Time, k int) time.Time {
	y, m, day := d.Date()
	lastOfTarget := time.Date(y, m-time.Month(k)+1, 0, 0, 0, 0, 0, time.UTC).Day()
	return time.Date(y, m-time.Month(k), min(day, lastOfTarget), 0, 0, 0, 0, time.UTC)
}

// TestRangesNestedWhenDataEnds is issue 23, item 7: offline in November with each metal's data
// ending months earlier, only the ranges that would start after the last close were counted
// back from it, so gold 6M had fewer closes than 3M and palladium 1Y fewer than 6M. Every range
// now counts back from through, nested 1M ⊂ 3M ⊂ 6M ⊂ 1Y ⊂ 5Y ⊂ ALL, starting on the calendar
// date that many months before through.
func TestRangesNestedWhenDataEnds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) }
		svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		months := map[prices.Range]int{prices.Range1M: 1, prices.Range3M: 3, prices.Range6M: 6, prices.Range1Y: 12, prices.Range5Y: 60}
		for _, m := range metals.All {
			daily, _, err := prices.Embedded(m)
			if err != nil {
				t.Fatal(err)
			}
			through := daily[len(daily)-1].Date
			prevCount := 0
			var prevFrom time.Time
			for _, r := range prices.Ranges {
				res := svc.History(m, r, prices.MaxHistoryPoints)
				if !res.Through.Equal(through) || !res.Stale || !res.To.Equal(through) {
					t.Errorf("%s %s: through %v stale %t to %v; want through %v, stale, ending there", m, r, res.Through, res.Stale, res.To, through)
				}
				if len(res.Points) < prevCount || (prevCount > 0 && res.From.After(prevFrom)) {
					t.Errorf("%s %s: %d closes from %v, after the shorter range's %d from %v", m, r, len(res.Points), res.From, prevCount, prevFrom)
				}
				prevCount, prevFrom = len(res.Points), res.From
				if r == prices.RangeAll {
					continue
				}
				want := calendarMonthsBack(through, months[r])
				first := daily[0]
				for _, c := range daily {
					if !c.Date.Before(want) {
						first = c
						break
					}
				}
				if !res.Start.Equal(want) || !res.From.Equal(first.Date) || !res.Points[0].Price.Equal(first.Price) {
					t.Errorf("%s %s: window starts %v, first close %v; want %v and the first close on or after it, %v",
						m, r, res.Start.Format(time.DateOnly), res.From.Format(time.DateOnly), want.Format(time.DateOnly), first.Date.Format(time.DateOnly))
				}
				// Nothing is downsampled at this size: the range is every close of the window.
				if r != prices.Range5Y && len(res.Points) != len(prices.Since(daily, want)) {
					t.Errorf("%s %s: %d closes, want %d", m, r, len(res.Points), len(prices.Since(daily, want)))
				}
			}
		}
		// Platinum ends on Friday 29 May 2026: 3M starts on 28 Feb (clamped), and Saturday's
		// window shows its first close, Monday 2 March.
		pt := svc.History(metals.Platinum, prices.Range3M, 0)
		if pt.Start.Format(time.DateOnly) != "2026-02-28" || pt.From.Format(time.DateOnly) != "2026-03-02" || pt.Through.Format(time.DateOnly) != "2026-05-29" {
			t.Errorf("platinum 3M: start %v from %v through %v", pt.Start, pt.From, pt.Through)
		}

		// On the day of the last close nothing is anchored: the ranges count back from today.
		onTime, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: func() time.Time { return time.Date(2026, 8, 17, 20, 0, 0, 0, time.UTC) }})
		if err != nil {
			t.Fatal(err)
		}
		g := onTime.History(metals.Gold, prices.Range6M, 0)
		if g.Stale || g.Start.Format(time.DateOnly) != "2026-02-17" || g.Through.Format(time.DateOnly) != "2026-08-17" {
			t.Errorf("gold 6M on its last day: stale %t start %v through %v", g.Stale, g.Start, g.Through)
		}
	})
}

// TestAllSeriesHasNoMonthlyBesideDailies is issue 23, item 10: ALL added the monthly average
// of the first daily month, dated the 1st (platinum 1990-04-01 = 478.15, a Sunday), on top of
// that month's daily closes.
func TestAllSeriesHasNoMonthlyBesideDailies(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) }
		svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range metals.All {
			daily, _, err := prices.Embedded(m)
			if err != nil {
				t.Fatal(err)
			}
			firstMonth := time.Date(daily[0].Date.Year(), daily[0].Date.Month(), 1, 0, 0, 0, 0, time.UTC)
			all := svc.Closes(m, time.Time{}, now())
			res := svc.History(m, prices.RangeAll, len(all))
			if len(res.Points) != len(all) {
				t.Fatalf("%s ALL: %d points, the series has %d", m, len(res.Points), len(all))
			}
			for i, c := range res.Points {
				if !c.Date.Equal(all[i].Date) || !c.Price.Equal(all[i].Price) {
					t.Fatalf("%s ALL point %d is %v, the value history's series has %v", m, i, c, all[i])
				}
				if !c.Date.Before(firstMonth) && c.Date.Before(daily[0].Date) {
					t.Errorf("%s ALL has %s = %s in %s, the month daily closes begin", m, c.Date.Format(time.DateOnly), c.Price, firstMonth.Format("2006-01"))
				}
			}
		}
		all := svc.History(metals.Platinum, prices.RangeAll, prices.MaxHistoryPoints*2)
		idx := -1
		for i, c := range all.Points {
			if c.Date.Format(time.DateOnly) == "1990-04-02" {
				idx = i
			}
		}
		if idx < 1 || all.Points[idx-1].Date.Format(time.DateOnly) != "1990-03-01" || !all.Points[idx-1].Price.Equal(dec("497.06")) {
			t.Fatalf("platinum ALL around 1990-04-02: index %d", idx)
		}
		// A purchase on that Sunday is valued at the last figure before it in the same series.
		if c, ok := svc.CloseOn(metals.Platinum, time.Date(1990, 4, 1, 0, 0, 0, 0, time.UTC)); !ok || !c.Equal(dec("497.06")) {
			t.Errorf("platinum close on 1990-04-01 = %s, %t; want March's average 497.06", c, ok)
		}
	})
}
