package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// Tick is one accepted price of one metal.
type Tick struct {
	Metal metals.Metal
	Price decimal.Decimal
	AsOf  time.Time
	// Spike marks a tick the spike guard held: it never fires an alert. (The price feed does
	// not publish held ticks at all; the flag keeps any other caller honest.)
	Spike bool
}

// TickResult says what evaluating one tick did.
type TickResult struct {
	Fired  int
	Armed  int64
	Outbox int64
}

// Evaluate applies one tick (US dollars per troy ounce) to the alerts it crosses, in whatever
// currency and unit each is set: the tick is converted with the current exchange rate once per
// currency and unit, and each alert judged on the converted price. Firing is a conditional update of armed
// rows in the transaction that writes the notifications and outbox rows, so two instances
// evaluating the same tick tell each member once. The outbox worker is woken.
//
// The firing rule is this package's, though db.EvaluateQuoteTicks states it in SQL (the one
// sanctioned rule in SQL, so a tick over a million alerts is decided set-based): an armed,
// enabled alert fires when the price reaches its target; a once-alert then disables itself, a
// re-arming one disarms until the price is back past its re-arm price (RearmPct, stored as
// rearm_units by Create). A change to that rule changes db.EvaluateQuoteTicks with it; the tests
// of this package pin it on both engines.
func (s *Service) Evaluate(ctx context.Context, t Tick) (TickResult, error) {
	return s.evaluate(ctx, newConverter(s), t)
}

// evaluate applies the tick to each quote (a currency and weight unit) alerts of its metal
// are set in: the tick is converted once per quote, with c's rates (looked up once per
// currency), and each quote's alerts are judged on that price by the same rule.
func (s *Service) evaluate(ctx context.Context, c *converter, t Tick) (TickResult, error) {
	if t.Spike || !t.Price.IsPositive() || !t.Metal.Valid() {
		return TickResult{}, nil
	}
	asOf := t.AsOf
	if asOf.IsZero() {
		asOf = s.now()
	}
	quotes, err := c.quotesOf(ctx, t.Metal)
	if err != nil {
		return TickResult{}, err
	}
	var out TickResult
	var fired []db.FiredAlert
	var firstErr error
	ticks := make([]db.QuoteTick, 0, len(quotes))
	for _, q := range quotes {
		units, err := c.units(ctx, q, t.Price)
		if err != nil {
			// The other quotes are still judged: one currency without a rate holds up no one else.
			if firstErr == nil {
				firstErr = fmt.Errorf("%s alerts in %s per %s: %w", t.Metal, q.Currency, q.Unit, err)
			}
			continue
		}
		ticks = append(ticks, db.QuoteTick{Quote: q, PriceUnits: units})
	}
	// One transaction for the tick, whatever the number of quotes.
	rs, err := s.store.EvaluateQuoteTicks(ctx, ticks, asOf.UnixMilli(), s.now().UnixMilli())
	if err != nil {
		return TickResult{}, err
	}
	for _, r := range rs {
		fired = append(fired, r.Fired...)
		out.Armed += r.Armed
		out.Outbox += r.Outbox
	}
	out.Fired = len(fired)
	if len(fired) > 0 {
		s.log.Info("price alerts fired", "metal", t.Metal, "price", t.Price.String(), "alerts", len(fired), "deliveries", out.Outbox)
		s.Wake()
		users := make([]int64, len(fired))
		for i, f := range fired {
			users[i] = f.UserID
		}
		s.announceUnread(ctx, users)
	}
	return out, firstErr
}

// converter turns USD-per-ounce ticks into the quotes alerts are set in, for one tick or one
// board: the quotes are read once and each currency's current rate looked up once.
type converter struct {
	s      *Service
	quotes map[metals.Metal][]db.AlertQuote
	loaded bool
	rates  map[string]decimal.Decimal
}

func newConverter(s *Service) *converter {
	return &converter{s: s, rates: map[string]decimal.Decimal{}}
}

// usdOunce is the quote every tick is in, evaluated for every metal.
func usdOunce(m metals.Metal) db.AlertQuote {
	return db.AlertQuote{Metal: string(m), Currency: "USD", Unit: string(metals.Ounce)}
}

// quotesOf lists the quotes alerts of m are set in, US dollars per ounce first (always).
func (c *converter) quotesOf(ctx context.Context, m metals.Metal) ([]db.AlertQuote, error) {
	if !c.loaded {
		all, err := c.s.store.AlertQuotes(ctx)
		if err != nil {
			return nil, fmt.Errorf("alert quotes: %w", err)
		}
		c.quotes, c.loaded = map[metals.Metal][]db.AlertQuote{}, true
		for _, q := range all {
			if q != usdOunce(metals.Metal(q.Metal)) {
				c.quotes[metals.Metal(q.Metal)] = append(c.quotes[metals.Metal(q.Metal)], q)
			}
		}
	}
	return append([]db.AlertQuote{usdOunce(m)}, c.quotes[m]...), nil
}

// units is usdPerOz in q's currency per q's unit, at the current rate, in stored units
// (1/10000, rounded half away from zero as targets are).
func (c *converter) units(ctx context.Context, q db.AlertQuote, usdPerOz decimal.Decimal) (int64, error) {
	p := usdPerOz
	if cur := orUSD(q.Currency); cur != "USD" {
		rate, ok := c.rates[cur]
		if !ok {
			r, err := c.s.rates().Lookup(ctx, cur, c.s.now())
			if err != nil {
				return 0, fmt.Errorf("rate of %s: %w", cur, err)
			}
			rate = r.PerUSDExact
			c.rates[cur] = rate
		}
		p = p.Mul(rate)
	}
	if u := orOunce(q.Unit); u != metals.Ounce {
		var err error
		if p, err = metals.PricePer(p, u); err != nil {
			return 0, err
		}
	}
	return toUnits(p), nil
}

// rates is the exchange-rate service: the one the service was built with, or the embedded
// history alone.
func (s *Service) rates() Rates {
	s.fxOnce.Do(func() {
		if s.fx == nil {
			s.fx = fx.New(fx.Deps{Now: s.now, Logger: s.log})
		}
	})
	return s.fx
}

// Wake tells the outbox worker there is work now.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// EvaluateSnapshot evaluates every live (not stale) price of a board that differs from the
// last one this instance evaluated, and every stored close the board took as its newer price
// (Spot.FromClose: an import): a price move fires alerts whatever its source, and the same price
// seen again fires nothing more. The feed publishes only prices the spike guard accepted.
func (s *Service) EvaluateSnapshot(ctx context.Context, snap prices.Snapshot) {
	c := newConverter(s) // one read of the quotes and one rate per currency for the board
	for _, m := range metals.All {
		sp, ok := snap.Prices[m]
		if !ok || (sp.Stale && !sp.FromClose) {
			continue
		}
		s.mu.Lock()
		prev, seen := s.last[m]
		same := seen && prev.asOf.Equal(sp.AsOf) && prev.price.Equal(sp.Price)
		s.mu.Unlock()
		if same {
			continue
		}
		if _, err := s.evaluate(ctx, c, Tick{Metal: m, Price: sp.Price, AsOf: sp.AsOf}); err != nil {
			if ctx.Err() == nil {
				s.log.Error("evaluating price alerts", "metal", m, "err", err)
			}
			continue
		}
		s.mu.Lock()
		s.last[m] = lastTick{price: sp.Price, asOf: sp.AsOf}
		s.mu.Unlock()
	}
}

// LeaderLockKey is the advisory lock of the instance that evaluates alerts and drains the
// outbox, among instances sharing PostgreSQL.
const LeaderLockKey = 7302018

// Run evaluates price ticks and drains the outbox on the leader until ctx ends. Every
// instance's feed sees every accepted tick (the polling instance its own, the others through
// the price notifications), so whichever instance holds the lock evaluates them.
func (s *Service) Run(ctx context.Context) {
	s.store.RunAsLeader(ctx, LeaderLockKey, 15*time.Second, func(ctx context.Context) {
		s.log.Info("price alerts: this instance evaluates ticks and sends notifications")
		done := make(chan struct{})
		go func() { defer close(done); s.RunWorker(ctx) }()
		defer func() { <-done }()
		if s.market == nil {
			<-ctx.Done()
			return
		}
		ch, unsub := s.market.Subscribe()
		defer unsub()
		for {
			select {
			case <-ctx.Done():
				return
			case snap, ok := <-ch:
				if !ok {
					<-ctx.Done()
					return
				}
				s.EvaluateSnapshot(ctx, snap)
			}
		}
	})
}

// PriceIn is a price in US dollars per troy ounce in currency per unit at the current rate,
// as a tick would be judged against an alert set in them (the alerts page shows it on the
// card and prefills the target with it).
func (s *Service) PriceIn(ctx context.Context, usdPerOz decimal.Decimal, currency string, unit metals.Unit) (decimal.Decimal, error) {
	n, err := newConverter(s).units(ctx, db.AlertQuote{Currency: normCurrency(currency), Unit: string(unit)}, usdPerOz)
	return fromUnits(n), err
}
