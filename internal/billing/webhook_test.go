package billing

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/billing/billingtest"
)

// unchanged asserts a refused or repeated delivery left everything as it was.
func (f *fixture) unchanged(u db.User, tier string, history int, eventID string, recorded bool) {
	f.t.Helper()
	if got := f.tier(u); got != tier {
		f.t.Fatalf("tier %s, want %s", got, tier)
	}
	if n := len(f.history(u)); n != history {
		f.t.Fatalf("%d history rows, want %d", n, history)
	}
	if seen, _ := f.store.BillingEventSeen(f.ctx, eventID); seen != recorded {
		f.t.Fatalf("event %s recorded = %v, want %v", eventID, seen, recorded)
	}
}

func TestWebhookRefusesForgedStaleAndUnsignedDeliveries(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		ann := f.member("ann@example.com", db.TierFree)
		f.linkCustomer(ann, "cus_ann")
		now := time.Now()
		id, payload := f.subEvent(EventSubscriptionCreated, "sub_ann", "cus_ann", StatusActive, now, now.Add(720*time.Hour), ann)
		sig := billingtest.Sign(payload, testWebhookSecret, now)
		tampered := []byte(strings.Replace(string(payload), `"status":"active"`, `"status":"trialing"`, 1))
		for _, tc := range []struct {
			name, header string
			body         []byte
			msg          string
		}{
			{"missing header", "", payload, "is missing"},
			{"malformed header", "t=yesterday,v1=abc", payload, "is malformed"},
			{"forged signature", "t=" + strconv.FormatInt(now.Unix(), 10) + ",v1=" + strings.Repeat("ab", 32), payload, "does not match the body under the webhook secret"},
			{"wrong secret", billingtest.Sign(payload, "whsec_someone_else", now), payload, "does not match the body under the webhook secret"},
			{"stale timestamp", billingtest.Sign(payload, testWebhookSecret, now.Add(-301*time.Second)), payload, "is more than 300 seconds old"},
			{"body changed after signing", sig, tampered, "does not match the body under the webhook secret"},
			{"no v1 signature", "t=" + strconv.FormatInt(now.Unix(), 10) + ",v0=" + strings.Repeat("ab", 32), payload, "does not match the body under the webhook secret"},
		} {
			_, err := f.svc.HandleWebhook(f.ctx, tc.body, tc.header)
			fe := apperr.FieldsOf(err)
			if len(fe) != 1 || fe[0].Field != "Stripe-Signature" || fe[0].Message != tc.msg {
				t.Errorf("%s: %v", tc.name, err)
			}
			f.unchanged(ann, db.TierFree, 0, id, false)
		}
		// Signed with the right secret but not an event: refused too.
		junk := []byte(`{"hello":"world"}`)
		if _, err := f.svc.HandleWebhook(f.ctx, junk, billingtest.Sign(junk, testWebhookSecret, now)); apperr.KindOf(err) != apperr.Invalid {
			t.Errorf("signed non-event: %v", err)
		}
		big := []byte(`{"pad":"` + strings.Repeat("x", MaxWebhookBytes) + `"}`)
		if _, err := f.svc.HandleWebhook(f.ctx, big, billingtest.Sign(big, testWebhookSecret, now)); apperr.KindOf(err) != apperr.TooLarge {
			t.Errorf("oversized event: %v", err)
		}
		f.unchanged(ann, db.TierFree, 0, id, false)

		// The genuine delivery works, and its captured copy replayed within the window is a no-op.
		res, err := f.svc.HandleWebhook(f.ctx, payload, sig)
		if err != nil || res.Duplicate || f.tier(ann) != db.TierGold {
			t.Fatalf("genuine delivery: %+v %v", res, err)
		}
		if res, err := f.svc.HandleWebhook(f.ctx, payload, sig); err != nil || !res.Duplicate {
			t.Fatalf("captured replay: %+v %v", res, err)
		}
		f.unchanged(ann, db.TierGold, 1, id, true)

		// Without a webhook secret configured nothing is accepted.
		cfg := testConfig(mock)
		cfg.WebhookSecret = ""
		noSecret := New(Deps{Store: s, Config: cfg})
		if _, err := noSecret.HandleWebhook(f.ctx, payload, sig); apperr.KindOf(err) != apperr.Unavailable {
			t.Fatalf("no webhook secret: %v", err)
		}
	})
}

func TestWebhookReplayedTenTimesChangesStateOnce(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		ann := f.member("ann@example.com", db.TierFree)
		f.linkCustomer(ann, "cus_ann")
		now := time.Now()
		id, payload := f.subEvent(EventSubscriptionCreated, "sub_ann", "cus_ann", StatusActive, now, now.Add(720*time.Hour), ann)
		dups := 0
		for i := 0; i < 10; i++ {
			// Stripe signs each redelivery afresh.
			res := f.mustDeliver(payload)
			if res.Duplicate {
				dups++
			}
		}
		if dups != 9 {
			t.Fatalf("%d of 10 deliveries were duplicates, want 9", dups)
		}
		f.unchanged(ann, db.TierGold, 1, id, true)

		// Ten replays of the deletion after a later re-subscription change nothing either.
		_, del := f.subEvent(EventSubscriptionDeleted, "sub_ann", "cus_ann", StatusCanceled, now.Add(time.Second), now.Add(720*time.Hour), ann)
		f.mustDeliver(del)
		_, again := f.subEvent(EventSubscriptionCreated, "sub_ann2", "cus_ann", StatusActive, now.Add(2*time.Second), now.Add(720*time.Hour), ann)
		f.mustDeliver(again)
		for i := 0; i < 10; i++ {
			if res := f.mustDeliver(del); !res.Duplicate {
				t.Fatalf("replay %d of the deletion applied: %+v", i, res)
			}
		}
		if f.tier(ann) != db.TierGold || len(f.history(ann)) != 3 {
			t.Fatalf("tier %s, history %+v", f.tier(ann), f.history(ann))
		}
	})
}

func TestWebhookOutOfOrder(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		now := time.Now().Truncate(time.Second)
		end := now.Add(720 * time.Hour)

		// Deleted arrives before created: the member never gets Gold.
		ann := f.member("ann@example.com", db.TierFree)
		f.linkCustomer(ann, "cus_ann")
		_, created := f.subEvent(EventSubscriptionCreated, "sub_ann", "cus_ann", StatusActive, now.Add(-time.Hour), end, ann)
		_, deleted := f.subEvent(EventSubscriptionDeleted, "sub_ann", "cus_ann", StatusCanceled, now, end, ann)
		f.mustDeliver(deleted)
		res := f.mustDeliver(created)
		if !strings.HasPrefix(res.Outcome, "stale") || f.tier(ann) != db.TierFree || len(f.history(ann)) != 0 {
			t.Fatalf("created after deleted: %+v, tier %s", res, f.tier(ann))
		}
		if b, _ := s.BillingSubscriptionByID(f.ctx, "sub_ann"); b.Status != StatusCanceled {
			t.Fatalf("stored %+v", b)
		}

		// An update carrying an older `created` than the stored state is ignored.
		bob := f.member("bob@example.com", db.TierFree)
		f.linkCustomer(bob, "cus_bob")
		_, fresh := f.subEvent(EventSubscriptionUpdated, "sub_bob", "cus_bob", StatusActive, now, end, bob)
		_, older := f.subEvent(EventSubscriptionUpdated, "sub_bob", "cus_bob", StatusUnpaid, now.Add(-time.Minute), end.Add(-720*time.Hour), bob)
		f.mustDeliver(fresh)
		if res := f.mustDeliver(older); !strings.HasPrefix(res.Outcome, "stale") {
			t.Fatalf("older update: %+v", res)
		}
		b, _ := s.BillingSubscriptionByID(f.ctx, "sub_bob")
		if f.tier(bob) != db.TierGold || b.Status != StatusActive || !b.CurrentPeriodEnd.Equal(end) {
			t.Fatalf("older update overwrote: tier %s, %+v", f.tier(bob), b)
		}
	})
}

func TestWebhookEventKinds(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		now := time.Now().Truncate(time.Second)
		end := now.Add(720 * time.Hour)
		ann := f.member("ann@example.com", db.TierFree)
		uid := strconv.FormatInt(ann.ID, 10)
		sub := func(id, status string, periodEnd time.Time) {
			mock.Override("GET", "/v1/subscriptions/"+id, map[string]any{"status": status, "customer": "cus_ann", "current_period_end": periodEnd.Unix()})
		}

		// checkout.session.completed: the member is our client_reference_id; the subscription's
		// state is read from Stripe (stripe-mock).
		sub("sub_1", StatusActive, end)
		evID := f.eventID()
		res := f.mustDeliver(billingtest.Event(evID, EventCheckoutCompleted, now, billingtest.CheckoutSession("cs_test_1", uid, "cus_ann", "sub_1", now)))
		if res.Duplicate || f.tier(ann) != db.TierGold || len(mock.CallsTo("GET", "/v1/subscriptions/sub_1")) != 1 {
			t.Fatalf("checkout completed: %+v tier %s", res, f.tier(ann))
		}
		if cust, _ := s.BillingCustomer(f.ctx, ann.ID); cust != "cus_ann" {
			t.Fatalf("customer not linked: %q", cust)
		}
		if h := f.history(ann); len(h) != 1 || h[0].Cause != EventCheckoutCompleted+" "+evID {
			t.Fatalf("history %+v", h)
		}

		// customer.subscription.updated to past_due: Gold until the period end + 3 days.
		_, pd := f.subEvent(EventSubscriptionUpdated, "sub_1", "cus_ann", StatusPastDue, now.Add(time.Second), now.Add(-24*time.Hour), ann)
		f.mustDeliver(pd)
		m, _ := f.svc.Status(f.ctx, ann)
		if m.Tier != db.TierGold || m.Status != StatusPastDue || !m.GraceUntil.Equal(now.Add(48*time.Hour)) {
			t.Fatalf("past_due: %+v", m)
		}
		// invoice.paid: the subscription is read again (active now).
		sub("sub_1", StatusActive, end)
		f.mustDeliver(billingtest.Event(f.eventID(), EventInvoicePaid, now.Add(2*time.Second), billingtest.Invoice("in_1", "cus_ann", "sub_1")))
		if m, _ := f.svc.Status(f.ctx, ann); m.Status != StatusActive || !m.CurrentPeriodEnd.Equal(end) {
			t.Fatalf("invoice.paid: %+v", m)
		}
		// invoice.payment_failed: read again (past_due, period ended 4 days ago: grace over).
		sub("sub_1", StatusPastDue, now.Add(-96*time.Hour))
		f.mustDeliver(billingtest.Event(f.eventID(), EventInvoicePaymentFailed, now.Add(3*time.Second), billingtest.Invoice("in_2", "cus_ann", "sub_1")))
		if f.tier(ann) != db.TierFree {
			t.Fatal("payment failed long after the period: Gold kept")
		}
		// customer.subscription.created (a new one, trialing) → Gold; deleted → free.
		_, cr := f.subEvent(EventSubscriptionCreated, "sub_2", "cus_ann", StatusTrialing, now.Add(4*time.Second), end, ann)
		f.mustDeliver(cr)
		if f.tier(ann) != db.TierGold {
			t.Fatal("trialing subscription did not give Gold")
		}
		_, del := f.subEvent(EventSubscriptionDeleted, "sub_2", "cus_ann", StatusCanceled, now.Add(5*time.Second), end, ann)
		f.mustDeliver(del)
		if f.tier(ann) != db.TierFree {
			t.Fatal("deleted subscription kept Gold")
		}
		if n := len(f.history(ann)); n != 4 {
			t.Fatalf("%d history rows, want 4 (gold, free, gold, free): %+v", n, f.history(ann))
		}

		// Verified events that concern no member are acknowledged, recorded and ignored.
		for _, tc := range []struct {
			typ string
			obj map[string]any
		}{
			{"customer.created", map[string]any{"id": "cus_x", "object": "customer"}},
			{EventSubscriptionUpdated, billingtest.Subscription("sub_stranger", "cus_stranger", StatusActive, end, nil)},
			{EventInvoicePaid, map[string]any{"id": "in_9", "object": "invoice", "customer": "cus_ann", "subscription": nil}},
			{EventCheckoutCompleted, map[string]any{"id": "cs_test_9", "object": "checkout.session", "mode": "payment", "client_reference_id": uid, "subscription": nil}},
		} {
			id := f.eventID()
			res, err := f.deliver(billingtest.Event(id, tc.typ, now, tc.obj))
			out, _ := s.BillingEventOutcome(f.ctx, id)
			if err != nil || res.Duplicate || !strings.HasPrefix(out, "ignored") {
				t.Errorf("%s: %+v %v outcome %q", tc.typ, res, err, out)
			}
		}
		if f.tier(ann) != db.TierFree || len(f.history(ann)) != 4 {
			t.Fatal("an ignored event changed the member")
		}
	})
}

func TestPastDueGraceExpiresWithTheClock(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		now := time.Now().Truncate(time.Second)
		f.clock.Set(now)
		ann := f.member("ann@example.com", db.TierFree)
		f.linkCustomer(ann, "cus_ann")
		periodEnd := now.Add(-24 * time.Hour)
		_, cr := f.subEvent(EventSubscriptionCreated, "sub_ann", "cus_ann", StatusActive, now.Add(-time.Minute), periodEnd, ann)
		f.mustDeliver(cr)
		_, pd := f.subEvent(EventSubscriptionUpdated, "sub_ann", "cus_ann", StatusPastDue, now, periodEnd, ann)
		f.mustDeliver(pd)
		if n, err := f.svc.ExpireGrace(f.ctx); err != nil || n != 0 || f.tier(ann) != db.TierGold {
			t.Fatalf("within grace: %d %v %s", n, err, f.tier(ann))
		}
		f.clock.Set(periodEnd.Add(PastDueGrace - time.Second))
		if n, _ := f.svc.ExpireGrace(f.ctx); n != 0 || f.tier(ann) != db.TierGold {
			t.Fatal("grace ended a second early")
		}
		f.clock.Set(periodEnd.Add(PastDueGrace + time.Minute))
		if n, err := f.svc.ExpireGrace(f.ctx); err != nil || n != 1 || f.tier(ann) != db.TierFree {
			t.Fatalf("after grace: %d %v %s", n, err, f.tier(ann))
		}
		h := f.history(ann)
		if h[0].ToTier != db.TierFree || h[0].Source != "expiry" || h[0].Cause != "past_due grace ended for sub_ann" {
			t.Fatalf("history %+v", h[0])
		}
		if n, _ := f.svc.ExpireGrace(f.ctx); n != 0 || len(f.history(ann)) != 2 {
			t.Fatal("the job is not idempotent")
		}
		// The card goes through later: Gold again.
		_, ok := f.subEvent(EventSubscriptionUpdated, "sub_ann", "cus_ann", StatusActive, now.Add(time.Minute), now.Add(720*time.Hour), ann)
		f.mustDeliver(ok)
		if f.tier(ann) != db.TierGold {
			t.Fatal("recovered payment did not restore Gold")
		}

		// The leader job runs the same check (on SQLite it leads at once).
		bob := f.member("bob@example.com", db.TierFree)
		f.linkCustomer(bob, "cus_bob")
		_, bobPD := f.subEvent(EventSubscriptionUpdated, "sub_bob", "cus_bob", StatusPastDue, time.Now(), periodEnd, bob)
		f.clock.Set(now)
		f.mustDeliver(bobPD)
		if f.tier(bob) != db.TierGold {
			t.Fatal("past_due within its grace did not give Gold")
		}
		f.clock.Set(periodEnd.Add(PastDueGrace + time.Minute))
		ctx, cancel := context.WithCancel(f.ctx)
		done := make(chan struct{})
		go func() { f.svc.Run(ctx); close(done) }()
		deadline := time.Now().Add(10 * time.Second)
		for f.tier(bob) != db.TierFree && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		<-done
		if f.tier(bob) != db.TierFree {
			t.Fatal("the leader job did not end bob's grace")
		}
	})
}

func TestAdminGoldIsNeverTakenByStripe(t *testing.T) {
	mock := billingtest.Start(t)
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, mock)
		acct := account.New(account.Deps{Store: s})
		now := time.Now().Truncate(time.Second)
		ann := f.member("ann@example.com", db.TierFree)
		f.linkCustomer(ann, "cus_ann")
		if err := acct.SetTier(f.ctx, "ANN@example.com", db.TierGold); err != nil {
			t.Fatal(err)
		}
		h := f.history(ann)
		if len(h) != 1 || h[0].Source != db.TierSourceAdmin || h[0].Cause != "ounce user set-tier" || h[0].ToTier != db.TierGold {
			t.Fatalf("admin change not recorded: %+v", h)
		}
		_, cr := f.subEvent(EventSubscriptionCreated, "sub_ann", "cus_ann", StatusActive, now, now.Add(time.Hour), ann)
		_, del := f.subEvent(EventSubscriptionDeleted, "sub_ann", "cus_ann", StatusCanceled, now.Add(time.Second), now.Add(time.Hour), ann)
		f.mustDeliver(cr)
		f.mustDeliver(del)
		m, _ := f.svc.Status(f.ctx, ann)
		if m.Tier != db.TierGold || m.Source != db.TierSourceAdmin || len(f.history(ann)) != 1 {
			t.Fatalf("admin gold after a canceled subscription: %+v", m)
		}
		// Gold a self-hosted server gave at sign-up is not Stripe's to take either.
		old := f.member("old@example.com", db.TierGold)
		f.linkCustomer(old, "cus_old")
		_, oldDel := f.subEvent(EventSubscriptionDeleted, "sub_old", "cus_old", StatusCanceled, now, now, old)
		f.mustDeliver(oldDel)
		if f.tier(old) != db.TierGold {
			t.Fatal("sign-up gold taken by Stripe")
		}
		// An administrator's "free" gives way to a subscription the member pays for.
		if err := acct.SetTier(f.ctx, "ann@example.com", db.TierFree); err != nil {
			t.Fatal(err)
		}
		_, again := f.subEvent(EventSubscriptionCreated, "sub_ann2", "cus_ann", StatusActive, now.Add(2*time.Second), now.Add(time.Hour), ann)
		f.mustDeliver(again)
		if m, _ := f.svc.Status(f.ctx, ann); m.Tier != db.TierGold || m.Source != db.TierSourceStripe {
			t.Fatalf("paid after admin free: %+v", m)
		}
		if err := acct.SetTier(f.ctx, "nobody@example.com", db.TierGold); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("unknown account: %v", err)
		}
	})
}

// Two instances over one PostgreSQL receive each event at the same moment (Stripe retrying
// while the first delivery is slow): exactly one handles it, and the state changes once.
func TestTwoInstancesReceiveTheSameEventConcurrently(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip("PostgreSQL not configured (OUNCE_TEST_POSTGRES_URL); CI=true makes this a failure")
	}
	mock := billingtest.Start(t)
	u := dbtest.PostgresSchema(t, base)
	s1, s2 := dbtest.OpenPostgres(t, u), dbtest.OpenPostgres(t, u)
	f := newFixture(t, s1, mock)
	other := New(Deps{Store: s2, Now: f.clock.Now, Config: testConfig(mock)})
	ann := f.member("ann@example.com", db.TierFree)
	f.linkCustomer(ann, "cus_ann")
	now := time.Now().Truncate(time.Second)
	for round := 0; round < 20; round++ {
		typ, status := EventSubscriptionCreated, StatusActive
		if round%2 == 1 {
			typ, status = EventSubscriptionDeleted, StatusCanceled
		}
		// A new subscription each round, so every event is a real change.
		subID := "sub_r" + strconv.Itoa(round/2)
		_, payload := f.subEvent(typ, subID, "cus_ann", status, now.Add(time.Duration(round)*time.Second), now.Add(time.Hour), ann)
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make([]WebhookResult, 4)
		errs := make([]error, 4)
		for i := range results {
			svc := f.svc
			if i%2 == 1 {
				svc = other
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i], errs[i] = svc.HandleWebhook(context.Background(), payload, billingtest.Sign(payload, testWebhookSecret, time.Now()))
			}()
		}
		close(start)
		wg.Wait()
		handled := 0
		for i := range results {
			if errs[i] != nil {
				t.Fatalf("round %d: %v", round, errs[i])
			}
			if !results[i].Duplicate {
				handled++
			}
		}
		if handled != 1 {
			t.Fatalf("round %d: %d instances handled the event, want 1", round, handled)
		}
		if n := len(f.history(ann)); n != round+1 {
			t.Fatalf("round %d: %d history rows, want %d", round, n, round+1)
		}
	}
}
