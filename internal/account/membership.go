package account

import (
	"strconv"
	"strings"

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

// CheckClaim applies the rule for the userId some clients still send: it never identifies
// anyone by itself (without a signed-in caller it is 401), and when present it must be the
// caller's own id (else 403, saying "userId must be your own id or left out; " and then
// why, e.g. "you can only act as yourself"). Absent, it changes nothing.
func CheckClaim(caller db.User, claimed, why string) error {
	claimed = strings.TrimSpace(claimed)
	if claimed == "" {
		return nil
	}
	if caller.ID == 0 {
		return apperr.New(apperr.Unauthorized, "userId does not identify anyone by itself: sign in or send Authorization: Bearer <API key>")
	}
	if claimed != strconv.FormatInt(caller.ID, 10) {
		return apperr.ForbiddenF("userId must be your own id or left out; %s", why)
	}
	return nil
}
