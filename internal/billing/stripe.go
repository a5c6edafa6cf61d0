package billing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stripe/stripe-go/v76"
	portalsession "github.com/stripe/stripe-go/v76/billingportal/session"
	checkoutsession "github.com/stripe/stripe-go/v76/checkout/session"
	"github.com/stripe/stripe-go/v76/customer"
	"github.com/stripe/stripe-go/v76/price"
	"github.com/stripe/stripe-go/v76/subscription"

	"github.com/ouncehq/ounce/internal/apperr"
)

// stripeAPI is the service's one door to Stripe: the few calls billing makes, through the
// stripe-go clients of those resources only, with a backend of our own (no package globals),
// pointed at OUNCE_STRIPE_API_BASE when set (stripe-mock in tests).
type stripeAPI struct {
	customers     customer.Client
	sessions      checkoutsession.Client
	subscriptions subscription.Client
	prices        price.Client
	portal        portalsession.Client
}

func newStripeAPI(key, base string, hc *http.Client, log *slog.Logger) *stripeAPI {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	cfg := &stripe.BackendConfig{HTTPClient: hc, LeveledLogger: slogLeveled{log}, MaxNetworkRetries: stripe.Int64(2), EnableTelemetry: stripe.Bool(false)}
	if base != "" {
		cfg.URL = stripe.String(strings.TrimRight(base, "/"))
	}
	b := stripe.GetBackendWithConfig(stripe.APIBackend, cfg)
	return &stripeAPI{
		customers:     customer.Client{B: b, Key: key},
		sessions:      checkoutsession.Client{B: b, Key: key},
		subscriptions: subscription.Client{B: b, Key: key},
		prices:        price.Client{B: b, Key: key},
		portal:        portalsession.Client{B: b, Key: key},
	}
}

// errStripeNotFound is Stripe's 404 for an id it does not know.
var errStripeNotFound = errors.New("stripe: no such object")

// stripeErr classifies a failed call: Stripe's 404 is errStripeNotFound; anything else (an
// outage, a refused key, a timeout) is Unavailable for the caller, the cause kept for logs.
func stripeErr(op string, err error) error {
	var se *stripe.Error
	if errors.As(err, &se) && se.HTTPStatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w", op, errStripeNotFound)
	}
	return apperr.Wrap(apperr.Unavailable, fmt.Errorf("%s: %w", op, err), "Stripe did not answer; try again in a minute")
}

// responseTime is Stripe's clock when it answered (the Date header), so a state read from
// Stripe is stamped in the same clock as its events; our own clock when the header is missing.
func responseTime(r *stripe.APIResponse, fallback time.Time) time.Time {
	if r != nil {
		if t, err := http.ParseTime(r.Header.Get("Date")); err == nil {
			return t.UTC()
		}
	}
	return fallback
}

func (a *stripeAPI) createCustomer(ctx context.Context, email string, userID int64, idem string) (string, error) {
	p := &stripe.CustomerParams{Email: stripe.String(email)}
	p.Context = ctx
	p.IdempotencyKey = stripe.String(idem)
	p.AddMetadata("user_id", fmt.Sprint(userID))
	c, err := a.customers.New(p)
	if err != nil {
		return "", stripeErr("create customer", err)
	}
	return c.ID, nil
}

// checkoutParams are the fields of a subscription checkout.
type checkoutParams struct {
	CustomerID, PriceID, Plan  string
	UserID                     int64
	SuccessURL, CancelURL, Key string
}

func (a *stripeAPI) createCheckout(ctx context.Context, in checkoutParams) (id, url string, err error) {
	uid := fmt.Sprint(in.UserID)
	meta := map[string]string{"user_id": uid, "plan": in.Plan}
	p := &stripe.CheckoutSessionParams{
		Mode:              stripe.String(string(stripe.CheckoutSessionModeSubscription)),
		Customer:          stripe.String(in.CustomerID),
		ClientReferenceID: stripe.String(uid),
		LineItems:         []*stripe.CheckoutSessionLineItemParams{{Price: stripe.String(in.PriceID), Quantity: stripe.Int64(1)}},
		SuccessURL:        stripe.String(in.SuccessURL),
		CancelURL:         stripe.String(in.CancelURL),
		Metadata:          meta,
		SubscriptionData:  &stripe.CheckoutSessionSubscriptionDataParams{Metadata: meta},
	}
	p.Context = ctx
	p.IdempotencyKey = stripe.String(in.Key)
	s, err := a.sessions.New(p)
	if err != nil {
		return "", "", stripeErr("create checkout session", err)
	}
	return s.ID, s.URL, nil
}

// checkoutSession retrieves a session with its subscription expanded, and when Stripe said so.
func (a *stripeAPI) checkoutSession(ctx context.Context, id string) (CheckoutSession, time.Time, error) {
	p := &stripe.CheckoutSessionParams{}
	p.Context = ctx
	p.AddExpand("subscription")
	s, err := a.sessions.Get(id, p)
	if err != nil {
		return CheckoutSession{}, time.Time{}, stripeErr("retrieve checkout session", err)
	}
	return answer(s.LastResponse, ParseCheckoutSession)
}

// answer reads an object Stripe returned with parse, and when Stripe said so.
func answer[T any](r *stripe.APIResponse, parse func([]byte) (T, error)) (T, time.Time, error) {
	v, err := parse(r.RawJSON)
	if err != nil {
		var none T
		return none, time.Time{}, apperr.Wrap(apperr.Unavailable, err, "Stripe's answer could not be read")
	}
	return v, responseTime(r, time.Now().UTC()), nil
}

// subscription retrieves a subscription's current state, and when Stripe said so.
func (a *stripeAPI) subscription(ctx context.Context, id string) (Subscription, time.Time, error) {
	p := &stripe.SubscriptionParams{}
	p.Context = ctx
	s, err := a.subscriptions.Get(id, p)
	if err != nil {
		return Subscription{}, time.Time{}, stripeErr("retrieve subscription", err)
	}
	return answer(s.LastResponse, ParseSubscription)
}

// Price is a Stripe Price as the billing page shows it.
type Price struct {
	ID string
	// Amount is in the currency's major unit (dollars), exact.
	Amount        decimal.Decimal
	Currency      string
	Interval      string
	IntervalCount int64
}

// zeroDecimal are the currencies whose Stripe amounts are whole units, not cents.
var zeroDecimal = map[string]bool{"bif": true, "clp": true, "djf": true, "gnf": true, "jpy": true, "kmf": true, "krw": true, "mga": true,
	"pyg": true, "rwf": true, "ugx": true, "vnd": true, "vuv": true, "xaf": true, "xof": true, "xpf": true}

func (a *stripeAPI) price(ctx context.Context, id string) (Price, error) {
	p := &stripe.PriceParams{}
	p.Context = ctx
	pr, err := a.prices.Get(id, p)
	if err != nil {
		return Price{}, stripeErr("retrieve price", err)
	}
	exp := int32(-2)
	if zeroDecimal[string(pr.Currency)] {
		exp = 0
	}
	out := Price{ID: pr.ID, Amount: decimal.New(pr.UnitAmount, exp), Currency: string(pr.Currency)}
	if pr.Recurring != nil {
		out.Interval, out.IntervalCount = string(pr.Recurring.Interval), pr.Recurring.IntervalCount
	}
	return out, nil
}

func (a *stripeAPI) portalSession(ctx context.Context, customerID, returnURL string) (string, error) {
	p := &stripe.BillingPortalSessionParams{Customer: stripe.String(customerID), ReturnURL: stripe.String(returnURL)}
	p.Context = ctx
	s, err := a.portal.New(p)
	if err != nil {
		return "", stripeErr("create portal session", err)
	}
	return s.URL, nil
}

// slogLeveled routes stripe-go's own log lines into our logger: its errors as warnings (the
// service reports the failure itself), the rest at debug. Request bodies are never logged.
type slogLeveled struct{ l *slog.Logger }

func (s slogLeveled) Debugf(format string, v ...any) {
	s.l.Debug("stripe: " + fmt.Sprintf(format, v...))
}
func (s slogLeveled) Infof(format string, v ...any) {
	s.l.Debug("stripe: " + fmt.Sprintf(format, v...))
}
func (s slogLeveled) Warnf(format string, v ...any) { s.l.Warn("stripe: " + fmt.Sprintf(format, v...)) }
func (s slogLeveled) Errorf(format string, v ...any) {
	s.l.Warn("stripe: " + fmt.Sprintf(format, v...))
}
