package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/alerts/alertstest"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestAlertsAPI: devices and alerts over /v1, with the ownership and limit rules.
func TestAlertsAPI(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		_, gold := e.user("gold@example.com", db.TierGold)
		_, free := e.user("free@example.com", db.TierFree)
		_, other := e.user("other@example.com", db.TierGold)
		tok := "ExponentPushToken[apitestdevice000000001]"

		wantStatus(t, "no key", e.api("POST", "/v1/push/register", "", map[string]any{"platform": "ios", "token": tok}), 401, "")
		r := e.api("POST", "/v1/push/register", gold, map[string]any{"platform": "ios", "token": tok})
		wantStatus(t, "register expo", r, 201, "")
		if m := r.JSON(t); m["platform"] != "ios" || m["id"] == nil || m["created_at"] == nil {
			t.Fatalf("register answer %s", r.Body)
		}
		bad := e.api("POST", "/v1/push/register", gold, map[string]any{"platform": "android", "token": "not-a-token"})
		wantStatus(t, "bad expo token", bad, 400, "")
		if !strings.Contains(string(bad.Body), `"token"`) {
			t.Fatalf("the problem does not name the field: %s", bad.Body)
		}
		push := alertstest.NewPushService(t)
		sub := push.Subscribe("api")
		web := map[string]any{"endpoint": sub.Endpoint, "keys": map[string]any{"p256dh": sub.P256dh, "auth": sub.Auth}}
		wantStatus(t, "register web", e.api("POST", "/v1/push/register", gold, map[string]any{"platform": "web", "token": web}), 201, "")
		web["endpoint"] = "http://push.example/plain"
		wantStatus(t, "plain-http endpoint", e.api("POST", "/v1/push/register", gold, map[string]any{"platform": "web", "token": web}), 400, "")
		wantStatus(t, "delete another's", e.api("DELETE", "/v1/push/delete", other, map[string]any{"token": tok}), 404, "")
		wantStatus(t, "delete own", e.api("DELETE", "/v1/push/delete", gold, map[string]any{"token": tok}), 204, "")
		wantStatus(t, "delete web by endpoint", e.api("DELETE", "/v1/push/delete", gold, map[string]any{"token": sub.Endpoint}), 204, "")

		r = e.api("POST", "/v1/push/price-alerts", gold, map[string]any{"metal": "silver", "direction": "above", "target_price": "40", "repeat": "rearm"})
		wantStatus(t, "create alert", r, 201, "")
		a := r.JSON(t)["alert"].(map[string]any)
		if a["metal"] != "silver" || a["direction"] != "above" || a["target_price"] != 40.0 || a["repeat"] != "rearm" || a["enabled"] != true || a["last_triggered_at"] != nil {
			t.Fatalf("alert %s", r.Body)
		}
		id := fmt.Sprint(int64(a["id"].(float64)))
		for _, body := range []map[string]any{
			{"metal": "silver", "direction": "above", "target_price": 0},
			{"metal": "silver", "direction": "above", "target_price": "10000001"},
			{"metal": "silver", "direction": "up", "target_price": 40},
			{"metal": "silver", "direction": "above", "target_price": 40, "repeat": "always"},
			{"metal": "silver", "direction": "above", "target_price": "forty"},
		} {
			wantStatus(t, fmt.Sprint(body), e.api("POST", "/v1/push/price-alerts", gold, body), 400, "")
		}
		wantStatus(t, "free first", e.api("POST", "/v1/push/price-alerts", free, map[string]any{"metal": "gold", "direction": "below", "target_price": 2000.5}), 201, "")
		wantStatus(t, "free second", e.api("POST", "/v1/push/price-alerts", free, map[string]any{"metal": "gold", "direction": "below", "target_price": 1900}), 403, "")
		list := e.api("GET", "/v1/push/price-alerts", gold, nil)
		wantStatus(t, "list", list, 200, "")
		if n := len(list.JSON(t)["alerts"].([]any)); n != 1 {
			t.Fatalf("%d alerts listed", n)
		}
		wantStatus(t, "patch another's", e.api("PATCH", "/v1/push/price-alerts/"+id, other, map[string]any{"enabled": false}), 404, "")
		wantStatus(t, "delete another's", e.api("DELETE", "/v1/push/price-alerts/"+id, other, nil), 404, "")
		r = e.api("PATCH", "/v1/push/price-alerts/"+id, gold, map[string]any{"enabled": false})
		wantStatus(t, "pause", r, 200, "")
		if r.JSON(t)["alert"].(map[string]any)["enabled"] != false {
			t.Fatalf("pause: %s", r.Body)
		}
		wantStatus(t, "delete", e.api("DELETE", "/v1/push/price-alerts/"+id, gold, nil), 204, "")
		wantStatus(t, "delete again", e.api("DELETE", "/v1/push/price-alerts/"+id, gold, nil), 404, "")
		wantStatus(t, "notifications", e.api("GET", "/v1/push/notifications", gold, nil), 200, "")
		k := e.api("GET", "/v1/push/vapid-public-key", "", nil)
		wantStatus(t, "vapid key", k, 200, "")
		if len(k.JSON(t)["public_key"].(string)) < 80 {
			t.Fatalf("vapid key %s", k.Body)
		}
	})
}

// silverProvider is a gold-api.com stand-in on loopback whose silver price the test moves.
type silverProvider struct {
	mu    sync.Mutex
	price string
	srv   *httptest.Server
}

func newSilverProvider(t *testing.T, price string) *silverProvider {
	p := &silverProvider{price: price}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch strings.TrimPrefix(r.URL.Path, "/price/") {
		case "XAG":
			fmt.Fprintf(w, `{"currency":"USD","name":"Silver","price":%s,"symbol":"XAG","updatedAt":%q}`, p.price, time.Now().UTC().Format(time.RFC3339Nano))
		default:
			http.Error(w, `{"error":"not priced here"}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *silverProvider) set(price string) { p.mu.Lock(); p.price = price; p.mu.Unlock() }

// TestAlertsTwoInstancesOnePerCrossing is the acceptance: two instances on one
// PostgreSQL, a loopback price provider moving silver across $40, and a registered browser
// (Web Push, decrypted at a loopback push service) and a phone (a loopback Expo) each told
// exactly once per crossing.
func TestAlertsTwoInstancesOnePerCrossing(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip("needs PostgreSQL (OUNCE_TEST_POSTGRES_URL); required under CI=true")
	}
	ctx := context.Background()
	provider := newSilverProvider(t, "39.00")
	expo := alertstest.NewExpo(t)
	push := alertstest.NewPushService(t)
	shared := dbtest.PostgresSchema(t, base)
	var envs []*env
	for i := 0; i < 2; i++ {
		s := dbtest.OpenPostgres(t, shared)
		market, err := prices.NewService(ctx, s, prices.ServiceConfig{
			Providers: []prices.Provider{prices.NewGoldAPICom(provider.srv.URL, provider.srv.Client())},
			Interval:  200 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		e := newEnv(t, s, func(o *app.Options) {
			o.Market = market
			o.Config.Alerts = alerts.Config{ExpoAPIURL: expo.URL(), HTTPClient: push.Client(), AllowPrivate: alertstest.Loopback, PollEvery: 200 * time.Millisecond}
		})
		e.srv.Start()
		t.Cleanup(func() {
			c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = e.srv.Shutdown(c)
		})
		envs = append(envs, e)
	}
	e := envs[0]
	_, key := e.user("stacker@example.com", db.TierGold)
	sub := push.Subscribe("browser")
	wantStatus(t, "web", e.api("POST", "/v1/push/register", key, map[string]any{"platform": "web", "token": map[string]any{"endpoint": sub.Endpoint, "keys": map[string]any{"p256dh": sub.P256dh, "auth": sub.Auth}}}), 201, "")
	phone := "ExponentPushToken[acceptancephone0000001]"
	wantStatus(t, "phone", e.api("POST", "/v1/push/register", key, map[string]any{"platform": "android", "token": phone}), 201, "")

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	live := func(price string) func() bool {
		return func() bool {
			for _, e := range envs {
				sp := e.app.Market.Snapshot().Prices[metals.Silver]
				if sp.Stale || sp.Price.StringFixed(2) != price {
					return false
				}
			}
			return true
		}
	}
	waitFor("both instances to see silver live at 39.00", live("39.00"))
	wantStatus(t, "alert", e.api("POST", "/v1/push/price-alerts", key, map[string]any{"metal": "silver", "direction": "above", "target_price": "40", "repeat": "rearm"}), 201, "")

	told := func(n int) func() bool {
		return func() bool { return len(push.Payloads(sub)) >= n && expo.Sent() >= n }
	}
	provider.set("40.40")
	began := time.Now()
	waitFor("the first crossing to reach both devices", told(1))
	t.Logf("first crossing reached both devices %s after the provider moved", time.Since(began).Round(time.Millisecond))
	provider.set("39.10") // back by more than 0.5 %: re-armed
	waitFor("the fall to be seen", live("39.10"))
	waitFor("the alert to re-arm", func() bool {
		var l struct {
			Alerts []struct {
				Armed bool `json:"armed"`
			} `json:"alerts"`
		}
		decodeInto(t, e.api("GET", "/v1/push/price-alerts", key, nil), &l)
		return len(l.Alerts) == 1 && l.Alerts[0].Armed
	})
	provider.set("40.60")
	waitFor("the second crossing to reach both devices", told(2))
	// The marker: a once-alert below $40.50, fired by a later tick. Each instance sees ticks in
	// order, and the outbox sends in order, so a repeat of the second crossing (evaluating the
	// 40.60 tick again, or sending its deliveries twice) would reach the devices before it.
	wantStatus(t, "marker", e.api("POST", "/v1/push/price-alerts", key, map[string]any{"metal": "silver", "direction": "below", "target_price": "40.50", "repeat": "once"}), 201, "")
	provider.set("40.40")
	waitFor("the marker to reach both devices", told(3))
	if n, m := len(push.Payloads(sub)), expo.Sent(); n != 3 || m != 3 {
		t.Fatalf("two crossings and the marker told %d times in the browser and %d on the phone, want 3 each", n, m)
	}
	if pl := push.Payloads(sub)[1]; pl.Title != "Silver above $40.00" || !strings.Contains(pl.Body, "$40.60") {
		t.Fatalf("second push %+v", pl)
	}
	if pl := push.Payloads(sub)[2]; pl.Title != "Silver below $40.50" {
		t.Fatalf("the marker push %+v", pl)
	}
	for _, m := range expo.Messages() {
		if m.To != phone {
			t.Fatalf("Expo message to %s", m.To)
		}
	}
	var list struct {
		Notifications []map[string]any `json:"notifications"`
		Unread        int              `json:"unread"`
	}
	decodeInto(t, envs[1].api("GET", "/v1/push/notifications", key, nil), &list)
	if len(list.Notifications) != 3 || list.Unread != 3 {
		t.Fatalf("notification centre: %+v", list)
	}
}

// TestAlertsPages: the alerts page sets an alert from a metal card (price prefilled), pauses,
// resumes and deletes it, stores a browser subscription, and serves the service worker.
func TestAlertsPages(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("pages@example.com")
		r := b.get("/alerts")
		if r.Status != 200 {
			t.Fatalf("GET /alerts: %d %s", r.Status, r.Body)
		}
		body := string(r.Body)
		for _, want := range []string{`data-alert-card="silver"`, `name="target_price"`, "Enable browser notifications", `id="notification-bell"`, "/static/js/push.js"} {
			if !strings.Contains(body, want) {
				t.Fatalf("page lacks %q", want)
			}
		}
		// Prefilled with the price as shown: at its source's precision (63.935 stays 63.935).
		silver := kit.PriceNum(e.app.Market.Snapshot().Prices[metals.Silver].Price).String()
		if !strings.Contains(body, `value="`+silver+`"`) {
			t.Fatalf("silver's card is not prefilled with %s", silver)
		}
		r = b.post("/alerts", url.Values{"metal": {"silver"}, "direction": {"above"}, "target_price": {"$1,000.50"}, "repeat": {"rearm"}}, false)
		if r.Status != 303 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		r = b.get("/alerts?done=created")
		if !strings.Contains(string(r.Body), "$1,000.50") || !strings.Contains(string(r.Body), "Alert created.") {
			t.Fatalf("the alert is not listed:\n%s", r.Body)
		}
		id := regexp.MustCompile(`data-alert-id="(\d+)"`).FindStringSubmatch(string(r.Body))
		if id == nil {
			t.Fatal("no alert id on the page")
		}
		if r = b.post("/alerts/"+id[1]+"/toggle", nil, false); r.Status != 303 {
			t.Fatalf("pause: %d", r.Status)
		}
		if r = b.get("/alerts"); !strings.Contains(string(r.Body), ">paused<") {
			t.Fatalf("not paused:\n%s", r.Body)
		}
		r = b.post("/alerts", url.Values{"metal": {"silver"}, "direction": {"above"}, "target_price": {"-3"}, "repeat": {"once"}}, false)
		if r.Status != 422 || !strings.Contains(string(r.Body), "target_price") {
			t.Fatalf("bad target: %d %s", r.Status, r.Body)
		}
		if r = b.post("/alerts/"+id[1]+"/delete", nil, false); r.Status != 303 {
			t.Fatalf("delete: %d", r.Status)
		}
		if r = b.get("/alerts"); strings.Contains(string(r.Body), `data-alert-id="`+id[1]+`"`) {
			t.Fatal("deleted alert still listed")
		}

		push := alertstest.NewPushService(t)
		sub := push.Subscribe("page")
		j := fmt.Sprintf(`{"platform":"web","token":{"endpoint":%q,"keys":{"p256dh":%q,"auth":%q}}}`, sub.Endpoint, sub.P256dh, sub.Auth)
		req := httptest.NewRequest("POST", "/alerts/devices", strings.NewReader(j))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", b.csrf)
		if r = b.send(req); r.Status != 201 {
			t.Fatalf("store subscription: %d %s", r.Status, r.Body)
		}
		req = httptest.NewRequest("POST", "/alerts/devices", strings.NewReader(j))
		req.Header.Set("Content-Type", "application/json")
		if r = b.send(req); r.Status != 403 {
			t.Fatalf("subscription without the CSRF token: %d", r.Status)
		}

		sw := b.get("/sw.js")
		if sw.Status != 200 || !strings.HasPrefix(sw.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(string(sw.Body), "showNotification") {
			t.Fatalf("/sw.js: %d %s", sw.Status, sw.Header)
		}
	})
}

// TestNotificationBellStream: the bell's stream says the unread count at once.
func TestNotificationBellStream(t *testing.T) {
	e := newEnv(t, sqliteStore(t), offline(t))
	base := e.live()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	b := e.browser()
	b.signUp("bell@example.com")
	u, _ := url.Parse(base)
	for k, v := range b.cookies {
		jar.SetCookies(u, []*http.Cookie{{Name: k, Value: v, Path: "/"}})
	}
	res, err := c.Get(base + "/notifications/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	line, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || line != "event: unread\n" {
		t.Fatalf("first line %q %v", line, err)
	}
}
