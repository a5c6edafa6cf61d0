package billing

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/billing/billingtest"
)

func TestEverythingIsUnavailableWithoutStripe(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	u, _ := s.InsertUser(ctx, "ann@example.com", "x", db.TierFree, false)
	svc := New(Deps{Store: s, Config: Config{WebhookSecret: testWebhookSecret, PriceMonthly: testPriceMonthly}})
	if svc.Enabled() {
		t.Fatal("enabled without a secret key")
	}
	calls := map[string]error{}
	_, calls["checkout"] = svc.CreateCheckout(ctx, u, CheckoutInput{Plan: PlanMonthly})
	_, calls["verify"] = svc.VerifySession(ctx, u, "cs_test_1")
	_, calls["portal"] = svc.Portal(ctx, u)
	_, calls["webhook"] = svc.HandleWebhook(ctx, []byte(`{}`), "t=1,v1=00")
	_, calls["offers"] = svc.Offers(ctx)
	for name, err := range calls {
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.Unavailable || e.Msg != "billing is not configured" {
			t.Errorf("%s: %v", name, err)
		}
	}
	if m, err := svc.Status(ctx, u); err != nil || m.Tier != db.TierFree || m.Status != StatusNone {
		t.Fatalf("status without Stripe: %+v %v", m, err)
	}
	done := make(chan struct{})
	go func() { svc.Run(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the grace job runs without Stripe configured")
	}
}

func TestCheckoutAgainstStripeMock(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		ann := f.member("ann@example.com", db.TierFree)
		gold := f.member("gold@example.com", db.TierGold)

		if _, err := f.svc.CreateCheckout(f.ctx, ann, CheckoutInput{Plan: "weekly"}); len(apperr.FieldsOf(err)) != 1 || apperr.FieldsOf(err)[0].Field != "plan" {
			t.Fatalf("bad plan: %v", err)
		}
		if _, err := f.svc.CreateCheckout(f.ctx, gold, CheckoutInput{Plan: PlanMonthly}); apperr.KindOf(err) != apperr.Conflict {
			t.Fatalf("gold member checkout: %v", err)
		}
		if n := len(mock.Calls()); n != 0 {
			t.Fatalf("refused checkouts called Stripe %d times", n)
		}

		first, err := f.svc.CreateCheckout(f.ctx, ann, CheckoutInput{Plan: PlanMonthly})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(first.ID, "cs_") || !strings.HasPrefix(first.URL, "https://") {
			t.Fatalf("checkout = %+v", first)
		}
		attempt := NewAttempt()
		for i := 0; i < 2; i++ { // the same attempt twice: one idempotency key
			if _, err := f.svc.CreateCheckout(f.ctx, ann, CheckoutInput{Plan: PlanYearly, Attempt: attempt}); err != nil {
				t.Fatal(err)
			}
		}
		customers := mock.CallsTo("POST", "/v1/customers")
		if len(customers) != 1 || customers[0].Form.Get("email") != "ann@example.com" || customers[0].Form.Get("metadata[user_id]") != strconv.FormatInt(ann.ID, 10) || customers[0].IdempotencyKey == "" {
			t.Fatalf("one customer per member, created once: %+v", customers)
		}
		cust, err := s.BillingCustomer(f.ctx, ann.ID)
		if err != nil || !strings.HasPrefix(cust, "cus_") {
			t.Fatalf("stored customer %q %v", cust, err)
		}
		sessions := mock.CallsTo("POST", "/v1/checkout/sessions")
		if len(sessions) != 3 {
			t.Fatalf("%d session calls", len(sessions))
		}
		uid := strconv.FormatInt(ann.ID, 10)
		for i, c := range sessions {
			want := map[string]string{"mode": "subscription", "customer": cust, "client_reference_id": uid, "line_items[0][quantity]": "1",
				"success_url": "http://ounce.test/settings/billing?session_id={CHECKOUT_SESSION_ID}", "cancel_url": "http://ounce.test/settings/billing",
				"metadata[user_id]": uid, "subscription_data[metadata][user_id]": uid}
			want["line_items[0][price]"], want["metadata[plan]"] = testPriceYearly, PlanYearly
			if i == 0 {
				want["line_items[0][price]"], want["metadata[plan]"] = testPriceMonthly, PlanMonthly
			}
			for k, v := range want {
				if got := c.Form.Get(k); got != v {
					t.Errorf("session %d: %s = %q, want %q", i, k, got, v)
				}
			}
		}
		if sessions[0].IdempotencyKey == sessions[1].IdempotencyKey || sessions[1].IdempotencyKey != sessions[2].IdempotencyKey {
			t.Fatalf("idempotency keys %q %q %q: one per attempt", sessions[0].IdempotencyKey, sessions[1].IdempotencyKey, sessions[2].IdempotencyKey)
		}

		// A member whose lapsed subscription is still being collected is sent to the portal.
		bob := f.member("bob@example.com", db.TierFree)
		f.linkCustomer(bob, "cus_bob")
		_, pd := f.subEvent(EventSubscriptionUpdated, "sub_bob", "cus_bob", StatusUnpaid, time.Now(), time.Now().Add(-240*time.Hour), bob)
		f.mustDeliver(pd)
		if _, err := f.svc.CreateCheckout(f.ctx, bob, CheckoutInput{Plan: PlanMonthly}); apperr.KindOf(err) != apperr.Conflict {
			t.Fatalf("checkout beside an unpaid subscription: %v", err)
		}

		// Stripe down: Unavailable, and nothing stored changes.
		mock.Fail("POST", "/v1/checkout/sessions", http.StatusServiceUnavailable, "api_error")
		if _, err := f.svc.CreateCheckout(f.ctx, ann, CheckoutInput{Plan: PlanMonthly}); apperr.KindOf(err) != apperr.Unavailable {
			t.Fatalf("Stripe down: %v", err)
		}
		if f.tier(ann) != db.TierFree {
			t.Fatal("a checkout alone granted Gold")
		}
	})
}

func TestPlanNotOffered(t *testing.T) {
	mock := billingtest.Start(t)
	s := dbtest.SQLite(t)
	cfg := testConfig(mock)
	cfg.PriceYearly = ""
	svc := New(Deps{Store: s, Config: cfg})
	u, _ := s.InsertUser(context.Background(), "ann@example.com", "x", db.TierFree, false)
	if _, err := svc.CreateCheckout(context.Background(), u, CheckoutInput{Plan: PlanYearly}); apperr.KindOf(err) != apperr.Unavailable {
		t.Fatalf("yearly without a price: %v", err)
	}
	offers, err := svc.Offers(context.Background())
	if err != nil || len(offers) != 2 || !offers[0].Available || offers[1].Available {
		t.Fatalf("offers = %+v %v", offers, err)
	}
}

func TestVerifySession(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		ann := f.member("ann@example.com", db.TierFree)
		bob := f.member("bob@example.com", db.TierFree)
		f.linkCustomer(ann, "cus_ann")
		end := f.clock.Now().Add(30 * 24 * time.Hour).Truncate(time.Second)
		session := func(id string, u db.User, status string, sub map[string]any) {
			o := map[string]any{"mode": "subscription", "status": status, "client_reference_id": strconv.FormatInt(u.ID, 10), "customer": "cus_ann", "created": time.Now().Add(-time.Minute).Unix()}
			if sub != nil {
				o["subscription"] = sub
			}
			mock.Override("GET", "/v1/checkout/sessions/"+id, o)
		}
		// opened records sessions as opened here for u (CreateCheckout does it in use).
		opened := func(u db.User, ids ...string) {
			for _, id := range ids {
				if err := f.store.RecordCheckout(f.ctx, u.ID, id); err != nil {
					t.Fatal(err)
				}
			}
		}
		lookups := func(id string) int { return len(mock.CallsTo("GET", "/v1/checkout/sessions/"+id)) }
		opened(ann, "cs_test_unknown", "cs_test_bobs", "cs_test_plain", "cs_test_open", "cs_test_paid")
		opened(bob, "cs_test_steal", "cs_test_bobonly")

		if _, err := f.svc.VerifySession(f.ctx, ann, "sub_nope"); len(apperr.FieldsOf(err)) != 1 {
			t.Fatalf("not a session id: %v", err)
		}
		mock.Fail("GET", "/v1/checkout/sessions/cs_test_unknown", http.StatusNotFound, "resource_missing")
		if _, err := f.svc.VerifySession(f.ctx, ann, "cs_test_unknown"); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("unknown session: %v", err)
		}
		// Sessions this server did not open for ann are never looked up at Stripe.
		if _, err := f.svc.VerifySession(f.ctx, ann, "cs_test_never_opened"); apperr.KindOf(err) != apperr.NotFound || lookups("cs_test_never_opened") != 0 {
			t.Fatalf("a session not opened here: %v, %d look-ups", err, lookups("cs_test_never_opened"))
		}
		if _, err := f.svc.VerifySession(f.ctx, ann, "cs_test_bobonly"); apperr.KindOf(err) != apperr.Forbidden || lookups("cs_test_bobonly") != 0 {
			t.Fatalf("a session bob opened: %v, %d look-ups", err, lookups("cs_test_bobonly"))
		}
		// Another member's paid session: Forbidden, and nobody gets anything.
		session("cs_test_bobs", bob, "complete", map[string]any{"id": "sub_bob", "status": "active", "customer": "cus_bob", "current_period_end": end.Unix()})
		if _, err := f.svc.VerifySession(f.ctx, ann, "cs_test_bobs"); apperr.KindOf(err) != apperr.Forbidden {
			t.Fatalf("another member's session: %v", err)
		}
		// stripe-mock's own session is open and nobody's.
		if _, err := f.svc.VerifySession(f.ctx, ann, "cs_test_plain"); apperr.KindOf(err) != apperr.Forbidden {
			t.Fatalf("a session without our reference: %v", err)
		}
		// Not paid yet.
		session("cs_test_open", ann, "open", nil)
		v, err := f.svc.VerifySession(f.ctx, ann, "cs_test_open")
		if err != nil || v.Tier != db.TierFree || v.Checkout != "open" || f.tier(ann) != db.TierFree {
			t.Fatalf("open session: %+v %v", v, err)
		}
		if len(f.history(ann))+len(f.history(bob)) != 0 {
			t.Fatal("refused or unpaid sessions wrote history")
		}

		// Paid, subscription active: Gold, with its renewal date.
		session("cs_test_paid", ann, "complete", map[string]any{"id": "sub_ann", "status": "active", "customer": "cus_ann", "current_period_end": end.Unix(), "metadata": map[string]string{"plan": "monthly"}})
		v, err = f.svc.VerifySession(f.ctx, ann, "cs_test_paid")
		if err != nil || v.Tier != db.TierGold || v.Status != StatusActive || !v.CurrentPeriodEnd.Equal(end) || v.Checkout != "complete" || v.Plan != PlanMonthly {
			t.Fatalf("paid session: %+v %v", v, err)
		}
		h := f.history(ann)
		if len(h) != 1 || h[0].ToTier != db.TierGold || h[0].Cause != "checkout cs_test_paid" || h[0].Source != db.TierSourceStripe {
			t.Fatalf("history %+v", h)
		}
		// Verifying again (a reload of the success page) changes nothing and asks Stripe nothing.
		for range 5 {
			if v, err := f.svc.VerifySession(f.ctx, ann, "cs_test_paid"); err != nil || v.Tier != db.TierGold || v.Checkout != "complete" || len(f.history(ann)) != 1 {
				t.Fatalf("second verification: %+v %v", v, err)
			}
		}
		if n := lookups("cs_test_paid"); n != 1 {
			t.Fatalf("a settled session was looked up %d times", n)
		}

		// An old session of a subscription canceled since grants nothing.
		_, del := f.subEvent(EventSubscriptionDeleted, "sub_ann", "cus_ann", StatusCanceled, time.Now(), end, ann)
		f.mustDeliver(del)
		if f.tier(ann) != db.TierFree {
			t.Fatal("deletion did not end Gold")
		}
		if v, err := f.svc.VerifySession(f.ctx, ann, "cs_test_paid"); err != nil || v.Tier != db.TierFree || v.Status != StatusCanceled {
			t.Fatalf("old session after cancellation: %+v %v", v, err)
		}
		// A session still open may be looked up again, but only so often.
		before := lookups("cs_test_open")
		var err2 error
		for range VerifyLimitPerHour + 1 {
			if _, err2 = f.svc.VerifySession(f.ctx, ann, "cs_test_open"); err2 != nil {
				break
			}
		}
		if e, ok := apperr.As(err2); !ok || e.Kind != apperr.RateLimited || e.RetryAfter <= 0 {
			t.Fatalf("open session looked up over and over: %v", err2)
		}
		if n := lookups("cs_test_open") - before; n > VerifyLimitPerHour {
			t.Fatalf("%d look-ups of an open session within the hour", n)
		}
		// A paid session whose subscription is stored as someone else's is not ann's.
		session("cs_test_steal", bob, "complete", map[string]any{"id": "sub_ann", "status": "active", "customer": "cus_ann", "current_period_end": end.Unix()})
		if _, err := f.svc.VerifySession(f.ctx, bob, "cs_test_steal"); apperr.KindOf(err) != apperr.Forbidden || f.tier(bob) != db.TierFree {
			t.Fatalf("someone else's subscription: %v", err)
		}
	})
}

func TestPortal(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		ann := f.member("ann@example.com", db.TierFree)
		if _, err := f.svc.Portal(f.ctx, ann); apperr.KindOf(err) != apperr.Conflict {
			t.Fatalf("portal without a customer: %v", err)
		}
		f.linkCustomer(ann, "cus_ann")
		url, err := f.svc.Portal(f.ctx, ann)
		if err != nil || url == "" {
			t.Fatalf("portal: %q %v", url, err)
		}
		calls := mock.CallsTo("POST", "/v1/billing_portal/sessions")
		if len(calls) != 1 || calls[0].Form.Get("customer") != "cus_ann" || calls[0].Form.Get("return_url") != "http://ounce.test/settings/billing" {
			t.Fatalf("portal call %+v", calls)
		}
	})
}

func TestOffersReadStripePricesAndCacheThem(t *testing.T) {
	mock := billingtest.Start(t)
	f := newFixture(t, dbtest.SQLite(t), mock)
	mock.Override("GET", "/v1/prices/"+testPriceYearly, map[string]any{"unit_amount": 19900, "currency": "usd", "recurring": map[string]any{"interval": "year", "interval_count": 1}})
	offers, err := f.svc.Offers(f.ctx)
	if err != nil || len(offers) != 2 {
		t.Fatal(offers, err)
	}
	// stripe-mock's Price fixture is 2000 cents a month.
	m, y := offers[0], offers[1]
	if !m.Known || m.Price.Amount.String() != "20" || m.Price.Interval != "month" || !y.Known || y.Price.Amount.String() != "199" || y.Price.Interval != "year" {
		t.Fatalf("offers %+v", offers)
	}
	if _, err := f.svc.Offers(f.ctx); err != nil || len(mock.CallsTo("GET", "/v1/prices/*")) != 2 {
		t.Fatalf("prices not cached: %d calls", len(mock.CallsTo("GET", "/v1/prices/*")))
	}
	// An hour later they are read again; while Stripe fails, the last price is still shown.
	f.clock.Set(f.clock.Now().Add(61 * time.Minute))
	mock.Fail("GET", "/v1/prices/*", http.StatusServiceUnavailable, "api_error")
	offers, _ = f.svc.Offers(f.ctx)
	if !offers[0].Known || offers[0].Price.Amount.String() != "20" {
		t.Fatalf("stale price dropped: %+v", offers[0])
	}
	// A price never read while Stripe fails is unknown, not invented.
	f2 := newFixture(t, dbtest.SQLite(t), mock)
	mock.Fail("GET", "/v1/prices/*", http.StatusServiceUnavailable, "api_error")
	offers, _ = f2.svc.Offers(f2.ctx)
	if offers[0].Known || offers[1].Known {
		t.Fatalf("invented a price: %+v", offers)
	}
}
