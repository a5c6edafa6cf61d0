package web_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestUnreadStreamPushedFromTheWrite: a firing for one member reaches that member's open
// /notifications/stream as its new unread count, and "mark read" sends it back to 0; another
// member's stream sends nothing in between (its next event is its own count after its own
// notification). Both engines.
func TestUnreadStreamPushedFromTheWrite(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		base := e.live()
		ctx := context.Background()
		type stream struct {
			events chan string
		}
		open := func(email string) *stream {
			b := e.browser()
			b.signUp(email)
			jar, _ := cookiejar.New(nil)
			u, _ := url.Parse(base)
			for k, v := range b.cookies {
				jar.SetCookies(u, []*http.Cookie{{Name: k, Value: v, Path: "/"}})
			}
			res, err := (&http.Client{Jar: jar}).Get(base + "/notifications/stream")
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("stream for %s: %v %v", email, res, err)
			}
			t.Cleanup(func() { res.Body.Close() })
			s := &stream{events: make(chan string, 16)}
			go func() {
				rd := bufio.NewReader(res.Body)
				var ev strings.Builder
				for {
					line, err := rd.ReadString('\n')
					if err != nil {
						close(s.events)
						return
					}
					if line == "\n" {
						if strings.HasPrefix(ev.String(), "event: unread") {
							s.events <- strings.TrimSpace(strings.TrimPrefix(ev.String(), "event: unread\ndata: "))
						}
						ev.Reset()
						continue
					}
					ev.WriteString(line)
				}
			}()
			return s
		}
		next := func(s *stream, who string) string {
			t.Helper()
			select {
			case v := <-s.events:
				return v
			case <-time.After(15 * time.Second):
				t.Fatalf("%s's stream said nothing", who)
				return ""
			}
		}
		sa, sb := open("a@example.com"), open("b@example.com")
		if v := next(sa, "a"); v != "0" {
			t.Fatalf("a starts at %s", v)
		}
		if v := next(sb, "b"); v != "0" {
			t.Fatalf("b starts at %s", v)
		}

		svc := e.app.Alerts
		spot := e.app.Market.Snapshot().Prices[metals.Silver].Price
		target := spot.Mul(decimal.RequireFromString("1.5")).Round(2)
		fire := func(email string) {
			t.Helper()
			u, err := e.store.UserByEmail(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			m, dir, rep := "silver", "above", "once"
			if _, err := svc.Create(ctx, u, alerts.AlertInput{Metal: &m, Direction: &dir, TargetPrice: &target, Repeat: &rep}); err != nil {
				t.Fatal(err)
			}
			if r, err := svc.Evaluate(ctx, alerts.Tick{Metal: metals.Silver, Price: target.Add(decimal.NewFromInt(1)), AsOf: time.Now()}); err != nil || r.Fired != 1 {
				t.Fatalf("fired %+v %v", r, err)
			}
			if _, err := svc.Evaluate(ctx, alerts.Tick{Metal: metals.Silver, Price: spot, AsOf: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		fire("a@example.com")
		if v := next(sa, "a"); v != "1" {
			t.Fatalf("a's stream says %s after the firing, want 1", v)
		}
		ua, _ := e.store.UserByEmail(ctx, "a@example.com")
		if err := svc.MarkRead(ctx, ua); err != nil {
			t.Fatal(err)
		}
		if v := next(sa, "a"); v != "0" {
			t.Fatalf("a's stream says %s after reading, want 0", v)
		}
		fire("b@example.com")
		if v := next(sb, "b"); v != "1" {
			t.Fatalf("b's next event is %s, want its own count 1 (nothing from a's writes)", v)
		}
	})
}
