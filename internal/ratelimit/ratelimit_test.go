package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/ratelimit"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// exercise checks the fixed-window contract every limiter keeps: limit hits pass, the next is
// refused with the time left in the window, buckets are independent, and a new window
// starts afresh.
func exercise(t *testing.T, l ratelimit.Limiter, c *clock) {
	t.Helper()
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		ok, reset, err := l.Allow(ctx, "key:1", 3, time.Minute)
		if err != nil || !ok {
			t.Fatalf("hit %d refused: %v %v", i, ok, err)
		}
		if reset != 40*time.Second {
			t.Fatalf("hit %d: reset in %v, want 40s", i, reset)
		}
	}
	if ok, reset, err := l.Allow(ctx, "key:1", 3, time.Minute); err != nil || ok || reset != 40*time.Second {
		t.Fatalf("fourth hit: allowed=%v reset=%v err=%v", ok, reset, err)
	}
	if ok, _, err := l.Allow(ctx, "key:2", 3, time.Minute); err != nil || !ok {
		t.Fatalf("another bucket shares the count: %v %v", ok, err)
	}
	c.t = c.t.Add(time.Minute)
	if ok, reset, err := l.Allow(ctx, "key:1", 3, time.Minute); err != nil || !ok || reset != 40*time.Second {
		t.Fatalf("next window: allowed=%v reset=%v err=%v", ok, reset, err)
	}
}

func start() *clock { return &clock{t: time.Date(2026, 3, 2, 10, 15, 20, 0, time.UTC)} }

func TestMemory(t *testing.T) {
	c := start()
	exercise(t, ratelimit.NewMemory(c.now), c)
}

func TestShared(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		c := start()
		l := ratelimit.NewShared(s, c.now)
		exercise(t, l, c)
		// A second instance over the same database sees the same count.
		other := ratelimit.NewShared(s, c.now)
		ctx := context.Background()
		if ok, _, _ := other.Allow(ctx, "key:1", 1, time.Minute); ok {
			t.Fatal("the other instance did not see the first's hit")
		}
		// Pruning keeps the current window and drops those over an hour old.
		if err := l.Prune(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, _, _ := l.Allow(ctx, "key:1", 2, time.Minute); ok {
			t.Fatal("pruning dropped the live window")
		}
		c.t = c.t.Add(2 * time.Hour)
		if err := l.Prune(ctx); err != nil {
			t.Fatal(err)
		}
		c.t = c.t.Add(-2 * time.Hour)
		if ok, _, _ := l.Allow(ctx, "key:1", 1, time.Minute); !ok {
			t.Fatal("an old window survived pruning")
		}
	})
}

func TestForPicksByEngine(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		l := ratelimit.For(s, time.Now)
		_, shared := l.(*ratelimit.Shared)
		if shared != (s.Engine == db.Postgres) {
			t.Fatalf("%s got %T", s.Engine, l)
		}
	})
}
