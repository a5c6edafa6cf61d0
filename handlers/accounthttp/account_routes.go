package accounthttp

import (
	"context"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
)

// PageRoutes are the browser routes of the account area: sign-up, sign-in, sign-out and
// the settings page for API keys (membership is the billing area's), and the mail flows
// (mail_pages.go).
func (h *Handlers) PageRoutes() []kit.PageRoute {
	out := append(h.mailPageRoutes(), kit.PagesFor(kit.AuthNone, []kit.PageRoute{
		{Method: "GET", Path: "/signup", Handler: h.SignUpPage},
		{Method: "POST", Path: "/signup", Handler: h.SignUpSubmit},
		{Method: "GET", Path: "/login", Handler: h.LoginPage},
		{Method: "POST", Path: "/login", Handler: h.LoginSubmit},
		{Method: "POST", Path: "/logout", Handler: h.Logout},
	})...)
	return append(out, kit.PagesFor(kit.AuthMember, []kit.PageRoute{
		{Method: "GET", Path: "/settings/account", Handler: h.AccountPage},
		{Method: "POST", Path: "/settings/account/profile", Handler: h.AccountProfile},
		{Method: "POST", Path: "/settings/account/email", Handler: h.AccountEmail},
		{Method: "POST", Path: "/settings/account/units", Handler: h.AccountUnits},
		{Method: "POST", Path: "/settings/account/tax", Handler: h.AccountTax},
		{Method: "POST", Path: "/settings/account/password", Handler: h.AccountPassword},
		{Method: "POST", Path: "/settings/account/delete", Handler: h.AccountDelete},
		{Method: "GET", Path: "/settings/developer", Handler: h.DeveloperPage},
		{Method: "POST", Path: "/settings/developer/keys", Handler: h.DeveloperCreateKey},
		{Method: "GET", Path: "/settings/developer/keys/:id/revoke", Handler: h.DeveloperRevokeConfirm},
		{Method: "POST", Path: "/settings/developer/keys/:id/revoke", Handler: h.DeveloperRevokeKey},
	})...)
}

// sessUserID is the session key holding the signed-in member's id.
const sessUserID = "user_id"

// SessionUser loads the signed-in member of a browser request, if any: the session names an
// id, the account service says whether that account still exists.
func (h *Handlers) SessionUser(ctx context.Context) (account.User, bool) {
	u, ok := h.account.SessionUser(ctx, h.Sessions.GetInt64(ctx, sessUserID))
	if ok && h.Sessions.GetInt64(ctx, sessGen) != u.SessionGen {
		// The password changed since this session signed in: it is signed out.
		return account.User{}, false
	}
	return u, ok
}

// sessGen is the session key holding the account's session generation at sign-in.
const sessGen = "session_gen"
