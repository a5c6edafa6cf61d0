package billing

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// WebhookTolerance is how old a signed event may be: a captured delivery replayed later than
// this is refused, and within it the event id makes the replay a no-op.
const WebhookTolerance = 300 * time.Second

// MaxWebhookBytes bounds an event body. Stripe's events are a few KiB (well under 64 KiB);
// the limit leaves room for large subscriptions without letting a caller make us hash megabytes.
const MaxWebhookBytes = 256 << 10

// The event types the webhook acts on; every other verified event is recorded and ignored.
const (
	EventCheckoutCompleted     = "checkout.session.completed"
	EventSubscriptionCreated   = "customer.subscription.created"
	EventSubscriptionUpdated   = "customer.subscription.updated"
	EventSubscriptionDeleted   = "customer.subscription.deleted"
	EventInvoicePaid           = "invoice.paid"
	EventInvoicePaymentFailed  = "invoice.payment_failed"
	signatureField             = "Stripe-Signature"
	outcomeIgnoredNoMember     = "ignored: no member for this subscription"
	outcomeIgnoredType         = "ignored: event type not handled"
	outcomeIgnoredNoSubscriber = "ignored: not a membership subscription"
)

// EventTypes lists the events to enable on the Stripe webhook endpoint.
func EventTypes() []string {
	return []string{EventCheckoutCompleted, EventSubscriptionCreated, EventSubscriptionUpdated, EventSubscriptionDeleted, EventInvoicePaid, EventInvoicePaymentFailed}
}

// WebhookResult is what handling one delivery did.
type WebhookResult struct {
	EventID string
	Type    string
	// Duplicate is true when the event had been handled before: nothing changed.
	Duplicate bool
	// Outcome says what the event did (applied, stale, ignored…), for Stripe's delivery log.
	Outcome string
}

// HandleWebhook verifies and applies one event Stripe posted. The signature (Stripe-Signature)
// must match the raw body under the webhook secret and be at most WebhookTolerance old;
// otherwise the answer is Invalid and nothing changes. An event id already recorded is a
// Duplicate and changes nothing. Subscription events carry the subscription's own state;
// for a completed checkout or an invoice, the subscription's state is read from Stripe.
func (s *Service) HandleWebhook(ctx context.Context, payload []byte, signature string) (WebhookResult, error) {
	if err := s.RequireEnabled(); err != nil {
		return WebhookResult{}, err
	}
	if s.cfg.WebhookSecret == "" {
		return WebhookResult{}, apperr.UnavailableF("the webhook signing secret is not configured")
	}
	if len(payload) > MaxWebhookBytes {
		return WebhookResult{}, apperr.New(apperr.TooLarge, "event larger than %d bytes", MaxWebhookBytes)
	}
	ev, err := webhook.ConstructEventWithOptions(payload, signature, s.cfg.WebhookSecret, webhook.ConstructEventOptions{
		Tolerance: WebhookTolerance,
		// The endpoint's API version may be newer than the SDK's: the objects are read by
		// our own parsers, which understand both shapes.
		IgnoreAPIVersionMismatch: true,
	})
	if err != nil {
		return WebhookResult{}, signatureErr(err)
	}
	if !validID(ev.ID, "evt_") || ev.Type == "" || ev.Data == nil || len(ev.Data.Raw) == 0 {
		return WebhookResult{}, apperr.InvalidField("body", "is not a Stripe event")
	}
	rec := db.BillingEvent{ID: ev.ID, Type: string(ev.Type), Created: time.Unix(ev.Created, 0).UTC()}
	res := WebhookResult{EventID: ev.ID, Type: rec.Type}
	// A cheap look first, so a redelivery does not call Stripe; the insert in the same
	// transaction as the change is what guarantees once.
	if seen, err := s.store.BillingEventSeen(ctx, ev.ID); err != nil {
		return res, err
	} else if seen {
		res.Duplicate, res.Outcome = true, "duplicate: already handled"
		return res, nil
	}
	cause := rec.Type + " " + rec.ID
	var out applied
	switch rec.Type {
	case EventCheckoutCompleted:
		out, err = s.onCheckoutCompleted(ctx, &rec, ev.Data.Raw, cause)
	case EventSubscriptionCreated, EventSubscriptionUpdated, EventSubscriptionDeleted:
		sub, perr := ParseSubscription(ev.Data.Raw)
		if perr != nil {
			return res, apperr.Wrap(apperr.Invalid, perr, "body: the event does not carry a subscription")
		}
		uid, rerr := s.resolveMember(ctx, sub.ID, sub.CustomerID, 0, sub.Metadata["user_id"])
		if rerr != nil {
			return res, rerr
		}
		out, err = s.applyOrRecord(ctx, uid, &rec, sub, rec.Created, sub.CustomerID, cause)
	case EventInvoicePaid, EventInvoicePaymentFailed:
		out, err = s.onInvoice(ctx, &rec, ev.Data.Raw, cause)
	default:
		out, err = s.record(ctx, rec, outcomeIgnoredType)
	}
	if err != nil {
		return res, err
	}
	res.Duplicate, res.Outcome = out.duplicate, out.outcome
	if out.duplicate {
		res.Outcome = "duplicate: already handled"
	}
	if out.change != nil {
		s.log.InfoContext(ctx, "membership changed", "user_id", out.change.UserID, "from", out.change.FromTier, "to", out.change.ToTier, "cause", out.change.Cause)
	}
	return res, nil
}

// signatureErr says why a delivery was refused, naming the header.
func signatureErr(err error) error {
	msg := "does not match the body under the webhook secret"
	switch {
	case errors.Is(err, webhook.ErrNotSigned):
		msg = "is missing"
	case errors.Is(err, webhook.ErrTooOld):
		msg = fmt.Sprintf("is more than %d seconds old", int(WebhookTolerance.Seconds()))
	case errors.Is(err, webhook.ErrInvalidHeader):
		msg = "is malformed"
	case errors.Is(err, webhook.ErrNoValidSignature):
	default:
		// Signed correctly but not an event we can read.
		return apperr.Wrap(apperr.Invalid, err, "body: is not a Stripe event")
	}
	e := apperr.InvalidField(signatureField, msg)
	e.Err = err
	return e
}

func (s *Service) onCheckoutCompleted(ctx context.Context, rec *db.BillingEvent, raw []byte, cause string) (applied, error) {
	cs, err := ParseCheckoutSession(raw)
	if err != nil {
		return applied{}, apperr.Wrap(apperr.Invalid, err, "body: the event does not carry a checkout session")
	}
	if cs.Mode != "subscription" || cs.SubscriptionID == "" {
		return s.record(ctx, *rec, outcomeIgnoredNoSubscriber)
	}
	uid, err := s.resolveMember(ctx, cs.SubscriptionID, cs.CustomerID, userRef(cs.ClientReferenceID), cs.Metadata["user_id"])
	if err != nil || uid == 0 {
		return s.recordOr(ctx, *rec, err)
	}
	return s.applyFromStripe(ctx, uid, rec, cs.SubscriptionID, cs.CustomerID, cause)
}

func (s *Service) onInvoice(ctx context.Context, rec *db.BillingEvent, raw []byte, cause string) (applied, error) {
	inv, err := ParseInvoice(raw)
	if err != nil {
		return applied{}, apperr.Wrap(apperr.Invalid, err, "body: the event does not carry an invoice")
	}
	if inv.SubscriptionID == "" {
		return s.record(ctx, *rec, outcomeIgnoredNoSubscriber)
	}
	uid, err := s.resolveMember(ctx, inv.SubscriptionID, inv.CustomerID, 0, "")
	if err != nil || uid == 0 {
		return s.recordOr(ctx, *rec, err)
	}
	// An invoice says a payment happened or failed, not what that did to the subscription:
	// its state is read from Stripe.
	return s.applyFromStripe(ctx, uid, rec, inv.SubscriptionID, inv.CustomerID, cause)
}

// applyFromStripe applies the subscription subID as Stripe states it now to member uid, as
// of the event's time at the earliest (applyOrRecord).
func (s *Service) applyFromStripe(ctx context.Context, uid int64, rec *db.BillingEvent, subID, customerID, cause string) (applied, error) {
	sub, at, err := s.stripe.subscription(ctx, subID)
	if err != nil {
		return applied{}, err
	}
	if at.Before(rec.Created) {
		at = rec.Created
	}
	return s.applyOrRecord(ctx, uid, rec, sub, at, customerID, cause)
}

// resolveMember finds the member a subscription belongs to: the one it is already stored
// for, else the one our checkout named (client_reference_id), else the owner of the Stripe
// customer, else the user id checkout wrote in its metadata. 0 when none.
func (s *Service) resolveMember(ctx context.Context, subID, customerID string, ref int64, meta string) (int64, error) {
	if subID != "" {
		b, err := s.store.BillingSubscriptionByID(ctx, subID)
		if err == nil {
			return b.UserID, nil
		}
		if !errors.Is(err, db.ErrNotFound) {
			return 0, err
		}
	}
	if ref != 0 {
		return ref, nil
	}
	if customerID != "" {
		id, err := s.store.UserIDByBillingCustomer(ctx, customerID)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, db.ErrNotFound) {
			return 0, err
		}
	}
	return userRef(meta), nil
}

// applied is what applying one state did.
type applied struct {
	duplicate bool
	outcome   string
	change    *db.MembershipChange
}

// record stores an event that changes no member.
func (s *Service) record(ctx context.Context, rec db.BillingEvent, outcome string) (applied, error) {
	dup, err := s.store.RecordBillingEvent(ctx, rec, outcome)
	return applied{duplicate: dup, outcome: outcome}, err
}

// recordOr records an event whose member could not be found, or passes on the lookup's error.
func (s *Service) recordOr(ctx context.Context, rec db.BillingEvent, err error) (applied, error) {
	if err != nil {
		return applied{}, err
	}
	return s.record(ctx, rec, outcomeIgnoredNoMember)
}

// applyOrRecord applies a subscription state to a member, or records the event as ignored
// when there is no such member.
func (s *Service) applyOrRecord(ctx context.Context, uid int64, rec *db.BillingEvent, sub Subscription, at time.Time, customerID, cause string) (applied, error) {
	if uid == 0 {
		return s.record(ctx, *rec, outcomeIgnoredNoMember)
	}
	out, err := s.applySubscription(ctx, uid, rec, sub, at, customerID, cause)
	if errors.Is(err, db.ErrNotFound) {
		return s.record(ctx, *rec, outcomeIgnoredNoMember)
	}
	return out, err
}

// applySubscription stores the state of a subscription observed at Stripe's time at, unless
// a newer one is stored, and sets the member's tier from all their subscriptions, in one
// transaction with the event (when there is one) so each event changes state at most once.
func (s *Service) applySubscription(ctx context.Context, uid int64, ev *db.BillingEvent, sub Subscription, at time.Time, customerID, cause string) (applied, error) {
	var out applied
	if customerID == "" {
		customerID = sub.CustomerID
	}
	res, err := s.store.UpdateMembership(ctx, uid, ev, func(m db.Membership) (db.MembershipUpdate, error) {
		up := db.MembershipUpdate{CustomerID: customerID, Source: db.TierSourceStripe, Cause: cause}
		idx := -1
		for i := range m.Subscriptions {
			if m.Subscriptions[i].ID == sub.ID {
				idx = i
			}
		}
		var stored *db.BillingSubscription
		if idx >= 0 {
			stored = &m.Subscriptions[idx]
		}
		if supersedes(stored, sub.Status, at) {
			row := db.BillingSubscription{ID: sub.ID, UserID: uid, CustomerID: sub.CustomerID, Status: sub.Status, Plan: s.planOf(sub), PriceID: sub.PriceID,
				CancelAtPeriodEnd: sub.CancelAtPeriodEnd, StateAt: at.UTC()}
			if !sub.CurrentPeriodEnd.IsZero() {
				t := sub.CurrentPeriodEnd
				row.CurrentPeriodEnd = &t
			}
			if !sub.EndedAt.IsZero() {
				t := sub.EndedAt
				row.EndedAt = &t
			}
			up.Subscription = &row
			if idx >= 0 {
				m.Subscriptions[idx] = row
			} else {
				m.Subscriptions = append(m.Subscriptions, row)
			}
			up.Outcome = "applied: subscription " + sub.ID + " is " + sub.Status
		} else {
			up.Outcome = "stale: a newer state of subscription " + sub.ID + " is stored (" + stored.Status + ")"
		}
		up.Tier, up.TierSource = decideTier(m, s.now())
		if up.Tier != m.Tier {
			up.Outcome += "; member " + strconv.FormatInt(uid, 10) + " " + m.Tier + " → " + up.Tier
		}
		out.outcome = up.Outcome
		return up, nil
	})
	if err != nil {
		return applied{}, err
	}
	out.duplicate, out.change = res.Duplicate, res.Change
	return out, nil
}
