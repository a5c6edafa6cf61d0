// Package billing is the membership service behind Stripe: checkout for Gold, verification of a
// finished checkout, the signed webhook that keeps each member's tier in step with their
// subscription, the customer portal, the past_due grace period, and the membership history.
//
// The rules in one place: active and trialing subscriptions give Gold; past_due keeps it until
// the end of the paid period plus three days; anything else does not. Stripe only takes away
// Gold that Stripe granted, never an administrator's. Every Stripe event is recorded by id, so
// a redelivery changes nothing, and an older state of a subscription never replaces a newer
// one, so events may arrive in any order. It returns domain values and internal/apperr errors;
// it knows nothing about HTTP.
package billing

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/ratelimit"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Config is the billing part of the service configuration (the OUNCE_STRIPE_* variables).
type Config struct {
	// SecretKey is Stripe's secret API key; empty means billing is not configured.
	SecretKey string
	// WebhookSecret signs the events Stripe posts to /v1/webhooks/payment (whsec_…).
	WebhookSecret string
	// PriceMonthly and PriceYearly are the Stripe Price ids of the two Gold plans.
	PriceMonthly string
	PriceYearly  string
	// APIBase replaces https://api.stripe.com (stripe-mock in tests); empty for Stripe itself.
	APIBase string
}

// Deps are what the service is built from.
type Deps struct {
	Store  *db.Store
	Logger *slog.Logger
	// Now is the clock (time.Now when nil); the grace-period rule reads it.
	Now func() time.Time
	// BaseURL is the public address of this installation, for Stripe's return URLs.
	BaseURL string
	// HTTPClient talks to Stripe (a 30-second client when nil).
	HTTPClient *http.Client
	Config     Config
	// Limiter counts checkout look-ups at Stripe per member (in memory when nil).
	Limiter ratelimit.Limiter
}

// Service holds the billing use cases.
type Service struct {
	store   *db.Store
	log     *slog.Logger
	now     func() time.Time
	baseURL string
	cfg     Config
	stripe  *stripeAPI // nil when billing is not configured
	limiter ratelimit.Limiter

	pricesMu sync.Mutex
	prices   map[string]cachedPrice
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, log: d.Logger, now: d.Now, baseURL: strings.TrimRight(d.BaseURL, "/"), cfg: d.Config, prices: map[string]cachedPrice{}}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	if s.limiter = d.Limiter; s.limiter == nil {
		s.limiter = ratelimit.NewMemory(s.now)
	}
	if d.Config.SecretKey != "" {
		s.stripe = newStripeAPI(d.Config.SecretKey, d.Config.APIBase, d.HTTPClient, s.log)
	}
	return s
}

// Enabled reports whether Stripe is configured; without it every use case is Unavailable and
// members keep whatever tier the server gives them.
func (s *Service) Enabled() bool { return s.stripe != nil }

// errNotConfigured is the one answer of every billing use case on a server without Stripe.
var errNotConfigured = apperr.UnavailableF("billing is not configured")

// RequireEnabled is nil when Stripe is configured and the Unavailable error "billing is not
// configured" otherwise; adapters ask it before reading a body, so a bad body cannot hide
// that billing is off.
func (s *Service) RequireEnabled() error {
	if !s.Enabled() {
		return errNotConfigured
	}
	return nil
}

// The two Gold plans.
const (
	PlanMonthly = "monthly"
	PlanYearly  = "yearly"
)

// Plans lists the plan names in the order pages show them.
func Plans() []string { return []string{PlanMonthly, PlanYearly} }

// priceID is the configured Stripe Price of a plan ("" when that plan is not offered).
func (s *Service) priceID(plan string) string {
	switch plan {
	case PlanMonthly:
		return s.cfg.PriceMonthly
	case PlanYearly:
		return s.cfg.PriceYearly
	}
	return ""
}

// planOf names the plan of a subscription: by its price when it is one of ours, else by what
// checkout wrote in its metadata, else by its billing interval.
func (s *Service) planOf(sub Subscription) string {
	switch {
	case sub.PriceID != "" && sub.PriceID == s.cfg.PriceMonthly:
		return PlanMonthly
	case sub.PriceID != "" && sub.PriceID == s.cfg.PriceYearly:
		return PlanYearly
	case sub.Metadata["plan"] == PlanMonthly || sub.Metadata["plan"] == PlanYearly:
		return sub.Metadata["plan"]
	case sub.Interval == "month":
		return PlanMonthly
	case sub.Interval == "year":
		return PlanYearly
	}
	return ""
}

// Membership is a member's membership as pages and the API show it.
type Membership struct {
	Tier string
	// Source is who holds the tier: signup, admin or stripe.
	Source string
	// Status is the Stripe status of the subscription the member's page talks about, or
	// "none" without one.
	Status string
	Plan   string
	// CurrentPeriodEnd is when the paid period ends (renewal, or the end for a subscription
	// set to cancel); zero when unknown.
	CurrentPeriodEnd  time.Time
	CancelAtPeriodEnd bool
	// GraceUntil is when a past_due subscription stops giving Gold.
	GraceUntil time.Time
	// EndedAt is when a canceled subscription ended.
	EndedAt time.Time
	// HasCustomer is true once the member has a Stripe customer (the portal needs one).
	HasCustomer bool
}

// StatusNone is the Status of a member without a subscription.
const StatusNone = "none"

// membershipOf summarises stored state at now.
func membershipOf(m db.Membership, now time.Time) Membership {
	out := Membership{Tier: m.Tier, Source: m.TierSource, Status: StatusNone, HasCustomer: m.CustomerID != ""}
	if b := current(m.Subscriptions, now); b != nil {
		out.Status, out.Plan, out.CancelAtPeriodEnd = b.Status, b.Plan, b.CancelAtPeriodEnd
		out.CurrentPeriodEnd = periodEnd(*b)
		if b.EndedAt != nil {
			out.EndedAt = *b.EndedAt
		}
		if b.Status == StatusPastDue {
			_, out.GraceUntil = Grants(b.Status, out.CurrentPeriodEnd, now)
		}
	}
	return out
}

// Status is u's membership now. It works without Stripe configured too (the page shows the
// tier and its history either way).
func (s *Service) Status(ctx context.Context, u db.User) (Membership, error) {
	if u.ID == 0 {
		return Membership{}, apperr.New(apperr.Unauthorized, "sign in to see your membership")
	}
	m, err := s.store.MembershipByUser(ctx, u.ID)
	if errors.Is(err, db.ErrNotFound) {
		return Membership{}, apperr.NotFoundf("account")
	}
	if err != nil {
		return Membership{}, err
	}
	return membershipOf(m, s.now()), nil
}

// HistoryLimit is how many membership changes the page lists.
const HistoryLimit = 50

// History lists u's membership changes, newest first.
func (s *Service) History(ctx context.Context, u db.User) ([]db.MembershipChange, error) {
	if u.ID == 0 {
		return nil, apperr.New(apperr.Unauthorized, "sign in to see your membership")
	}
	return s.store.MembershipHistory(ctx, u.ID, HistoryLimit)
}
