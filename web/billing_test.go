package web_test

import (
	"bytes"
	"context"
	"html"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/billing/billingtest"
)

const testWebhookSecret = "whsec_web_test"

// withStripe configures billing against stripe-mock; new accounts then start free.
func withStripe(mock *billingtest.Mock) func(*app.Options) {
	return func(o *app.Options) {
		o.Config.Billing = billing.Config{SecretKey: "sk_test_web", WebhookSecret: testWebhookSecret, PriceMonthly: "price_m_web", PriceYearly: "price_y_web", APIBase: mock.URL}
		o.Config.Account.NewUsersGold = false
		o.Config.Site.PaymentsEnabled = true
	}
}

// webhook posts payload to the webhook with a Stripe-Signature header (none when empty).
func (e *env) webhook(payload []byte, signature string) resp {
	e.t.Helper()
	req := httptest.NewRequest("POST", "/v1/webhooks/payment", bytes.NewReader(payload))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if signature != "" {
		req.Header.Set("Stripe-Signature", signature)
	}
	return e.do(req)
}

func (e *env) signed(payload []byte) resp {
	return e.webhook(payload, billingtest.Sign(payload, testWebhookSecret, time.Now()))
}

// mainText is the page's main content as a reader sees it: elements separated by spaces.
func mainText(t *testing.T, d *goquery.Document) string {
	t.Helper()
	h, err := d.Find("main").Html()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(h, " "))), " ")
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

func problemType(t *testing.T, r resp) string {
	t.Helper()
	return r.JSON(t)["type"].(string)
}

func TestBillingWithoutStripe(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("ann@example.com", db.TierFree)
		for _, c := range []struct {
			path, key string
			body      any
		}{
			{"/v1/payment/create-checkout-session", key, map[string]any{"plan": "monthly"}},
			{"/v1/payment/create-checkout-session", key, "not json"},
			{"/v1/payment/verify-session", key, map[string]any{"session_id": "cs_test_1"}},
			{"/v1/payment/portal", key, nil},
			{"/v1/webhooks/payment", "", map[string]any{"id": "evt_1", "type": "invoice.paid", "data": map[string]any{}}},
		} {
			r := e.api("POST", c.path, c.key, c.body)
			if r.Status != 503 || problemType(t, r) != "/problems/unavailable" || r.JSON(t)["detail"] != "billing is not configured" {
				t.Errorf("%s: %d %s", c.path, r.Status, r.Body)
			}
		}
		b := e.browser()
		b.signUp("page@example.com")
		r := b.get("/settings/billing")
		d := doc(t, r)
		if r.Status != 200 || !strings.Contains(d.Find("main").Text(), "Billing is not configured on this server") || d.Find("#billing-upgrade").Length() != 0 {
			t.Fatalf("page without Stripe: %d %s", r.Status, d.Find("main").Text())
		}
		if r := b.post("/settings/billing/checkout", url.Values{"plan": {"monthly"}}, true); r.Status != 503 {
			t.Fatalf("page checkout without Stripe: %d", r.Status)
		}
	})
}

// The "done when": checkout → signed checkout.session.completed → the member's key
// gets 200 on /v1/portfolio; signed customer.subscription.deleted → 403 again; forged, stale
// and replayed variants change nothing.
func TestBillingCheckoutWebhookLifecycle(t *testing.T) {
	mock := billingtest.Start(t)
	eachEngine(t, withStripe(mock), func(t *testing.T, e *env) {
		mock.Reset()
		ctx := context.Background()
		ann, key := e.user("ann@example.com", db.TierFree)
		uid := strconv.FormatInt(ann.ID, 10)
		portfolio := func() int { return e.api("GET", "/v1/portfolio", key, nil).Status }
		if s := portfolio(); s != 403 {
			t.Fatalf("free member: %d", s)
		}
		r := e.api("POST", "/v1/payment/create-checkout-session", key, map[string]any{"plan": "monthly"})
		co := r.JSON(t)
		if r.Status != 201 || !strings.HasPrefix(co["id"].(string), "cs_") || !strings.HasPrefix(co["url"].(string), "https://") {
			t.Fatalf("checkout: %d %s", r.Status, r.Body)
		}
		if s := portfolio(); s != 403 {
			t.Fatal("starting a checkout granted Gold")
		}
		cust, err := e.store.BillingCustomer(ctx, ann.ID)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		end := now.Add(30 * 24 * time.Hour)
		mock.Override("GET", "/v1/subscriptions/sub_web", map[string]any{"status": "active", "customer": cust, "current_period_end": end.Unix()})
		completed := billingtest.Event("evt_web_completed", billing.EventCheckoutCompleted, now, billingtest.CheckoutSession(co["id"].(string), uid, cust, "sub_web", now))

		// Forged, wrong-secret, stale and unsigned deliveries of the completion: nothing.
		for name, sig := range map[string]string{
			"forged":       "t=" + strconv.FormatInt(now.Unix(), 10) + ",v1=" + strings.Repeat("0f", 32),
			"wrong secret": billingtest.Sign(completed, "whsec_not_ours", now),
			"stale":        billingtest.Sign(completed, testWebhookSecret, now.Add(-10*time.Minute)),
			"missing":      "",
		} {
			r := e.webhook(completed, sig)
			if r.Status != 400 || problemType(t, r) != "/problems/invalid-parameter" {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		if s := portfolio(); s != 403 {
			t.Fatal("a refused delivery granted Gold")
		}

		r = e.signed(completed)
		if r.Status != 200 || r.JSON(t)["duplicate"] != false {
			t.Fatalf("completed: %d %s", r.Status, r.Body)
		}
		if s := portfolio(); s != 200 {
			t.Fatalf("paid member: %d", s)
		}
		for i := 0; i < 3; i++ {
			if r := e.signed(completed); r.Status != 200 || r.JSON(t)["duplicate"] != true {
				t.Fatalf("redelivery %d: %d %s", i, r.Status, r.Body)
			}
		}

		deleted := billingtest.Event("evt_web_deleted", billing.EventSubscriptionDeleted, now.Add(time.Second),
			billingtest.Subscription("sub_web", cust, "canceled", end, map[string]string{"user_id": uid}))
		if r := e.webhook(deleted, billingtest.Sign(deleted, "whsec_not_ours", now)); r.Status != 400 || portfolio() != 200 {
			t.Fatalf("forged deletion: %d, portfolio %d", r.Status, portfolio())
		}
		if r := e.signed(deleted); r.Status != 200 {
			t.Fatalf("deleted: %d %s", r.Status, r.Body)
		}
		if s := portfolio(); s != 403 {
			t.Fatalf("after deletion: %d", s)
		}
		// Replaying the completion, or an older "created", does not bring Gold back.
		created := billingtest.Event("evt_web_created", billing.EventSubscriptionCreated, now.Add(-time.Minute),
			billingtest.Subscription("sub_web", cust, "active", end, map[string]string{"user_id": uid}))
		for _, p := range [][]byte{completed, created, created} {
			if r := e.signed(p); r.Status != 200 {
				t.Fatalf("late event: %d %s", r.Status, r.Body)
			}
		}
		if s := portfolio(); s != 403 {
			t.Fatalf("a replayed or older event restored Gold: %d", s)
		}
		h, _ := e.store.MembershipHistory(ctx, ann.ID, 10)
		if len(h) != 2 || h[0].ToTier != db.TierFree || h[1].ToTier != db.TierGold {
			t.Fatalf("history %+v", h)
		}

		// A large (60 KiB) event fits the webhook's limits.
		big := billingtest.Subscription("sub_big", "cus_nobody", "active", end, map[string]string{"note": strings.Repeat("x", 60<<10)})
		if r := e.signed(billingtest.Event("evt_web_big", billing.EventSubscriptionUpdated, now, big)); r.Status != 200 {
			t.Fatalf("60 KiB event: %d %s", r.Status, r.Body)
		}
	})
}

func TestBillingVerifyAndPortalAPI(t *testing.T) {
	mock := billingtest.Start(t)
	eachEngine(t, withStripe(mock), func(t *testing.T, e *env) {
		mock.Reset()
		ann, key := e.user("ann@example.com", db.TierFree)
		bob, _ := e.user("bob@example.com", db.TierFree)
		_, goldKey := e.user("gold@example.com", db.TierGold)
		if r := e.api("POST", "/v1/payment/create-checkout-session", "", map[string]any{"plan": "monthly"}); r.Status != 401 {
			t.Fatalf("no key: %d", r.Status)
		}
		r := e.api("POST", "/v1/payment/create-checkout-session", key, map[string]any{"plan": "weekly"})
		if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"plan"`) {
			t.Fatalf("bad plan: %d %s", r.Status, r.Body)
		}
		if r := e.api("POST", "/v1/payment/create-checkout-session", goldKey, map[string]any{"plan": "yearly"}); r.Status != 409 {
			t.Fatalf("gold member: %d %s", r.Status, r.Body)
		}
		if r := e.api("POST", "/v1/payment/portal", key, nil); r.Status != 409 {
			t.Fatalf("portal before any checkout: %d %s", r.Status, r.Body)
		}

		if r := e.api("POST", "/v1/payment/verify-session", key, map[string]any{"session_id": "pi_123"}); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"session_id"`) {
			t.Fatalf("bad session id: %d %s", r.Status, r.Body)
		}
		// The sessions the test verifies are recorded as opened here, as a checkout does.
		for id, owner := range map[string]db.User{"cs_test_gone": ann, "cs_test_bob": bob, "cs_test_ann": ann} {
			if err := e.store.RecordCheckout(context.Background(), owner.ID, id); err != nil {
				t.Fatal(err)
			}
		}
		mock.Fail("GET", "/v1/checkout/sessions/cs_test_gone", 404, "resource_missing")
		if r := e.api("POST", "/v1/payment/verify-session", key, map[string]any{"session_id": "cs_test_gone"}); r.Status != 404 {
			t.Fatalf("unknown session: %d %s", r.Status, r.Body)
		}
		end := time.Now().Add(365 * 24 * time.Hour).Truncate(time.Second)
		paid := func(id string, owner db.User) {
			mock.Override("GET", "/v1/checkout/sessions/"+id, map[string]any{"mode": "subscription", "status": "complete", "customer": "cus_web_" + id,
				"client_reference_id": strconv.FormatInt(owner.ID, 10), "subscription": map[string]any{"id": "sub_" + id, "status": "active", "customer": "cus_web_" + id,
					"current_period_end": end.Unix(), "metadata": map[string]string{"plan": "yearly"}}})
		}
		paid("cs_test_bob", bob)
		if r := e.api("POST", "/v1/payment/verify-session", key, map[string]any{"session_id": "cs_test_bob"}); r.Status != 403 || problemType(t, r) != "/problems/forbidden" {
			t.Fatalf("another member's session: %d %s", r.Status, r.Body)
		}
		paid("cs_test_ann", ann)
		r = e.api("POST", "/v1/payment/verify-session", key, map[string]any{"session_id": "cs_test_ann"})
		v := r.JSON(t)
		if r.Status != 200 || v["tier"] != "gold" || v["status"] != "active" || v["plan"] != "yearly" || v["checkout"] != "complete" || v["current_period_end"] != end.UTC().Format(time.RFC3339) {
			t.Fatalf("verified: %d %s", r.Status, r.Body)
		}
		if r := e.api("GET", "/v1/portfolio", key, nil); r.Status != 200 {
			t.Fatalf("portfolio after verification: %d", r.Status)
		}
		r = e.api("POST", "/v1/payment/portal", key, nil)
		if r.Status != 200 || r.JSON(t)["url"] == "" {
			t.Fatalf("portal: %d %s", r.Status, r.Body)
		}
		if calls := mock.CallsTo("POST", "/v1/billing_portal/sessions"); len(calls) != 1 || calls[0].Form.Get("customer") != "cus_web_cs_test_ann" {
			t.Fatalf("portal call %+v", calls)
		}
	})
}

func TestBillingPage(t *testing.T) {
	mock := billingtest.Start(t)
	eachEngine(t, withStripe(mock), func(t *testing.T, e *env) {
		mock.Reset()
		mock.Override("GET", "/v1/prices/price_y_web", map[string]any{"unit_amount": 19900, "currency": "usd", "recurring": map[string]any{"interval": "year", "interval_count": 1}})
		b := e.browser()
		b.signUp("page@example.com")
		u, _ := e.store.UserByEmail(context.Background(), "page@example.com")
		if u.Tier != db.TierFree {
			t.Fatal("with Stripe configured sign-ups start free")
		}
		r := b.get("/settings/billing")
		d := doc(t, r)
		text := mainText(t, d)
		for _, want := range []string{"Plan Free", "Monthly $20.00 per month", "Yearly $199.00 per year", "Upgrade Monthly", "Upgrade Yearly", "No changes yet."} {
			if !strings.Contains(text, want) {
				t.Errorf("page lacks %q: %s", want, text)
			}
		}
		if d.Find(`form[action="/settings/billing/portal"]`).Length() != 0 {
			t.Error("Manage billing offered before there is a customer")
		}

		// Upgrade: HTMX answers HX-Redirect to Stripe; without HTMX a page links there.
		r = b.post("/settings/billing/checkout", url.Values{"plan": {"monthly"}, "attempt": {"0123456789abcdef0123"}}, true)
		if r.Status != 204 || !strings.HasPrefix(r.Header.Get("HX-Redirect"), "https://checkout.stripe.com/") {
			t.Fatalf("upgrade: %d %v", r.Status, r.Header)
		}
		calls := mock.CallsTo("POST", "/v1/checkout/sessions")
		if len(calls) != 1 || !strings.Contains(calls[0].IdempotencyKey, "0123456789abcdef0123") {
			t.Fatalf("checkout calls %+v", calls)
		}
		r = b.post("/settings/billing/checkout", url.Values{"plan": {"yearly"}}, false)
		if r.Status != 200 || doc(t, r).Find(`a[href^="https://checkout.stripe.com/"]`).Length() != 1 {
			t.Fatalf("upgrade without HTMX: %d", r.Status)
		}
		if r := b.post("/settings/billing/checkout", url.Values{"plan": {"monthly"}, "_csrf": {"forged"}}, true); r.Status != 403 {
			t.Fatalf("upgrade without the CSRF token: %d", r.Status)
		}

		// Back from Stripe: the success URL verifies the session and shows Gold.
		cust, _ := e.store.BillingCustomer(context.Background(), u.ID)
		end := time.Date(2027, 1, 5, 15, 0, 0, 0, time.UTC)
		mock.Override("GET", "/v1/checkout/sessions/cs_test_page", map[string]any{"mode": "subscription", "status": "complete", "customer": cust,
			"client_reference_id": strconv.FormatInt(u.ID, 10), "subscription": map[string]any{"id": "sub_page", "status": "active", "customer": cust,
				"current_period_end": end.Unix(), "cancel_at_period_end": false, "metadata": map[string]string{"plan": "monthly"}}})
		for _, id := range []string{"cs_test_page", "cs_test_other"} {
			if err := e.store.RecordCheckout(context.Background(), u.ID, id); err != nil {
				t.Fatal(err)
			}
		}
		r = b.get("/settings/billing?session_id=cs_test_page")
		d = doc(t, r)
		text = mainText(t, d)
		for _, want := range []string{"Payment confirmed: welcome to Gold.", "Plan Gold · monthly", "Status Active", "Renews on 5 Jan 2027", "Free → Gold", "Checkout verified", "cs_test_page", "You are a Gold member."} {
			if !strings.Contains(text, want) {
				t.Errorf("success page lacks %q: %s", want, text)
			}
		}
		if d.Find("header").Text() == "" || !strings.Contains(d.Find("header").Text(), "Gold") {
			t.Error("the header badge does not show Gold on arrival")
		}
		if d.Find("#billing-upgrade").Length() != 0 {
			t.Error("upgrade offered to a Gold member")
		}
		r = b.post("/settings/billing/portal", nil, true)
		if r.Status != 204 || r.Header.Get("HX-Redirect") == "" {
			t.Fatalf("manage billing: %d %v", r.Status, r.Header)
		}
		// Someone else's session id in the URL: said plainly, nothing granted.
		mock.Override("GET", "/v1/checkout/sessions/cs_test_other", map[string]any{"client_reference_id": "999999", "mode": "subscription"})
		b2 := e.browser()
		b2.signUp("other@example.com")
		r = b2.get("/settings/billing?session_id=cs_test_other")
		if r.Status != 200 || !strings.Contains(string(r.Body), "That checkout belongs to another account.") {
			t.Fatalf("other's session: %d", r.Status)
		}
		if u2, _ := e.store.UserByEmail(context.Background(), "other@example.com"); u2.Tier != db.TierFree {
			t.Fatal("another member's session granted Gold")
		}
	})
}
