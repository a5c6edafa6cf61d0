package mail_test

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/mail"
	"github.com/ouncehq/ounce/internal/mail/mailtest"
)

// clock is a settable time for the service and the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type fixture struct {
	store *db.Store
	svc   *mail.Service
	smtp  *mailtest.Server
	clock *clock
}

func newFixture(t *testing.T, s *db.Store, o mailtest.Options) *fixture {
	srv := mailtest.Start(t, o)
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	s.Now = c.now
	svc := mail.New(mail.Deps{Store: s, Now: c.now, TLSConfig: srv.ClientTLS, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Config: mail.Config{SMTPURL: srv.URL(), From: "Ounce <ounce@example.test>", BaseURL: "https://ounce.example", AllowPlainLoopback: o.NoTLS}})
	return &fixture{store: s, svc: svc, smtp: srv, clock: c}
}

func (fx *fixture) user(t *testing.T, email string) db.User {
	t.Helper()
	u, err := account.New(account.Deps{Store: fx.store}).CreateUser(context.Background(), account.NewUser{
		Credentials: account.Credentials{Email: email, Password: "correct horse battery"}})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (fx *fixture) drain(t *testing.T) {
	t.Helper()
	if _, err := fx.svc.DrainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var linkRE = regexp.MustCompile(`https://ounce\.example(/[a-z-]+)\?token=([A-Za-z0-9_.-]+)`)

// linkIn finds the link to path in a message body.
func linkIn(t *testing.T, body, path string) string {
	t.Helper()
	for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
		if m[1] == path {
			tok, _ := url.QueryUnescape(m[2])
			return tok
		}
	}
	t.Fatalf("no %s link in:\n%s", path, body)
	return ""
}

func TestResetPasswordByMail(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		fx := newFixture(t, s, mailtest.Options{User: "relay", Pass: "relay-secret"})
		u := fx.user(t, "forgot@example.test")

		// The same answer for a stranger's address, and nothing sent to it.
		if err := fx.svc.RequestReset(ctx, "nobody@example.test"); err != nil {
			t.Fatalf("unknown address: %v", err)
		}
		if err := fx.svc.RequestReset(ctx, "Forgot@Example.test"); err != nil {
			t.Fatal(err)
		}
		fx.drain(t)
		msgs := fx.smtp.Messages()
		if len(msgs) != 1 || msgs[0].To[0] != "forgot@example.test" || !msgs[0].TLS || msgs[0].User != "relay" {
			t.Fatalf("want one message over STARTTLS, authenticated, to the member: %+v", msgs)
		}
		hdr, body := msgs[0].Parsed(t)
		if hdr.Header.Get("List-Unsubscribe") != "" {
			t.Error("account mail must not offer an unsubscribe")
		}
		tok := linkIn(t, body, "/reset-password")
		// The stored row keeps no link once sent; only the hash of the token is stored.
		rows, _ := s.MailRows(ctx, u.ID)
		if len(rows) != 1 || rows[0].Status != db.MailSent || rows[0].Body != "" {
			t.Fatalf("outbox row after sending: %+v", rows)
		}

		// Asking again at once sends nothing more.
		if err := fx.svc.RequestReset(ctx, u.Email); err != nil {
			t.Fatal(err)
		}
		fx.drain(t)
		if n := len(fx.smtp.Messages()); n != 1 {
			t.Fatalf("a second request within a minute sent mail: %d messages", n)
		}

		if _, err := fx.svc.ResetPassword(ctx, tok, "short"); apperr.KindOf(err) != apperr.Invalid {
			t.Fatalf("weak password: %v", err)
		}
		nu, err := fx.svc.ResetPassword(ctx, tok, "a brand new passphrase")
		if err != nil {
			t.Fatal(err)
		}
		if nu.SessionGen <= u.SessionGen {
			t.Errorf("sessions not signed out: gen %d → %d", u.SessionGen, nu.SessionGen)
		}
		if !account.CheckPassword(nu.PasswordHash, "a brand new passphrase") {
			t.Error("new password not stored")
		}
		if _, err := fx.svc.ResetPassword(ctx, tok, "another new passphrase"); err != mail.ErrBadToken {
			t.Fatalf("second use: %v", err)
		}
		fx.drain(t)
		msgs = fx.smtp.Messages()
		if len(msgs) != 2 {
			t.Fatalf("want the notice of the change: %d messages", len(msgs))
		}
		if h, _ := msgs[1].Parsed(t); !strings.Contains(h.Header.Get("Subject"), "password was changed") {
			t.Errorf("notice subject %q", h.Header.Get("Subject"))
		}

		// A link older than an hour is refused.
		fx.clock.add(2 * time.Minute)
		if err := fx.svc.RequestReset(ctx, u.Email); err != nil {
			t.Fatal(err)
		}
		fx.drain(t)
		msgs = fx.smtp.Messages()
		_, body = msgs[len(msgs)-1].Parsed(t)
		late := linkIn(t, body, "/reset-password")
		fx.clock.add(61 * time.Minute)
		if _, err := fx.svc.ResetPassword(ctx, late, "a brand new passphrase 2"); err != mail.ErrBadToken {
			t.Fatalf("expired link: %v", err)
		}
	})
}

// verified makes u's address confirmed through the mailed link.
func (fx *fixture) verified(t *testing.T, u db.User) {
	t.Helper()
	ctx := context.Background()
	if err := fx.svc.SendVerification(ctx, u); err != nil {
		t.Fatal(err)
	}
	fx.drain(t)
	msgs := fx.smtp.Messages()
	_, body := msgs[len(msgs)-1].Parsed(t)
	if _, err := fx.svc.VerifyEmail(ctx, linkIn(t, body, "/verify-email")); err != nil {
		t.Fatal(err)
	}
}

func TestAlertAndBriefByMailOnceWithOneClickUnsubscribe(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		fx := newFixture(t, s, mailtest.Options{})
		u := fx.user(t, "alerts@example.test")
		other := fx.user(t, "quiet@example.test") // verified but not opted in
		fx.verified(t, u)
		fx.verified(t, other)
		sent := len(fx.smtp.Messages())
		p, err := fx.svc.PrefsOf(ctx, u)
		if err != nil || !p.Verified || p.Alerts {
			t.Fatalf("prefs after verifying: %+v %v", p, err)
		}
		fire := func(who db.User, target int64) {
			t.Helper()
			now := fx.clock.now().UnixMilli()
			if _, err := s.InsertAlert(ctx, db.PriceAlert{UserID: who.ID, Metal: "gold", Direction: "above", TargetUnits: target, RearmUnits: target,
				ArmUnits: target, Repeat: "once", Enabled: true, Armed: true, CreatedAt: now, UpdatedAt: now}, 50); err != nil {
				t.Fatal(err)
			}
			if r, err := s.EvaluateTick(ctx, "gold", target+10000, now, now); err != nil || len(r.Fired) == 0 {
				t.Fatalf("tick: %+v %v", r, err)
			}
		}
		fire(u, 24000000) // before opting in: never mailed
		fx.clock.add(time.Second)
		if err := fx.svc.SetLists(ctx, u, true, true); err != nil {
			t.Fatal(err)
		}
		fx.clock.add(time.Second)
		fire(u, 25000000)
		fire(other, 25000000)
		if _, err := s.SaveBrief(ctx, db.Brief{ID: "brief-1", UserID: u.ID, Day: db.NewDate(fx.clock.now()), GeneratedAt: fx.clock.now(),
			Writer: "builtin", Content: "Gold is up."}, false); err != nil {
			t.Fatal(err)
		}
		for range 2 { // sweeping twice mails each once
			if _, err := fx.svc.Sweep(ctx); err != nil {
				t.Fatal(err)
			}
			fx.drain(t)
		}
		msgs := fx.smtp.Messages()[sent:]
		if len(msgs) != 2 {
			t.Fatalf("want one alert and one brief, got %d", len(msgs))
		}
		var unsub string
		for _, m := range msgs {
			h, body := m.Parsed(t)
			if m.To[0] != u.Email {
				t.Errorf("mail to %v", m.To)
			}
			if h.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
				t.Errorf("no one-click header: %v", h.Header)
			}
			lu := h.Header.Get("List-Unsubscribe")
			if !strings.HasPrefix(lu, "<https://ounce.example/v1/mail/unsubscribe?token=") {
				t.Errorf("List-Unsubscribe %q", lu)
			}
			if strings.Contains(h.Header.Get("Subject"), "Price alert") {
				if !strings.Contains(body, "$2,500.00") || !strings.Contains(body, "$2,501.00") {
					t.Errorf("alert body: %s", body)
				}
				unsub = strings.TrimSuffix(strings.TrimPrefix(lu, "<https://ounce.example/v1/mail/unsubscribe?token="), ">")
			}
		}
		if _, err := fx.svc.Unsubscribe(ctx, unsub+"x"); apperr.KindOf(err) != apperr.Invalid {
			t.Fatalf("forged token: %v", err)
		}
		if _, err := fx.svc.Unsubscribe(ctx, strings.Replace(unsub, "alerts", "brief", 1)); apperr.KindOf(err) != apperr.Invalid {
			t.Fatalf("token for another list: %v", err)
		}
		if name, err := fx.svc.Unsubscribe(ctx, unsub); err != nil || name != "price alerts by email" {
			t.Fatalf("unsubscribe: %q %v", name, err)
		}
		if p, _ := fx.svc.PrefsOf(ctx, u); p.Alerts || !p.Brief {
			t.Fatalf("after unsubscribing from alerts: %+v", p)
		}
		fire(u, 26000000)
		if n, err := fx.svc.Sweep(ctx); err != nil || n != 0 {
			t.Fatalf("alert mailed after unsubscribing: %d %v", n, err)
		}
	})
}

func TestMailRetriesThenGivesUp(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		fx := newFixture(t, s, mailtest.Options{})
		u := fx.user(t, "retry@example.test")
		fx.smtp.FailNext(1)
		if err := fx.svc.SendVerification(ctx, u); err != nil {
			t.Fatal(err)
		}
		fx.drain(t)
		rows, _ := s.MailRows(ctx, u.ID)
		if len(rows) != 1 || rows[0].Status != db.MailPending || rows[0].Attempts != 1 || rows[0].Body == "" {
			t.Fatalf("after a 451: %+v", rows)
		}
		fx.drain(t) // not due yet
		if len(fx.smtp.Messages()) != 0 {
			t.Fatal("retried before its time")
		}
		fx.clock.add(mail.Backoff(1))
		fx.drain(t)
		if len(fx.smtp.Messages()) != 1 {
			t.Fatal("not retried after the back-off")
		}
		fx.drain(t)
		if len(fx.smtp.Messages()) != 1 {
			t.Fatal("sent twice")
		}

		fx.smtp.RefuseAll(true)
		if err := fx.svc.SendVerification(ctx, u); err != nil {
			t.Fatal(err)
		}
		fx.drain(t)
		rows, _ = s.MailRows(ctx, u.ID)
		if last := rows[len(rows)-1]; last.Status != db.MailFailed || last.Attempts != 1 || last.Body != "" {
			t.Fatalf("a 550 is not retried: %+v", last)
		}
	})
}

func TestMailOffQueuesNothing(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	svc := mail.New(mail.Deps{Store: s})
	u, err := account.New(account.Deps{Store: s}).CreateUser(ctx, account.NewUser{Credentials: account.Credentials{Email: "off@example.test", Password: "correct horse battery"}})
	if err != nil {
		t.Fatal(err)
	}
	if svc.Enabled() {
		t.Fatal("enabled without OUNCE_SMTP_URL")
	}
	if err := svc.RequestReset(ctx, u.Email); apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("reset with mail off: %v", err)
	}
	acct := account.New(account.Deps{Store: s})
	acct.SetNotices(svc)
	if _, err := acct.ChangePassword(ctx, u, "correct horse battery", "another long passphrase"); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetLists(ctx, u, true, false); apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("opt in with mail off: %v", err)
	}
	if rows, _ := s.MailRows(ctx, u.ID); len(rows) != 0 {
		t.Fatalf("queued with mail off: %+v", rows)
	}
}

func TestParseSMTPURL(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		port int
		tls  bool
		loop bool
	}{
		{"smtp://user:pa%40ss@mail.example.com:587", true, 587, false, false},
		{"smtp://mail.example.com", true, 587, false, false},
		{"smtps://mail.example.com", true, 465, true, false},
		{"smtp://127.0.0.1:2525", true, 2525, false, true},
		{"http://mail.example.com", false, 0, false, false},
		{"smtp://mail.example.com:99999", false, 0, false, false},
		{"smtp://", false, 0, false, false},
		{"smtp://mail.example.com/path", false, 0, false, false},
	} {
		tg, err := mail.ParseSMTPURL(c.in)
		if (err == nil) != c.ok || c.ok && (tg.Port != c.port || tg.Implicit != c.tls || tg.Loopback != c.loop) {
			t.Errorf("%s: %+v %v", c.in, tg, err)
		}
	}
	if tg, _ := mail.ParseSMTPURL("smtp://user:pa%40ss@mail.example.com"); tg.Password != "pa@ss" {
		t.Errorf("password %q", tg.Password)
	}
	if err := (mail.Config{SMTPURL: "smtp://h", From: ""}).Check(); err == nil {
		t.Error("no From accepted")
	}
}

func TestEmailChangeTellsTheOldAddressAndConfirmsTheNew(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		fx := newFixture(t, s, mailtest.Options{})
		u := fx.user(t, "old@example.test")
		if err := fx.svc.SendVerification(ctx, u); err != nil {
			t.Fatal(err)
		}
		fx.drain(t)
		_, body := fx.smtp.Messages()[0].Parsed(t)
		stale := linkIn(t, body, "/verify-email")

		acct := account.New(account.Deps{Store: s})
		acct.SetNotices(fx.svc)
		nu, err := acct.ChangeEmail(ctx, u, "correct horse battery", "new@example.test")
		if err != nil {
			t.Fatal(err)
		}
		// Both messages and the new link were written by the change itself.
		rows, _ := s.MailRows(ctx, u.ID)
		if n := len(rows); n != 3 || rows[1].Kind != "email-changed" || rows[2].Kind != "verify" || rows[2].Status != db.MailPending {
			t.Fatalf("outbox after the change: %+v", rows)
		}
		fx.drain(t)
		msgs := fx.smtp.Messages()[1:]
		if len(msgs) != 2 || msgs[0].To[0] != "old@example.test" || msgs[1].To[0] != "new@example.test" {
			t.Fatalf("want a notice to the old address and a confirmation to the new: %+v", msgs)
		}
		h, body := msgs[0].Parsed(t)
		if !strings.Contains(h.Header.Get("Subject"), "sign-in address was changed") || !strings.Contains(body, "new@example.test") {
			t.Errorf("notice: %s %s", h.Header.Get("Subject"), body)
		}
		// A link mailed to the old address confirms nothing now.
		if _, err := fx.svc.VerifyEmail(ctx, stale); err != mail.ErrBadToken {
			t.Fatalf("stale confirmation: %v", err)
		}
		_, body = msgs[1].Parsed(t)
		if _, err := fx.svc.VerifyEmail(ctx, linkIn(t, body, "/verify-email")); err != nil {
			t.Fatal(err)
		}
		if p, _ := fx.svc.PrefsOf(ctx, nu); !p.Verified {
			t.Error("new address not confirmed")
		}
		if p, _ := fx.svc.PrefsOf(ctx, u); p.Verified {
			t.Error("the old address counts as confirmed")
		}
		// A password change in the settings is told to the address, written with the change.
		if _, err := acct.ChangePassword(ctx, nu, "correct horse battery", "a different passphrase"); err != nil {
			t.Fatal(err)
		}
		rows, _ = s.MailRows(ctx, u.ID)
		if last := rows[len(rows)-1]; last.Kind != "password-changed" || last.To != "new@example.test" || last.Status != db.MailPending {
			t.Fatalf("password notice: %+v", last)
		}
	})
}

func TestResetRequestsAreCappedPerAccount(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	fx := newFixture(t, s, mailtest.Options{})
	u := fx.user(t, "flooded@example.test")
	for range 8 {
		if err := fx.svc.RequestReset(ctx, u.Email); err != nil {
			t.Fatal(err)
		}
		fx.clock.add(2 * time.Minute)
	}
	fx.drain(t)
	if n := len(fx.smtp.Messages()); n != 5 {
		t.Fatalf("%d reset mails in 16 minutes, want the hourly cap of 5", n)
	}
}

func TestPlainSMTPOnlyWhenAllowedOnLoopback(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	srv := mailtest.Start(t, mailtest.Options{NoTLS: true}) // offers no STARTTLS
	c := &clock{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
	s.Now = c.now
	u, err := account.New(account.Deps{Store: s}).CreateUser(ctx, account.NewUser{Credentials: account.Credentials{Email: "plain@example.test", Password: "correct horse battery"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		svc := mail.New(mail.Deps{Store: s, Now: c.now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Config: mail.Config{SMTPURL: srv.URL(), From: "ounce@example.test", BaseURL: "https://ounce.example", AllowPlainLoopback: allow}})
		if err := svc.SendVerification(ctx, u); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.DrainOnce(ctx); err != nil {
			t.Fatal(err)
		}
		got := len(srv.Messages())
		switch {
		case !allow && got != 0:
			t.Fatal("sent in plain although STARTTLS is required")
		case allow && got != 1:
			t.Fatalf("plain on loopback allowed: %d messages", got)
		}
	}
	rows, _ := s.MailRows(ctx, u.ID)
	if rows[0].Status != db.MailPending || rows[0].Attempts != 1 || rows[0].LastError == "" {
		t.Fatalf("the refused plain send is kept for a retry: %+v", rows[0])
	}
}

func TestImplicitTLS(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	fx := newFixture(t, s, mailtest.Options{Implicit: true, User: "relay", Pass: "relay-secret"})
	u := fx.user(t, "tls@example.test")
	if err := fx.svc.SendVerification(ctx, u); err != nil {
		t.Fatal(err)
	}
	fx.drain(t)
	msgs := fx.smtp.Messages()
	if len(msgs) != 1 || !msgs[0].TLS || msgs[0].User != "relay" {
		t.Fatalf("smtps://: %+v", msgs)
	}
}
