package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/billing/billingtest"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

// TestBillingJourney drives the upgrade in Chromium: the Upgrade button's HX-Redirect to
// Stripe Checkout (stripe-mock's session, whose page is not loaded: the test stands in for it),
// then Stripe's return to /settings/billing?session_id=…, verified against stripe-mock, which
// must show Gold and open the Gold-only pages.
func TestBillingJourney(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	root, _ := filepath.Abs("..")
	_, errNode := exec.LookPath("node")
	_, errChrome := os.Stat(chromium)
	_, errPW := os.Stat(filepath.Join(root, "node_modules", "playwright-core"))
	if errNode != nil || errChrome != nil || errPW != nil {
		t.Fatal("the browser test needs node, Chromium at " + chromium + " and the npm packages: run `bash .ci/tools` (or apt-get install chromium; npm ci)")
	}
	mock := billingtest.Start(t)
	paidSessions(mock)
	mock.Override("GET", "/v1/prices/price_yearly_e2e", map[string]any{"unit_amount": 19900, "currency": "usd", "recurring": map[string]any{"interval": "year", "interval_count": 1}})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := app.Config{Site: kit.Site{BaseURL: base, Version: "e2e", PaymentsEnabled: true},
		HTTP:    web.HTTPConfig{RateLimitPerKey: 1000, RateLimitPerIP: 1000},
		Billing: billing.Config{SecretKey: "sk_test_e2e", WebhookSecret: "whsec_e2e", PriceMonthly: "price_monthly_e2e", PriceYearly: "price_yearly_e2e", APIBase: mock.URL}}
	cfg.SetOffline(true)
	store := dbtest.SQLite(t)
	market, err := prices.NewService(context.Background(), store, prices.ServiceConfig{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(app.Options{Store: store, Market: market, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	srv := a.Server
	go func() { _ = srv.App.Listener(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", "billing.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BASE_URL="+base, "CHROMIUM="+chromium, "SHOTS="+filepath.Join(root, "e2e", "screenshots"))
	out, err := cmd.CombinedOutput()
	t.Logf("billing journey:\n%s", out)
	if err != nil {
		t.Fatalf("billing journey failed: %v", err)
	}
	if n := len(mock.CallsTo("GET", "/v1/checkout/sessions/*")); n == 0 {
		t.Fatal("the success page did not verify the session with Stripe")
	}
}

// paidSessions makes stripe-mock (which keeps no state) answer as Stripe would for a member
// who paid: a created session's URL carries its id, like Stripe's checkout URLs, and
// retrieving that session later finds it complete, with the customer and client_reference_id
// our request gave it and an active monthly subscription.
func paidSessions(mock *billingtest.Mock) {
	var mu sync.Mutex
	created := map[string]billingtest.Call{}
	mock.Edit("POST", "/v1/checkout/sessions", func(req billingtest.Call, obj map[string]any) {
		id, _ := obj["id"].(string)
		obj["url"] = "https://checkout.stripe.com/c/pay/" + id
		mu.Lock()
		created[id] = req
		mu.Unlock()
	})
	mock.Edit("GET", "/v1/checkout/sessions/*", func(req billingtest.Call, obj map[string]any) {
		id := strings.TrimPrefix(req.Path, "/v1/checkout/sessions/")
		mu.Lock()
		c, ok := created[id]
		mu.Unlock()
		if !ok {
			return
		}
		obj["mode"], obj["status"], obj["payment_status"] = "subscription", "complete", "paid"
		obj["client_reference_id"], obj["customer"] = c.Form.Get("client_reference_id"), c.Form.Get("customer")
		obj["subscription"] = map[string]any{"id": "sub_e2e_" + strings.TrimPrefix(id, "cs_"), "object": "subscription", "status": "active",
			"customer": c.Form.Get("customer"), "current_period_end": time.Now().AddDate(0, 1, 0).Unix(), "cancel_at_period_end": false,
			"metadata": map[string]string{"plan": c.Form.Get("metadata[plan]")}, "items": map[string]any{"object": "list", "data": []any{}}}
	})
}
