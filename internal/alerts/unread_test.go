package alerts_test

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
)

// TestUnreadIsPushedFromTheWrite: a firing for one member wakes that member's watchers, and
// only theirs; "mark read" wakes them too. No watcher polls: each signal comes from the
// write. Absence is proved by order, not by waiting: announcements are handled one after
// another, so once a later write for a third member has arrived, any signal the first write
// could have given the bystander would already be there.
func TestUnreadIsPushedFromTheWrite(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		fx := newFixture(t, s, alerts.Config{})
		a := fx.user(t, "a@example.com", db.TierGold)
		b := fx.user(t, "b@example.com", db.TierGold)
		c := fx.user(t, "c@example.com", db.TierGold)
		watch := func(u db.User) <-chan struct{} {
			ch, stop, err := fx.svc.WatchUnread(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
			return ch
		}
		wa, wb, wc := watch(a), watch(b), watch(c)
		// A second stream of the same member (another tab) is told as well.
		wa2 := watch(a)
		arrives := func(ch <-chan struct{}, who string) {
			t.Helper()
			select {
			case <-ch:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s's stream was not told of the write", who)
			}
		}
		quiet := func(ch <-chan struct{}, who string) {
			t.Helper()
			select {
			case <-ch:
				t.Fatalf("%s's stream was woken by another member's write", who)
			default:
			}
		}

		fx.market.set("silver", "39")
		if _, err := fx.svc.Create(ctx, a, alertIn("above", "40", "once")); err != nil {
			t.Fatal(err)
		}
		if r := fx.tick(t, "40.25"); r.Fired != 1 {
			t.Fatalf("fired %d", r.Fired)
		}
		arrives(wa, "a")
		arrives(wa2, "a (second tab)")
		if n, _ := fx.svc.Unread(ctx, a); n != 1 {
			t.Fatalf("a has %d unread", n)
		}

		// The sync point: a write for c, handled after a's.
		if err := fx.svc.MarkRead(ctx, c); err != nil {
			t.Fatal(err)
		}
		arrives(wc, "c")
		quiet(wb, "b")
		quiet(wa, "a")

		if err := fx.svc.MarkRead(ctx, a); err != nil {
			t.Fatal(err)
		}
		arrives(wa, "a")
		if n, _ := fx.svc.Unread(ctx, a); n != 0 {
			t.Fatalf("a has %d unread after reading", n)
		}
		if err := fx.svc.MarkRead(ctx, c); err != nil {
			t.Fatal(err)
		}
		arrives(wc, "c")
		quiet(wb, "b")
	})
}
