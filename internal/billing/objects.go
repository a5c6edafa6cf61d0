package billing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The Stripe objects the membership rules read, parsed from their JSON ourselves rather than
// through the SDK's structs: webhook endpoints may be pinned to a newer API version than the
// SDK's (2023-10-16), where current_period_end moved from the subscription to its items, and
// the rules need only a handful of fields, each read in both places where it may be.

// Subscription statuses Stripe sends.
const (
	StatusIncomplete        = "incomplete"
	StatusIncompleteExpired = "incomplete_expired"
	StatusTrialing          = "trialing"
	StatusActive            = "active"
	StatusPastDue           = "past_due"
	StatusUnpaid            = "unpaid"
	StatusPaused            = "paused"
	StatusCanceled          = "canceled"
)

// Subscription is a Stripe subscription as the membership rules read it.
type Subscription struct {
	ID         string
	CustomerID string
	Status     string
	PriceID    string
	// Interval is the price's billing interval: month or year.
	Interval          string
	CurrentPeriodEnd  time.Time
	CancelAtPeriodEnd bool
	EndedAt           time.Time
	Metadata          map[string]string
}

// CheckoutSession is a Stripe Checkout session as verification and the webhook read it.
type CheckoutSession struct {
	ID                string
	Mode              string
	Status            string
	ClientReferenceID string
	CustomerID        string
	SubscriptionID    string
	// Subscription is set when the session came with its subscription expanded.
	Subscription *Subscription
	Created      time.Time
	Metadata     map[string]string
}

// Invoice is the part of a Stripe invoice that leads to its subscription.
type Invoice struct {
	ID             string
	CustomerID     string
	SubscriptionID string
}

// ref is a Stripe field that is an id or, when expanded, an object with one.
type ref struct {
	ID  string
	Raw json.RawMessage
}

func (r *ref) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "null":
		return nil
	case strings.HasPrefix(s, `"`):
		return json.Unmarshal(b, &r.ID)
	case strings.HasPrefix(s, "{"):
		var o struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return err
		}
		r.ID, r.Raw = o.ID, append(json.RawMessage(nil), b...)
		return nil
	}
	return fmt.Errorf("want an id or an object, got %.20s", s)
}

// unix is a Unix timestamp in seconds, null as zero time.
type unix struct{ time.Time }

func (u *unix) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n < 0 || n > 1<<40 {
		return fmt.Errorf("timestamp %d out of range", n)
	}
	if n > 0 {
		u.Time = time.Unix(n, 0).UTC()
	}
	return nil
}

type priceJSON struct {
	ID        string `json:"id"`
	Recurring *struct {
		Interval string `json:"interval"`
	} `json:"recurring"`
}

type subscriptionJSON struct {
	Object            string            `json:"object"`
	ID                string            `json:"id"`
	Customer          ref               `json:"customer"`
	Status            string            `json:"status"`
	CurrentPeriodEnd  unix              `json:"current_period_end"`
	CancelAtPeriodEnd bool              `json:"cancel_at_period_end"`
	EndedAt           unix              `json:"ended_at"`
	Metadata          map[string]string `json:"metadata"`
	Items             struct {
		Data []struct {
			CurrentPeriodEnd unix       `json:"current_period_end"`
			Price            *priceJSON `json:"price"`
			Plan             *struct {
				ID       string `json:"id"`
				Interval string `json:"interval"`
			} `json:"plan"`
		} `json:"data"`
	} `json:"items"`
}

var errNotSubscription = errors.New("not a subscription object")

// ParseSubscription reads a Stripe subscription object. The period end is the subscription's
// own, or (API versions from 2025 on) the latest of its items'.
func ParseSubscription(raw []byte) (Subscription, error) {
	var j subscriptionJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return Subscription{}, fmt.Errorf("subscription: %w", err)
	}
	if j.Object != "subscription" || !validID(j.ID, "sub_") || j.Status == "" {
		return Subscription{}, errNotSubscription
	}
	s := Subscription{ID: j.ID, CustomerID: j.Customer.ID, Status: j.Status, CurrentPeriodEnd: j.CurrentPeriodEnd.Time,
		CancelAtPeriodEnd: j.CancelAtPeriodEnd, EndedAt: j.EndedAt.Time, Metadata: j.Metadata}
	for _, it := range j.Items.Data {
		if it.CurrentPeriodEnd.After(s.CurrentPeriodEnd) && j.CurrentPeriodEnd.IsZero() {
			s.CurrentPeriodEnd = it.CurrentPeriodEnd.Time
		}
		if s.PriceID == "" && it.Price != nil {
			s.PriceID = it.Price.ID
			if it.Price.Recurring != nil {
				s.Interval = it.Price.Recurring.Interval
			}
		}
		if s.PriceID == "" && it.Plan != nil {
			s.PriceID, s.Interval = it.Plan.ID, it.Plan.Interval
		}
	}
	return s, nil
}

type sessionJSON struct {
	Object            string            `json:"object"`
	ID                string            `json:"id"`
	Mode              string            `json:"mode"`
	Status            string            `json:"status"`
	ClientReferenceID *string           `json:"client_reference_id"`
	Customer          ref               `json:"customer"`
	Subscription      ref               `json:"subscription"`
	Created           unix              `json:"created"`
	Metadata          map[string]string `json:"metadata"`
}

var errNotSession = errors.New("not a checkout session object")

// ParseCheckoutSession reads a Stripe Checkout session, with its subscription when expanded.
func ParseCheckoutSession(raw []byte) (CheckoutSession, error) {
	var j sessionJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return CheckoutSession{}, fmt.Errorf("checkout session: %w", err)
	}
	if j.Object != "checkout.session" || !validID(j.ID, "cs_") {
		return CheckoutSession{}, errNotSession
	}
	cs := CheckoutSession{ID: j.ID, Mode: j.Mode, Status: j.Status, CustomerID: j.Customer.ID, SubscriptionID: j.Subscription.ID,
		Created: j.Created.Time, Metadata: j.Metadata}
	if j.ClientReferenceID != nil {
		cs.ClientReferenceID = *j.ClientReferenceID
	}
	if j.Subscription.Raw != nil {
		sub, err := ParseSubscription(j.Subscription.Raw)
		if err != nil {
			return CheckoutSession{}, err
		}
		cs.Subscription = &sub
	}
	return cs, nil
}

type invoiceJSON struct {
	Object       string `json:"object"`
	ID           string `json:"id"`
	Customer     ref    `json:"customer"`
	Subscription ref    `json:"subscription"`
	// From API 2025 on the subscription is under parent.subscription_details.
	Parent *struct {
		SubscriptionDetails *struct {
			Subscription ref `json:"subscription"`
		} `json:"subscription_details"`
	} `json:"parent"`
}

// ParseInvoice reads the customer and subscription of a Stripe invoice.
func ParseInvoice(raw []byte) (Invoice, error) {
	var j invoiceJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return Invoice{}, fmt.Errorf("invoice: %w", err)
	}
	if j.Object != "invoice" {
		return Invoice{}, errors.New("not an invoice object")
	}
	inv := Invoice{ID: j.ID, CustomerID: j.Customer.ID, SubscriptionID: j.Subscription.ID}
	if inv.SubscriptionID == "" && j.Parent != nil && j.Parent.SubscriptionDetails != nil {
		inv.SubscriptionID = j.Parent.SubscriptionDetails.Subscription.ID
	}
	return inv, nil
}

// validID accepts a Stripe id of the given prefix: letters, digits and underscores, at most
// 255 characters (Stripe's own limit), so ids are safe to store, log and put in URLs.
// MaxIDLength bounds a Stripe object id a request may carry (the API document states it too).
const MaxIDLength = 255

func validID(id, prefix string) bool {
	if !strings.HasPrefix(id, prefix) || len(id) <= len(prefix) || len(id) > MaxIDLength {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// userRef reads a user id we put in client_reference_id or metadata; 0 when absent or not ours.
func userRef(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || strconv.FormatInt(n, 10) != s {
		return 0
	}
	return n
}
