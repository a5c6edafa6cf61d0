package db_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// receive takes the next payload from sub, failing after a while.
func receive(t *testing.T, sub *db.Subscription) string {
	t.Helper()
	select {
	case p, ok := <-sub.C:
		if !ok {
			t.Fatal("subscription closed while a payload was expected")
		}
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10s")
	}
	return ""
}

// closedWithin fails unless sub.C closes (after draining nothing more) within d.
func closedWithin(t *testing.T, sub *db.Subscription, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case p, ok := <-sub.C:
			if !ok {
				return
			}
			t.Fatalf("unexpected payload %q after the end", p)
		case <-deadline:
			t.Fatalf("subscription still open %v after its end", d)
		}
	}
}

func TestPublishReachesSubscribersInOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		prices, err := s.Subscribe(ctx, "ounce_test_prices", nil)
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.Subscribe(ctx, "ounce_test_other", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{`{"n":1}`, `{"n":2}`, ""} {
			if err := s.Publish(ctx, "ounce_test_prices", p); err != nil {
				t.Fatal(err)
			}
		}
		for _, want := range []string{`{"n":1}`, `{"n":2}`, ""} {
			if got := receive(t, prices); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
		// Nothing crossed to the other channel: a marker published after the payloads is the
		// first thing it receives (notifications arrive in the order they were published, so
		// a crossed payload would come before it). No waiting for something not to happen.
		if err := s.Publish(ctx, "ounce_test_other", "marker"); err != nil {
			t.Fatal(err)
		}
		if got := receive(t, other); got != "marker" {
			t.Fatalf("other channel received %q", got)
		}
		// Ending the context ends both subscriptions.
		cancel()
		closedWithin(t, prices, 5*time.Second)
		closedWithin(t, other, 5*time.Second)
	})
}

func TestPublishRefusesWhatPostgreSQLWould(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		if err := s.Publish(ctx, "ounce_test", strings.Repeat("x", db.MaxPayload+1)); err == nil {
			t.Fatal("oversized payload accepted")
		}
		if err := s.Publish(ctx, "", "x"); err == nil {
			t.Fatal("empty channel accepted")
		}
		if _, err := s.Subscribe(ctx, strings.Repeat("c", 64), nil); err == nil {
			t.Fatal("over-long channel name accepted")
		}
		if err := s.Publish(ctx, "ounce_test", strings.Repeat("x", db.MaxPayload)); err != nil {
			t.Fatalf("payload at the limit: %v", err)
		}
	})
}

func TestCloseEndsASubscriptionAndStopsDelivery(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		sub, err := s.Subscribe(ctx, "ounce_test_close", nil)
		if err != nil {
			t.Fatal(err)
		}
		// A payload the receiver never took does not keep Close waiting.
		if err := s.Publish(ctx, "ounce_test_close", "unread"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		done := make(chan struct{})
		go func() { sub.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not return")
		}
		for range sub.C {
		}
		// Publishing with nobody listening is fine.
		if err := s.Publish(ctx, "ounce_test_close", "after"); err != nil {
			t.Fatal(err)
		}
	})
}

// TestNotificationsCrossInstances runs two stores over one PostgreSQL database, as two
// servers would: what one publishes, the other hears, and cancelling the listener's context
// ends its subscription.
func TestNotificationsCrossInstances(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip("needs PostgreSQL (OUNCE_TEST_POSTGRES_URL); required under CI=true")
	}
	u := dbtest.PostgresSchema(t, base)
	leader, follower := dbtest.OpenPostgres(t, u), dbtest.OpenPostgres(t, u)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var problems []error
	sub, err := follower.Subscribe(ctx, "ounce_test_cross", func(err error) { mu.Lock(); problems = append(problems, err); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer pcancel()
	for i, p := range []string{"tick one", "tick two"} {
		if err := leader.Publish(pctx, "ounce_test_cross", p); err != nil {
			t.Fatal(err)
		}
		if got := receive(t, sub); got != p {
			t.Fatalf("notification %d: got %q, want %q", i, got, p)
		}
	}
	cancel()
	closedWithin(t, sub, 5*time.Second)
	// The listener's connection is gone with it: the publisher's notifications go nowhere.
	if err := leader.Publish(pctx, "ounce_test_cross", "after"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(problems) != 0 {
		t.Fatalf("listener reported problems on a healthy database: %v", problems)
	}
	// A subscription asked for with an ended context is refused rather than left dangling.
	if _, err := follower.Subscribe(ctx, "ounce_test_cross", nil); err == nil {
		t.Fatal("subscribed with a cancelled context")
	}
}
