package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/app"
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

// TestServerRunsEveryJobAndAwaitsThem: Start runs the jobs the root lists (the services')
// and the server's own housekeeping through the one runner; Shutdown stops every one of them.
func TestServerRunsEveryJobAndAwaitsThem(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		logs := &syncBuffer{}
		a, err := app.New(app.Options{Store: s, Config: offlineConfig("http://ounce.test"), Logger: slog.New(slog.NewTextHandler(logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		srv := a.Server
		srv.Start()
		srv.Start() // a second call starts nothing more
		names := []string{"intel scheduler", "sign-in failure cleanup", "API key use", "session cleanup"}
		if s.Engine == db.Postgres {
			names = append(names, "rate-limit pruning")
		}
		for _, n := range names {
			eventually(t, n+" started", func() bool { return strings.Contains(logs.String(), `msg="job started" job="`+n+`"`) })
		}
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		out := logs.String()
		for _, n := range names {
			if strings.Count(out, `msg="job started" job="`+n+`"`) != 1 || !strings.Contains(out, `msg="job stopped" job="`+n+`"`) {
				t.Fatalf("job %q not started once and stopped:\n%s", n, out)
			}
		}
		if s.Engine != db.Postgres && strings.Contains(out, "rate-limit pruning") {
			t.Fatalf("the in-memory limiter needs no pruning job:\n%s", out)
		}
	})
}

func offlineConfig(base string) app.Config {
	cfg := app.Config{Site: kit.Site{BaseURL: base}}
	cfg.SetOffline(true)
	return cfg
}
