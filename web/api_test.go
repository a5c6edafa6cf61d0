package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
)

func TestAPIAuthentication(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		ctx := context.Background()
		_, goldKey := e.user("gold@example.com", db.TierGold)
		free, freeKey := e.user("free@example.com", db.TierFree)

		r := e.api("GET", "/v1/holdings", "", nil)
		if r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/problem+json") {
			t.Fatalf("no key: %d %v %s", r.Status, r.Header, r.Body)
		}
		if got := r.JSON(t)["type"]; got != "/problems/unauthorized" {
			t.Fatalf("type = %v", got)
		}
		for _, bad := range []string{"ounce_" + strings.Repeat("0", 64), "nonsense", goldKey + "x"} {
			if r := e.api("GET", "/v1/holdings", bad, nil); r.Status != 401 {
				t.Fatalf("bad key %q: %d", bad, r.Status)
			}
		}
		req := httptest.NewRequest("GET", "/v1/holdings", nil)
		req.Header.Set("Authorization", "Basic abc")
		if r := e.do(req); r.Status != 401 {
			t.Fatalf("basic auth: %d", r.Status)
		}

		r = e.api("GET", "/v1/holdings", freeKey, nil)
		if r.Status != 403 {
			t.Fatalf("free member: %d %s", r.Status, r.Body)
		}
		p := r.JSON(t)
		if p["type"] != "/problems/membership-required" || !strings.Contains(fmt.Sprint(p["detail"]), "/settings/billing") {
			t.Fatalf("membership problem = %v", p)
		}
		if r := e.api("GET", "/v1/holdings", goldKey, nil); r.Status != 200 {
			t.Fatalf("gold member: %d %s", r.Status, r.Body)
		}
		// Upgrading takes effect on the next request.
		if err := e.store.SetUserTier(ctx, free.Email, db.TierGold); err != nil {
			t.Fatal(err)
		}
		if r := e.api("GET", "/v1/holdings", freeKey, nil); r.Status != 200 {
			t.Fatalf("after upgrade: %d", r.Status)
		}
		// A revoked key stops working at once.
		keys, _ := e.store.APIKeysByUser(ctx, free.ID)
		if err := e.store.RevokeAPIKey(ctx, free.ID, keys[0].ID); err != nil {
			t.Fatal(err)
		}
		if r := e.api("GET", "/v1/holdings", freeKey, nil); r.Status != 401 {
			t.Fatalf("revoked: %d", r.Status)
		}
		// Use is recorded, but only when flushed (no write per request).
		e.srv.FlushKeyUse(ctx)
		keys, _ = e.store.APIKeysByUser(ctx, free.ID)
		if keys[0].LastUsedAt == nil {
			t.Fatal("last_used_at not recorded after flush")
		}
	})
}

func TestUnknownAPIRouteIsProblem(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	r := e.api("GET", "/v1/does-not-exist", "", nil)
	if r.Status != 404 || r.JSON(t)["type"] != "/problems/not-found" || r.Header.Get("X-Request-Id") == "" {
		t.Fatalf("unknown route: %d %s", r.Status, r.Body)
	}
	// A page 404 is an HTML page.
	r = e.do(httptest.NewRequest("GET", "/no/such/page", nil))
	if r.Status != 404 || !strings.Contains(string(r.Body), "There is nothing at this address") {
		t.Fatalf("page 404: %d %s", r.Status, r.Body)
	}
}

func TestRateLimits(t *testing.T) {
	eachEngine(t, func(o *app.Options) { o.Config.HTTP.RateLimitPerKey = 3; o.Config.HTTP.RateLimitPerIP = 2 }, func(t *testing.T, e *env) {
		_, key := e.user("a@example.com", db.TierGold)
		for i := 0; i < 3; i++ {
			if r := e.api("GET", "/v1/holdings", key, nil); r.Status != 200 {
				t.Fatalf("hit %d: %d", i, r.Status)
			}
		}
		r := e.api("GET", "/v1/holdings", key, nil)
		if r.Status != 429 || r.Header.Get("Retry-After") == "" || r.JSON(t)["type"] != "/problems/rate-limited" {
			t.Fatalf("over key limit: %d %v %s", r.Status, r.Header, r.Body)
		}
		// Anonymous calls are limited per IP; another IP has its own budget.
		for i := 0; i < 2; i++ {
			if r := e.api("GET", "/v1/unknown", "", nil); r.Status != 404 {
				t.Fatalf("anon %d: %d", i, r.Status)
			}
		}
		if r := e.api("GET", "/v1/holdings", "", nil); r.Status != 429 {
			t.Fatalf("over IP limit: %d %s", r.Status, r.Body)
		}
	})
}

func TestRateLimitPerClientAddress(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.HTTP.RateLimitPerIP = 1 })
	base := e.live()
	get := func(ip string) int {
		res, err := clientFrom(ip).Get(base + "/v1/holdings")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if a, b := get("127.0.0.1"), get("127.0.0.1"); a != 401 || b != 429 {
		t.Fatalf("same address: %d then %d, want 401 then 429", a, b)
	}
	if c := get("127.0.0.2"); c != 401 {
		t.Fatalf("another address shares the budget: %d", c)
	}
}

func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	run := func(trusted []string) int {
		e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.HTTP.RateLimitPerIP = 1; o.Config.HTTP.TrustedProxies = trusted })
		base := e.live()
		status := 0
		for _, xff := range []string{"203.0.113.1", "203.0.113.2"} {
			req, _ := http.NewRequest("GET", base+"/v1/holdings", nil)
			req.Header.Set("X-Forwarded-For", xff)
			res, err := clientFrom("127.0.0.1").Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			status = res.StatusCode
		}
		return status
	}
	// Untrusted peer: both requests count against 127.0.0.1, the second is limited.
	if got := run(nil); got != 429 {
		t.Fatalf("untrusted proxy: second request %d, want 429", got)
	}
	// Trusted loopback proxy: each forwarded client has its own budget.
	if got := run([]string{"127.0.0.1"}); got != 401 {
		t.Fatalf("trusted proxy: second request %d, want 401", got)
	}
}

func TestCORSAllowList(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.HTTP.CORSOrigins = []string{"https://app.example.com"} })
	req := httptest.NewRequest("OPTIONS", "/v1/holdings", nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "Authorization")
	r := e.do(req)
	if r.Header.Get("Access-Control-Allow-Origin") != "https://app.example.com" {
		t.Fatalf("allowed origin preflight: %d %v", r.Status, r.Header)
	}
	req = httptest.NewRequest("GET", "/v1/holdings", nil)
	req.Header.Set("Origin", "https://evil.example.com")
	if r := e.do(req); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("foreign origin allowed: %v", r.Header)
	}
	// Default: no CORS at all.
	e2 := newEnv(t, sqliteStore(t), nil)
	req = httptest.NewRequest("GET", "/v1/holdings", nil)
	req.Header.Set("Origin", "https://app.example.com")
	if r := e2.do(req); r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS without allow-list: %v", r.Header)
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	s := sqliteStore(t)
	e := newEnv(t, s, nil)
	if r := e.do(httptest.NewRequest("GET", "/healthz", nil)); r.Status != 200 {
		t.Fatalf("healthz %d", r.Status)
	}
	if r := e.do(httptest.NewRequest("GET", "/readyz", nil)); r.Status != 200 {
		t.Fatalf("readyz %d", r.Status)
	}
	if r := e.do(httptest.NewRequest("GET", "/metrics", nil)); r.Status != 404 {
		t.Fatalf("metrics must be off by default: %d", r.Status)
	}
	m := newEnv(t, s, func(o *app.Options) { o.Config.HTTP.Metrics = true })
	m.do(httptest.NewRequest("GET", "/healthz", nil))
	m.api("GET", "/v1/holdings", "", nil)
	r := m.do(httptest.NewRequest("GET", "/metrics", nil))
	body := string(r.Body)
	for _, want := range []string{`ounce_http_requests_total{method="GET",route="/healthz",status="200"} 1`, `route="/v1/holdings",status="401"`, "ounce_db_connections{state=\"open\"}", "_bucket{",
		`ounce_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200",le="5"} 1`,
		`ounce_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200",le="+Inf"} 1`,
		`ounce_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"} 1`,
		`ounce_db_connections{state="in_use"}`, `ounce_db_connections{state="idle"}`, "ounce_db_connections_max 4", "ounce_db_wait_total", "ounce_db_wait_seconds_total",
		// The Go runtime and process collectors.
		"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "process_open_fds"} {
		if !strings.Contains(body, want) {
			t.Fatalf("metrics lack %q:\n%s", want, body)
		}
	}
	// Each server has a registry of its own: a second one in the same process starts clean.
	m2 := newEnv(t, s, func(o *app.Options) { o.Config.HTTP.Metrics = true })
	if body := string(m2.do(httptest.NewRequest("GET", "/metrics", nil)).Body); strings.Contains(body, `route="/healthz"`) {
		t.Fatalf("a second server sees the first one's requests:\n%s", body)
	}
	// Readiness fails when the database is gone.
	_ = s.Close()
	if r := e.do(httptest.NewRequest("GET", "/readyz", nil)); r.Status != 503 {
		t.Fatalf("readyz with closed db: %d", r.Status)
	}
}

func TestRequestIDEchoed(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	req := httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("X-Request-Id", "abc-123")
	if r := e.do(req); r.Header.Get("X-Request-Id") != "abc-123" {
		t.Fatalf("request id not echoed: %v", r.Header)
	}
	req = httptest.NewRequest("GET", "/healthz", nil)
	req.Header.Set("X-Request-Id", "bad id with spaces\n")
	if r := e.do(req); r.Header.Get("X-Request-Id") == "" || strings.Contains(r.Header.Get("X-Request-Id"), " ") {
		t.Fatalf("unsafe request id kept: %q", r.Header.Get("X-Request-Id"))
	}
	_ = time.Now
}
