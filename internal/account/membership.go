package account

import (
	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// ValidTier reports whether t is a membership tier.
func ValidTier(t string) bool { return t == db.TierFree || t == db.TierGold }

// IsGold reports whether u has the paid tier, the one membership rule every area asks.
func IsGold(u db.User) bool { return u.Tier == db.TierGold }

// IsAdmin reports whether u administers this server.
func IsAdmin(u db.User) bool { return u.IsAdmin }

// RequireGold is nil for gold members and the membership error naming feature otherwise
// ("portfolio analytics needs Gold membership").
func RequireGold(u db.User, feature string) error {
	if IsGold(u) {
		return nil
	}
	return apperr.Membership(feature)
}

// RequireAdmin is nil for administrators and Forbidden otherwise.
func RequireAdmin(u db.User) error {
	if IsAdmin(u) {
		return nil
	}
	return apperr.ForbiddenF("this is for administrators")
}
