package portfolio

import (
	"context"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// MaxHistoryPoints bounds the value-over-time series.
const MaxHistoryPoints = 500

// HistoryPoint is the stack on one date: what it was worth at that day's close, and the cost
// basis held.
type HistoryPoint struct {
	Date  time.Time
	Value decimal.Decimal
	Cost  decimal.Decimal
}

// History is the stack's value over a range, oldest first.
type History struct {
	Range  prices.Range
	Points []HistoryPoint
}

// ParseRange reads a chart range exactly as the API names them ("" is the default).
func ParseRange(s string) (prices.Range, error) {
	if s == "" {
		return prices.DefaultRange, nil
	}
	for _, r := range prices.Ranges {
		if string(r) == s {
			return r, nil
		}
	}
	return "", apperr.InvalidField("range", "must be one of 1M, 3M, 6M, 1Y, 5Y, ALL")
}

// History values the member's stack at every daily close in the range: the ounces held that
// day (purchases and sales up to it; undated holdings from the day they were recorded) ×
// that day's close, and the cost basis held. At most MaxHistoryPoints, downsampled keeping
// the curve's shape.
func (s *Service) History(ctx context.Context, u db.User, rng string) (History, error) {
	if err := requireGold(u); err != nil {
		return History{}, err
	}
	r, err := ParseRange(rng)
	if err != nil {
		return History{}, err
	}
	out := History{Range: r}
	// Whatever happened before the range only sets where it starts: the store sums it per
	// metal rather than per day (ALL has no such part).
	var since db.Date
	if r != prices.RangeAll {
		since = db.NewDate(r.Start(s.now().UTC()))
	}
	changes, err := s.store.HistoryChanges(ctx, u.ID, since)
	if err != nil {
		return out, err
	}
	if s.market == nil || len(changes) == 0 {
		return out, nil
	}
	out.Points = valueHistory(s.market, changes, r, s.now())
	return out, nil
}

// valueHistory replays the position changes (oldest first) over the daily closes of the range.
func valueHistory(mk market, changes []db.PositionChange, r prices.Range, now time.Time) []HistoryPoint {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	from := r.Start(now)
	if r == prices.RangeAll || from.Before(changes[0].Day.Time) {
		// Nothing was held before the first purchase: start there.
		from = changes[0].Day.Time
	}
	type series struct {
		closes []prices.Close
		next   int
		last   decimal.Decimal
		known  bool
		oz     decimal.Decimal
		cost   decimal.Decimal
	}
	ser := map[metals.Metal]*series{}
	var days []time.Time
	seen := map[time.Time]bool{}
	for _, m := range metals.All {
		s := &series{closes: mk.DailyCloses(m, from, today)}
		if c, ok := mk.CloseOn(m, from.AddDate(0, 0, -1)); ok {
			s.last, s.known = c, true
		}
		for _, c := range s.closes {
			if !seen[c.Date] {
				seen[c.Date] = true
				days = append(days, c.Date)
			}
		}
		ser[m] = s
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Before(days[j]) })
	values := make([]prices.Close, 0, len(days))
	costs := make(map[time.Time]decimal.Decimal, len(days))
	ci := 0
	for _, d := range days {
		for ci < len(changes) && !changes[ci].Day.After(d) {
			s := ser[changes[ci].Metal]
			s.oz, s.cost = s.oz.Add(changes[ci].Oz), s.cost.Add(changes[ci].Cost)
			ci++
		}
		value, cost, ok := decimal.Zero, decimal.Zero, true
		for _, m := range metals.All {
			s := ser[m]
			for s.next < len(s.closes) && !s.closes[s.next].Date.After(d) {
				s.last, s.known = s.closes[s.next].Price, true
				s.next++
			}
			// A sale dated before an undated purchase was recorded could dip below zero.
			oz := decimal.Max(s.oz, decimal.Zero)
			if oz.IsPositive() && !s.known {
				ok = false // held, but no price yet: skip the date rather than guess
				break
			}
			if oz.IsPositive() {
				value = value.Add(oz.Mul(s.last))
			}
			cost = cost.Add(decimal.Max(s.cost, decimal.Zero))
		}
		if !ok {
			continue
		}
		values = append(values, prices.Close{Date: d, Price: value})
		costs[d] = cost
	}
	values = prices.Downsample(values, MaxHistoryPoints)
	out := make([]HistoryPoint, len(values))
	for i, p := range values {
		out[i] = HistoryPoint{Date: p.Date, Value: p.Price, Cost: costs[p.Date]}
	}
	return out
}

// ReplayHistory is the value-over-time math over position changes, exported for the
// benchmark that compares the per-day replay with the range-collapsed one.
func ReplayHistory(mk *prices.Service, changes []db.PositionChange, r prices.Range, now time.Time) []HistoryPoint {
	return valueHistory(mk, changes, r, now)
}
