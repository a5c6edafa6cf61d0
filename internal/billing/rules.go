package billing

import (
	"time"

	"github.com/ouncehq/ounce/db"
)

// PastDueGrace is how long after the end of the paid period a past_due subscription keeps
// Gold: Stripe retries the card over the following days, and a member whose card is being
// retried should not lose their portfolio pages the minute a payment fails.
const PastDueGrace = 3 * 24 * time.Hour

// Grants reports whether a subscription in this state gives Gold at now, and until when it
// does for a past_due one (zero otherwise): active and trialing do; past_due does until the
// end of the paid period plus PastDueGrace; canceled, unpaid, incomplete(_expired) and paused
// do not.
func Grants(status string, periodEnd, now time.Time) (bool, time.Time) {
	switch status {
	case StatusActive, StatusTrialing:
		return true, time.Time{}
	case StatusPastDue:
		if periodEnd.IsZero() {
			return false, time.Time{}
		}
		until := periodEnd.Add(PastDueGrace)
		return now.Before(until), until
	}
	return false, time.Time{}
}

// grantsStored applies Grants to a stored subscription.
func grantsStored(b db.BillingSubscription, now time.Time) bool {
	var end time.Time
	if b.CurrentPeriodEnd != nil {
		end = *b.CurrentPeriodEnd
	}
	ok, _ := Grants(b.Status, end, now)
	return ok
}

// terminal statuses are final: a canceled or expired subscription never becomes active again
// (a member who comes back gets a new subscription).
func terminal(status string) bool {
	return status == StatusCanceled || status == StatusIncompleteExpired
}

// rank orders statuses along a subscription's life, to settle two states Stripe stamped with
// the same second: the later stage wins.
func rank(status string) int {
	switch status {
	case StatusIncomplete:
		return 0
	case StatusTrialing:
		return 1
	case StatusActive:
		return 2
	case StatusPastDue:
		return 3
	case StatusUnpaid, StatusPaused:
		return 4
	case StatusCanceled, StatusIncompleteExpired:
		return 5
	}
	return 2
}

// supersedes reports whether a state of a subscription observed at Stripe's time at replaces
// the stored one. Events arrive in any order and more than once, so: an older state never
// replaces a newer one; a final state (canceled, incomplete_expired) is never left; a
// subscription never goes back to incomplete; and of two states of the same second the later
// stage wins.
func supersedes(stored *db.BillingSubscription, status string, at time.Time) bool {
	if stored == nil {
		return true
	}
	if terminal(stored.Status) && !terminal(status) {
		return false
	}
	if status == StatusIncomplete && stored.Status != StatusIncomplete {
		return false
	}
	switch {
	case at.After(stored.StateAt):
		return true
	case at.Equal(stored.StateAt):
		return rank(status) >= rank(stored.Status)
	}
	return false
}

// decideTier is the member's tier from their subscriptions at now, and who holds it. Gold that
// Stripe did not grant (an administrator's, or a self-hosted sign-up's) is never touched; a
// member with any subscription that grants Gold has it; Gold that Stripe granted goes when no
// subscription grants it any more.
func decideTier(m db.Membership, now time.Time) (tier, source string) {
	if m.Tier == db.TierGold && m.TierSource != db.TierSourceStripe {
		return m.Tier, m.TierSource
	}
	for _, b := range m.Subscriptions {
		if grantsStored(b, now) {
			return db.TierGold, db.TierSourceStripe
		}
	}
	if m.Tier == db.TierGold {
		return db.TierFree, db.TierSourceStripe
	}
	return m.Tier, m.TierSource
}

// current picks the subscription a member's page talks about: one that grants Gold (the one
// paid furthest ahead), else the one whose state is newest.
func current(subs []db.BillingSubscription, now time.Time) *db.BillingSubscription {
	var best *db.BillingSubscription
	for i := range subs {
		b := &subs[i]
		switch {
		case best == nil:
			best = b
		case grantsStored(*b, now) && !grantsStored(*best, now):
			best = b
		case grantsStored(*b, now) && grantsStored(*best, now):
			if periodEnd(*b).After(periodEnd(*best)) {
				best = b
			}
		case !grantsStored(*b, now) && !grantsStored(*best, now):
			if !b.StateAt.Before(best.StateAt) {
				best = b
			}
		}
	}
	return best
}

func periodEnd(b db.BillingSubscription) time.Time {
	if b.CurrentPeriodEnd == nil {
		return time.Time{}
	}
	return *b.CurrentPeriodEnd
}
