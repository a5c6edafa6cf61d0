package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/mail"
	"github.com/ouncehq/ounce/internal/mail/mailtest"
)

// withSMTP points the app's mail at a real SMTP server on loopback (plain: loopback allowed).
func withSMTP(srv *mailtest.Server) func(*app.Options) {
	return func(o *app.Options) {
		o.Config.Mail = mail.Config{SMTPURL: srv.URL(), From: "Ounce <ounce@ounce.test>", AllowPlainLoopback: true}
	}
}

// mailTo drains the outbox and returns the body of the last message to addr whose subject
// holds subject.
func mailTo(t *testing.T, e *env, srv *mailtest.Server, addr, subject string) string {
	t.Helper()
	if _, err := e.app.Mail.DrainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		h, body := msgs[i].Parsed(t)
		if msgs[i].To[0] == addr && strings.Contains(h.Header.Get("Subject"), subject) {
			return body
		}
	}
	t.Fatalf("no mail %q to %s among %d", subject, addr, len(msgs))
	return ""
}

var pathTokenRE = regexp.MustCompile(`http://ounce\.test(/[a-z-]+\?token=[A-Za-z0-9_%.-]+)`)

func TestForgotPasswordByMailEndToEnd(t *testing.T) {
	smtpSrv := mailtest.Start(t, mailtest.Options{NoTLS: true})
	eachEngine(t, withSMTP(smtpSrv), func(t *testing.T, e *env) {
		email := "forgetful@example.test"
		member := e.browser()
		if r := member.signUp(email); r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
			t.Fatalf("sign-up: %d", r.Status)
		}
		if r := member.get("/settings/account"); r.Status != 200 || !strings.Contains(string(r.Body), `id="mail-unverified"`) {
			t.Fatalf("settings before confirming: %d", r.Status)
		}
		// The confirmation link mailed at sign-up confirms the address.
		verify := pathTokenRE.FindStringSubmatch(mailTo(t, e, smtpSrv, email, "Confirm your address"))
		if verify == nil {
			t.Fatal("no confirmation link")
		}
		anon := e.browser()
		anon.get(verify[1])
		if r := anon.post("/verify-email", url.Values{"token": {tokenOf(t, verify[1])}}, false); r.Status != 200 {
			t.Fatalf("confirm: %d %s", r.Status, r.Body)
		}
		if r := member.get("/settings/account"); !strings.Contains(string(r.Body), `id="mail-verified"`) {
			t.Fatal("address not shown as confirmed")
		}

		// Signed out, someone asks for a link: the same answer for an address with no account.
		if r := anon.get("/login"); !strings.Contains(string(r.Body), `href="/forgot-password"`) {
			t.Fatal("no Forgot password? link on the login page")
		}
		anon.get("/forgot-password")
		known := anon.post("/forgot-password", url.Values{"email": {strings.ToUpper(email)}}, false)
		unknown := anon.post("/forgot-password", url.Values{"email": {"nobody@example.test"}}, false)
		if known.Status != 200 || unknown.Status != 200 || !strings.Contains(string(known.Body), "If an account has that address") ||
			answerOf(known.Body) != answerOf(unknown.Body) {
			t.Fatalf("answers differ: %d %d", known.Status, unknown.Status)
		}
		reset := pathTokenRE.FindStringSubmatch(mailTo(t, e, smtpSrv, email, "Reset your Ounce password"))
		if reset == nil || !strings.HasPrefix(reset[1], "/reset-password?") {
			t.Fatal("no reset link")
		}
		for _, m := range smtpSrv.Messages() {
			if m.To[0] == "nobody@example.test" {
				t.Fatal("mail sent to an address with no account")
			}
		}

		// The link works once.
		if r := anon.get(reset[1]); r.Status != 200 || r.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Fatalf("reset page: %d %v", r.Status, r.Header.Get("Referrer-Policy"))
		}
		tok := tokenOf(t, reset[1])
		if r := anon.post("/reset-password", url.Values{"token": {tok}, "password": {"short"}}, false); r.Status != http.StatusUnprocessableEntity {
			t.Fatalf("weak password: %d", r.Status)
		}
		if r := anon.post("/reset-password", url.Values{"token": {tok}, "password": {"a new and long passphrase"}}, false); r.Status != 200 ||
			!strings.Contains(string(r.Body), "Your password is changed") {
			t.Fatalf("reset: %d %s", r.Status, r.Body)
		}
		anon.get("/reset-password?token=" + url.QueryEscape(tok))
		if r := anon.post("/reset-password", url.Values{"token": {tok}, "password": {"yet another long passphrase"}}, false); r.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(string(r.Body), "expired or was already used") {
			t.Fatalf("second use: %d", r.Status)
		}
		// Every session of the member is signed out; the new password signs in.
		if r := member.get("/settings/account"); r.Status == 200 {
			t.Fatal("the member's old session still works after the reset")
		}
		fresh := e.browser()
		fresh.get("/login")
		if r := fresh.post("/login", url.Values{"email": {email}, "password": {"a new and long passphrase"}}, false); r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
			t.Fatalf("sign in with the new password: %d", r.Status)
		}
		mailTo(t, e, smtpSrv, email, "password was changed")

		// Alerts by email, then stopped with the one-click POST a mail client makes.
		fresh.get("/settings/account")
		if r := fresh.post("/settings/account/mail", url.Values{"alerts": {"on"}}, false); r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
			t.Fatalf("opt in: %d %s", r.Status, r.Body)
		}
		u, _ := e.store.UserByEmail(context.Background(), email)
		if p, _ := e.app.Mail.PrefsOf(context.Background(), u); !p.Alerts {
			t.Fatal("opt-in not stored")
		}
		tokU, err := e.app.Mail.UnsubscribeToken(context.Background(), u.ID, db.ListAlerts)
		if err != nil {
			t.Fatal(err)
		}
		bad := oneClick(e, tokU+"x")
		if bad.Status != http.StatusBadRequest {
			t.Fatalf("forged token: %d %s", bad.Status, bad.Body)
		}
		if r := oneClick(e, tokU); r.Status != 200 || r.JSON(t)["unsubscribed"] != "price alerts by email" {
			t.Fatalf("one-click: %d %s", r.Status, r.Body)
		}
		if p, err := e.app.Mail.PrefsOf(context.Background(), u); err != nil || p.Alerts {
			t.Fatalf("still subscribed after the one-click unsubscribe: %+v %v", p, err)
		}

		// Changes in the settings: the password notice, then the old address told of a new one.
		before := countMail(t, smtpSrv, email, "password was changed")
		fresh.get("/settings/account")
		if r := fresh.post("/settings/account/password", url.Values{"current_password": {"a new and long passphrase"},
			"new_password": {"the third long passphrase"}}, false); r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
			t.Fatalf("password change: %d", r.Status)
		}
		mailTo(t, e, smtpSrv, email, "password was changed")
		if n := countMail(t, smtpSrv, email, "password was changed"); n != before+1 {
			t.Fatalf("password change notices: %d → %d", before, n)
		}
		fresh.get("/settings/account")
		if r := fresh.post("/settings/account/email", url.Values{"email": {"moved@example.test"}, "email_password": {"the third long passphrase"}}, false); r.Status != http.StatusSeeOther && r.Status != http.StatusFound {
			t.Fatalf("email change: %d", r.Status)
		}
		if body := mailTo(t, e, smtpSrv, email, "sign-in address was changed"); !strings.Contains(body, "moved@example.test") {
			t.Fatalf("notice to the old address: %s", body)
		}
		mailTo(t, e, smtpSrv, "moved@example.test", "Confirm your address")
	})
}

// countMail counts the messages to addr whose subject holds subject.
func countMail(t *testing.T, srv *mailtest.Server, addr, subject string) int {
	n := 0
	for _, m := range srv.Messages() {
		if h, _ := m.Parsed(t); m.To[0] == addr && strings.Contains(h.Header.Get("Subject"), subject) {
			n++
		}
	}
	return n
}

// oneClick is the RFC 8058 POST of a mail client: no cookie, no key.
func oneClick(e *env, token string) resp {
	req := httptest.NewRequest("POST", "/v1/mail/unsubscribe?token="+url.QueryEscape(token), strings.NewReader("List-Unsubscribe=One-Click"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.do(req)
}

func tokenOf(t *testing.T, pathQuery string) string {
	t.Helper()
	u, err := url.Parse(pathQuery)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("token")
}

var statusRE = regexp.MustCompile(`(?s)role="status"[^>]*>(.*?)<`)

// answerOf is the page's status message.
func answerOf(b []byte) string {
	if m := statusRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

func TestMailOffPagesSaySoAndQueueNothing(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	anon := e.browser()
	if r := anon.get("/forgot-password"); r.Status != 200 || !strings.Contains(string(r.Body), "Mail is off on this server") {
		t.Fatalf("forgot page with mail off: %d", r.Status)
	}
	u, _ := e.user("offline@example.test", "free")
	anon.get("/login") // the forgot page has no form with mail off: a form token from elsewhere
	if r := anon.post("/forgot-password", url.Values{"email": {u.Email}}, false); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("reset request with mail off: %d", r.Status)
	}
	b := e.browser()
	b.signUp("mailoff@example.test")
	if r := b.get("/settings/account"); !strings.Contains(string(r.Body), `id="mail-off"`) {
		t.Fatal("settings do not say mail is off")
	}
	for _, who := range []string{u.Email, "mailoff@example.test"} {
		x, _ := e.store.UserByEmail(context.Background(), who)
		if rows, _ := e.store.MailRows(context.Background(), x.ID); len(rows) != 0 {
			t.Fatalf("queued with mail off: %+v", rows)
		}
	}
}
