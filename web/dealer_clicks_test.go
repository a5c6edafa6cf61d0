package web_test

import (
	"context"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/app"
)

// TestDealerGoCountsOncePerMinute (issue 22 item 9): GET /go/{dealer}/{product} redirects
// every time but writes one click row per visitor, dealer and product a minute; the next
// minute (on the server's clock) counts again, and another product or another visitor (a
// member) has its own row. Both engines.
func TestDealerGoCountsOncePerMinute(t *testing.T) {
	var now atomic.Int64
	now.Store(intelNow.UnixNano())
	mod := func(o *app.Options) {
		offline(t)(o)
		o.Now = func() time.Time { return time.Unix(0, now.Load()).UTC() }
	}
	eachEngine(t, mod, func(t *testing.T, e *env) {
		ctx := context.Background()
		start := time.Unix(0, now.Load())
		rows := func() int {
			t.Helper()
			clicks, err := e.store.DealerClicks(ctx, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			return len(clicks)
		}
		base := rows()
		visitor := e.browser()
		click := func(b *browser, path, want string) {
			t.Helper()
			r := b.send(httptest.NewRequest("GET", path, nil))
			if r.Status != 302 || r.Header.Get("Location") != want {
				t.Fatalf("%s: %d %q", path, r.Status, r.Header.Get("Location"))
			}
		}
		for range 50 {
			click(visitor, "/go/apmex/silver-bar-10oz", "https://www.apmex.com/")
		}
		if n := rows() - base; n != 1 {
			t.Fatalf("50 clicks in a minute wrote %d rows", n)
		}
		click(visitor, "/go/jm-bullion/silver-bar-10oz", "https://www.jmbullion.com/")
		if n := rows() - base; n != 2 {
			t.Fatalf("another dealer: %d rows", n)
		}
		member := e.browser()
		member.signUp("clicker@example.test")
		click(member, "/go/apmex/silver-bar-10oz", "https://www.apmex.com/")
		click(member, "/go/apmex/silver-bar-10oz", "https://www.apmex.com/")
		if n := rows() - base; n != 3 {
			t.Fatalf("a member's clicks: %d rows", n)
		}
		now.Store(start.Add(time.Minute).UnixNano())
		click(visitor, "/go/apmex/silver-bar-10oz", "https://www.apmex.com/")
		if n := rows() - base; n != 4 {
			t.Fatalf("the next minute: %d rows", n)
		}
		now.Store(start.UnixNano())
	})
}
