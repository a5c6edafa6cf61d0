package prices

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// embeddedSource names the series a metal's embedded daily closes come from.
var embeddedSource = map[metals.Metal]string{
	metals.Gold:      "LBMA Gold Price PM (embedded history)",
	metals.Silver:    "LBMA Silver Price (embedded history)",
	metals.Platinum:  "LPPM/LBMA Platinum PM; NYMEX PL=F after 2020-08-25 (embedded history)",
	metals.Palladium: "LPPM/LBMA Palladium PM; NYMEX PA=F after 2020-08-25 (embedded history)",
}

// ServiceConfig configures the price service.
type ServiceConfig struct {
	// Providers in failover order (OUNCE_PRICE_PROVIDERS); empty means none (offline).
	Providers []Provider
	// History is a provider able to backfill daily closes, if one is configured.
	History  HistoryProvider
	Interval time.Duration
	Offline  bool
	// OpenHistoryOnly loads only openly licensed history (OUNCE_HISTORY=open).
	OpenHistoryOnly bool
	Logger          *slog.Logger
	Now             func() time.Time
	// ImportCheck is how often a running service reads the stored price revision to pick up
	// closes `ounce prices import` stored from another process: every 5 s on SQLite; on
	// PostgreSQL the import's notification is heard at once and this (default a minute) only
	// covers one missed while the listener reconnected.
	ImportCheck time.Duration
}

// Service is the market data of the whole app: the live feed, stored closes and their
// precomputed history series. Handlers read it; only the leader instance polls.
type Service struct {
	store *db.Store
	cfg   ServiceConfig
	feed  *Feed
	log   *slog.Logger
	now   func() time.Time

	mu      sync.RWMutex
	daily   map[metals.Metal][]Close
	monthly map[metals.Metal][]Close
	// cache holds downsampled series per metal and range at the default size, keyed by day.
	cache map[cacheKey]HistoryResult
	day   time.Time

	leader bool
	// gen changes whenever stored closes change, so callers can cache what they derive.
	gen uint64
	// rev is the stored price revision the in-memory history was read at (see CheckImports);
	// reloaded is closed, and replaced, whenever the history is re-read from the database.
	rev      int64
	reloaded chan struct{}
}

type cacheKey struct {
	m metals.Metal
	r Range
}

// DefaultMaxPoints is the history size served when the request names none.
const DefaultMaxPoints = 1000

// NewService loads history (embedding it into the database on first start) and seeds the
// feed with the last stored prices, which are stale until a live tick replaces them.
func NewService(ctx context.Context, store *db.Store, cfg ServiceConfig) (*Service, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Minute
	}
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	cfg.Now = wallclock.Or(cfg.Now)
	if cfg.ImportCheck <= 0 {
		cfg.ImportCheck = 5 * time.Second
		if store.Engine == db.Postgres {
			cfg.ImportCheck = time.Minute
		}
	}
	s := &Service{store: store, cfg: cfg, log: cfg.Logger, now: cfg.Now, cache: map[cacheKey]HistoryResult{}, reloaded: make(chan struct{})}
	if cfg.OpenHistoryOnly {
		if err := s.ensureOpenHistory(ctx); err != nil {
			return nil, err
		}
	} else if _, err := s.EnsureHistory(ctx); err != nil {
		return nil, err
	}
	if err := s.reload(ctx); err != nil {
		return nil, err
	}
	var src Source = noSource{}
	if len(cfg.Providers) > 0 && !cfg.Offline {
		src = NewMulti(cfg.Providers...)
	}
	s.feed = NewFeed(src, FeedOptions{Interval: cfg.Interval, Clock: cfg.Now, OnTick: s.onTick, Logger: cfg.Logger})
	if err := s.seed(ctx); err != nil {
		return nil, err
	}
	// Closes imported while no server ran are newer than the last live prices stored.
	s.takeNewerCloses(s.feed.Snapshot())
	return s, nil
}

type noSource struct{}

func (noSource) Latest(context.Context) (map[metals.Metal]Agg, error) {
	return nil, errors.New("no price provider configured")
}

// embeddedMark ends the source of every embedded close, so a start can tell whether the
// embedded history is already stored.
const embeddedMark = "(embedded history)"

// EnsureHistory writes the embedded history in one transaction when it is not stored yet,
// and reports how many closes it offered. Days already stored (imports, corrections, live
// closes) are kept as they are.
func (s *Service) EnsureHistory(ctx context.Context) (int, error) {
	n, err := s.store.CountClosesFrom(ctx, embeddedMark)
	if err != nil || n > 0 {
		return 0, err
	}
	var rows []db.PriceClose
	for _, m := range metals.All {
		daily, monthly, err := Embedded(m)
		if err != nil {
			return 0, err
		}
		for _, c := range daily {
			rows = append(rows, db.PriceClose{Metal: string(m), Granularity: db.Daily, Day: db.NewDate(c.Date), Price: c.Price, Source: embeddedSource[m]})
		}
		for _, c := range monthly {
			rows = append(rows, db.PriceClose{Metal: string(m), Granularity: db.Monthly, Day: db.NewDate(c.Date), Price: c.Price, Source: "monthly average " + embeddedMark})
		}
	}
	if err := s.store.InsertMissingCloses(ctx, rows); err != nil {
		return 0, err
	}
	return len(rows), nil
}

// reload reads every stored close into memory and drops the precomputed series.
func (s *Service) reload(ctx context.Context) error {
	// The revision is read first: an import that commits meanwhile moves it past this one and
	// is read again at the next check.
	rev, err := s.store.PriceRevision(ctx)
	if err != nil {
		return err
	}
	daily, err := s.store.Closes(ctx, db.Daily)
	if err != nil {
		return err
	}
	monthly, err := s.store.Closes(ctx, db.Monthly)
	if err != nil {
		return err
	}
	sources := map[string]string{} // one copy of each series name, not one per close
	group := func(rows []db.PriceClose) map[metals.Metal][]Close {
		out := map[metals.Metal][]Close{}
		for _, r := range rows {
			src, ok := sources[r.Source]
			if !ok {
				src = r.Source
				sources[src] = src
			}
			out[metals.Metal(r.Metal)] = append(out[metals.Metal(r.Metal)], Close{Date: r.Day.Time, Price: r.Price, Source: src})
		}
		return out
	}
	s.mu.Lock()
	s.daily, s.monthly = group(daily), group(monthly)
	s.cache = map[cacheKey]HistoryResult{}
	s.gen++
	s.rev = rev
	close(s.reloaded)
	s.reloaded = make(chan struct{})
	s.mu.Unlock()
	return nil
}

// Reload rereads closes after an import.
func (s *Service) Reload(ctx context.Context) error { return s.reload(ctx) }

// Reloaded returns a channel closed the next time the history is re-read from the database
// (an import picked up, a backfill), for work that follows corrections (spot at purchase).
func (s *Service) Reloaded() <-chan struct{} {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.reloaded
}

// CheckImports re-reads the history when the stored price revision moved since it was read,
// that is when `ounce prices import` stored closes, and reports whether it did. A metal whose
// newest close is now newer than the board's price takes that close as its price (stale,
// since it is not live, and marked FromClose): a price move like a tick, which alert
// evaluation sees.
func (s *Service) CheckImports(ctx context.Context) (bool, error) {
	rev, err := s.store.PriceRevision(ctx)
	if err != nil {
		return false, err
	}
	s.mu.RLock()
	same := rev == s.rev
	s.mu.RUnlock()
	if same {
		return false, nil
	}
	board := s.feed.Snapshot()
	if err := s.reload(ctx); err != nil {
		return false, err
	}
	moved := s.takeNewerCloses(board)
	s.log.Info("imported price closes picked up", "revision", rev, "newer_prices", moved)
	return true, nil
}

// takeNewerCloses sets every metal whose newest stored close is dated after the board's
// price session to that close (SeedFromCloses), and returns how many it set.
func (s *Service) takeNewerCloses(board Snapshot) int {
	moved := map[metals.Metal]Quote{}
	prev := map[metals.Metal]Close{}
	s.mu.RLock()
	for _, m := range metals.All {
		d := s.daily[m]
		if len(d) == 0 {
			continue
		}
		c := d[len(d)-1]
		if sp, ok := board.Prices[m]; ok && !c.Date.After(sp.Session) {
			continue
		}
		moved[m] = Quote{Metal: m, Price: c.Price, AsOf: c.Date, Source: closeSource}
		if len(d) > 1 {
			prev[m] = d[len(d)-2]
		}
	}
	s.mu.RUnlock()
	if len(moved) > 0 {
		s.feed.SeedFromCloses(moved, prev)
	}
	return len(moved)
}

// closeSource names the source of a price taken from a stored daily close.
const closeSource = "daily close"

// watchImports runs CheckImports whenever an import is announced (PostgreSQL) and every
// ImportCheck, until ctx ends. Every instance runs it: each holds its own history.
func (s *Service) watchImports(ctx context.Context) {
	var heard <-chan string
	if s.store.Engine == db.Postgres {
		sub, err := s.store.Subscribe(ctx, db.PricesImportChannel, func(err error) { s.log.Warn("price import listener", "err", err) })
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("LISTEN "+db.PricesImportChannel+": imports are picked up by polling only", "err", err)
		} else {
			defer sub.Close()
			heard = sub.C
		}
	}
	t := time.NewTicker(s.cfg.ImportCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case _, ok := <-heard:
			if !ok {
				heard = nil
				continue
			}
		}
		if _, err := s.CheckImports(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("checking for imported prices", "err", err)
		}
	}
}

// seed starts the feed from the last live quotes, or else from the last stored closes. The
// previous close carries its date: the last stored daily close before the price's session.
func (s *Service) seed(ctx context.Context) error {
	latest, err := s.store.Latest(ctx)
	if err != nil {
		return err
	}
	last := map[metals.Metal]Quote{}
	prev := map[metals.Metal]Close{}
	s.mu.RLock()
	for _, q := range latest {
		m := metals.Metal(q.Metal)
		last[m] = Quote{Metal: m, Price: q.Price, AsOf: q.AsOf, Source: q.Source}
		pc := Close{Price: q.PrevClose}
		d := s.daily[m]
		if i := sort.Search(len(d), func(i int) bool { return !d[i].Date.Before(SessionDate(q.AsOf)) }); i > 0 {
			pc.Date = d[i-1].Date
		}
		prev[m] = pc
	}
	for _, m := range metals.All {
		if _, ok := last[m]; ok {
			continue
		}
		d := s.daily[m]
		if len(d) == 0 {
			continue
		}
		c := d[len(d)-1]
		last[m] = Quote{Metal: m, Price: c.Price, AsOf: c.Date, Source: embeddedSource[m]}
		if len(d) > 1 {
			prev[m] = d[len(d)-2]
		}
	}
	s.mu.RUnlock()
	s.feed.Seed(last, prev)
	return nil
}

// Snapshot is the current price board.
func (s *Service) Snapshot() Snapshot { return s.feed.Snapshot() }

// Subscribe follows price updates (for SSE).
func (s *Service) Subscribe() (<-chan Snapshot, func()) { return s.feed.Subscribe() }

// Feed exposes the live feed (tests apply snapshots through it, as a follower would).
func (s *Service) Feed() *Feed { return s.feed }

// Interval is the poll interval, which bounds how long clients may cache prices.
func (s *Service) Interval() time.Duration { return s.cfg.Interval }

// onTick persists a fresh snapshot, rolls it into the day's closes and tells other instances.
func (s *Service) onTick(snap Snapshot) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	session := db.NewDate(SessionDate(s.now()))
	var quotes []db.LatestQuote
	for _, m := range metals.All {
		sp, ok := snap.Prices[m]
		if !ok || sp.Stale {
			continue
		}
		quotes = append(quotes, db.LatestQuote{Metal: string(m), Price: sp.Price, PrevClose: sp.PrevClose, AsOf: sp.AsOf, Source: sp.Source})
	}
	if len(quotes) == 0 {
		return
	}
	if err := s.store.SaveLatest(ctx, quotes, session); err != nil {
		s.log.Error("saving prices", "err", err)
	}
	s.mu.Lock()
	for _, q := range quotes {
		s.daily[metals.Metal(q.Metal)] = upsertClose(s.daily[metals.Metal(q.Metal)], Close{Date: session.Time, Price: q.Price, Source: "live:" + q.Source})
	}
	s.cache = map[cacheKey]HistoryResult{}
	s.gen++
	s.mu.Unlock()
	if s.store.Engine == db.Postgres {
		if b, err := json.Marshal(snap); err == nil {
			if err := s.store.Publish(ctx, pricesChannel, string(b)); err != nil {
				s.log.Warn("notifying followers", "err", err)
			}
		}
	}
}

// pricesChannel carries the leader's snapshots to the other instances.
const pricesChannel = "ounce_prices"

// upsertClose sets the close of c.Date in an ascending series.
func upsertClose(series []Close, c Close) []Close {
	i := sort.Search(len(series), func(i int) bool { return !series[i].Date.Before(c.Date) })
	if i < len(series) && series[i].Date.Equal(c.Date) {
		out := append([]Close(nil), series...)
		out[i] = c
		return out
	}
	out := make([]Close, 0, len(series)+1)
	out = append(out, series[:i]...)
	out = append(out, c)
	return append(out, series[i:]...)
}

// Run polls providers (on the leader only, when instances share PostgreSQL) or follows the
// leader's ticks, until ctx ends. Offline, the seeded prices stay, stale. Online or not, it
// picks up closes imported by another process (watchImports).
func (s *Service) Run(ctx context.Context) {
	// Awaited, so its listener's connection is released before Run returns.
	watched := make(chan struct{})
	defer func() { <-watched }()
	go func() { defer close(watched); s.watchImports(ctx) }()
	if s.cfg.Offline || len(s.cfg.Providers) == 0 {
		<-ctx.Done()
		return
	}
	if s.store.Engine == db.Postgres {
		// Awaited, so the listener's connection is released before Run returns.
		followed := make(chan struct{})
		defer func() { <-followed }()
		go func() { defer close(followed); s.follow(ctx) }()
	}
	s.store.RunAsLeader(ctx, leaderLockKey, 15*time.Second, func(ctx context.Context) {
		s.setLeader(true)
		defer s.setLeader(false)
		s.log.Info("price feed: this instance polls the providers")
		s.backfill(ctx)
		s.feed.Run(ctx)
	})
}

// leaderLockKey identifies the price poller's advisory lock.
const leaderLockKey = 7302002

func (s *Service) setLeader(v bool) {
	s.mu.Lock()
	s.leader = v
	s.mu.Unlock()
}

// IsLeader reports whether this instance polls providers.
func (s *Service) IsLeader() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.leader
}

// follow applies the leader's ticks received over LISTEN/NOTIFY, until ctx ends.
func (s *Service) follow(ctx context.Context) {
	sub, err := s.store.Subscribe(ctx, pricesChannel, func(err error) { s.log.Warn("price listener", "err", err) })
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("LISTEN "+pricesChannel, "err", err)
		}
		return
	}
	defer sub.Close()
	for payload := range sub.C {
		if s.IsLeader() {
			continue
		}
		var snap Snapshot
		if err := json.Unmarshal([]byte(payload), &snap); err != nil {
			s.log.Warn("bad price notification", "err", err)
			continue
		}
		s.feed.Apply(snap)
		s.mu.Lock()
		session := SessionDate(s.now())
		for m, sp := range snap.Prices {
			s.daily[m] = upsertClose(s.daily[m], Close{Date: session, Price: sp.Price, Source: "live:" + sp.Source})
		}
		s.cache = map[cacheKey]HistoryResult{}
		s.gen++
		s.mu.Unlock()
	}
}

// backfill asks the history provider for the daily closes between the last stored one and
// today, so a server that was off for a while has no hole in its charts.
func (s *Service) backfill(ctx context.Context) {
	if s.cfg.History == nil {
		return
	}
	today := s.now().UTC().Truncate(24 * time.Hour)
	for _, m := range metals.All {
		s.mu.RLock()
		d := s.daily[m]
		s.mu.RUnlock()
		from := today.AddDate(-1, 0, 0)
		if len(d) > 0 && d[len(d)-1].Date.After(from) {
			from = d[len(d)-1].Date.AddDate(0, 0, 1)
		}
		if !from.Before(today) {
			continue
		}
		closes, err := s.cfg.History.Timeseries(ctx, m, from, today.AddDate(0, 0, -1))
		if err != nil {
			if !s.feed.reach.Failed(ctx, s.cfg.History.Name()+" history", err) {
				s.log.Warn("backfilling history", "metal", m, "err", err)
			}
			continue
		}
		rows := make([]db.PriceClose, 0, len(closes))
		for _, c := range closes {
			rows = append(rows, db.PriceClose{Metal: string(m), Granularity: db.Daily, Day: db.NewDate(c.Date), Price: c.Price, Source: s.cfg.History.Name()})
		}
		if err := s.store.UpsertCloses(ctx, rows); err != nil {
			s.log.Warn("storing backfill", "metal", m, "err", err)
			continue
		}
		s.log.Info("backfilled history", "metal", m, "closes", len(rows))
	}
	if err := s.reload(ctx); err != nil {
		s.log.Warn("reloading history", "err", err)
	}
}

// HistoryResult is one metal's series over a range.
type HistoryResult struct {
	Metal       metals.Metal
	Range       Range
	From, To    time.Time
	Granularity string // "daily", or "monthly+daily" when ALL reaches back before daily data
	Points      []Close
	// Start is the first calendar day of the window (Range.Window), zero for ALL; From is the
	// first close on or after it.
	Start time.Time
	// Through is the date of the metal's newest daily close (zero without any). Stale is
	// true when that close is before today: every range then counts back from Through
	// instead of today (1M is the month up to Through), so the ranges stay nested and a chart
	// is never silently empty, and it says which data it shows.
	Through time.Time
	Stale   bool
}

// History returns the metal's closes over the range (Range.Window), downsampled to maxPoints
// keeping every window's lowest and highest close (Downsample). The default size is
// precomputed and reused until the day or the data changes.
func (s *Service) History(m metals.Metal, r Range, maxPoints int) HistoryResult {
	if maxPoints <= 0 {
		maxPoints = DefaultMaxPoints
	}
	today := s.now().UTC().Truncate(24 * time.Hour)
	key := cacheKey{m, r}
	s.mu.RLock()
	if maxPoints == DefaultMaxPoints && s.day.Equal(today) {
		if res, ok := s.cache[key]; ok {
			s.mu.RUnlock()
			return res
		}
	}
	daily, monthly := s.daily[m], s.monthly[m]
	s.mu.RUnlock()

	res := HistoryResult{Metal: m, Range: r, Granularity: "daily"}
	if len(daily) > 0 {
		res.Through = daily[len(daily)-1].Date
	}
	res.Start, _, res.Stale = r.Window(today, res.Through)
	var series []Close
	if r == RangeAll {
		series = MergeSeries(daily, monthly)
		if len(monthlyBefore(daily, monthly)) > 0 {
			res.Granularity = "monthly+daily"
		}
	} else {
		series = Since(daily, res.Start)
	}
	if len(series) > 0 {
		res.From, res.To = series[0].Date, series[len(series)-1].Date
	}
	res.Points = Downsample(series, maxPoints)
	if maxPoints == DefaultMaxPoints {
		s.mu.Lock()
		if !s.day.Equal(today) {
			s.cache = map[cacheKey]HistoryResult{}
			s.gen++
			s.day = today
		}
		s.cache[key] = res
		s.mu.Unlock()
	}
	return res
}

// Through is the date of the metal's newest daily close, zero without any.
func (s *Service) Through(m metals.Metal) time.Time {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if d := s.daily[m]; len(d) > 0 {
		return d[len(d)-1].Date
	}
	return time.Time{}
}

// CloseOn returns the metal's last close on or before day in the series ALL charts (the
// monthly average of a month before daily data begins), for valuing a purchase on its date.
func (s *Service) CloseOn(m metals.Metal, day time.Time) (decimal.Decimal, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	find := func(series []Close) (decimal.Decimal, bool) {
		i := sort.Search(len(series), func(i int) bool { return series[i].Date.After(day) })
		if i == 0 {
			return decimal.Zero, false
		}
		return series[i-1].Price, true
	}
	d := s.daily[m]
	if len(d) > 0 && !day.Before(d[0].Date) {
		return find(d)
	}
	return find(monthlyBefore(d, s.monthly[m]))
}

// DailyCloses returns a copy of the metal's daily closes in [from, to].
func (s *Service) DailyCloses(m metals.Metal, from, to time.Time) []Close {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return between(s.daily[m], from, to)
}

// Closes returns a copy of the metal's closes in [from, to] as ALL charts them: the monthly
// averages of the months before daily data begins (MergeSeries), then the daily closes. The
// value history uses it so a lot held before 1990 moves with the same monthly series the
// price history shows.
func (s *Service) Closes(m metals.Metal, from, to time.Time) []Close {
	s.mu.RLock()
	defer s.mu.RUnlock()
	d := s.daily[m]
	out := between(monthlyBefore(d, s.monthly[m]), from, to)
	return append(out, between(d, from, to)...)
}

// between copies the closes of an ascending series dated in [from, to].
func between(series []Close, from, to time.Time) []Close {
	var out []Close
	for _, c := range Since(series, from) {
		if c.Date.After(to) {
			break
		}
		out = append(out, c)
	}
	return out
}

// ProvidersFromNames builds providers in order from their names.
func ProvidersFromNames(names []string, keys Keys, client *http.Client) ([]Provider, HistoryProvider, error) {
	var out []Provider
	var hist HistoryProvider
	for _, n := range names {
		p, err := New(n, keys, client)
		if err != nil {
			return nil, nil, fmt.Errorf("OUNCE_PRICE_PROVIDERS: %w", err)
		}
		out = append(out, p)
		if h, ok := p.(HistoryProvider); ok && hist == nil {
			hist = h
		}
	}
	return out, hist, nil
}

// Generation identifies the current state of the stored closes: it changes whenever a
// close is added or corrected, so derived caches know when to rebuild.
func (s *Service) Generation() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.gen
}
