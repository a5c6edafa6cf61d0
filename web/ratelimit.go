package web

import (
	"context"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
)

// MemoryLimiter is a fixed-window counter for a single instance (the embedded SQLite mode).
type MemoryLimiter struct {
	mu      sync.Mutex
	windows map[string]memWindow
	now     func() time.Time
	sweep   time.Time
}

type memWindow struct {
	start time.Time
	hits  int
}

// NewMemoryLimiter returns an empty in-process limiter.
func NewMemoryLimiter(now func() time.Time) *MemoryLimiter {
	return &MemoryLimiter{windows: map[string]memWindow{}, now: now}
}

// Allow implements handlers.Limiter.
func (l *MemoryLimiter) Allow(_ context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error) {
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

// StoreLimiter keeps counters in the database so every instance shares them.
type StoreLimiter struct {
	Store *db.Store
	Now   func() time.Time
}

// Allow implements handlers.Limiter.
func (l StoreLimiter) Allow(ctx context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error) {
	now := l.Now()
	hits, reset, err := l.Store.HitRateLimit(ctx, bucket, window, now)
	if err != nil {
		return false, 0, err
	}
	return hits <= limit, reset.Sub(now), nil
}
