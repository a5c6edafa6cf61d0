// Package ratelimit counts hits in fixed windows: in memory for a single instance (embedded
// SQLite), or in the database so every instance sharing PostgreSQL enforces one limit.
package ratelimit

import (
	"context"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
)

// Limiter counts hits in fixed windows.
type Limiter interface {
	// Allow records a hit on bucket and reports whether it is within limit per window, and
	// how long until the window resets.
	Allow(ctx context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error)
}

// For returns the limiter that fits the store: shared counters in PostgreSQL, where several
// instances may serve one site, and memory otherwise, since one process owns an embedded
// database.
func For(store *db.Store, now func() time.Time) Limiter {
	if store.Engine == db.Postgres {
		return NewShared(store, now)
	}
	return NewMemory(now)
}

// Memory is a fixed-window counter for a single instance (the embedded SQLite mode).
type Memory struct {
	mu      sync.Mutex
	windows map[string]memWindow
	now     func() time.Time
	sweep   time.Time
}

type memWindow struct {
	start time.Time
	hits  int
}

// NewMemory returns an empty in-process limiter reading the clock now.
func NewMemory(now func() time.Time) *Memory {
	return &Memory{windows: map[string]memWindow{}, now: now}
}

// Allow implements Limiter.
func (l *Memory) Allow(_ context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error) {
	now := l.now()
	start := now.Truncate(window)
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.sweep) > time.Minute {
		// Forget finished windows so the map does not grow with every client ever seen.
		for k, w := range l.windows {
			if now.Sub(w.start) > time.Hour {
				delete(l.windows, k)
			}
		}
		l.sweep = now
	}
	w := l.windows[bucket]
	if !w.start.Equal(start) {
		w = memWindow{start: start}
	}
	w.hits++
	l.windows[bucket] = w
	return w.hits <= limit, start.Add(window).Sub(now), nil
}

// Shared keeps counters in the database so every instance shares them.
type Shared struct {
	store *db.Store
	now   func() time.Time
}

// NewShared returns a limiter counting in store's rate_limits table.
func NewShared(store *db.Store, now func() time.Time) *Shared {
	return &Shared{store: store, now: now}
}

// Allow implements Limiter.
func (l *Shared) Allow(ctx context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error) {
	now := l.now()
	hits, reset, err := l.store.HitRateLimit(ctx, bucket, window, now)
	if err != nil {
		return false, 0, err
	}
	return hits <= limit, reset.Sub(now), nil
}

// Retention is how long finished windows are kept before Prune drops them; longer than any
// window in use, so a live count is never dropped.
const Retention = time.Hour

// Prune drops windows that started over Retention ago, so the table stays small.
func (l *Shared) Prune(ctx context.Context) error {
	return l.store.PruneRateLimits(ctx, l.now().Add(-Retention))
}
