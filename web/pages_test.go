package web_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
)

func doc(t *testing.T, r resp) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.Body)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSignUpLoginLogoutAndCookies(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		b := e.browser()
		r := b.signUp("New@Example.com")
		if r.Status != 303 || r.Header.Get("Location") != "/" {
			t.Fatalf("sign-up: %d %s", r.Status, r.Body)
		}
		ck := r.Header.Get("Set-Cookie")
		for _, want := range []string{"ounce_session=", "HttpOnly", "SameSite=Lax"} {
			if !strings.Contains(ck, want) {
				t.Fatalf("cookie %q lacks %s", ck, want)
			}
		}
		if strings.Contains(strings.ToLower(ck), "secure") {
			t.Fatalf("Secure cookie on http base URL: %q", ck)
		}
		home := b.get("/")
		if !strings.Contains(string(home.Body), "new@example.com") {
			t.Fatal("not signed in after sign-up")
		}
		u, err := e.store.UserByEmail(context.Background(), "new@example.com")
		if err != nil || u.Tier != db.TierGold {
			t.Fatalf("self-hosted default tier: %+v %v", u, err)
		}
		before := b.cookies["ounce_session"]
		if r := b.post("/logout", nil, false); r.Status != 303 {
			t.Fatalf("logout: %d", r.Status)
		}
		if b.cookies["ounce_session"] == before {
			t.Fatal("session token not renewed on logout")
		}
		if r := b.get("/holdings"); r.Status != 303 || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
			t.Fatalf("holdings after logout: %d %v", r.Status, r.Header.Get("Location"))
		}
		// Wrong password and unknown account get the same answer.
		b.get("/login")
		wrong := b.post("/login", url.Values{"email": {"new@example.com"}, "password": {"not the password"}}, false)
		unknown := b.post("/login", url.Values{"email": {"nobody@example.com"}, "password": {"not the password"}}, false)
		msg := func(r resp) string { return doc(t, r).Find(`[role="alert"]`).Text() }
		if wrong.Status != 401 || unknown.Status != 401 || msg(wrong) != msg(unknown) || msg(wrong) == "" {
			t.Fatalf("login errors differ: %d %q / %d %q", wrong.Status, msg(wrong), unknown.Status, msg(unknown))
		}
		anon := b.cookies["ounce_session"]
		r = b.post("/login", url.Values{"email": {"NEW@example.com"}, "password": {"correct horse battery"}, "next": {"/holdings"}}, false)
		if r.Status != 303 || r.Header.Get("Location") != "/holdings" || b.cookies["ounce_session"] == anon {
			t.Fatalf("login: %d %v token renewed=%v", r.Status, r.Header.Get("Location"), b.cookies["ounce_session"] != anon)
		}
		// Off-site redirects are refused.
		b.post("/logout", nil, false)
		b.get("/login")
		r = b.post("/login", url.Values{"email": {"new@example.com"}, "password": {"correct horse battery"}, "next": {"//evil.example.com"}}, false)
		if r.Header.Get("Location") != "/" {
			t.Fatalf("open redirect: %v", r.Header.Get("Location"))
		}
	})
}

func TestSignUpValidationAndEnumeration(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	b := e.browser()
	b.get("/signup")
	r := b.post("/signup", url.Values{"email": {"not-an-email"}, "password": {"short"}}, false)
	d := doc(t, r)
	if r.Status != 422 || d.Find("#f-email-error").Text() == "" || d.Find("#f-password-error").Text() == "" {
		t.Fatalf("inline errors: %d %s", r.Status, r.Body)
	}
	if v, _ := d.Find("#f-email").Attr("aria-invalid"); v != "true" {
		t.Fatal("invalid field not marked aria-invalid")
	}
	b.signUp("taken@example.com")
	c := e.browser()
	r = c.signUp("taken@example.com")
	if r.Status != 422 || strings.Contains(strings.ToLower(string(r.Body)), "already registered") {
		t.Fatalf("taken email: %d, leaks existence: %v", r.Status, strings.Contains(string(r.Body), "already"))
	}
}

func TestMembershipDefaultsForNewAccounts(t *testing.T) {
	for _, c := range []struct {
		name string
		gold bool
		want string
	}{{"self-hosted", true, db.TierGold}, {"membership required", false, db.TierFree}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.Account.NewUsersGold = c.gold })
			e.browser().signUp("x@example.com")
			u, _ := e.store.UserByEmail(context.Background(), "x@example.com")
			if u.Tier != c.want {
				t.Fatalf("tier = %s, want %s", u.Tier, c.want)
			}
			b := e.browser()
			b.signUp("y@example.com")
			r := b.get("/holdings")
			if c.want == db.TierFree {
				// The membership page, before any holdings code runs: 403 and the way to Gold.
				if r.Status != 403 || doc(t, r).Find(`a[href="/settings/billing"]`).Length() == 0 || strings.Contains(string(r.Body), "Add holding") {
					t.Fatalf("free member sees holdings page: %d %s", r.Status, r.Body)
				}
			} else if r.Status != 200 {
				t.Fatalf("gold member's holdings page: %d", r.Status)
			}
		})
	}
}

func TestCSRFRequiredOnUnsafeBrowserRequests(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	b := e.browser()
	b.signUp("a@example.com")
	b.get("/holdings/new")
	form := url.Values{"metal": {"gold"}, "quantity": {"1"}, "weight_oz": {"1"}, "purchase_price": {"2000"}, "_csrf": {"forged"}}
	if r := b.post("/holdings", form, false); r.Status != 403 {
		t.Fatalf("forged token: %d", r.Status)
	}
	req := httptest.NewRequest("POST", "/holdings", strings.NewReader("metal=gold"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if r := b.send(req); r.Status != 403 {
		t.Fatalf("no token: %d", r.Status)
	}
	// HTMX sends the token as a header.
	req = httptest.NewRequest("POST", "/holdings", strings.NewReader("metal=gold&quantity=1&weight_oz=1&purchase_price=2000"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("X-CSRF-Token", b.csrf)
	if r := b.send(req); r.Status != 204 || r.Header.Get("HX-Redirect") != "/holdings?saved=1" {
		t.Fatalf("htmx with header token: %d %v", r.Status, r.Header)
	}
}

func TestSecurityHeadersOnPages(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.Site.BaseURL = "https://ounce.example.com" })
	r := e.do(httptest.NewRequest("GET", "/login", nil))
	csp := r.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self' 'nonce-") || strings.Contains(csp, "unsafe-inline") {
		t.Fatalf("CSP = %q", csp)
	}
	for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "strict-origin-when-cross-origin", "Strict-Transport-Security": "max-age="} {
		if !strings.Contains(r.Header.Get(h), want) {
			t.Fatalf("%s = %q", h, r.Header.Get(h))
		}
	}
	if !strings.Contains(strings.ToLower(r.Header.Get("Set-Cookie")), "; secure") {
		t.Fatalf("cookie not Secure on https: %q", r.Header.Get("Set-Cookie"))
	}
	// Every script tag carries the nonce of the CSP header.
	nonce := csp[strings.Index(csp, "'nonce-")+7:]
	nonce = nonce[:strings.Index(nonce, "'")]
	doc(t, r).Find("script").Each(func(_ int, s *goquery.Selection) {
		if n, _ := s.Attr("nonce"); n != nonce {
			t.Fatalf("script without the nonce: %v", s.Nodes[0].Attr)
		}
	})
}

func TestHoldingsPagesFlow(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("ann@example.com")
		b.get("/holdings/new")
		// Inline errors come back as a 422 fragment for HTMX.
		bad := url.Values{"metal": {"gold"}, "quantity": {"0"}, "weight": {"abc"}, "weight_unit": {"oz"}, "purchase_price": {"10"}}
		r := b.post("/holdings", bad, true)
		d := doc(t, r)
		if r.Status != 422 || d.Find("form#holding-form").Length() != 1 || d.Find("header").Length() != 0 {
			t.Fatalf("422 fragment: %d %s", r.Status, r.Body)
		}
		if d.Find("#f-quantity-error").Text() == "" || d.Find("#f-weight-error").Text() == "" {
			t.Fatalf("inline errors missing: %s", r.Body)
		}
		if v, _ := d.Find("#f-weight").Attr("value"); v != "abc" {
			t.Fatalf("bad input not kept: %q", v)
		}
		good := url.Values{"metal": {"silver"}, "product_name": {"10 oz bar"}, "quantity": {"2"}, "weight_oz": {"10"}, "purchase_price": {"320.00"}, "fees": {"15"}, "purchase_date": {"2026-10-01"}}
		if r := b.post("/holdings", good, false); r.Status != 303 {
			t.Fatalf("save: %d %s", r.Status, r.Body)
		}
		list := doc(t, b.get("/holdings"))
		row := list.Find("#holdings-table li[id^=holding-]")
		if row.Length() != 1 || !strings.Contains(row.Text(), "10 oz bar") || !strings.Contains(row.Text(), "$655.00") || !strings.Contains(row.Text(), "2 units") {
			t.Fatalf("list row: %q", row.Text())
		}
		id, _ := row.Attr("id")
		id = strings.TrimPrefix(id, "holding-")
		edit := doc(t, b.get("/holdings/"+id+"/edit"))
		if v, _ := edit.Find("#f-purchase_price").Attr("value"); v != "320.00" {
			t.Fatalf("edit form value %q", v)
		}
		good.Set("quantity", "3")
		if r := b.post("/holdings/"+id, good, false); r.Status != 303 {
			t.Fatalf("update: %d", r.Status)
		}
		// Someone else cannot open or delete it.
		other := e.browser()
		other.signUp("bob@example.com")
		if r := other.get("/holdings/" + id + "/edit"); r.Status != 404 {
			t.Fatalf("bob edits ann's: %d", r.Status)
		}
		other.get("/holdings")
		if r := other.post("/holdings/"+id+"/delete", nil, true); r.Status != 404 || r.Header.Get("HX-Retarget") != "#toasts" {
			t.Fatalf("bob deletes ann's: %d %v", r.Status, r.Header)
		}
		r = b.post("/holdings/"+id+"/delete", nil, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "No holdings yet") {
			t.Fatalf("delete fragment: %d %s", r.Status, r.Body)
		}
	})
}

func TestDeveloperKeysPage(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("dev@example.com")
		b.get("/settings/developer")
		r := b.post("/settings/developer/keys", url.Values{"name": {"sheet sync"}}, true)
		d := doc(t, r)
		key, _ := d.Find("#new-key").Attr("value")
		if r.Status != 200 || !strings.HasPrefix(key, "ounce_") || len(key) < 6+64 || r.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("create key: %d key=%q %v", r.Status, key, r.Header)
		}
		if res := e.api("GET", "/v1/holdings", key, nil); res.Status != 200 {
			t.Fatalf("new key does not work: %d", res.Status)
		}
		// The key is never shown again.
		page := b.get("/settings/developer")
		if strings.Contains(string(page.Body), key) || !strings.Contains(string(page.Body), key[:12]) {
			t.Fatal("listing shows the whole key or not its prefix")
		}
		if r := b.post("/settings/developer/keys", url.Values{"name": {"  "}}, true); r.Status != 422 {
			t.Fatalf("blank name: %d", r.Status)
		}
		keys, _ := e.store.APIKeysByUser(context.Background(), mustUser(t, e, "dev@example.com").ID)
		r = b.post("/settings/developer/keys/"+itoa64(keys[0].ID)+"/revoke", nil, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Revoked") {
			t.Fatalf("revoke: %d", r.Status)
		}
		if res := e.api("GET", "/v1/holdings", key, nil); res.Status != 401 {
			t.Fatalf("revoked key works: %d", res.Status)
		}
		for i := 0; i < 10; i++ {
			b.post("/settings/developer/keys", url.Values{"name": {"k"}}, true)
		}
		if r := b.post("/settings/developer/keys", url.Values{"name": {"eleventh"}}, true); r.Status != 422 || !strings.Contains(string(r.Body), "maximum") {
			t.Fatalf("eleventh key: %d", r.Status)
		}
	})
}

func TestLoginRateLimited(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	e.browser().signUp("target@example.com")
	b := e.browser()
	b.get("/login")
	var last resp
	for i := 0; i < 11; i++ {
		last = b.post("/login", url.Values{"email": {"target@example.com"}, "password": {"guess number " + itoa64(int64(i))}}, false)
	}
	// Five failures from one address are free; after them it backs off (5 s, 10 s, …).
	if last.Status != 429 || last.Header.Get("Retry-After") == "" {
		t.Fatalf("11th attempt from one address on one account: %d", last.Status)
	}
	// Even the right password, from that address, waits out the backoff.
	if r := b.post("/login", url.Values{"email": {"target@example.com"}, "password": {"correct horse battery"}}, false); r.Status != 429 {
		t.Fatalf("right password during lockout: %d", r.Status)
	}
}

func mustUser(t *testing.T, e *env, email string) db.User {
	u, err := e.store.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
