package billing

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
)

// MaxRequestBytes bounds the JSON bodies of the checkout and verification calls.
const MaxRequestBytes = 4 << 10

// CheckoutInput is a request to start paying for Gold.
type CheckoutInput struct {
	// Plan is monthly or yearly.
	Plan string
	// Attempt names one attempt (the upgrade buttons of one rendered page): resubmitting it
	// reuses its Stripe idempotency key, so a double click opens one checkout. Empty (the
	// API) makes every call its own attempt.
	Attempt string
}

// Checkout is a Stripe Checkout session to send the member to.
type Checkout struct {
	ID  string
	URL string
}

var attemptPattern = regexp.MustCompile(`^[A-Za-z0-9]{16,64}$`)

// NewAttempt returns a fresh attempt id for a page's upgrade buttons.
func NewAttempt() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// CreateCheckout opens a subscription checkout for u: their Stripe customer (created once and
// reused), the plan's price, our user id as client_reference_id and in the metadata, and
// return URLs on this server. A member who already has Gold gets a Conflict: there is
// nothing to buy (the portal manages an existing subscription).
func (s *Service) CreateCheckout(ctx context.Context, u db.User, in CheckoutInput) (Checkout, error) {
	if err := s.RequireEnabled(); err != nil {
		return Checkout{}, err
	}
	if u.ID == 0 {
		return Checkout{}, apperr.New(apperr.Unauthorized, "sign in to upgrade")
	}
	if in.Plan != PlanMonthly && in.Plan != PlanYearly {
		return Checkout{}, apperr.InvalidField("plan", "must be monthly or yearly")
	}
	priceID := s.priceID(in.Plan)
	if priceID == "" {
		return Checkout{}, apperr.UnavailableF("the %s plan is not offered on this server", in.Plan)
	}
	if account.IsGold(u) {
		return Checkout{}, apperr.ConflictF("your account already has Gold membership; manage it from the billing page")
	}
	// A subscription Stripe is still trying to collect is settled in the portal (a new card),
	// not by starting a second subscription beside it.
	m, err := s.store.MembershipByUser(ctx, u.ID)
	if err != nil {
		return Checkout{}, err
	}
	for _, b := range m.Subscriptions {
		if b.Status == StatusPastDue || b.Status == StatusUnpaid {
			return Checkout{}, apperr.ConflictF("your subscription is waiting for a payment: update your card with Manage billing on the billing page")
		}
	}
	cust, err := s.customerFor(ctx, u)
	if err != nil {
		return Checkout{}, err
	}
	attempt := in.Attempt
	if !attemptPattern.MatchString(attempt) {
		attempt = NewAttempt()
	}
	id, url, err := s.stripe.createCheckout(ctx, checkoutParams{
		CustomerID: cust, PriceID: priceID, Plan: in.Plan, UserID: u.ID,
		SuccessURL: s.baseURL + "/settings/billing?session_id={CHECKOUT_SESSION_ID}",
		CancelURL:  s.baseURL + "/settings/billing",
		Key:        fmt.Sprintf("ounce-checkout-%d-%s-%s", u.ID, in.Plan, attempt),
	})
	if err != nil {
		return Checkout{}, err
	}
	// Only the member's own sessions are ever looked up when they come back (VerifySession).
	if err := s.store.RecordCheckout(ctx, u.ID, id); err != nil {
		return Checkout{}, err
	}
	return Checkout{ID: id, URL: url}, nil
}

// customerFor returns u's Stripe customer, creating it the first time. The idempotency key
// is the member's (and this installation's), so a retried or doubled first checkout creates
// one customer, and whichever link is stored first is the one both use.
func (s *Service) customerFor(ctx context.Context, u db.User) (string, error) {
	id, err := s.store.BillingCustomer(ctx, u.ID)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, db.ErrNotFound) {
		return "", err
	}
	sum := sha256.Sum256([]byte(s.baseURL + "\x00" + u.Email))
	id, err = s.stripe.createCustomer(ctx, u.Email, u.ID, fmt.Sprintf("ounce-customer-%d-%x", u.ID, sum[:8]))
	if err != nil {
		return "", err
	}
	return s.store.LinkBillingCustomer(ctx, u.ID, id)
}

// Verification is what checking a finished checkout found.
type Verification struct {
	Membership
	// Checkout is the session's status at Stripe: open (not paid yet), complete or expired.
	Checkout string
}

// VerifySession checks a Checkout session u came back from and grants Gold when it is theirs
// (client_reference_id), complete, and its subscription is active or trialing. Stripe is
// asked only about a session this server opened for u, and only until it has answered for it
// once; later visits show the membership as stored (webhooks keep it current). A session
// another member opened here is Forbidden, any other NotFound, both without asking Stripe.
// Look-ups that are retried (Stripe unreachable, payment still open) are limited to
// VerifyLimitPerHour per member. An old session whose subscription has since been canceled
// grants nothing (its subscription's state is applied like any other, so it cannot replace
// a newer one).
func (s *Service) VerifySession(ctx context.Context, u db.User, sessionID string) (Verification, error) {
	if err := s.RequireEnabled(); err != nil {
		return Verification{}, err
	}
	if u.ID == 0 {
		return Verification{}, apperr.New(apperr.Unauthorized, "sign in to verify a checkout")
	}
	if !validID(sessionID, "cs_") {
		return Verification{}, apperr.InvalidField("session_id", "must be a Stripe Checkout session id (cs_…)")
	}
	claimed, status, err := s.store.ClaimCheckoutVerification(ctx, u.ID, sessionID)
	if errors.Is(err, db.ErrNotFound) {
		if other, oerr := s.store.CheckoutOfAnother(ctx, u.ID, sessionID); oerr != nil {
			return Verification{}, oerr
		} else if other {
			return Verification{}, apperr.ForbiddenF("this checkout session belongs to another account")
		}
		return Verification{}, apperr.Wrap(apperr.NotFound, err, "no checkout of yours has this session id")
	}
	if err != nil {
		return Verification{}, err
	}
	if !claimed {
		m, err := s.Status(ctx, u)
		return Verification{Membership: m, Checkout: status}, err
	}
	ok, retry, err := s.limiter.Allow(ctx, "billing:verify:user:"+strconv.FormatInt(u.ID, 10), VerifyLimitPerHour, time.Hour)
	if err == nil && !ok {
		err = apperr.Limited(retry, "too many checkout checks; your membership updates as soon as Stripe tells us")
	}
	if err != nil {
		s.releaseCheckout(ctx, u.ID, sessionID)
		return Verification{}, err
	}
	v, err := s.verifyAtStripe(ctx, u, sessionID)
	if err != nil || v.Checkout == "open" {
		// Not settled yet: a later visit may ask again.
		s.releaseCheckout(ctx, u.ID, sessionID)
		return v, err
	}
	if err := s.store.FinishCheckoutVerification(context.WithoutCancel(ctx), u.ID, sessionID, v.Checkout); err != nil {
		return Verification{}, err
	}
	return v, nil
}

// VerifyLimitPerHour bounds how often one member's checkouts are looked up at Stripe again
// after a look-up that did not settle them.
const VerifyLimitPerHour = 10

func (s *Service) releaseCheckout(ctx context.Context, userID int64, sessionID string) {
	if err := s.store.FinishCheckoutVerification(context.WithoutCancel(ctx), userID, sessionID, ""); err != nil {
		s.log.Error("billing: release checkout verification", "err", err)
	}
}

// verifyAtStripe reads the session at Stripe and applies its subscription.
func (s *Service) verifyAtStripe(ctx context.Context, u db.User, sessionID string) (Verification, error) {
	cs, at, err := s.stripe.checkoutSession(ctx, sessionID)
	if errors.Is(err, errStripeNotFound) {
		return Verification{}, apperr.Wrap(apperr.NotFound, err, "checkout session not found")
	}
	if err != nil {
		return Verification{}, err
	}
	if cs.ClientReferenceID != strconv.FormatInt(u.ID, 10) {
		return Verification{}, apperr.ForbiddenF("this checkout session belongs to another account")
	}
	if cs.Mode != "subscription" {
		return Verification{}, apperr.InvalidField("session_id", "is not a membership checkout")
	}
	if cs.Status == "complete" && cs.SubscriptionID != "" {
		sub := cs.Subscription
		if sub == nil {
			got, subAt, err := s.stripe.subscription(ctx, cs.SubscriptionID)
			if err != nil {
				return Verification{}, err
			}
			sub, at = &got, subAt
		}
		if at.Before(cs.Created) {
			at = cs.Created
		}
		// A subscription already stored for someone else stays theirs.
		if b, err := s.store.BillingSubscriptionByID(ctx, sub.ID); err == nil && b.UserID != u.ID {
			return Verification{}, apperr.ForbiddenF("this checkout session belongs to another account")
		} else if err != nil && !errors.Is(err, db.ErrNotFound) {
			return Verification{}, err
		}
		if _, err := s.applySubscription(ctx, u.ID, nil, *sub, at, cs.CustomerID, "checkout "+cs.ID); err != nil {
			return Verification{}, err
		}
	}
	m, err := s.Status(ctx, u)
	return Verification{Membership: m, Checkout: cs.Status}, err
}

// Portal returns the address of Stripe's customer portal for u, where they change plan, card
// or cancel; it needs a Stripe customer, which the first checkout creates.
func (s *Service) Portal(ctx context.Context, u db.User) (string, error) {
	if err := s.RequireEnabled(); err != nil {
		return "", err
	}
	if u.ID == 0 {
		return "", apperr.New(apperr.Unauthorized, "sign in to manage billing")
	}
	cust, err := s.store.BillingCustomer(ctx, u.ID)
	if errors.Is(err, db.ErrNotFound) {
		return "", apperr.ConflictF("you have no billing account yet: upgrade to Gold first")
	}
	if err != nil {
		return "", err
	}
	return s.stripe.portalSession(ctx, cust, s.baseURL+"/settings/billing")
}

// ParseCheckoutJSON reads {"plan": "monthly"|"yearly"}.
func ParseCheckoutJSON(body []byte) (CheckoutInput, error) {
	var in struct {
		Plan *string `json:"plan"`
	}
	if err := decodeStrict(body, &in); err != nil {
		return CheckoutInput{}, err
	}
	if in.Plan == nil {
		return CheckoutInput{}, apperr.InvalidField("plan", "is required")
	}
	if *in.Plan != PlanMonthly && *in.Plan != PlanYearly {
		return CheckoutInput{}, apperr.InvalidField("plan", "must be monthly or yearly")
	}
	return CheckoutInput{Plan: *in.Plan}, nil
}

// ParseVerifyJSON reads {"session_id": "cs_…"}.
func ParseVerifyJSON(body []byte) (string, error) {
	var in struct {
		SessionID *string `json:"session_id"`
	}
	if err := decodeStrict(body, &in); err != nil {
		return "", err
	}
	if in.SessionID == nil || *in.SessionID == "" {
		return "", apperr.InvalidField("session_id", "is required")
	}
	if !validID(*in.SessionID, "cs_") {
		return "", apperr.InvalidField("session_id", "must be a Stripe Checkout session id (cs_…)")
	}
	return *in.SessionID, nil
}

// decodeStrict reads one JSON object into v: an oversized body is TooLarge; anything but an
// object, an unknown field, a wrong type or trailing data is Invalid naming the field (or body).
func decodeStrict(body []byte, v any) error {
	if len(body) > MaxRequestBytes {
		return apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxRequestBytes)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return apperr.InvalidField("body", "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return apperr.InvalidField(te.Field, "must be a string")
		case bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) && bytesHasUnknown(err):
			return apperr.InvalidField(unknownField(err), "is not a field of this request")
		}
		return apperr.InvalidField("body", "must be a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apperr.InvalidField("body", "must hold one JSON object and nothing after it")
	}
	return nil
}

var unknownFieldRe = regexp.MustCompile(`^json: unknown field "(.*)"$`)

func bytesHasUnknown(err error) bool { return unknownFieldRe.MatchString(err.Error()) }

func unknownField(err error) string {
	if m := unknownFieldRe.FindStringSubmatch(err.Error()); m != nil && len(m[1]) <= 64 {
		return m[1]
	}
	return "body"
}
