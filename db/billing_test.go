package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestBillingStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		ann, _ := s.InsertUser(ctx, "ann@example.com", "x", db.TierFree, false)
		bob, _ := s.InsertUser(ctx, "bob@example.com", "x", db.TierFree, false)

		// One customer per member: the first link wins, and a customer belongs to one member.
		if _, err := s.BillingCustomer(ctx, ann.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("no customer yet: %v", err)
		}
		if got, err := s.LinkBillingCustomer(ctx, ann.ID, "cus_a"); err != nil || got != "cus_a" {
			t.Fatalf("link: %q %v", got, err)
		}
		if got, _ := s.LinkBillingCustomer(ctx, ann.ID, "cus_b"); got != "cus_a" {
			t.Fatalf("second link replaced the first: %q", got)
		}
		if _, err := s.LinkBillingCustomer(ctx, bob.ID, "cus_a"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("a customer linked to two members: %v", err)
		}
		if id, err := s.UserIDByBillingCustomer(ctx, "cus_a"); err != nil || id != ann.ID {
			t.Fatalf("by customer: %d %v", id, err)
		}

		// An update with an event: state, tier and history in one go; the same event again is
		// a duplicate that writes nothing.
		end := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
		ev := &db.BillingEvent{ID: "evt_1", Type: "customer.subscription.created", Created: at}
		decide := func(m db.Membership) (db.MembershipUpdate, error) {
			if m.CustomerID != "cus_a" || m.Tier != db.TierFree || m.TierSource != db.TierSourceSignup {
				t.Errorf("read %+v", m)
			}
			return db.MembershipUpdate{Subscription: &db.BillingSubscription{ID: "sub_1", CustomerID: "cus_a", Status: "active", Plan: "monthly", PriceID: "price_m", CurrentPeriodEnd: &end, StateAt: at},
				Tier: db.TierGold, TierSource: db.TierSourceStripe, Source: db.TierSourceStripe, Cause: "customer.subscription.created evt_1", Outcome: "applied"}, nil
		}
		res, err := s.UpdateMembership(ctx, ann.ID, ev, decide)
		if err != nil || res.Duplicate || res.Change == nil || res.Change.FromTier != db.TierFree || res.Change.ToTier != db.TierGold {
			t.Fatalf("update: %+v %v", res, err)
		}
		res, err = s.UpdateMembership(ctx, ann.ID, ev, func(db.Membership) (db.MembershipUpdate, error) {
			t.Error("decide ran for a duplicate event")
			return db.MembershipUpdate{}, nil
		})
		if err != nil || !res.Duplicate {
			t.Fatalf("duplicate: %+v %v", res, err)
		}
		if out, _ := s.BillingEventOutcome(ctx, "evt_1"); out != "applied" {
			t.Fatalf("outcome %q", out)
		}
		m, err := s.MembershipByUser(ctx, ann.ID)
		if err != nil || m.Tier != db.TierGold || m.TierSource != db.TierSourceStripe || len(m.Subscriptions) != 1 {
			t.Fatalf("membership %+v %v", m, err)
		}
		b := m.Subscriptions[0]
		if b.UserID != ann.ID || !b.CurrentPeriodEnd.Equal(end) || !b.StateAt.Equal(at) || b.EndedAt != nil || b.Plan != "monthly" {
			t.Fatalf("stored subscription %+v", b)
		}
		// Replacing the row keeps one row per subscription.
		_, err = s.UpdateMembership(ctx, ann.ID, nil, func(db.Membership) (db.MembershipUpdate, error) {
			return db.MembershipUpdate{Subscription: &db.BillingSubscription{ID: "sub_1", Status: "past_due", StateAt: at.Add(time.Hour)}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if pd, _ := s.BillingSubscriptionsByStatus(ctx, "past_due"); len(pd) != 1 || pd[0].ID != "sub_1" || pd[0].CurrentPeriodEnd != nil {
			t.Fatalf("past_due rows %+v", pd)
		}
		if dup, err := s.RecordBillingEvent(ctx, db.BillingEvent{ID: "evt_1", Type: "x", Created: at}, "ignored"); err != nil || !dup {
			t.Fatalf("record a known event: %v %v", dup, err)
		}
		if dup, err := s.RecordBillingEvent(ctx, db.BillingEvent{ID: "evt_2", Type: "customer.created", Created: at}, "ignored"); err != nil || dup {
			t.Fatalf("record: %v %v", dup, err)
		}

		// An administrator's decision holds the tier and is recorded; repeating it is not a change.
		c, err := s.SetTierByAdmin(ctx, "BOB@example.com", db.TierGold, "ounce user set-tier")
		if err != nil || c == nil || c.Source != db.TierSourceAdmin || c.ToTier != db.TierGold {
			t.Fatalf("admin: %+v %v", c, err)
		}
		if c, err := s.SetTierByAdmin(ctx, "bob@example.com", db.TierGold, "ounce user set-tier"); err != nil || c != nil {
			t.Fatalf("repeat: %+v %v", c, err)
		}
		if _, err := s.SetTierByAdmin(ctx, "nobody@example.com", db.TierGold, "x"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown: %v", err)
		}
		if _, err := s.UpdateMembership(ctx, 99999, nil, func(db.Membership) (db.MembershipUpdate, error) { return db.MembershipUpdate{}, nil }); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown member: %v", err)
		}
		h, err := s.MembershipHistory(ctx, bob.ID, 10)
		if err != nil || len(h) != 1 || h[0].Cause != "ounce user set-tier" {
			t.Fatalf("history %+v %v", h, err)
		}
	})
}
