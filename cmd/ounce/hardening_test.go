package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 11, items 9 (credentials in errors and logs) and 11 (a quiet first start offline).

// TestDatabaseURLPasswordNeverPrinted: a malformed DATABASE_URL comes back from the driver
// whole; neither the error the CLI prints nor any log line shows its password.
func TestDatabaseURLPasswordNeverPrinted(t *testing.T) {
	t.Setenv("OUNCE_DATA_DIR", t.TempDir())
	for _, u := range []string{
		"postgres://ann:s3cret-pw@127.0.0.1:notaport/ounce",
		"postgresql://ann:s3cret-pw@[::1/ounce",
	} {
		t.Setenv("DATABASE_URL", u)
		_, err := runCLI(t, "", "migrate")
		if err == nil || strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("DATABASE_URL=%s: %v", u, err)
		}
	}
	var buf bytes.Buffer
	log := newLogger(&buf, "info")
	cause := fmt.Errorf("listen: %w", errors.New(`parse "postgres://ann:s3cret-pw@db.example/ounce": invalid character`))
	log.Error("price ticks: listening failed", "err", cause, "url", "postgres://ann:s3cret-pw@db.example/ounce", "dsn", "host=db password=s3cret-pw")
	if strings.Contains(buf.String(), "s3cret-pw") || !strings.Contains(buf.String(), "invalid character") {
		t.Fatalf("log line: %s", buf.String())
	}
}

// lockedBuffer is a log sink the serve goroutines write while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestUnreachableSourcesAreOneLineEach (item 11): started with no way to reach any price
// provider, news feed or the CME (here: every address refuses connections), serve logs one
// INFO line per kind of source saying it is unreachable and what it serves instead, and no
// warnings.
func TestUnreachableSourcesAreOneLineEach(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	closed := "http://" + addr // nothing listens here any more: connection refused
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	serveAddr := ln2.Addr().String()
	ln2.Close()
	t.Setenv("OUNCE_ADDR", serveAddr)
	t.Setenv("OUNCE_DATA_DIR", t.TempDir())
	t.Setenv("OUNCE_OFFLINE", "")
	t.Setenv("DATABASE_URL", "")
	t.Setenv("OUNCE_PRICE_PROVIDERS", "gold-api")
	t.Setenv("OUNCE_PRICE_BASE_URLS", "gold-api="+closed)
	var feeds []string
	for i := 0; i < 8; i++ {
		feeds = append(feeds, fmt.Sprintf("%s/feed-%d.xml", closed, i))
	}
	t.Setenv("OUNCE_NEWS_FEEDS", strings.Join(feeds, ","))
	t.Setenv("OUNCE_CME_BASE_URL", closed)
	t.Setenv("OUNCE_FX_URL", closed+"/eurofxref-daily.xml")

	// Debug lines name every later failure, so the test sees the first round end (below).
	t.Setenv("OUNCE_LOG_LEVEL", "debug")

	ctx, cancel := context.WithCancel(context.Background())
	logs := &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- cmdServe(ctx, nil, io.Discard, logs) }()
	kinds := []string{"price providers unreachable", "news feeds unreachable", "CME depository reports unreachable", "exchange rates unreachable"}
	// The first round is over when every source has been reported: each feed and each metal's
	// CME report (the first of a kind at INFO, the rest at DEBUG), and the price providers.
	// Only then can the log show whether a later failure was one INFO line too many.
	var marks []string
	for _, f := range feeds {
		marks = append(marks, "news feeds unreachable; serving the stored headlines\" source="+f)
	}
	for _, m := range []string{"gold", "silver", "platinum", "palladium"} {
		marks = append(marks, "CME depository reports unreachable; serving the stored vault figures with their report dates\" source="+m+" ")
	}
	marks = append(marks, "price providers unreachable", "exchange rates unreachable")
	deadline := time.Now().Add(30 * time.Second)
	for {
		all := true
		for _, k := range marks {
			all = all && strings.Contains(logs.String(), k)
		}
		if all {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			<-done
			t.Fatalf("not every source was reported unreachable:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	out := logs.String()
	for _, k := range kinds {
		lines := 0
		for _, l := range strings.Split(out, "\n") {
			if !strings.Contains(l, k) || strings.Contains(l, "level=DEBUG") {
				continue
			}
			lines++
			if !strings.Contains(l, "level=INFO") || !strings.Contains(l, "serving") {
				t.Errorf("not an INFO line saying what is served: %s", l)
			}
		}
		if lines != 1 {
			t.Errorf("%q: %d lines, want 1", k, lines)
		}
	}
	if strings.Contains(out, "level=WARN") || strings.Contains(out, "level=ERROR") {
		t.Fatalf("warnings for unreachable sources:\n%s", out)
	}
}

func TestSignUpLimitConfig(t *testing.T) {
	t.Setenv("OUNCE_SIGNUP_LIMIT_PER_IP", "")
	c, err := loadConfig(nil, nil)
	if err != nil || c.App.Account.SignUpsPerIP != 5 {
		t.Fatalf("default: %d %v", c.App.Account.SignUpsPerIP, err)
	}
	t.Setenv("OUNCE_SIGNUP_LIMIT_PER_IP", "0")
	if c, _ := loadConfig(nil, nil); c.App.Account.SignUpsPerIP != 0 {
		t.Fatalf("0 turns the limit off: %d", c.App.Account.SignUpsPerIP)
	}
	t.Setenv("OUNCE_SIGNUP_LIMIT_PER_IP", "many")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "OUNCE_SIGNUP_LIMIT_PER_IP") {
		t.Fatalf("bad value: %v", err)
	}
}
