package billing

import "github.com/ouncehq/ounce/db"

// The membership domain types (defined by db, which stores them; named here so the adapters
// need not import db).

// MembershipChange is one entry of a member's tier history.
type MembershipChange = db.MembershipChange

// Where a tier came from, besides Stripe.
const (
	TierGold         = db.TierGold
	TierSourceSignup = db.TierSourceSignup
	TierSourceAdmin  = db.TierSourceAdmin
)
