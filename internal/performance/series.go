package performance

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// SeriesPoint is the stack on one day of a period: its value at that day's closes, the
// time-weighted return from the period's start up to that day, and what the same dated flows
// put into the benchmark metal would be worth that day. A nil figure cannot be computed
// (a held metal without a price, nothing held yet, no benchmark close).
type SeriesPoint struct {
	Date            time.Time
	Value           *decimal.Decimal
	TWRPct          *decimal.Decimal
	BenchmarkValue  *decimal.Decimal
	BenchmarkTWRPct *decimal.Decimal // the benchmark metal's own price change since the start
}

// Series is a period day by day: the first point is the close before From (the start value,
// 0 %), the last is To (the end value; its TWRPct is the period's).
type Series struct {
	Period    string
	From, To  time.Time
	Currency  string
	Metal     metals.Metal
	Benchmark metals.Metal
	Points    []SeriesPoint
	AsOf      time.Time
	Stale     bool
	Notes     []string
}

// Series answers a period day by day, for the chart of value and of cumulative return. It
// reads the same ledger and timeline as Performance and Summary, with the same days on it, so
// the last point's TWR is the period's TWR in the summary.
func (s *Service) Series(ctx context.Context, u db.User, q Query) (Series, error) {
	if err := requireGold(u); err != nil {
		return Series{}, err
	}
	now := s.now().UTC()
	today := utcDay(now)
	sp, metal, bench, err := parse(q, today)
	if err != nil {
		return Series{}, err
	}
	cur, err := s.currency(ctx, u, q.Currency)
	if err != nil {
		return Series{}, err
	}
	// As the summary's answers, a series is kept until the ledger, the stored closes, the day
	// or (when live) the board moves. The revision is read before the ledger.
	rev, err := s.store.LedgerRevision(ctx, u.ID)
	if err != nil {
		return Series{}, err
	}
	key := seriesKey{user: u.ID, metal: metal, bench: bench, currency: cur, span: sp.name + isoDay(sp.from) + isoDay(sp.to)}
	state := cacheState{rev: rev, day: now.Unix() / 86400}
	if s.rates != nil {
		state.fx = s.factors.epoch(s.now())
	}
	if s.market != nil {
		state.gen = s.market.Generation()
		if b := s.market.Snapshot(); len(b.Prices) > 0 {
			state.seq = b.Seq
		}
	}
	if out, ok := seriesCache.get(s, key, state); ok {
		return out, nil
	}
	out, err := s.series(ctx, u, sp, metal, bench, cur, today)
	if err == nil {
		seriesCache.put(s, key, state, out)
	}
	return out, err
}

// series computes a Series (Series checks and caches).
func (s *Service) series(ctx context.Context, u db.User, sp span, metal, bench metals.Metal, cur string, today time.Time) (Series, error) {
	all, err := s.store.PerformanceDays(ctx, u.ID)
	if err != nil {
		return Series{}, err
	}
	conv := s.converter(ctx, cur)
	// The ledger's money in the series' currency, each flow at its own day's rate, as the
	// summary's; a flow without a rate leaves the money figures out, said in a note.
	all, noRate, err := s.inCurrency(ctx, u, conv, all)
	if err != nil {
		return Series{}, err
	}
	days := all
	if metal != "" {
		days = make([]db.PerformanceDay, 0, len(all))
		for _, d := range all {
			if d.Metal == metal {
				days = append(days, d)
			}
		}
	}
	var first time.Time
	if len(days) > 0 {
		first = days[0].Day.Time
	}
	// The timeline carries the same days as the summary's (every preset's start and end), so
	// a flow on a day without a close is linked into the chain at the same point.
	var extra []time.Time
	if sp.name != "custom" {
		sp = presetSpan(sp.name, today, first)
		for _, p := range Presets {
			o := presetSpan(p, today, first)
			extra = append(extra, o.from.AddDate(0, 0, -1), o.to)
		}
	} else {
		extra = append(extra, sp.from.AddDate(0, 0, -1), sp.to)
	}
	out := Series{Period: sp.name, From: sp.from, To: sp.to, Currency: conv.Currency(), Metal: metal, Benchmark: bench, Points: []SeriesPoint{}}
	if s.market == nil {
		out.Stale = true
		out.Notes = append(out.Notes, "this server has no prices, so nothing can be valued")
		return out, nil
	}
	used := map[metals.Metal]bool{bench: true}
	for _, d := range days {
		used[d.Metal] = true
	}
	board := s.market.Snapshot()
	live := map[metals.Metal]decimal.Decimal{}
	isLive := true
	for m := range used {
		p, ok := board.Prices[m]
		if !ok || p.Stale || p.Price.IsZero() {
			isLive = false
			continue
		}
		live[m] = p.Price
	}
	if !isLive {
		live = nil
	}
	liveEnd := isLive && sp.to.Equal(today)
	var closes string
	out.AsOf, out.Stale, closes = s.asOf(used, sp.to, today, liveEnd, board.AsOf)
	if sp.name == "1D" && !liveEnd {
		out.Notes = append(out.Notes, "1D needs live prices and they are not live: the newest close is of "+isoDay(out.AsOf)+"; ask for a period or dates instead")
		return out, nil
	}
	if out.Stale {
		out.Notes = append(out.Notes, "prices are not live: the end value is at the newest closes on or before "+isoDay(sp.to)+" ("+closes+")")
	}
	if noRate != "" {
		out.Notes = append(out.Notes, noRate)
		return out, nil
	}
	if n := rateNote(conv, sp.to); n != "" {
		out.Notes = append(out.Notes, n)
		out.Stale = true
	}
	lo := sp.from.AddDate(0, 0, -1)
	pts := timeline(days, s.market, conv, bench, lo, sp.to, extra, live, today)
	x := prepare(pts)
	si, _ := slices.BinarySearchFunc(pts, lo, func(p point, t time.Time) int { return p.day.Compare(t) })
	ei, _ := slices.BinarySearchFunc(pts, sp.to, func(p point, t time.Time) int { return p.day.Compare(t) })
	a := pts[si]
	benchBase := a.ok && a.benchOK && a.bench.IsPositive()
	var baseOz decimal.Decimal
	if benchBase {
		baseOz = decimal.Zero
		if a.value.IsPositive() {
			baseOz = a.value.DivRound(a.bench, ratioPlaces)
		}
	}
	out.Points = make([]SeriesPoint, 0, ei-si+1)
	for i := si; i <= ei && i < len(pts); i++ {
		p := pts[i]
		pt := SeriesPoint{Date: p.day}
		if p.ok {
			v := p.value
			pt.Value = &v
		}
		if a.ok && p.ok {
			switch {
			case i == si && a.value.IsPositive():
				z := decimal.Zero
				pt.TWRPct = &z
			case x.linked[i] == x.linked[si]:
				// Nothing held yet: no return to show.
			case x.zeros[i] > x.zeros[si]:
				t := one.Neg()
				pt.TWRPct = pct(&t)
			case x.chain[si].IsZero():
				// No base to chain from (see measure).
			default:
				t := x.chain[i].DivRound(x.chain[si], ratioPlaces).Sub(one)
				pt.TWRPct = pct(&t)
			}
		}
		if benchBase && p.benchOK && x.unknown[i] == x.unknown[si] {
			bv := metals.Money(x.benchOz[i].Sub(x.benchOz[si]).Add(baseOz).Mul(p.bench))
			bt := p.bench.DivRound(a.bench, ratioPlaces).Sub(one)
			pt.BenchmarkValue, pt.BenchmarkTWRPct = &bv, pct(&bt)
		}
		out.Points = append(out.Points, pt)
	}
	if !a.ok {
		out.Notes = append(out.Notes, "a metal held has no price on "+isoDay(a.day)+", so the stack cannot be valued from the start")
	} else if !benchBase {
		out.Notes = append(out.Notes, "the benchmark metal has no close at the start of the period")
	}
	return out, nil
}

// seriesKey is one series asked of one service.
type seriesKey struct {
	user         int64
	metal, bench metals.Metal
	currency     string
	span         string
}

type seriesEntry struct {
	state cacheState
	out   Series
}

// seriesCaches keeps the latest series per question, per service (a test builds many); the
// service's own files are another's, so the cache lives here, keyed by the service.
type seriesCaches struct {
	mu sync.Mutex
	m  map[*Service]map[seriesKey]seriesEntry
}

var seriesCache seriesCaches

// maxSeries bounds each service's kept series (a series is up to a few thousand points).
const maxSeries = 512

// maxServices bounds the services remembered (one in a server; tests build many).
const maxServices = 8

func (c *seriesCaches) get(s *Service, k seriesKey, st cacheState) (Series, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[s][k]
	if !ok || e.state != st {
		return Series{}, false
	}
	return e.out, true
}

func (c *seriesCaches) put(s *Service, k seriesKey, st cacheState, out Series) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || (c.m[s] == nil && len(c.m) >= maxServices) {
		c.m = map[*Service]map[seriesKey]seriesEntry{}
	}
	m := c.m[s]
	if m == nil || len(m) >= maxSeries {
		m = map[seriesKey]seriesEntry{} // crude but bounded
		c.m[s] = m
	}
	m[k] = seriesEntry{state: st, out: out}
}
