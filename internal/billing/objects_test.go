package billing

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/apperr"
)

func TestParseSubscriptionBothAPIShapes(t *testing.T) {
	end := time.Date(2026, 12, 23, 10, 0, 0, 0, time.UTC)
	// API 2023-10-16: the period end is the subscription's own; the customer may be expanded.
	old := `{"id":"sub_1","object":"subscription","customer":{"id":"cus_9","object":"customer"},"status":"past_due","current_period_end":` +
		itoa64(end.Unix()) + `,"cancel_at_period_end":true,"ended_at":null,"metadata":{"user_id":"7","plan":"yearly"},
		"items":{"data":[{"price":{"id":"price_y","recurring":{"interval":"year"}}}]}}`
	s, err := ParseSubscription([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "sub_1" || s.CustomerID != "cus_9" || s.Status != StatusPastDue || !s.CurrentPeriodEnd.Equal(end) || !s.CancelAtPeriodEnd ||
		s.PriceID != "price_y" || s.Interval != "year" || s.Metadata["user_id"] != "7" || !s.EndedAt.IsZero() {
		t.Fatalf("parsed %+v", s)
	}
	// API 2025+: no top-level period end; the latest item's counts.
	newer := `{"id":"sub_2","object":"subscription","customer":"cus_9","status":"active","ended_at":1700000000,
		"items":{"data":[{"current_period_end":1800000000,"price":{"id":"price_m","recurring":{"interval":"month"}}},{"current_period_end":1900000000}]}}`
	s, err = ParseSubscription([]byte(newer))
	if err != nil {
		t.Fatal(err)
	}
	if s.CurrentPeriodEnd.Unix() != 1900000000 || s.PriceID != "price_m" || s.Interval != "month" || s.EndedAt.Unix() != 1700000000 {
		t.Fatalf("parsed %+v", s)
	}
	for _, bad := range []string{``, `[]`, `{"object":"invoice","id":"in_1","status":"paid"}`, `{"object":"subscription","id":"sub_1"}`,
		`{"object":"subscription","id":"sub_../x","status":"active"}`, `{"object":"subscription","id":"sub_1","status":"active","current_period_end":"soon"}`,
		`{"object":"subscription","id":"sub_1","status":"active","customer":5}`, `{"object":"subscription","id":"sub_1","status":"active","current_period_end":-5}`} {
		if _, err := ParseSubscription([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestParseCheckoutSessionAndInvoice(t *testing.T) {
	raw := `{"id":"cs_test_1","object":"checkout.session","mode":"subscription","status":"complete","client_reference_id":"42","customer":"cus_1",
		"subscription":{"id":"sub_1","object":"subscription","status":"active","customer":"cus_1","current_period_end":1900000000},"created":1800000000,"metadata":{"plan":"monthly"}}`
	cs, err := ParseCheckoutSession([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if cs.ClientReferenceID != "42" || cs.SubscriptionID != "sub_1" || cs.Subscription == nil || cs.Subscription.Status != StatusActive || cs.Created.Unix() != 1800000000 {
		t.Fatalf("parsed %+v", cs)
	}
	cs, err = ParseCheckoutSession([]byte(`{"id":"cs_test_2","object":"checkout.session","client_reference_id":null,"subscription":null}`))
	if err != nil || cs.ClientReferenceID != "" || cs.SubscriptionID != "" || cs.Subscription != nil {
		t.Fatalf("nulls: %+v %v", cs, err)
	}
	inv, err := ParseInvoice([]byte(`{"id":"in_1","object":"invoice","customer":"cus_1","subscription":"sub_1"}`))
	if err != nil || inv.SubscriptionID != "sub_1" || inv.CustomerID != "cus_1" {
		t.Fatalf("invoice: %+v %v", inv, err)
	}
	inv, err = ParseInvoice([]byte(`{"id":"in_2","object":"invoice","customer":"cus_1","parent":{"subscription_details":{"subscription":"sub_9"}}}`))
	if err != nil || inv.SubscriptionID != "sub_9" {
		t.Fatalf("invoice (2025 shape): %+v %v", inv, err)
	}
}

func TestUserRef(t *testing.T) {
	for in, want := range map[string]int64{"42": 42, "": 0, "0": 0, "-3": 0, "042": 0, "4 2": 0, "9223372036854775808": 0, "x": 0} {
		if got := userRef(in); got != want {
			t.Errorf("userRef(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestParseRequestBodies(t *testing.T) {
	if in, err := ParseCheckoutJSON([]byte(` {"plan":"yearly"} `)); err != nil || in.Plan != PlanYearly {
		t.Fatalf("checkout: %+v %v", in, err)
	}
	for body, field := range map[string]string{
		``: "body", `[]`: "body", `{}`: "plan", `{"plan":"weekly"}`: "plan", `{"plan":5}`: "plan", `{"plan":"monthly","coupon":"x"}`: "coupon",
		`{"plan":"monthly"} {}`: "body", `{"plan":"monthly"`: "body", `null`: "plan",
	} {
		_, err := ParseCheckoutJSON([]byte(body))
		if f := apperr.FieldsOf(err); len(f) != 1 || f[0].Field != field {
			t.Errorf("checkout %q: %v, want field %s", body, err, field)
		}
	}
	if _, err := ParseCheckoutJSON([]byte(`{"plan":"` + strings.Repeat("m", MaxRequestBytes) + `"}`)); apperr.KindOf(err) != apperr.TooLarge {
		t.Errorf("oversized body: %v", err)
	}
	if id, err := ParseVerifyJSON([]byte(`{"session_id":"cs_test_a1B2"}`)); err != nil || id != "cs_test_a1B2" {
		t.Fatalf("verify: %q %v", id, err)
	}
	for _, body := range []string{`{}`, `{"session_id":""}`, `{"session_id":"sub_1"}`, `{"session_id":"cs_../../x"}`, `{"session_id":"cs_` + strings.Repeat("a", 300) + `"}`} {
		if f := apperr.FieldsOf(func() error { _, err := ParseVerifyJSON([]byte(body)); return err }()); len(f) != 1 || f[0].Field != "session_id" {
			t.Errorf("verify %q: %v", body, f)
		}
	}
}

// Fuzz targets for the parsers of what outsiders send: no input panics, and what is
// accepted keeps the invariants the rules rely on.

func FuzzParseSubscription(f *testing.F) {
	f.Add([]byte(`{"id":"sub_1","object":"subscription","customer":"cus_1","status":"active","current_period_end":1900000000,"items":{"data":[{"current_period_end":5}]}}`))
	f.Add([]byte(`{"id":"sub_1","object":"subscription","customer":{"id":"cus_1"},"status":"canceled","ended_at":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSubscription(b)
		if err == nil && (!validID(s.ID, "sub_") || s.Status == "" || !s.CurrentPeriodEnd.IsZero() && s.CurrentPeriodEnd.Before(time.Unix(1, 0))) {
			t.Fatalf("accepted %+v", s)
		}
	})
}

func FuzzParseCheckoutSession(f *testing.F) {
	f.Add([]byte(`{"id":"cs_1","object":"checkout.session","mode":"subscription","client_reference_id":"4","subscription":{"id":"sub_1","object":"subscription","status":"active"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cs, err := ParseCheckoutSession(b)
		if err == nil && (!validID(cs.ID, "cs_") || cs.Subscription != nil && !validID(cs.Subscription.ID, "sub_")) {
			t.Fatalf("accepted %+v", cs)
		}
		_, _ = ParseInvoice(b)
	})
}

func FuzzParseRequestBodies(f *testing.F) {
	f.Add([]byte(`{"plan":"monthly"}`))
	f.Add([]byte(`{"session_id":"cs_test_1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if in, err := ParseCheckoutJSON(b); err == nil && in.Plan != PlanMonthly && in.Plan != PlanYearly {
			t.Fatalf("accepted plan %q", in.Plan)
		}
		if id, err := ParseVerifyJSON(b); err == nil && !validID(id, "cs_") {
			t.Fatalf("accepted session id %q", id)
		}
	})
}
