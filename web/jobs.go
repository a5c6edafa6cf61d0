package web

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/job"
)

// Job is a named background loop the server runs until it stops.
type Job = kit.Job

// jobRunner is the one place background loops start: it runs each job in its own goroutine,
// logs it starting and stopping, and restarts a job that panics after a growing back-off
// instead of letting the panic end the process. A panic in a goroutine the job starts itself
// is out of its reach.
type jobRunner struct {
	log *slog.Logger
	// minBackoff is the first wait before a restart; it doubles up to maxBackoff while the job
	// keeps failing, and starts over once the job has run longer than maxBackoff.
	minBackoff, maxBackoff time.Duration

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newJobRunner(log *slog.Logger) *jobRunner {
	return &jobRunner{log: log, minBackoff: time.Second, maxBackoff: time.Minute}
}

// start runs every job until stop.
func (r *jobRunner) start(jobs []Job) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	for _, job := range jobs {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.supervise(ctx, job)
		}()
	}
}

// stop ends every job and waits for them to return.
func (r *jobRunner) stop() {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
}

func (r *jobRunner) supervise(ctx context.Context, job Job) {
	delay := r.minBackoff
	for {
		r.log.Info("job started", "job", job.Name)
		began := time.Now()
		panicked := r.runOnce(ctx, job)
		switch {
		case ctx.Err() != nil:
			r.log.Info("job stopped", "job", job.Name)
			return
		case !panicked:
			// A job may have nothing to do in this configuration (offline, no providers).
			r.log.Info("job finished", "job", job.Name)
			return
		}
		if time.Since(began) > r.maxBackoff {
			delay = r.minBackoff
		}
		r.log.Warn("job restarting", "job", job.Name, "after", delay.String())
		select {
		case <-ctx.Done():
			r.log.Info("job stopped", "job", job.Name)
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, r.maxBackoff)
	}
}

// runOnce runs the job and reports whether it panicked, logging the panic with its stack.
func (r *jobRunner) runOnce(ctx context.Context, job Job) (panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			panicked = true
			r.log.Error("job panicked", "job", job.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	job.Run(ctx)
	return false
}

// every makes a job that calls fn each interval until its context ends, logging failures.
func every(name string, interval time.Duration, log *slog.Logger, fn func(ctx context.Context) error) Job {
	return job.Every(name, interval, log, fn)
}
