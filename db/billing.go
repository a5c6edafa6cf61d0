package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// Who set a member's tier. Stripe only ever takes away Gold that Stripe granted, so an
// administrator's grant (or the gold a self-hosted sign-up gets) survives any payment event.
const (
	// TierSourceSignup is the tier an account was created with.
	TierSourceSignup = "signup"
	// TierSourceAdmin is a tier an administrator set (ounce user set-tier).
	TierSourceAdmin = "admin"
	// TierSourceStripe is a tier the billing rules set from Stripe's subscription state.
	TierSourceStripe = "stripe"
)

// BillingSubscription is the last known state of one Stripe subscription of a member.
type BillingSubscription struct {
	ID         string `db:"id"`
	UserID     int64  `db:"user_id"`
	CustomerID string `db:"customer_id"`
	// Status is Stripe's subscription status (active, trialing, past_due, canceled…).
	Status string `db:"status"`
	// Plan is monthly or yearly when known.
	Plan              string     `db:"plan"`
	PriceID           string     `db:"price_id"`
	CurrentPeriodEnd  *time.Time `db:"current_period_end"`
	CancelAtPeriodEnd bool       `db:"cancel_at_period_end"`
	EndedAt           *time.Time `db:"ended_at"`
	// StateAt is Stripe's time of this state: an older state never replaces it.
	StateAt   time.Time `db:"state_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

const billingSubCols = `id, user_id, customer_id, status, plan, price_id, current_period_end, cancel_at_period_end, ended_at, state_at, updated_at`

// MembershipChange is one row of a member's membership history.
type MembershipChange struct {
	ID       int64     `db:"id"`
	UserID   int64     `db:"user_id"`
	At       time.Time `db:"at"`
	FromTier string    `db:"from_tier"`
	ToTier   string    `db:"to_tier"`
	// Source is who made the change: stripe, admin or expiry.
	Source string `db:"source"`
	// Cause names what made it: a Stripe event or checkout session, the CLI command, the grace rule.
	Cause string `db:"cause"`
}

// BillingEvent is a verified Stripe event, recorded once by id.
type BillingEvent struct {
	ID      string
	Type    string
	Created time.Time
}

// Membership is a member's billing state, read in one transaction.
type Membership struct {
	UserID     int64
	Tier       string
	TierSource string
	// CustomerID is the member's Stripe customer, empty before the first checkout.
	CustomerID    string
	Subscriptions []BillingSubscription
}

// MembershipUpdate is what the billing rules decided for one member: writes to make in the
// same transaction that read the Membership they were decided from.
type MembershipUpdate struct {
	// Subscription, when set, is stored (inserted or replacing the row of that id).
	Subscription *BillingSubscription
	// CustomerID, when set and the member has none yet, links that Stripe customer.
	CustomerID string
	// Tier and TierSource are the member's new tier and who set it (empty: unchanged). A
	// change of either is written to the membership history with Source and Cause.
	Tier, TierSource string
	Source, Cause    string
	// Outcome is recorded beside the event (for operators reading billing_events).
	Outcome string
}

// MembershipResult reports what UpdateMembership did.
type MembershipResult struct {
	// Duplicate is true when the event had already been recorded: nothing was written.
	Duplicate bool
	// Change is the history row written, if the tier (or who holds it) changed.
	Change *MembershipChange
}

// BillingCustomer returns the member's Stripe customer id, ErrNotFound before the first one.
func (s *Store) BillingCustomer(ctx context.Context, userID int64) (string, error) {
	var id string
	err := s.db.GetContext(ctx, &id, s.rebind(`SELECT customer_id FROM billing_customers WHERE user_id = ?`), userID)
	return id, notFound(err)
}

// LinkBillingCustomer stores customerID as the member's Stripe customer unless they already
// have one, and returns the one that is stored: of two racing checkouts, both use the first.
func (s *Store) LinkBillingCustomer(ctx context.Context, userID int64, customerID string) (string, error) {
	if _, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO billing_customers (user_id, customer_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
		userID, customerID, s.now()); err != nil {
		return "", fmt.Errorf("link billing customer: %w", err)
	}
	return s.BillingCustomer(ctx, userID)
}

// UserIDByBillingCustomer finds the member a Stripe customer belongs to.
func (s *Store) UserIDByBillingCustomer(ctx context.Context, customerID string) (int64, error) {
	var id int64
	err := s.db.GetContext(ctx, &id, s.rebind(`SELECT user_id FROM billing_customers WHERE customer_id = ?`), customerID)
	return id, notFound(err)
}

// BillingSubscriptionByID returns the stored state of one subscription.
func (s *Store) BillingSubscriptionByID(ctx context.Context, id string) (BillingSubscription, error) {
	var b BillingSubscription
	err := s.db.GetContext(ctx, &b, s.rebind(`SELECT `+billingSubCols+` FROM billing_subscriptions WHERE id = ?`), id)
	return b, notFound(err)
}

// BillingSubscriptionsByStatus lists the subscriptions in a status (the grace-period job reads
// past_due ones), oldest state first.
func (s *Store) BillingSubscriptionsByStatus(ctx context.Context, status string) ([]BillingSubscription, error) {
	out := []BillingSubscription{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+billingSubCols+` FROM billing_subscriptions WHERE status = ? ORDER BY state_at, id`), status)
	return out, err
}

// BillingEventSeen reports whether a Stripe event id has already been recorded.
func (s *Store) BillingEventSeen(ctx context.Context, id string) (bool, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM billing_events WHERE id = ?`), id)
	return n > 0, err
}

// BillingEventOutcome returns what was recorded for an event (tests and operators).
func (s *Store) BillingEventOutcome(ctx context.Context, id string) (string, error) {
	var o string
	err := s.db.GetContext(ctx, &o, s.rebind(`SELECT outcome FROM billing_events WHERE id = ?`), id)
	return o, notFound(err)
}

// RecordBillingEvent records an event that concerns no member (an unknown customer, a type
// that is not handled). It reports whether the event had been recorded before.
func (s *Store) RecordBillingEvent(ctx context.Context, ev BillingEvent, outcome string) (duplicate bool, err error) {
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		fresh, err := s.insertBillingEvent(ctx, tx, ev, 0, outcome)
		duplicate = !fresh
		return err
	})
	return duplicate, err
}

// insertBillingEvent records ev unless its id is already there, and reports whether it was
// new. On PostgreSQL a second transaction inserting the same id waits for the first and then
// finds it, so the same event reaching two instances at once is handled by exactly one.
func (s *Store) insertBillingEvent(ctx context.Context, tx *sqlx.Tx, ev BillingEvent, userID int64, outcome string) (bool, error) {
	var uid any
	if userID != 0 {
		uid = userID
	}
	res, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO billing_events (id, type, created_at, received_at, user_id, outcome) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`),
		ev.ID, ev.Type, ev.Created.UTC(), s.now(), uid, outcome)
	if err != nil {
		return false, fmt.Errorf("record billing event: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// errDuplicateEvent ends an UpdateMembership transaction whose event was already recorded.
var errDuplicateEvent = errors.New("billing event already recorded")

// UpdateMembership reads the member's billing state and lets decide choose the writes, all in
// one transaction that holds the member's row, so concurrent events for one member apply one
// after the other. With ev set, the event is recorded first: when its id is already there
// nothing is written and the result is a Duplicate. A missing member is ErrNotFound.
func (s *Store) UpdateMembership(ctx context.Context, userID int64, ev *BillingEvent, decide func(m Membership) (MembershipUpdate, error)) (MembershipResult, error) {
	var out MembershipResult
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		m := Membership{UserID: userID}
		if err := tx.QueryRowxContext(ctx, tx.Rebind(`SELECT tier, tier_source FROM users WHERE id = ?`+s.forUpdate()), userID).Scan(&m.Tier, &m.TierSource); err != nil {
			return notFound(err)
		}
		if ev != nil {
			fresh, err := s.insertBillingEvent(ctx, tx, *ev, userID, "")
			if err != nil {
				return err
			}
			if !fresh {
				return errDuplicateEvent
			}
		}
		if err := tx.GetContext(ctx, &m.CustomerID, tx.Rebind(`SELECT customer_id FROM billing_customers WHERE user_id = ?`), userID); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := tx.SelectContext(ctx, &m.Subscriptions, tx.Rebind(`SELECT `+billingSubCols+` FROM billing_subscriptions WHERE user_id = ? ORDER BY state_at, id`), userID); err != nil {
			return err
		}
		up, err := decide(m)
		if err != nil {
			return err
		}
		now := s.now()
		if up.CustomerID != "" && m.CustomerID == "" {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO billing_customers (user_id, customer_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`), userID, up.CustomerID, now); err != nil {
				return err
			}
		}
		if b := up.Subscription; b != nil {
			_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO billing_subscriptions (`+billingSubCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO UPDATE SET customer_id = excluded.customer_id, status = excluded.status, plan = excluded.plan, price_id = excluded.price_id,
				current_period_end = excluded.current_period_end, cancel_at_period_end = excluded.cancel_at_period_end, ended_at = excluded.ended_at,
				state_at = excluded.state_at, updated_at = excluded.updated_at`),
				b.ID, userID, b.CustomerID, b.Status, b.Plan, b.PriceID, timeOrNil(b.CurrentPeriodEnd), b.CancelAtPeriodEnd, timeOrNil(b.EndedAt), b.StateAt.UTC(), now)
			if err != nil {
				return fmt.Errorf("store subscription: %w", err)
			}
		}
		tier, source := m.Tier, m.TierSource
		if up.Tier != "" {
			tier = up.Tier
		}
		if up.TierSource != "" {
			source = up.TierSource
		}
		if tier != m.Tier || source != m.TierSource {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE users SET tier = ?, tier_source = ?, updated_at = ? WHERE id = ?`), tier, source, now, userID); err != nil {
				return err
			}
			c := MembershipChange{UserID: userID, At: now, FromTier: m.Tier, ToTier: tier, Source: up.Source, Cause: up.Cause}
			if err := tx.GetContext(ctx, &c.ID, tx.Rebind(`INSERT INTO membership_history (user_id, at, from_tier, to_tier, source, cause) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`),
				c.UserID, c.At, c.FromTier, c.ToTier, c.Source, c.Cause); err != nil {
				return err
			}
			out.Change = &c
		}
		if ev != nil && up.Outcome != "" {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE billing_events SET outcome = ? WHERE id = ?`), up.Outcome, ev.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, errDuplicateEvent) {
		return MembershipResult{Duplicate: true}, nil
	}
	return out, err
}

// MembershipByUser reads a member's billing state.
func (s *Store) MembershipByUser(ctx context.Context, userID int64) (Membership, error) {
	m := Membership{UserID: userID}
	if err := s.db.QueryRowxContext(ctx, s.rebind(`SELECT tier, tier_source FROM users WHERE id = ?`), userID).Scan(&m.Tier, &m.TierSource); err != nil {
		return m, notFound(err)
	}
	if err := s.db.GetContext(ctx, &m.CustomerID, s.rebind(`SELECT customer_id FROM billing_customers WHERE user_id = ?`), userID); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return m, err
	}
	err := s.db.SelectContext(ctx, &m.Subscriptions, s.rebind(`SELECT `+billingSubCols+` FROM billing_subscriptions WHERE user_id = ? ORDER BY state_at, id`), userID)
	return m, err
}

// SetTierByAdmin sets the tier of the account with that email as an administrator's decision:
// the tier is then held by the administrator (Stripe events never take such Gold away), and
// the change is written to the membership history with cause. It returns the history row, or
// nil when neither the tier nor who holds it changed.
func (s *Store) SetTierByAdmin(ctx context.Context, email, tier, cause string) (*MembershipChange, error) {
	var id int64
	if err := s.db.GetContext(ctx, &id, s.rebind(`SELECT id FROM users WHERE lower(email) = ?`), NormalizeEmail(email)); err != nil {
		return nil, notFound(err)
	}
	res, err := s.UpdateMembership(ctx, id, nil, func(Membership) (MembershipUpdate, error) {
		return MembershipUpdate{Tier: tier, TierSource: TierSourceAdmin, Source: TierSourceAdmin, Cause: cause}, nil
	})
	return res.Change, err
}

// MembershipHistory lists a member's membership changes, newest first, at most limit.
func (s *Store) MembershipHistory(ctx context.Context, userID int64, limit int) ([]MembershipChange, error) {
	out := []MembershipChange{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT id, user_id, at, from_tier, to_tier, source, cause FROM membership_history
		WHERE user_id = ? ORDER BY at DESC, id DESC LIMIT ?`), userID, limit)
	return out, err
}

// timeOrNil is an optional time as a column value: NULL when absent or zero, else the time in
// UTC to the microsecond (what both engines keep).
func timeOrNil(t *time.Time) any {
	if t == nil || t.IsZero() {
		return nil
	}
	return t.UTC().Truncate(time.Microsecond)
}

// RecordCheckout remembers a Checkout session this server opened for the member.
func (s *Store) RecordCheckout(ctx context.Context, userID int64, sessionID string) error {
	if _, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO billing_checkouts (session_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`),
		sessionID, userID, s.now()); err != nil {
		return fmt.Errorf("record checkout: %w", err)
	}
	return nil
}

// ClaimCheckoutVerification takes the member's one look-up of a Checkout session at Stripe:
// claimed is true for the first caller (until ReleaseCheckoutVerification gives it back);
// later callers get the status Stripe gave then. ErrNotFound when the member never opened
// that session here.
func (s *Store) ClaimCheckoutVerification(ctx context.Context, userID int64, sessionID string) (claimed bool, status string, err error) {
	res, err := s.db.ExecContext(ctx, s.rebind(`UPDATE billing_checkouts SET verified_at = ? WHERE session_id = ? AND user_id = ? AND verified_at IS NULL`),
		s.now(), sessionID, userID)
	if err != nil {
		return false, "", fmt.Errorf("claim checkout verification: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return false, "", err
	} else if n == 1 {
		return true, "", nil
	}
	err = s.db.GetContext(ctx, &status, s.rebind(`SELECT status FROM billing_checkouts WHERE session_id = ? AND user_id = ?`), sessionID, userID)
	return false, status, notFound(err)
}

// FinishCheckoutVerification stores the status Stripe gave for a claimed session, or, with
// status "", gives the claim back (Stripe could not be asked, or the payment is still open).
func (s *Store) FinishCheckoutVerification(ctx context.Context, userID int64, sessionID, status string) error {
	q := `UPDATE billing_checkouts SET status = ? WHERE session_id = ? AND user_id = ?`
	if status == "" {
		q = `UPDATE billing_checkouts SET status = ?, verified_at = NULL WHERE session_id = ? AND user_id = ?`
	}
	if _, err := s.db.ExecContext(ctx, s.rebind(q), status, sessionID, userID); err != nil {
		return fmt.Errorf("finish checkout verification: %w", err)
	}
	return nil
}

// CheckoutOfAnother reports whether another member opened that Checkout session here.
func (s *Store) CheckoutOfAnother(ctx context.Context, userID int64, sessionID string) (bool, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM billing_checkouts WHERE session_id = ? AND user_id <> ?`), sessionID, userID)
	return n > 0, err
}
