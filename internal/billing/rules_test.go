package billing

import (
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
)

func TestGrants(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	end := now.Add(-48 * time.Hour) // paid period ended two days ago
	for _, tc := range []struct {
		status string
		end    time.Time
		want   bool
	}{
		{StatusActive, end, true}, {StatusTrialing, time.Time{}, true},
		{StatusPastDue, end, true},                                   // day 2 of 3
		{StatusPastDue, now.Add(-PastDueGrace), false},               // exactly at the end of grace
		{StatusPastDue, now.Add(-PastDueGrace - time.Second), false}, // after it
		{StatusPastDue, now.Add(-PastDueGrace + time.Second), true},  // a second before
		{StatusPastDue, time.Time{}, false},                          // no period known: no grace
		{StatusCanceled, now.Add(time.Hour), false}, {StatusUnpaid, end, false}, {StatusIncomplete, end, false},
		{StatusIncompleteExpired, end, false}, {StatusPaused, end, false}, {"something_new", end, false},
	} {
		if got, _ := Grants(tc.status, tc.end, now); got != tc.want {
			t.Errorf("Grants(%s, %v) = %v", tc.status, tc.end, got)
		}
	}
	if _, until := Grants(StatusPastDue, end, now); !until.Equal(end.Add(72 * time.Hour)) {
		t.Errorf("grace until %v", until)
	}
}

func TestSupersedes(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	st := func(status string, at time.Time) *db.BillingSubscription {
		return &db.BillingSubscription{Status: status, StateAt: at}
	}
	for _, tc := range []struct {
		name   string
		stored *db.BillingSubscription
		status string
		at     time.Time
		want   bool
	}{
		{"first state", nil, StatusIncomplete, t0, true},
		{"newer", st(StatusActive, t0), StatusPastDue, t0.Add(time.Second), true},
		{"older", st(StatusActive, t0), StatusPastDue, t0.Add(-time.Second), false},
		{"deleted before created", st(StatusCanceled, t0.Add(time.Second)), StatusActive, t0, false},
		{"canceled is final even for a later state", st(StatusCanceled, t0), StatusActive, t0.Add(time.Hour), false},
		{"a later canceled refreshes canceled", st(StatusCanceled, t0), StatusCanceled, t0.Add(time.Hour), true},
		{"never back to incomplete", st(StatusActive, t0), StatusIncomplete, t0.Add(time.Hour), false},
		{"incomplete to active", st(StatusIncomplete, t0), StatusActive, t0.Add(time.Second), true},
		{"same second: later stage wins", st(StatusActive, t0), StatusCanceled, t0, true},
		{"same second: earlier stage loses", st(StatusPastDue, t0), StatusActive, t0, false},
		{"same second, same state", st(StatusActive, t0), StatusActive, t0, true},
	} {
		if got := supersedes(tc.stored, tc.status, tc.at); got != tc.want {
			t.Errorf("%s: supersedes = %v", tc.name, got)
		}
	}
}

func TestDecideTier(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	future := now.Add(24 * time.Hour)
	active := db.BillingSubscription{ID: "sub_a", Status: StatusActive, CurrentPeriodEnd: &future}
	gone := db.BillingSubscription{ID: "sub_c", Status: StatusCanceled}
	for _, tc := range []struct {
		name                 string
		m                    db.Membership
		wantTier, wantSource string
	}{
		{"paying free member", db.Membership{Tier: db.TierFree, TierSource: db.TierSourceSignup, Subscriptions: []db.BillingSubscription{active}}, db.TierGold, db.TierSourceStripe},
		{"lapsed payer", db.Membership{Tier: db.TierGold, TierSource: db.TierSourceStripe, Subscriptions: []db.BillingSubscription{gone}}, db.TierFree, db.TierSourceStripe},
		{"admin gold survives", db.Membership{Tier: db.TierGold, TierSource: db.TierSourceAdmin, Subscriptions: []db.BillingSubscription{gone}}, db.TierGold, db.TierSourceAdmin},
		{"self-hosted gold survives", db.Membership{Tier: db.TierGold, TierSource: db.TierSourceSignup}, db.TierGold, db.TierSourceSignup},
		{"one of two subscriptions still pays", db.Membership{Tier: db.TierGold, TierSource: db.TierSourceStripe, Subscriptions: []db.BillingSubscription{gone, active}}, db.TierGold, db.TierSourceStripe},
		{"free stays free", db.Membership{Tier: db.TierFree, TierSource: db.TierSourceAdmin, Subscriptions: []db.BillingSubscription{gone}}, db.TierFree, db.TierSourceAdmin},
	} {
		tier, source := decideTier(tc.m, now)
		if tier != tc.wantTier || source != tc.wantSource {
			t.Errorf("%s: %s/%s, want %s/%s", tc.name, tier, source, tc.wantTier, tc.wantSource)
		}
	}
}
