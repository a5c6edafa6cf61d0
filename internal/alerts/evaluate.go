package alerts

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

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

// Evaluate applies one tick to the alerts it crosses. Firing is a conditional update of armed
// rows in the transaction that writes the notifications and outbox rows, so two instances
// evaluating the same tick tell each member once. The outbox worker is woken.
//
// The firing rule is this package's, though db.EvaluateTick states it in SQL (the one
// sanctioned rule in SQL, so a tick over a million alerts is decided set-based): an armed,
// enabled alert fires when the price reaches its target; a once-alert then disables itself, a
// re-arming one disarms until the price is back past its re-arm price (RearmPct, stored as
// rearm_units by Create). A change to that rule changes db.EvaluateTick with it; the tests
// of this package pin it on both engines.
func (s *Service) Evaluate(ctx context.Context, t Tick) (TickResult, error) {
	if t.Spike || !t.Price.IsPositive() || !t.Metal.Valid() {
		return TickResult{}, nil
	}
	asOf := t.AsOf
	if asOf.IsZero() {
		asOf = s.now()
	}
	r, err := s.store.EvaluateTick(ctx, string(t.Metal), toUnits(t.Price), asOf.UnixMilli(), s.now().UnixMilli())
	if err != nil {
		return TickResult{}, err
	}
	if len(r.Fired) > 0 {
		s.log.Info("price alerts fired", "metal", t.Metal, "price", t.Price.String(), "alerts", len(r.Fired), "deliveries", r.Outbox)
		s.Wake()
		users := make([]int64, len(r.Fired))
		for i, f := range r.Fired {
			users[i] = f.UserID
		}
		s.announceUnread(ctx, users)
	}
	return TickResult{Fired: len(r.Fired), Armed: r.Armed, Outbox: r.Outbox}, nil
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
		if _, err := s.Evaluate(ctx, Tick{Metal: m, Price: sp.Price, AsOf: sp.AsOf}); err != nil {
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
