package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/mail/mailtest"
)

// TestForgotPasswordLimitedPerAddress (issue 29): one client address may ask for three reset
// links an hour (whatever addresses it names); the fourth is a 429 page with Retry-After that
// keeps what was typed and mails nothing; another client address is not affected, and the
// next hour on the server's clock (a fake one: no sleeping) the first address may ask again.
// Both engines: PostgreSQL counts in the shared rate_limits table, SQLite in memory.
func TestForgotPasswordLimitedPerAddress(t *testing.T) {
	smtpSrv := mailtest.Start(t, mailtest.Options{NoTLS: true})
	var now atomic.Int64
	mod := func(o *app.Options) {
		withSMTP(smtpSrv)(o)
		o.Config.Mail.ResetsPerIP = 3
		o.Now = func() time.Time { return time.Unix(0, now.Load()).UTC() }
	}
	eachEngine(t, mod, func(t *testing.T, e *env) {
		ctx := context.Background()
		// The middle of a window, so the reset time is known: 30 minutes on.
		now.Store(time.Date(2026, 11, 27, 12, 30, 0, 0, time.UTC).UnixNano())
		member, _ := e.user("limited@example.test", db.TierGold)
		base := e.live()
		ask := func(from, email string) liveResp {
			t.Helper()
			c := newLiveClient(t, base, from)
			c.get("/forgot-password")
			return c.post("/forgot-password", url.Values{"email": {email}})
		}
		resetRows := func() int {
			t.Helper()
			n, err := e.store.MailTokensSince(ctx, member.ID, db.TokenReset, 0)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}

		// Mistakes in the form cost nothing and are not counted.
		for range 3 {
			if r := ask("127.0.0.1", "not-an-address"); r.Status != http.StatusUnprocessableEntity {
				t.Fatalf("invalid address: %d", r.Status)
			}
		}
		for i := range 3 {
			if r := ask("127.0.0.1", "stranger"+strconv.Itoa(i)+"@example.test"); r.Status != http.StatusOK {
				t.Fatalf("request %d: %d", i+1, r.Status)
			}
		}
		r := ask("127.0.0.1", member.Email)
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("fourth request from one address: %d, want 429", r.Status)
		}
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		if err != nil || retry < 30*60 || retry > 30*60+1 {
			t.Fatalf("Retry-After %q, want the 1800 s left of the hour", r.Header.Get("Retry-After"))
		}
		if !strings.Contains(r.Body, "Too many password reset requests from your address") ||
			!strings.Contains(r.Body, `value="`+member.Email+`"`) {
			t.Fatalf("the 429 page does not say why or lost the address:\n%s", r.Body)
		}
		if n := resetRows(); n != 0 {
			t.Fatalf("the refused request made %d reset links", n)
		}

		// Another client address has its own count.
		if r := ask("127.0.0.3", member.Email); r.Status != http.StatusOK {
			t.Fatalf("another address: %d", r.Status)
		}
		if n := resetRows(); n != 1 {
			t.Fatalf("reset links after the allowed request: %d, want 1", n)
		}

		// The next window on the server's clock: the first address may ask again.
		now.Add(int64(31 * time.Minute))
		if r := ask("127.0.0.1", "stranger9@example.test"); r.Status != http.StatusOK {
			t.Fatalf("next hour: %d", r.Status)
		}
	})
}
