package prices

import (
	"sync"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// DefaultSpikeThreshold is the jump, in percent, beyond which a tick must be
// confirmed before it is published. Precious metals rarely move 8 % between two
// polls; a provider glitch (wrong unit, stale cache, fat finger) often does.
var DefaultSpikeThreshold = decimal.NewFromInt(8)

// Verdict is what the spike guard decided about one tick.
type Verdict int

// The spike guard's verdicts.
const (
	// Accepted: the tick is within the threshold of the last accepted price (or
	// is the first one seen) and may be published.
	Accepted Verdict = iota
	// Held: the tick jumped too far; it is kept aside until the next tick.
	Held
	// Confirmed: the held jump was confirmed by this tick, which is published.
	Confirmed
)

// Publish reports whether the tick may be used.
func (v Verdict) Publish() bool { return v != Held }

// String names the verdict for logs.
func (v Verdict) String() string {
	switch v {
	case Accepted:
		return "accepted"
	case Held:
		return "held"
	case Confirmed:
		return "confirmed"
	}
	return "unknown"
}

// SpikeGuard holds back single-tick jumps. A tick further than Threshold % from
// the last accepted price is held; the next tick confirms it when it is also
// that far from the old price and within Threshold % of the held one, otherwise
// the held tick is forgotten. State is per metal; the zero value is ready to use
// with an 8 % threshold, and it is safe for concurrent use.
type SpikeGuard struct {
	// Threshold in percent; zero means DefaultSpikeThreshold.
	Threshold decimal.Decimal

	mu   sync.Mutex
	last map[metals.Metal]decimal.Decimal
	held map[metals.Metal]decimal.Decimal
}

func (g *SpikeGuard) threshold() decimal.Decimal {
	if g.Threshold.IsPositive() {
		return g.Threshold
	}
	return DefaultSpikeThreshold
}

func (g *SpikeGuard) init() {
	if g.last == nil {
		g.last = make(map[metals.Metal]decimal.Decimal)
		g.held = make(map[metals.Metal]decimal.Decimal)
	}
}

// Prime sets the last accepted price without judging it, e.g. from the database
// at start, and forgets any held tick.
func (g *SpikeGuard) Prime(m metals.Metal, price decimal.Decimal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.init()
	g.last[m] = price
	delete(g.held, m)
}

// Check judges a tick for m and updates the state accordingly.
func (g *SpikeGuard) Check(m metals.Metal, price decimal.Decimal) Verdict {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.init()
	last, ok := g.last[m]
	if !ok {
		g.last[m] = price
		return Accepted
	}
	th := g.threshold()
	if !beyond(last, price, th) {
		g.last[m] = price
		delete(g.held, m)
		return Accepted
	}
	if held, ok := g.held[m]; ok && !beyond(held, price, th) {
		g.last[m] = price
		delete(g.held, m)
		return Confirmed
	}
	// Either nothing was held, or the new tick disagrees with the held one: the
	// old candidate is dropped and this tick becomes the candidate.
	g.held[m] = price
	return Held
}

// beyond reports whether price is more than th percent away from ref.
func beyond(ref, price, th decimal.Decimal) bool {
	if !ref.IsPositive() {
		return false // no meaningful reference: nothing to compare against
	}
	return metals.PctChange(ref, price).Abs().GreaterThan(th)
}
