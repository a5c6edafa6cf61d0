package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/billing/billingtest"
)

// TestBillingSessionIDCostsOneLookup (issue 22 item 6): session ids in the billing page's
// address reach Stripe only when they are the member's own checkout, opened here, and only
// once: invented ids and another member's cost no Stripe call, and reloading the success
// page asks Stripe once in all. Calls are counted at the recording proxy before stripe-mock.
func TestBillingSessionIDCostsOneLookup(t *testing.T) {
	mock := billingtest.Start(t)
	eachEngine(t, withStripe(mock), func(t *testing.T, e *env) {
		mock.Reset()
		lookups := func() int { return len(mock.CallsTo("GET", "/v1/checkout/sessions/*")) }
		b := e.browser()
		b.signUp("payer@example.com")
		u, _ := e.store.UserByEmail(context.Background(), "payer@example.com")
		b.get("/settings/billing")
		for i := range 30 {
			r := b.get(fmt.Sprintf("/settings/billing?session_id=cs_test_invented%02d", i))
			if r.Status != 200 || !strings.Contains(string(r.Body), "No checkout of yours has that id.") {
				t.Fatalf("invented session id: %d", r.Status)
			}
		}
		if n := lookups(); n != 0 {
			t.Fatalf("invented session ids made %d Stripe calls", n)
		}

		// The member's own checkout, opened from the page.
		mock.Override("POST", "/v1/checkout/sessions", map[string]any{"id": "cs_test_mine"})
		if r := b.post("/settings/billing/checkout", url.Values{"plan": {"monthly"}}, true); r.Status != 204 {
			t.Fatalf("upgrade: %d", r.Status)
		}
		cust, _ := e.store.BillingCustomer(context.Background(), u.ID)
		mock.Override("GET", "/v1/checkout/sessions/cs_test_mine", map[string]any{"mode": "subscription", "status": "complete", "customer": cust,
			"client_reference_id": strconv.FormatInt(u.ID, 10), "subscription": map[string]any{"id": "sub_mine", "status": "active", "customer": cust,
				"current_period_end": time.Now().Add(30 * 24 * time.Hour).Unix(), "metadata": map[string]string{"plan": "monthly"}}})
		for i := range 20 {
			r := b.get("/settings/billing?session_id=cs_test_mine")
			if r.Status != 200 || !strings.Contains(string(r.Body), "You are a Gold member.") {
				t.Fatalf("reload %d of the success page: %d", i, r.Status)
			}
		}
		if n := lookups(); n != 1 {
			t.Fatalf("20 reloads of the success page made %d Stripe look-ups, want 1", n)
		}

		// Another member pasting that id: refused without asking Stripe.
		other := e.browser()
		other.signUp("copier@example.com")
		if r := other.get("/settings/billing?session_id=cs_test_mine"); !strings.Contains(string(r.Body), "That checkout belongs to another account.") {
			t.Fatalf("another member's session id: %d", r.Status)
		}
		if n := lookups(); n != 1 {
			t.Fatalf("another member's session id made a Stripe call (%d in all)", n)
		}
	})
}
