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
	now := s.now().UTC()
	today := utcDay(now)
	sp, asked, err := s.period(ctx, u, q, today)
	if err != nil {
		return Series{}, err
	}
	metal, bench, cur := asked.metal, asked.bench, asked.currency
	// As the summary's answers, a series is kept until the ledger, the stored closes, the day
	// or (when live) the board moves. The revision is read before the ledger.
	rev, err := s.store.LedgerRevision(ctx, u.ID)
	if err != nil {
		return Series{}, err
	}
	key := seriesKey{user: u.ID, metal: metal, bench: bench, currency: cur, span: sp.name + isoDay(sp.from) + isoDay(sp.to)}
	state := s.cacheState(rev, now)
	if out, ok := seriesCache.get(s, key, state); ok {
		return out, nil
	}
	out, err := s.series(ctx, u, sp, metal, bench, cur, today, rev)
	if err == nil {
		seriesCache.put(s, key, state, out)
	}
	return out, err
}

// series computes a Series (Series checks and caches) from the ledger at revision rev.
func (s *Service) series(ctx context.Context, u db.User, sp span, metal, bench metals.Metal, cur string, today time.Time, rev int64) (Series, error) {
	all, _, err := s.ledgerDays(ctx, u.ID, rev)
	if err != nil {
		return Series{}, err
	}
	conv := s.converter(ctx, cur)
	// The ledger's money in the series' currency, each flow at its own day's rate, as the
	// summary's; a flow without a rate leaves the money figures out, said in a note.
	all, noRate, err := s.inCurrency(ctx, u, conv, all, rev)
	if err != nil {
		return Series{}, err
	}
	days := narrow(all, metal)
	var first time.Time
	if len(days) > 0 {
		first = days[0].Day.Time
	}
	sp, extra := seriesSpan(sp, today, first)
	out := Series{Period: sp.name, From: sp.from, To: sp.to, Currency: conv.Currency(), Metal: metal, Benchmark: bench, Points: []SeriesPoint{}}
	if s.market == nil {
		out.Stale = true
		out.Notes = append(out.Notes, "this server has no prices, so nothing can be valued")
		return out, nil
	}
	used, board := usedMetals(days, bench), s.market.Snapshot()
	live := livePrices(used, board)
	if !s.seriesStatus(&out, used, live != nil, board.AsOf, today, noRate, conv) {
		return out, nil
	}
	lo := sp.from.AddDate(0, 0, -1)
	pts := timeline(days, s.market, conv, bench, lo, sp.to, extra, live, today)
	x := prepare(pts)
	si, _ := slices.BinarySearchFunc(pts, lo, func(p point, t time.Time) int { return p.day.Compare(t) })
	ei, _ := slices.BinarySearchFunc(pts, sp.to, func(p point, t time.Time) int { return p.day.Compare(t) })
	var note string
	out.Points, note = seriesPoints(x, si, ei)
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	return out, nil
}

// seriesSpan resolves a preset period and lists the timeline's extra days: the same days as
// the summary's (every preset's start and end), so a flow on a day without a close is linked
// into the chain at the same point; a custom period's own start and end.
func seriesSpan(sp span, today, first time.Time) (span, []time.Time) {
	if sp.name == "custom" {
		return sp, []time.Time{sp.from.AddDate(0, 0, -1), sp.to}
	}
	extra := make([]time.Time, 0, 2*len(Presets))
	for _, p := range Presets {
		o := presetSpan(p, today, first)
		extra = append(extra, o.from.AddDate(0, 0, -1), o.to)
	}
	return presetSpan(sp.name, today, first), extra
}

// seriesStatus dates the series and notes what is not current; it is false when there is
// nothing to chart (1D without live prices, or a flow without an exchange rate).
func (s *Service) seriesStatus(out *Series, used map[metals.Metal]bool, isLive bool, liveAt, today time.Time, noRate string, conv Converter) bool {
	liveEnd := isLive && out.To.Equal(today)
	var closes string
	out.AsOf, out.Stale, closes = s.asOf(used, out.To, today, liveEnd, liveAt)
	if out.Period == "1D" && !liveEnd {
		out.Notes = append(out.Notes, "1D needs live prices and they are not live: the newest close is of "+isoDay(out.AsOf)+"; ask for a period or dates instead")
		return false
	}
	if out.Stale {
		out.Notes = append(out.Notes, "prices are not live: the end value is at the newest closes on or before "+isoDay(out.To)+" ("+closes+")")
	}
	if noRate != "" {
		out.Notes = append(out.Notes, noRate)
		return false
	}
	if n := rateNote(conv, out.To); n != "" {
		out.Notes = append(out.Notes, n)
		out.Stale = true
	}
	return true
}

// seriesPoints are the points si..ei of a timeline's sums as the chart shows them, and a note
// when the start cannot be valued or has no benchmark close.
func seriesPoints(x *sums, si, ei int) ([]SeriesPoint, string) {
	pts := x.pts
	a := pts[si]
	benchBase := a.ok && a.benchOK && a.bench.IsPositive()
	var baseOz decimal.Decimal
	if benchBase {
		baseOz = decimal.Zero
		if a.value.IsPositive() {
			baseOz = a.value.DivRound(a.bench, ratioPlaces)
		}
	}
	out := make([]SeriesPoint, 0, ei-si+1)
	for i := si; i <= ei && i < len(pts); i++ {
		p := pts[i]
		pt := SeriesPoint{Date: p.day}
		if p.ok {
			v := p.value
			pt.Value = &v
		}
		if a.ok && p.ok {
			pt.TWRPct = x.twrSince(si, i)
		}
		if benchBase && p.benchOK && x.unknown[i] == x.unknown[si] {
			bv := metals.Money(x.benchOz[i].Sub(x.benchOz[si]).Add(baseOz).Mul(p.bench))
			bt := p.bench.DivRound(a.bench, ratioPlaces).Sub(one)
			pt.BenchmarkValue, pt.BenchmarkTWRPct = &bv, pct(&bt)
		}
		out = append(out, pt)
	}
	switch {
	case !a.ok:
		return out, "a metal held has no price on " + isoDay(a.day) + ", so the stack cannot be valued from the start"
	case !benchBase:
		return out, "the benchmark metal has no close at the start of the period"
	}
	return out, ""
}

// twrSince is the chart's TWR (percent) at point i of a period starting at point si; nil
// when there is none to show.
func (x *sums) twrSince(si, i int) *decimal.Decimal {
	switch {
	case i == si && x.pts[si].value.IsPositive():
		z := decimal.Zero
		return &z
	case x.linked[i] == x.linked[si]:
		// Nothing held yet: no return to show.
		return nil
	case x.zeros[i] > x.zeros[si]:
		t := one.Neg()
		return pct(&t)
	case x.chain[si].IsZero():
		// No base to chain from (see measure).
		return nil
	default:
		t := x.chain[i].DivRound(x.chain[si], ratioPlaces).Sub(one)
		return pct(&t)
	}
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
