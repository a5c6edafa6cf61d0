package accounthttp

import (
	"net/http"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/views/pages"
)

// accountZones are the suggestions of the time zone field (any IANA name is accepted).
var accountZones = []string{"America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Toronto",
	"Europe/London", "Europe/Berlin", "Europe/Zurich", "Asia/Singapore", "Asia/Hong_Kong", "Asia/Tokyo", "Australia/Sydney", "UTC"}

// accountView is the settings page of u with the values of a rejected form and its errors,
// keyed by the page's field names.
func (h *Handlers) accountView(u account.User, vals map[string]string, errs map[string]string) pages.AccountView {
	v := pages.AccountView{Email: u.Email, Values: map[string]string{"display_name": u.DisplayName, "time_zone": u.TimeZone},
		Errors: map[string]string{}, Gold: account.IsGold(u), Zones: accountZones, DeleteTip: account.DeleteConfirmation}
	v.Units = unitsView(u, nil, nil)
	for k, x := range vals {
		v.Values[k] = x
	}
	for k, x := range errs {
		v.Errors[k] = x
	}
	return v
}

// accountFieldErrors maps a service's field errors onto the page's field names (several forms
// share "password"), as sentences.
func accountFieldErrors(err error, rename map[string]string) (map[string]string, bool) {
	e, ok := apperr.As(err)
	if !ok || e.Kind != apperr.Invalid && (e.Kind != apperr.Unprocessable || len(e.Fields) == 0) {
		return nil, false
	}
	out := map[string]string{}
	for _, f := range e.Fields {
		name := f.Field
		if r, ok := rename[name]; ok {
			name = r
		}
		out[name] = kit.FieldSentence(f.Field, f.Message)
	}
	return out, true
}

// AccountPage shows /settings/account.
func (h *Handlers) AccountPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v := h.accountView(u, nil, nil)
	switch c.Query("done") {
	case "profile":
		v.Flash = "Profile saved."
	case "email":
		v.Flash = "Email changed."
	case "units":
		v.Flash = "Money and units saved."
	case "password":
		v.Flash = "Password changed. Your other browsers are signed out."
	case "mail":
		v.Flash = "Email settings saved."
	case "verify":
		v.Flash = "A confirmation link is on its way to " + u.Email + "."
	}
	v.Mail = h.mailView(h.Ctx(c), u)
	return kit.Render(c, http.StatusOK, pages.Account(h.Meta(c, "Account", "settings"), v))
}

// accountRefused re-renders the page with 422 and the form's errors, keeping what was typed
// (never passwords).
func (h *Handlers) accountRefused(c *fiber.Ctx, u account.User, err error, rename map[string]string, vals map[string]string) error {
	errs, ok := accountFieldErrors(err, rename)
	if !ok {
		return err
	}
	v := h.accountView(u, vals, errs)
	v.Mail = h.mailView(h.Ctx(c), u)
	return kit.Render(c, http.StatusUnprocessableEntity, pages.Account(h.Meta(c, "Account", "settings"), v))
}

// AccountProfile saves the display name and time zone.
func (h *Handlers) AccountProfile(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	name, zone := c.FormValue("display_name"), c.FormValue("time_zone")
	if _, err := h.account.SetProfile(h.Ctx(c), u, name, zone); err != nil {
		return h.accountRefused(c, u, err, nil, map[string]string{"display_name": name, "time_zone": zone})
	}
	return kit.Redirect(c, "/settings/account?done=profile")
}

// AccountEmail changes the sign-in address.
func (h *Handlers) AccountEmail(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	email := c.FormValue("email")
	if _, err := h.account.ChangeEmail(h.Ctx(c), u, c.FormValue("email_password"), email); err != nil {
		return h.accountRefused(c, u, err, map[string]string{"password": "email_password"}, map[string]string{"email": email})
	}
	// The notice to the old address and the confirmation link to the new one were queued
	// with the change, in its transaction.
	h.mail.Wake()
	return kit.Redirect(c, "/settings/account?done=email")
}

// AccountPassword changes the password; this browser stays signed in on a fresh session,
// every other one is signed out.
func (h *Handlers) AccountPassword(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	nu, err := h.account.ChangePassword(h.Ctx(c), u, c.FormValue("current_password"), c.FormValue("new_password"))
	if err != nil {
		return h.accountRefused(c, u, err, nil, nil)
	}
	h.mail.Wake() // the notice was queued with the change
	if err := h.startSession(c, nu); err != nil {
		return err
	}
	return kit.Redirect(c, "/settings/account?done=password")
}

// AccountDelete deletes the account after the password and typed confirmation, ends the
// session and says goodbye on the home page.
func (h *Handlers) AccountDelete(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	confirm := c.FormValue("confirm")
	if err := h.account.DeleteAccount(h.Ctx(c), u, c.FormValue("delete_password"), confirm); err != nil {
		return h.accountRefused(c, u, err, map[string]string{"password": "delete_password"}, map[string]string{"confirm": confirm})
	}
	if err := h.endSession(c); err != nil {
		return err
	}
	return kit.Redirect(c, "/?deleted=1")
}
