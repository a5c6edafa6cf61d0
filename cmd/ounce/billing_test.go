package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

func TestStripeSettings(t *testing.T) {
	t.Setenv("OUNCE_ADDR", "127.0.0.1:9999")
	set := func(key, hook, monthly, yearly, base string) {
		t.Setenv("OUNCE_STRIPE_SECRET_KEY", key)
		t.Setenv("OUNCE_STRIPE_WEBHOOK_SECRET", hook)
		t.Setenv("OUNCE_STRIPE_PRICE_MONTHLY", monthly)
		t.Setenv("OUNCE_STRIPE_PRICE_YEARLY", yearly)
		t.Setenv("OUNCE_STRIPE_API_BASE", base)
	}
	for _, tc := range []struct {
		name                             string
		key, hook, monthly, yearly, base string
		wantErr                          string
	}{
		{"key alone", "sk_test_1", "", "", "", "", "OUNCE_STRIPE_WEBHOOK_SECRET is required"},
		{"no plan", "sk_test_1", "whsec_1", "", "", "", "OUNCE_STRIPE_PRICE_MONTHLY or OUNCE_STRIPE_PRICE_YEARLY is required"},
		{"publishable key", "pk_test_1", "whsec_1", "price_1", "", "", "OUNCE_STRIPE_SECRET_KEY must be a Stripe secret"},
		{"product, not price", "sk_test_1", "whsec_1", "prod_1", "", "", "OUNCE_STRIPE_PRICE_MONTHLY must be a Stripe Price id"},
		{"bad base", "sk_test_1", "whsec_1", "price_1", "", "localhost:12111", "OUNCE_STRIPE_API_BASE must be an http:// or https:// URL"},
		{"price without key", "", "", "price_1", "", "", "OUNCE_STRIPE_PRICE_MONTHLY is set but OUNCE_STRIPE_SECRET_KEY is not"},
	} {
		set(tc.key, tc.hook, tc.monthly, tc.yearly, tc.base)
		if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}

	set("sk_test_1", " whsec_1 ", "price_m", "price_y", "http://127.0.0.1:12111/")
	t.Setenv("OUNCE_OFFLINE", "1")
	c, err := loadConfig(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := c.App.Billing
	if b.SecretKey != "sk_test_1" || b.WebhookSecret != "whsec_1" || b.PriceMonthly != "price_m" || b.PriceYearly != "price_y" || b.APIBase != "http://127.0.0.1:12111" {
		t.Fatalf("billing config %+v", b)
	}
	// Offline governs market data only: billing stays configured, and sign-ups start free.
	if !c.StripeConfigured || !c.App.Site.PaymentsEnabled || c.App.Account.NewUsersGold || !c.App.Site.Offline {
		t.Fatalf("stripe configured offline: %+v", c)
	}
}

func TestSetTierIsRecordedAsAnAdministratorsDecision(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	t.Setenv("OUNCE_REQUIRE_MEMBERSHIP", "true")
	if _, err := runCLI(t, "correct horse battery\n", "user", "add", "--email", "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "", "user", "set-tier", "--email", "ann@example.com", "--tier", "gold"); err != nil || !strings.Contains(out, "now gold") {
		t.Fatalf("set-tier: %q %v", out, err)
	}
	s, err := db.Open(context.Background(), "", dir+"/ounce.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u, _ := s.UserByEmail(context.Background(), "ann@example.com")
	m, err := s.MembershipByUser(context.Background(), u.ID)
	if err != nil || m.Tier != db.TierGold || m.TierSource != db.TierSourceAdmin {
		t.Fatalf("membership %+v %v", m, err)
	}
	h, _ := s.MembershipHistory(context.Background(), u.ID, 10)
	if len(h) != 1 || h[0].Source != db.TierSourceAdmin || h[0].Cause != "ounce user set-tier" || h[0].FromTier != db.TierFree {
		t.Fatalf("history %+v", h)
	}
}
