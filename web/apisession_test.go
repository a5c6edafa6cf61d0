package web_test

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// A signed-in browser calls /v1 with its session cookie: reads need nothing more, writes need
// the page's CSRF token in X-CSRF-Token, and without a session the key is still required.
func TestAPIAcceptsSessionWithCSRF(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		b := e.browser()
		if r := b.signUp("session-api@example.com"); r.Status >= 400 {
			t.Fatalf("sign-up: %d %s", r.Status, r.Body)
		}
		b.get("/holdings")
		if b.csrf == "" {
			t.Fatal("no CSRF token on /holdings")
		}
		if r := b.get("/v1/holdings"); r.Status != 200 {
			t.Fatalf("GET /v1/holdings with a session: %d %s", r.Status, r.Body)
		}
		body := `{"metal":"silver","product_name":"1 oz Eagle","quantity":2,"weight_oz":1,"purchase_price":32.50,"purchase_date":"2026-11-02"}`
		post := func(csrf string) resp {
			req := httptest.NewRequest("POST", "/v1/holdings", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if csrf != "" {
				req.Header.Set("X-CSRF-Token", csrf)
			}
			return b.send(req)
		}
		if r := post(""); r.Status != 403 || !strings.Contains(string(r.Body), "X-CSRF-Token") {
			t.Fatalf("POST without the CSRF token: %d %s, want 403 naming X-CSRF-Token", r.Status, r.Body)
		}
		if r := post("not-the-token"); r.Status != 403 {
			t.Fatalf("POST with a wrong CSRF token: %d, want 403", r.Status)
		}
		if r := post(b.csrf); r.Status != 201 {
			t.Fatalf("POST with the session's CSRF token: %d %s, want 201", r.Status, r.Body)
		}
		if r := b.get("/v1/holdings"); !strings.Contains(string(r.Body), "1 oz Eagle") {
			t.Fatalf("the holding made through the session is not listed: %s", r.Body)
		}
		anon := e.browser()
		if r := anon.get("/v1/holdings"); r.Status != 401 {
			t.Fatalf("GET /v1/holdings without a session or key: %d, want 401", r.Status)
		}
		// A signed-out session cookie is anonymous again.
		b.post("/logout", nil, false)
		if r := b.get("/v1/holdings"); r.Status != 401 {
			t.Fatalf("GET /v1/holdings after sign-out: %d, want 401", r.Status)
		}
	})
}
