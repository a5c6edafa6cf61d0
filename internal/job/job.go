// Package job is the one shape of a background loop. Each service lists its loops with a
// Jobs method; the composition root (internal/app) collects them once and the web layer's
// job runner starts each, logs it by name, and restarts it after a panic.
package job

import (
	"context"
	"log/slog"
	"time"
)

// Job is a named background loop: Run works until its context ends.
type Job struct {
	Name string
	Run  func(ctx context.Context)
}

// Every makes a job that calls fn each interval until its context ends, logging failures.
func Every(name string, interval time.Duration, log *slog.Logger, fn func(ctx context.Context) error) Job {
	return Job{Name: name, Run: func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := fn(ctx); err != nil && ctx.Err() == nil {
					log.Warn(name, "err", err)
				}
			}
		}
	}}
}

// Woken calls fn at once, then each time wake fires or every passes since the last call
// (whichever comes first), until ctx ends: the shape of the outbox workers, woken by a new row
// and polling for retries that fall due.
func Woken(ctx context.Context, every time.Duration, wake <-chan struct{}, fn func(ctx context.Context)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		fn(ctx)
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-t.C:
		}
	}
}

// Drain calls once until it handles fewer than batch rows (the outbox is empty for now) or
// fails; a failure is logged as what (unless ctx ended). The push and mail outbox workers
// share it.
func Drain(ctx context.Context, log *slog.Logger, what string, batch int, once func(context.Context) (int, error)) {
	for {
		n, err := once(ctx)
		if err != nil && ctx.Err() == nil {
			log.Warn(what, "err", err)
		}
		if n < batch || err != nil {
			return
		}
	}
}

// The outboxes' retry schedule (push and mail): a failed send is tried again after 30 s, then
// 1.5, 4.5, 13.5 and 40.5 minutes: at most OutboxAttempts tries over about an hour.
const (
	OutboxAttempts = 6
	firstBackoff   = 30 * time.Second
	// OutboxLease is how long a claimed outbox row is left to its worker before another may
	// claim it.
	OutboxLease = 2 * time.Minute
)

// OutboxBackoff is the wait after the n-th failed attempt of an outbox send (n ≥ 1).
func OutboxBackoff(n int) time.Duration {
	d := firstBackoff
	for i := 1; i < n; i++ {
		d *= 3
	}
	return d
}
