package billing

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/billing/billingtest"
)

const (
	testWebhookSecret = "whsec_test_ounce"
	testPriceMonthly  = "price_monthly_test"
	testPriceYearly   = "price_yearly_test"
)

// clock is the service's fake clock; webhook signatures still use the real one (the SDK's
// tolerance check reads time.Now), so tests move it relative to the real time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// fixture is a billing service over one store, talking to stripe-mock.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	store *db.Store
	mock  *billingtest.Mock
	clock *clock
	svc   *Service
	seq   int
}

func testConfig(mock *billingtest.Mock) Config {
	return Config{SecretKey: "sk_test_ounce", WebhookSecret: testWebhookSecret, PriceMonthly: testPriceMonthly, PriceYearly: testPriceYearly, APIBase: mock.URL}
}

func newFixture(t *testing.T, s *db.Store, mock *billingtest.Mock) *fixture {
	mock.Reset()
	c := &clock{t: time.Now().UTC()}
	return &fixture{t: t, ctx: context.Background(), store: s, mock: mock, clock: c,
		svc: New(Deps{Store: s, Now: c.Now, BaseURL: "http://ounce.test/", Config: testConfig(mock)})}
}

// member creates an account.
func (f *fixture) member(email, tier string) db.User {
	f.t.Helper()
	u, err := f.store.InsertUser(f.ctx, email, "x", tier, false)
	if err != nil {
		f.t.Fatal(err)
	}
	return u
}

// reload reads a member again.
func (f *fixture) reload(u db.User) db.User {
	f.t.Helper()
	got, err := f.store.UserByID(f.ctx, u.ID)
	if err != nil {
		f.t.Fatal(err)
	}
	return got
}

func (f *fixture) tier(u db.User) string { return f.reload(u).Tier }

func (f *fixture) history(u db.User) []db.MembershipChange {
	f.t.Helper()
	h, err := f.store.MembershipHistory(f.ctx, u.ID, 100)
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

// eventID returns a fresh event id.
func (f *fixture) eventID() string {
	f.seq++
	return "evt_test_" + strconv.Itoa(f.seq) + "_" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// deliver signs payload now, as Stripe does, and hands it to the webhook.
func (f *fixture) deliver(payload []byte) (WebhookResult, error) {
	return f.svc.HandleWebhook(f.ctx, payload, billingtest.Sign(payload, testWebhookSecret, time.Now()))
}

// subEvent is a customer.subscription.* event for u's customer.
func (f *fixture) subEvent(typ, subID, customer, status string, created, periodEnd time.Time, u db.User) (string, []byte) {
	id := f.eventID()
	obj := billingtest.Subscription(subID, customer, status, periodEnd, map[string]string{"user_id": strconv.FormatInt(u.ID, 10)})
	return id, billingtest.Event(id, typ, created, obj)
}

// linkCustomer gives u a Stripe customer id, as their first checkout would.
func (f *fixture) linkCustomer(u db.User, customer string) {
	f.t.Helper()
	if _, err := f.store.LinkBillingCustomer(f.ctx, u.ID, customer); err != nil {
		f.t.Fatal(err)
	}
}

// mustDeliver delivers and fails the test on an error.
func (f *fixture) mustDeliver(payload []byte) WebhookResult {
	f.t.Helper()
	res, err := f.deliver(payload)
	if err != nil {
		f.t.Fatalf("deliver: %v", err)
	}
	return res
}
