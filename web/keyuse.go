package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
)

// keyUseRecorder coalesces "this key was just used" into one batched write per interval, so
// API traffic does not cost a database write per request.
type keyUseRecorder struct {
	mu      sync.Mutex
	pending map[int64]time.Time
	store   *db.Store
	log     *slog.Logger
}

func newKeyUseRecorder(s *db.Store, log *slog.Logger) *keyUseRecorder {
	return &keyUseRecorder{pending: map[int64]time.Time{}, store: s, log: log}
}

func (r *keyUseRecorder) Record(id int64, at time.Time) {
	r.mu.Lock()
	if at.After(r.pending[id]) {
		r.pending[id] = at
	}
	r.mu.Unlock()
}

// Flush writes what is pending.
func (r *keyUseRecorder) Flush(ctx context.Context) {
	r.mu.Lock()
	batch := r.pending
	r.pending = map[int64]time.Time{}
	r.mu.Unlock()
	if err := r.store.TouchAPIKeys(ctx, batch); err != nil {
		r.log.Error("recording API key use", "err", err)
	}
}

// Run flushes every interval until ctx ends, then once more.
func (r *keyUseRecorder) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			r.Flush(fctx)
			cancel()
			return
		case <-t.C:
			r.Flush(ctx)
		}
	}
}
