package portfolio

import (
	"context"
	"slices"
	"sync"
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
	// Start is the first calendar day of the window (zero for ALL). Through is the newest
	// close of the metals in the ledger; Stale is true when it is before today, and the range
	// then counts back from Through, as the price history of those metals does.
	Start, Through time.Time
	Stale          bool
	// FX names the currency of the values and costs (each day's value at that day's rate).
	FX FXUsed
}

// RangeYTD is the value chart's year to date: from January 1 of the year its window ends in.
// The price history does not offer it; the member's chart does.
const RangeYTD prices.Range = "YTD"

// Ranges are the value chart's ranges in display order: the price history's, with YTD.
var Ranges = []prices.Range{prices.Range1M, prices.Range3M, prices.Range6M, RangeYTD, prices.Range1Y, prices.Range5Y, prices.RangeAll}

// ParseRange reads a chart range exactly as the API names them ("" is the default).
func ParseRange(s string) (prices.Range, error) {
	if s == "" {
		return prices.DefaultRange, nil
	}
	for _, r := range Ranges {
		if string(r) == s {
			return r, nil
		}
	}
	return "", apperr.InvalidField("range", "must be one of 1M, 3M, 6M, YTD, 1Y, 5Y, ALL")
}

// window is r.Window, with YTD counted like the others: from January 1 of the day it ends on.
func window(r prices.Range, now, through time.Time) (start, end time.Time, anchored bool) {
	start, end, anchored = r.Window(now, through)
	if r == RangeYTD {
		start = time.Date(end.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return start, end, anchored
}

// RangeCustom names a chart between two dates the member chose (HistoryFor with from/to).
const RangeCustom prices.Range = "custom"

// History values the member's stack at every close in the range: the ounces held that day
// (purchases and sales up to it; undated holdings from the day they were recorded) × that
// day's close (before daily data, the month's average, as the price history's ALL), and the
// cost basis held. The range is the price history's window (chartWindow). At most
// MaxHistoryPoints, downsampled keeping the curve's shape.
func (s *Service) History(ctx context.Context, u db.User, rng string) (History, error) {
	return s.HistoryIn(ctx, u, rng, "USD")
}

// HistoryIn is History in currency (resolved by Currency).
func (s *Service) HistoryIn(ctx context.Context, u db.User, rng, currency string) (History, error) {
	return s.HistoryFor(ctx, u, rng, "", "", currency)
}

// ParseHistoryDates reads a custom chart window: from (required) and to (default today) as
// YYYY-MM-DD, from not after to, to not after today. Each error names its field.
func ParseHistoryDates(from, to string, today time.Time) (time.Time, time.Time, error) {
	if from == "" {
		return time.Time{}, time.Time{}, apperr.InvalidField("from", "required with to (YYYY-MM-DD)")
	}
	f, err := db.ParseDate(from)
	if err != nil {
		return time.Time{}, time.Time{}, apperr.InvalidField("from", "must be a date as YYYY-MM-DD")
	}
	end := db.NewDate(today)
	if to != "" {
		if end, err = db.ParseDate(to); err != nil {
			return time.Time{}, time.Time{}, apperr.InvalidField("to", "must be a date as YYYY-MM-DD")
		}
	}
	switch {
	case end.After(db.NewDate(today).Time):
		return time.Time{}, time.Time{}, apperr.InvalidField("to", "must not be after "+today.UTC().Format(db.DateLayout))
	case f.After(end.Time):
		return time.Time{}, time.Time{}, apperr.InvalidField("from", "must not be after to")
	case f.Year() < 1900:
		return time.Time{}, time.Time{}, apperr.InvalidField("from", "must be in 1900 or later")
	}
	return f.Time, end.Time, nil
}

// HistoryFor is HistoryIn for a named range, or between two dates (from, and to or today)
// when either is given; a range with dates, an unknown range or a bad date is an error
// naming its field, never another window than the one asked for.
func (s *Service) HistoryFor(ctx context.Context, u db.User, rng, from, to, currency string) (History, error) {
	if err := requireGold(u); err != nil {
		return History{}, err
	}
	now := s.now().UTC()
	var r prices.Range
	var cFrom, cTo time.Time
	if from != "" || to != "" {
		if rng != "" {
			return History{}, apperr.InvalidField("range", "give either range or from/to, not both")
		}
		var err error
		if cFrom, cTo, err = ParseHistoryDates(from, to, now); err != nil {
			return History{}, err
		}
		r = RangeCustom
	} else {
		var err error
		if r, err = ParseRange(rng); err != nil {
			return History{}, err
		}
	}
	out := History{Range: r}
	// The revision is read before the ledger, so a chart is never kept under a revision newer
	// than the ledger it was computed from (a write in between only costs a recomputation).
	rev, err := s.store.LedgerRevision(ctx, u.ID)
	if err != nil {
		return out, err
	}
	key := chartKey{user: u.ID, rng: r, currency: currency, from: cFrom, to: cTo}
	state := chartState{rev: rev, day: now.Unix() / 86400}
	if s.market != nil {
		state.priced, state.gen = true, s.market.Generation()
	}
	if h, ok := s.charts.get(key, state); ok {
		return h, nil
	}
	// Whatever happened before the range only sets where it starts: the store sums it per
	// metal rather than per day (ALL has no such part). Which metals the ledger holds is
	// known only after reading it, so the sums end where the earliest window could start.
	var since db.Date
	switch {
	case r == RangeCustom:
		since = db.NewDate(cFrom)
	case r != prices.RangeAll:
		since = db.NewDate(earliestStart(s.market, r, now))
	}
	changes, err := s.store.HistoryChanges(ctx, u.ID, since)
	if err != nil {
		return out, err
	}
	if s.market != nil && len(changes) > 0 {
		if r == RangeCustom {
			// The chosen dates are the window; the closes may stop short of its end (stale).
			_, _, through, _ := chartWindow(s.market, changes, prices.RangeAll, now)
			out.Start, out.Through, out.Stale = cFrom, through, through.Before(cTo)
			out.Points = valueBetween(s.market, changes, cFrom, cTo, false)
		} else {
			out.Start, _, out.Through, out.Stale = chartWindow(s.market, changes, r, now)
			out.Points = valueHistory(s.market, changes, r, now)
		}
	}
	out.FX = FXUsed{Currency: "USD", PerUSD: decimal.NewFromInt(1)}
	convert := currency != "USD"
	if !convert {
		if convert, err = s.store.HasLotsOutside(ctx, u.ID, currency); err != nil {
			return out, err
		}
	}
	if convert {
		if out, err = s.historyIn(ctx, u, out, currency); err != nil {
			return out, err
		}
	}
	s.charts.put(key, state, out)
	return out, nil
}

// chartWindow is where a member's chart of r starts and the day it ends: Range.Window counted
// back from through, the newest close of the metals in the ledger (changes), when that is
// before today — the window the price history of those metals shows.
func chartWindow(mk market, changes []db.PositionChange, r prices.Range, now time.Time) (start, end, through time.Time, anchored bool) {
	seen := map[metals.Metal]bool{}
	for _, c := range changes {
		if !seen[c.Metal] {
			seen[c.Metal] = true
			if t := mk.Through(c.Metal); t.After(through) {
				through = t
			}
		}
	}
	start, end, anchored = window(r, now, through)
	return start, end, through, anchored
}

// earliestStart is the earliest day any metal's window of r starts (today's window without a
// price service).
func earliestStart(mk market, r prices.Range, now time.Time) time.Time {
	start, _, _ := window(r, now, time.Time{})
	if mk == nil {
		return start
	}
	for _, m := range metals.All {
		if st, _, _ := window(r, now, mk.Through(m)); st.Before(start) {
			start = st
		}
	}
	return start
}

// A member's chart depends on their ledger, the stored closes and the day it is drawn on,
// nothing else; so each member's latest chart per range is kept and served again until one
// of the three moves. The first request after a write recomputes it.
type chartKey struct {
	user     int64
	rng      prices.Range
	currency string
	from, to time.Time // a custom window's dates
}

type chartState struct {
	rev int64  // the member's ledger revision
	gen uint64 // the price service's generation of stored closes
	day int64  // the UTC day the chart ends on
	// priced is false without a price service (no chart can be drawn).
	priced bool
}

type chartEntry struct {
	state chartState
	hist  History
}

// maxCharts bounds the cache: a chart is at most MaxHistoryPoints points, so this is a few
// tens of MiB at most.
const maxCharts = 2048

type chartCache struct {
	mu sync.Mutex
	m  map[chartKey]chartEntry
}

// get returns the kept chart when it was drawn from the same state. Callers only read its
// points.
func (c *chartCache) get(k chartKey, st chartState) (History, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || e.state != st {
		return History{}, false
	}
	return e.hist, true
}

func (c *chartCache) put(k chartKey, st chartState, h History) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCharts {
		// Crude but bounded: members come back and rebuild theirs on their next request.
		c.m = make(map[chartKey]chartEntry)
	}
	c.m[k] = chartEntry{state: st, hist: h}
}

// valueHistory replays the position changes (oldest first) over the closes of the range's
// window (chartWindow).
func valueHistory(mk market, changes []db.PositionChange, r prices.Range, now time.Time) []HistoryPoint {
	from, end, _, _ := chartWindow(mk, changes, r, now)
	return valueBetween(mk, changes, from, end, r == prices.RangeAll)
}

// valueBetween replays the position changes over the closes from from to end (from the first
// change when all, or when nothing was held before it).
func valueBetween(mk market, changes []db.PositionChange, from, end time.Time, all bool) []HistoryPoint {
	if all || from.Before(changes[0].Day.Time) {
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
		dirty  bool // oz or last moved since worth was computed
	}
	ser := map[metals.Metal]*series{}
	var days []time.Time
	for _, m := range metals.All {
		s := &series{closes: mk.Closes(m, from, end)}
		if c, ok := mk.CloseOn(m, from.AddDate(0, 0, -1)); ok {
			s.last, s.known = c, true
		}
		for _, c := range s.closes {
			days = append(days, c.Date)
		}
		ser[m] = s
	}
	// Every day any metal closed, once each, in order.
	slices.SortFunc(days, func(a, b time.Time) int { return a.Compare(b) })
	days = slices.CompactFunc(days, func(a, b time.Time) bool { return a.Equal(b) })
	values := make([]prices.Close, 0, len(days))
	costs := make([]decimal.Decimal, 0, len(days)) // beside values
	// Products and sums are recomputed only when their inputs move: a metal's value when its
	// ounces or its close change, the cost basis on days with changes. Every figure stays an
	// exact decimal; this only skips repeating the same arithmetic.
	worth := make([]decimal.Decimal, len(metals.All))
	held := make([]bool, len(metals.All))
	for i, m := range metals.All {
		worth[i] = decimal.Zero
		ser[m].oz, ser[m].cost = decimal.Zero, decimal.Zero
	}
	cost := decimal.Zero
	ci := 0
	for _, d := range days {
		moved := false
		for ci < len(changes) && !changes[ci].Day.After(d) {
			s := ser[changes[ci].Metal]
			s.oz, s.cost = s.oz.Add(changes[ci].Oz), s.cost.Add(changes[ci].Cost)
			s.dirty = true
			ci++
			moved = true
		}
		if moved {
			cost = decimal.Zero
			for _, m := range metals.All {
				if s := ser[m]; s.cost.IsPositive() {
					cost = cost.Add(s.cost)
				}
			}
		}
		value, ok := decimal.Zero, true
		for i, m := range metals.All {
			s := ser[m]
			for s.next < len(s.closes) && !s.closes[s.next].Date.After(d) {
				s.last, s.known = s.closes[s.next].Price, true
				s.next++
				s.dirty = true
			}
			if s.dirty {
				// A sale dated before an undated purchase was recorded could dip below zero.
				held[i] = s.oz.IsPositive()
				if held[i] && s.known {
					worth[i] = s.oz.Mul(s.last)
				}
				s.dirty = false
			}
			if held[i] && !s.known {
				ok = false // held, but no price yet: skip the date rather than guess
				break
			}
			if held[i] {
				value = value.Add(worth[i])
			}
		}
		if !ok {
			continue
		}
		values = append(values, prices.Close{Date: d, Price: value})
		costs = append(costs, cost)
	}
	kept := prices.Downsample(values, MaxHistoryPoints)
	out := make([]HistoryPoint, len(kept))
	j := 0 // kept is a subsequence of values: walk both
	for i, p := range kept {
		for !values[j].Date.Equal(p.Date) {
			j++
		}
		out[i] = HistoryPoint{Date: p.Date, Value: p.Price, Cost: costs[j]}
	}
	return out
}

// ReplayHistory is the value-over-time math over position changes, exported for the
// benchmark that compares the per-day replay with the range-collapsed one.
func ReplayHistory(mk *prices.Service, changes []db.PositionChange, r prices.Range, now time.Time) []HistoryPoint {
	return valueHistory(mk, changes, r, now)
}
