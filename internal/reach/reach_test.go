package reach

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	client := &http.Client{Timeout: 2 * time.Second}
	_, refused := client.Get("http://" + closed + "/")
	_, noHost := client.Get("http://no-such-host.invalid/")
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"connection refused", refused, true},
		{"unknown host", noHost, true},
		{"wrapped and joined", fmt.Errorf("prices: %w", errors.Join(fmt.Errorf("gold: %w", refused))), true},
		{"deadline", fmt.Errorf("fetch: %w", context.DeadlineExceeded), true},
		{"HTTP 500", errors.New("metals.dev: HTTP 500"), false},
		{"nil", nil, false},
	} {
		if got := Unreachable(c.err); got != c.want {
			t.Errorf("%s: Unreachable(%v) = %v", c.name, c.err, got)
		}
	}
}

func TestReporterLogsOneLinePerKind(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r := New(log, "news feeds", "stored articles")
	ctx := context.Background()
	down := &net.DNSError{Err: "no such host", Name: "example.invalid", IsNotFound: true}
	for i := 0; i < 10; i++ {
		if !r.Failed(ctx, fmt.Sprintf("feed %d", i), fmt.Errorf("fetch: %w", down)) {
			t.Fatal("an unreachable host was not handled")
		}
	}
	if r.Failed(ctx, "feed 0", errors.New("HTTP 503")) {
		t.Fatal("a server error was swallowed as unreachable")
	}
	for i := 0; i < 10; i++ {
		r.OK(ctx, fmt.Sprintf("feed %d", i))
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[0], `msg="news feeds unreachable; serving stored articles"`) ||
		!strings.Contains(lines[1], `msg="news feeds reachable again"`) {
		t.Fatalf("log:\n%s", buf.String())
	}
}
