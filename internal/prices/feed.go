package prices

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/reach"
	"github.com/ouncehq/ounce/internal/wallclock"
	"github.com/shopspring/decimal"
)

// Source is what the feed polls; *Multi implements it.
type Source interface {
	Latest(ctx context.Context) (map[metals.Metal]Agg, error)
}

// FeedOptions tunes a Feed. Zero values get sensible defaults.
type FeedOptions struct {
	// Interval between polls; default one minute. A price older than three
	// intervals is reported stale.
	Interval time.Duration
	// MaxBackoff caps the wait between failed polls; default ten minutes (never
	// less than Interval).
	MaxBackoff time.Duration
	// Clock is the time source; default time.Now. Tests inject a fake one.
	Clock func() time.Time
	// OnTick is called after every successful poll with the new snapshot,
	// outside any lock, one call at a time: the hook for persisting ticks and
	// telling other instances. Snapshots received through Apply do not call it.
	OnTick func(Snapshot)
	// Logger receives held spikes and failed polls; default discards.
	Logger *slog.Logger
}

// Spot is the published state of one metal.
type Spot struct {
	Metal  metals.Metal
	Symbol string
	// Price in USD per troy ounce at its source's precision (at most 4 places).
	Price decimal.Decimal
	// PrevClose is the last price of the previous session the feed knew; zero when
	// unknown, in which case Change and ChangePct are zero too.
	PrevClose decimal.Decimal
	Change    decimal.Decimal // Price − PrevClose, exact (at most 4 places)
	ChangePct decimal.Decimal // Change as a percentage of PrevClose, 2 places
	// Session is the trading day of Price; PrevDate the trading day PrevClose closed
	// (zero when unknown). The change is a one-session move only when PrevDate is the
	// trading day before Session — see OneSession and ChangeIsToday.
	Session, PrevDate time.Time
	// AsOf is the provider's time for the price.
	AsOf time.Time
	// Source names who priced it: one provider, "a+b" for a median, or the
	// source recorded in the database for a seeded price.
	Source  string
	Sources []string
	// SpreadPct is how far apart the providers were, in percent.
	SpreadPct decimal.Decimal
	// Stale is true when the price came from the database at start (or from a
	// stale snapshot of another instance) and no live tick has replaced it, or
	// when no tick has arrived for three intervals.
	Stale bool
	// FromClose marks a price taken from a stored daily close newer than the board's price
	// (an operator's import, or closes stored while no server ran): stale, since it is not
	// live, yet a price move that alerts evaluate like a tick.
	FromClose bool
}

// Snapshot is the live price board at one moment. It is shared between readers:
// treat the map and the Sources slices as read-only.
type Snapshot struct {
	// AsOf is the newest AsOf among the prices; zero when there are none.
	AsOf        time.Time
	MarketsOpen bool
	// Prices holds the metals Ounce has a price for; a metal never priced is
	// absent rather than zero.
	Prices map[metals.Metal]Spot
	// Seq changes whenever a price, a stale flag or the set of metals changes, so a
	// reader can cache what it derives from a board (MarketsOpen aside).
	Seq uint64 `json:"-"`
}

// Feed keeps the live prices in memory: it polls a Source, filters spikes,
// tracks the previous close, and serves snapshots and a fan-out of updates.
// GET /v1/prices is answered from here, never from the database.
type Feed struct {
	src        Source
	interval   time.Duration
	maxBackoff time.Duration
	clock      func() time.Time
	onTick     func(Snapshot)
	log        *slog.Logger
	reach      *reach.Reporter
	after      func(time.Duration) <-chan time.Time // swapped in tests to observe backoff

	guard SpikeGuard

	pollMu sync.Mutex // one poll at a time, so OnTick sees ticks in order
	mu     sync.Mutex // guards state
	state  map[metals.Metal]*metalState

	cur atomic.Pointer[view]

	subMu sync.Mutex
	subs  map[*subscriber]struct{}
}

type metalState struct {
	price     decimal.Decimal
	asOf      time.Time
	source    string
	sources   []string
	spread    decimal.Decimal
	prevClose decimal.Decimal
	prevDate  time.Time // session of prevClose
	session   time.Time // SessionDate of asOf
	received  time.Time // our clock when the price arrived
	// staleOrigin marks a price that was already stale when it arrived (seed,
	// or a stale spot from another instance).
	staleOrigin bool
	// fromClose marks a price from a newer stored close (SeedFromCloses).
	fromClose bool
}

// view is the immutable published state: a snapshot with staleness evaluated
// at build time, plus what is needed to re-evaluate it cheaply later.
type view struct {
	snap     Snapshot
	received map[metals.Metal]time.Time
	// staleAfter is the earliest moment a fresh price turns stale; zero when no
	// price is fresh, so nothing can change until the next update.
	staleAfter time.Time
}

type subscriber struct{ ch chan Snapshot }

// NewFeed builds a feed over src. Nothing happens until Seed, Run, PollOnce or
// Apply is called.
func NewFeed(src Source, opts FeedOptions) *Feed {
	f := &Feed{
		src:        src,
		interval:   opts.Interval,
		maxBackoff: opts.MaxBackoff,
		clock:      opts.Clock,
		onTick:     opts.OnTick,
		log:        opts.Logger,
		after:      time.After,
		state:      make(map[metals.Metal]*metalState),
		subs:       make(map[*subscriber]struct{}),
	}
	if f.interval <= 0 {
		f.interval = time.Minute
	}
	if f.maxBackoff <= 0 {
		f.maxBackoff = 10 * time.Minute
	}
	f.maxBackoff = max(f.maxBackoff, f.interval)
	f.clock = wallclock.Or(f.clock)
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	f.reach = reach.New(f.log, "price providers", "the last stored prices, marked stale")
	f.cur.Store(&view{snap: Snapshot{Prices: map[metals.Metal]Spot{}}})
	return f
}

// Seed loads the last known prices (and the previous session's closes) from the
// database at start, before Run. They are served as stale until a live tick
// replaces them, and they prime the spike guard so the first live tick is judged
// against them. prevClose is the latest close before the seeded price's own
// session, with its date; it may be nil or miss metals.
func (f *Feed) Seed(last map[metals.Metal]Quote, prevClose map[metals.Metal]Close) {
	f.seed(last, prevClose, false)
}

// SeedFromCloses sets the metals of last to stored closes newer than the board's prices, as
// Seed does, and marks them FromClose.
func (f *Feed) SeedFromCloses(last map[metals.Metal]Quote, prevClose map[metals.Metal]Close) {
	f.seed(last, prevClose, true)
}

func (f *Feed) seed(last map[metals.Metal]Quote, prevClose map[metals.Metal]Close, fromClose bool) {
	f.mu.Lock()
	for _, m := range metals.All {
		q, ok := last[m]
		if !ok || CheckPrice(m, metals.Price(q.Price)) != nil {
			continue
		}
		price := metals.Price(q.Price)
		st := &metalState{
			price:       price,
			asOf:        q.AsOf,
			source:      q.Source,
			sources:     nonEmpty(q.Source),
			spread:      decimal.Zero,
			session:     SessionDate(q.AsOf),
			received:    q.AsOf,
			staleOrigin: true,
			fromClose:   fromClose,
		}
		if pc, ok := prevClose[m]; ok && pc.Price.IsPositive() {
			st.prevClose, st.prevDate = metals.Price(pc.Price), pc.Date
		}
		f.state[m] = st
		f.guard.Prime(m, price)
	}
	f.broadcast(f.publishLocked(f.clock()))
	f.mu.Unlock()
}

// Run polls until ctx ends: every Interval while polls succeed, and after a
// failure with a doubling wait (Interval, 2×, 4×, …) capped at MaxBackoff. The
// first poll happens at once.
func (f *Feed) Run(ctx context.Context) {
	failures := 0
	for {
		pctx, cancel := context.WithTimeout(ctx, f.pollTimeout())
		err := f.PollOnce(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		wait := f.interval
		if err != nil {
			failures++
			wait = f.backoff(failures)
			// Unreachable providers are one INFO line, not a warning per poll.
			if !f.reach.Failed(ctx, "price providers", err) {
				f.log.Warn("price poll failed", "err", err, "failures", failures, "retry_in", wait)
			}
		} else {
			failures = 0
			f.reach.OK(ctx, "price providers")
		}
		select {
		case <-ctx.Done():
			return
		case <-f.after(wait):
		}
	}
}

// pollTimeout bounds one poll: a poll slower than the interval is worthless,
// but a very short interval must not starve slow providers.
func (f *Feed) pollTimeout() time.Duration {
	return min(max(f.interval, time.Second), 30*time.Second)
}

// backoff is the wait after the n-th consecutive failure.
func (f *Feed) backoff(n int) time.Duration {
	d := f.interval
	for i := 1; i < n && d < f.maxBackoff; i++ {
		d *= 2
	}
	return min(d, f.maxBackoff)
}

// PollOnce asks the source once and publishes what passes the spike guard. It
// returns the source's error, or an error when the source priced nothing.
func (f *Feed) PollOnce(ctx context.Context) error {
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	aggs, err := f.src.Latest(ctx)
	if err != nil {
		return err
	}
	if len(aggs) == 0 {
		return errors.New("prices: source returned no prices")
	}
	now := f.clock()
	f.mu.Lock()
	for _, m := range metals.All {
		a, ok := aggs[m]
		if !ok {
			continue
		}
		price := metals.Price(a.Price)
		if err := CheckPrice(m, price); err != nil {
			f.log.Warn("implausible price ignored", "metal", m, "err", err)
			continue
		}
		switch v := f.guard.Check(m, price); v {
		case Held:
			f.log.Warn("price spike held for confirmation", "metal", m, "price", price.String(), "source", a.Source)
			continue
		case Confirmed:
			f.log.Info("price spike confirmed", "metal", m, "price", price.String(), "source", a.Source)
		}
		asOf := a.AsOf
		if asOf.IsZero() {
			asOf = now
		}
		f.tickLocked(m, price, asOf, a.Source, a.Sources, a.SpreadPct, now)
	}
	snap := f.publishLocked(now)
	f.broadcast(snap) // under mu, so subscribers see updates in order
	f.mu.Unlock()
	if f.onTick != nil {
		f.onTick(snap)
	}
	return nil
}

// tickLocked records a live price, rolling the previous close when the tick
// opens a new session.
func (f *Feed) tickLocked(m metals.Metal, price decimal.Decimal, asOf time.Time, source string, sources []string, spread decimal.Decimal, now time.Time) {
	sess := SessionDate(asOf)
	st, ok := f.state[m]
	if !ok {
		st = &metalState{session: sess}
		f.state[m] = st
	} else if sess.After(st.session) {
		st.prevClose, st.prevDate = st.price, st.session
		st.session = sess
	}
	st.price = price
	st.asOf = asOf
	st.source = source
	if len(sources) == 0 {
		sources = nonEmpty(source)
	}
	st.sources = slices.Clone(sources)
	st.spread = metals.Percent(spread)
	st.received = now
	st.staleOrigin = false
}

// Apply adopts a snapshot published by another instance (the one polling). It
// updates the state and notifies subscribers but does not call OnTick. Prices
// older than the ones held are ignored, so a late message cannot roll back.
func (f *Feed) Apply(s Snapshot) {
	now := f.clock()
	f.mu.Lock()
	for _, m := range metals.All {
		sp, ok := s.Prices[m]
		if !ok {
			continue
		}
		price := metals.Price(sp.Price)
		if CheckPrice(m, price) != nil {
			continue
		}
		if st, ok := f.state[m]; ok && sp.AsOf.Before(st.asOf) {
			continue
		}
		st := &metalState{
			price:       price,
			asOf:        sp.AsOf,
			source:      sp.Source,
			sources:     slices.Clone(sp.Sources),
			spread:      sp.SpreadPct,
			session:     SessionDate(sp.AsOf),
			received:    now,
			staleOrigin: sp.Stale,
			fromClose:   sp.FromClose,
		}
		if sp.PrevClose.IsPositive() {
			st.prevClose, st.prevDate = metals.Price(sp.PrevClose), sp.PrevDate
		}
		f.state[m] = st
		f.guard.Prime(m, price) // stay in step in case this instance takes over polling
	}
	f.broadcast(f.publishLocked(now))
	f.mu.Unlock()
}

// publishLocked rebuilds the immutable view from the state and stores it.
func (f *Feed) publishLocked(now time.Time) Snapshot {
	v := &view{
		snap:     Snapshot{Prices: make(map[metals.Metal]Spot, len(f.state))},
		received: make(map[metals.Metal]time.Time, len(f.state)),
	}
	limit := 3 * f.interval
	for m, st := range f.state {
		deadline := st.received.Add(limit)
		stale := st.staleOrigin || now.After(deadline)
		sp := Spot{
			Metal:     m,
			Symbol:    m.Symbol(),
			Price:     st.price,
			PrevClose: st.prevClose,
			Change:    decimal.Zero,
			ChangePct: decimal.Zero,
			AsOf:      st.asOf,
			Session:   st.session,
			PrevDate:  st.prevDate,
			Source:    st.source,
			Sources:   st.sources,
			SpreadPct: st.spread,
			Stale:     stale,
			FromClose: st.fromClose,
		}
		if st.prevClose.IsPositive() {
			sp.Change = st.price.Sub(st.prevClose)
			sp.ChangePct = metals.Percent(metals.PctChange(st.prevClose, st.price))
		}
		v.snap.Prices[m] = sp
		v.received[m] = st.received
		if st.asOf.After(v.snap.AsOf) {
			v.snap.AsOf = st.asOf
		}
		if !stale && (v.staleAfter.IsZero() || deadline.Before(v.staleAfter)) {
			v.staleAfter = deadline
		}
	}
	v.snap.MarketsOpen = MarketsOpen(now)
	v.snap.Seq = viewSeq.Add(1)
	f.cur.Store(v)
	return v.snap
}

// viewSeq numbers boards so readers can tell in O(1) whether anything visible changed.
var viewSeq atomic.Uint64

// Snapshot returns the current board. It is cheap: it reads the published view
// and only copies it when a price has aged into staleness since it was built.
func (f *Feed) Snapshot() Snapshot {
	now := f.clock()
	for {
		v := f.cur.Load()
		if v.staleAfter.IsZero() || !now.After(v.staleAfter) {
			s := v.snap
			s.MarketsOpen = MarketsOpen(now)
			return s
		}
		nv := v.aged(now, 3*f.interval)
		if f.cur.CompareAndSwap(v, nv) {
			s := nv.snap
			s.MarketsOpen = MarketsOpen(now)
			return s
		}
		// A tick was published meanwhile; evaluate that one instead.
	}
}

// aged is v with every price older than limit marked stale.
func (v *view) aged(now time.Time, limit time.Duration) *view {
	nv := &view{snap: v.snap, received: v.received}
	nv.snap.Seq = viewSeq.Add(1)
	nv.snap.Prices = maps.Clone(v.snap.Prices)
	for m, sp := range nv.snap.Prices {
		if sp.Stale {
			continue
		}
		deadline := v.received[m].Add(limit)
		if now.After(deadline) {
			sp.Stale = true
			nv.snap.Prices[m] = sp
			continue
		}
		if nv.staleAfter.IsZero() || deadline.Before(nv.staleAfter) {
			nv.staleAfter = deadline
		}
	}
	return nv
}

// Subscribe registers for snapshots, for server-sent events. The channel holds
// at most one pending snapshot: a subscriber that falls behind skips to the
// newest instead of slowing the feed. The current board is delivered first when
// there is one. Call the returned function to unsubscribe; it closes the channel
// and may be called more than once.
func (f *Feed) Subscribe() (<-chan Snapshot, func()) {
	s := &subscriber{ch: make(chan Snapshot, 1)}
	f.subMu.Lock()
	f.subs[s] = struct{}{}
	if cur := f.Snapshot(); len(cur.Prices) > 0 {
		s.ch <- cur
	}
	f.subMu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			f.subMu.Lock()
			delete(f.subs, s)
			close(s.ch)
			f.subMu.Unlock()
		})
	}
}

// broadcast offers snap to every subscriber without ever blocking. Callers hold
// mu; the lock order is mu, then subMu.
func (f *Feed) broadcast(snap Snapshot) {
	f.subMu.Lock()
	defer f.subMu.Unlock()
	for s := range f.subs {
		select {
		case s.ch <- snap:
			continue
		default:
		}
		// Full: drop the pending snapshot in favour of this newer one.
		select {
		case <-s.ch:
		default:
		}
		select {
		case s.ch <- snap:
		default:
		}
	}
}

// OneSession reports whether Change is the move of one trading session: PrevClose
// closed the trading day before the price's own session. A change measured against
// an older close (a provider answering after a gap, a seed whose previous row is
// weeks old) is not a day's move and must be labelled with both dates.
func (sp Spot) OneSession() bool {
	if sp.PrevClose.IsZero() || sp.PrevDate.IsZero() || sp.Session.IsZero() {
		return false
	}
	return sp.PrevDate.Equal(TradingDayBefore(sp.Session))
}

// ChangeIsToday reports whether Change may be called today's: the price is live
// (not stale) and its previous close is the preceding trading session.
func (sp Spot) ChangeIsToday() bool { return !sp.Stale && sp.OneSession() }

// TradingDayBefore is the CME trading day before the calendar date of d, at UTC midnight.
func TradingDayBefore(d time.Time) time.Time {
	day := date(d.Date()).AddDate(0, 0, -1)
	for !IsTradingDay(day) {
		day = day.AddDate(0, 0, -1)
	}
	return day
}

// String summarises the board for logs.
func (s Snapshot) String() string {
	out := fmt.Sprintf("as of %s, open=%t:", s.AsOf.Format(time.RFC3339), s.MarketsOpen)
	for _, m := range metals.All {
		if sp, ok := s.Prices[m]; ok {
			out += fmt.Sprintf(" %s=%s", m.Symbol(), sp.Price.StringFixed(metals.MoneyPlaces))
			if sp.Stale {
				out += "(stale)"
			}
		}
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
