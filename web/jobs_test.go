package web

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for the runner's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func testRunner() (*jobRunner, *syncBuffer) {
	buf := &syncBuffer{}
	r := newJobRunner(slog.New(slog.NewTextHandler(buf, nil)))
	r.minBackoff, r.maxBackoff = 20*time.Millisecond, 80*time.Millisecond
	return r, buf
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestJobRunnerRestartsAPanickingJob: a job that panics is logged with its name and started
// again after a back-off that grows, while its neighbour runs undisturbed; stop ends both and
// waits for them.
func TestJobRunnerRestartsAPanickingJob(t *testing.T) {
	r, logs := testRunner()
	var runs atomic.Int32
	var starts []time.Time
	var mu sync.Mutex
	var steadyStopped, flakyStopped atomic.Bool
	flaky := Job{Name: "flaky", Run: func(ctx context.Context) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		if runs.Add(1) <= 3 {
			panic("provider answered nonsense")
		}
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // stop must wait for this
		flakyStopped.Store(true)
	}}
	steady := Job{Name: "steady", Run: func(ctx context.Context) {
		<-ctx.Done()
		steadyStopped.Store(true)
	}}
	r.start([]Job{flaky, steady})
	eventually(t, "fourth run", func() bool { return runs.Load() == 4 })
	r.stop()
	if !flakyStopped.Load() || !steadyStopped.Load() {
		t.Fatal("stop returned before the jobs did")
	}
	if n := runs.Load(); n != 4 {
		t.Fatalf("runs %d, want 4 (three panics, one clean run)", n)
	}
	mu.Lock()
	gaps := []time.Duration{starts[1].Sub(starts[0]), starts[2].Sub(starts[1]), starts[3].Sub(starts[2])}
	mu.Unlock()
	for i, least := range []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond} {
		if gaps[i] < least {
			t.Fatalf("restart %d after %v, want at least %v (gaps %v)", i+1, gaps[i], least, gaps)
		}
	}
	out := logs.String()
	for _, want := range []string{`msg="job started" job=flaky`, `msg="job panicked" job=flaky panic="provider answered nonsense"`, "stack=", `msg="job restarting" job=flaky after=20ms`,
		`msg="job restarting" job=flaky after=40ms`, `msg="job stopped" job=flaky`, `msg="job started" job=steady`, `msg="job stopped" job=steady`} {
		if !strings.Contains(out, want) {
			t.Fatalf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, `msg="job started" job=steady`) != 1 {
		t.Fatalf("the steady job was restarted:\n%s", out)
	}
}

// TestJobRunnerLetsAFinishedJobRest: a job that returns by itself (nothing to do here) is
// logged as finished and not restarted.
func TestJobRunnerLetsAFinishedJobRest(t *testing.T) {
	r, logs := testRunner()
	var runs atomic.Int32
	r.start([]Job{{Name: "offline feed", Run: func(context.Context) { runs.Add(1) }}})
	eventually(t, "finished", func() bool { return strings.Contains(logs.String(), `msg="job finished" job="offline feed"`) })
	// The synchronisation point is the supervisor itself: it must return on its own, with
	// nothing cancelled, rather than be waited out by a sleep.
	rested := make(chan struct{})
	go func() { r.wg.Wait(); close(rested) }()
	select {
	case <-rested:
	case <-time.After(10 * time.Second):
		r.stop()
		t.Fatal("the supervisor kept a finished job going")
	}
	r.stop()
	if n := runs.Load(); n != 1 {
		t.Fatalf("ran %d times", n)
	}
}

// TestJobRunnerStopsDuringBackOff: stopping while a job waits to be restarted returns at once.
func TestJobRunnerStopsDuringBackOff(t *testing.T) {
	r, logs := testRunner()
	r.minBackoff, r.maxBackoff = time.Hour, time.Hour
	r.start([]Job{{Name: "broken", Run: func(context.Context) { panic("always") }}})
	eventually(t, "restart scheduled", func() bool { return strings.Contains(logs.String(), `msg="job restarting"`) })
	done := make(chan struct{})
	go func() { r.stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("stop waited out the back-off")
	}
	if !strings.Contains(logs.String(), `msg="job stopped" job=broken`) {
		t.Fatalf("no stop logged:\n%s", logs.String())
	}
}

// TestEveryRunsUntilStopped: the ticker helper calls its function each interval, logs
// failures under the job's name, and ends with its context.
func TestEveryRunsUntilStopped(t *testing.T) {
	r, logs := testRunner()
	var calls atomic.Int32
	job := every("pruning", 10*time.Millisecond, r.log, func(context.Context) error {
		if calls.Add(1) == 2 {
			return context.DeadlineExceeded
		}
		return nil
	})
	r.start([]Job{job})
	eventually(t, "three calls", func() bool { return calls.Load() >= 3 })
	r.stop()
	if !strings.Contains(logs.String(), `msg=pruning err="context deadline exceeded"`) {
		t.Fatalf("failure not logged:\n%s", logs.String())
	}
}
