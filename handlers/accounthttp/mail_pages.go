package accounthttp

import (
	"context"
	"github.com/ouncehq/ounce/internal/account"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/mail"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/pages"
)

// WithMail gives the area the mail service: password reset, address confirmation, notices
// of changes and the email settings. Without it (or with mail off) the pages say mail is off.
func (h *Handlers) WithMail(m *mail.Service) *Handlers {
	if m != nil {
		h.mail = m
		h.account.SetNotices(m) // notices of security changes, written with the change
	}
	return h
}

// mailPageRoutes are the pages of the mail flows; none needs a sign-in.
func (h *Handlers) mailPageRoutes() []kit.PageRoute {
	return append(kit.PagesFor(kit.AuthNone, []kit.PageRoute{
		{Method: "GET", Path: "/forgot-password", Handler: h.ForgotPasswordPage},
		{Method: "POST", Path: "/forgot-password", Handler: h.ForgotPasswordSubmit},
		{Method: "GET", Path: "/reset-password", Handler: h.ResetPasswordPage},
		{Method: "POST", Path: "/reset-password", Handler: h.ResetPasswordSubmit},
		{Method: "GET", Path: "/verify-email", Handler: h.VerifyEmailPage},
		{Method: "POST", Path: "/verify-email", Handler: h.VerifyEmailSubmit},
		{Method: "GET", Path: "/unsubscribe", Handler: h.UnsubscribePage},
		{Method: "POST", Path: "/unsubscribe", Handler: h.UnsubscribeSubmit},
	}), kit.PagesFor(kit.AuthMember, []kit.PageRoute{
		{Method: "POST", Path: "/settings/account/mail", Handler: h.AccountMail},
		{Method: "POST", Path: "/settings/account/mail/verify", Handler: h.AccountMailVerify},
	})...)
}

// APIRoutes are the area's /v1 routes: the member's settings (units.go) and the RFC 8058
// one-click unsubscribe a mail client POSTs to (no session, no key: the signed token is the
// authority).
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return append(h.SettingsAPIRoutes(), h.mailAPIRoutes()...)
}

func (h *Handlers) mailAPIRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/mail/unsubscribe", Auth: kit.AuthNone, Handler: h.APIUnsubscribe, OperationID: "unsubscribeMail", Tag: "Account",
			Summary: "Stop a mailing with one click (RFC 8058)",
			Description: "The URL of every alert and brief email's List-Unsubscribe header. A mail client POSTs List-Unsubscribe=One-Click to it; " +
				"the signed token in the query names the member and the mailing, so no sign-in is needed.",
			Params: []kit.Param{{Name: "token", In: "query", Required: true, Description: "The signed token from the email's List-Unsubscribe header.",
				Schema: kit.Schema{"type": "string", "maxLength": 200}}},
			BodyTypes:    []string{"application/x-www-form-urlencoded"},
			Body:         kit.Schema{"type": "object", "properties": kit.Schema{"List-Unsubscribe": kit.Schema{"type": "string", "enum": []string{"One-Click"}}}},
			BodyOptional: true,
			Responses: []kit.Response{
				{Status: 200, Description: "The mailing is stopped.", Schema: kit.Schema{"type": "object", "required": []string{"unsubscribed"},
					"properties": kit.Schema{"unsubscribed": kit.Schema{"type": "string", "description": "The mailing stopped, in words."}}}},
				{Status: 400, Description: "The token is missing or does not verify."},
			},
			Example: "POST /v1/mail/unsubscribe?token=… List-Unsubscribe=One-Click"},
	}
}

// APIUnsubscribe is the one-click unsubscribe.
func (h *Handlers) APIUnsubscribe(c *fiber.Ctx) error {
	name, err := h.mail.Unsubscribe(h.Ctx(c), strings.Clone(c.Query("token")))
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, fiber.Map{"unsubscribed": name})
}

// Meta descriptions of the mail pages.
const (
	forgotDescription = "Get a link by email to choose a new Ounce password."
	resetDescription  = "Choose a new password for your Ounce account with the link you were mailed."
)

// ForgotPasswordPage asks for the address to mail a reset link to.
func (h *Handlers) ForgotPasswordPage(c *fiber.Ctx) error {
	return kit.Render(c, http.StatusOK, pages.ForgotPassword(h.Meta(c, "Forgot password", "").Describe(forgotDescription),
		pages.MailPageView{Off: !h.mail.Enabled()}))
}

// forgotAnswer is the one answer to a reset request, whether or not the address has an account.
const forgotAnswer = "If an account has that address, a link to choose a new password is on its way to it. The link works once, for one hour."

// ForgotPasswordSubmit mails a reset link and answers the same whatever the address.
func (h *Handlers) ForgotPasswordSubmit(c *fiber.Ctx) error {
	meta := h.Meta(c, "Forgot password", "").Describe(forgotDescription)
	if !h.mail.Enabled() {
		return kit.Render(c, http.StatusServiceUnavailable, pages.ForgotPassword(meta, pages.MailPageView{Off: true}))
	}
	email := strings.TrimSpace(c.FormValue("email"))
	if email == "" || len(email) > 254 || !strings.Contains(email, "@") {
		return kit.Render(c, http.StatusUnprocessableEntity, pages.ForgotPassword(meta,
			pages.MailPageView{Email: strings.Clone(email), Fields: map[string]string{"email": "Enter the email address you sign in with."}}))
	}
	if err := h.mail.RequestResetFrom(h.Ctx(c), kit.ClientIP(c), email); err != nil {
		if apperr.KindOf(err) != apperr.RateLimited {
			return err
		}
		p, _ := refusedForm(c, err) // sets Retry-After
		return kit.Render(c, http.StatusTooManyRequests, pages.ForgotPassword(meta,
			pages.MailPageView{Email: strings.Clone(email), Error: kit.ErrorSentence(p)}))
	}
	return kit.Render(c, http.StatusOK, pages.ForgotPassword(meta, pages.MailPageView{Done: forgotAnswer}))
}

// ResetPasswordPage asks for the new password of a mailed link.
func (h *Handlers) ResetPasswordPage(c *fiber.Ctx) error {
	c.Set("Referrer-Policy", "no-referrer") // the token must not leave in a Referer
	return kit.Render(c, http.StatusOK, pages.ResetPassword(h.Meta(c, "Choose a new password", "").Describe(resetDescription),
		pages.MailPageView{Token: strings.Clone(c.Query("token"))}))
}

// ResetPasswordSubmit sets the new password; the link then works no more, and every session
// of the member is signed out (this browser's too: it signs in afresh).
func (h *Handlers) ResetPasswordSubmit(c *fiber.Ctx) error {
	c.Set("Referrer-Policy", "no-referrer")
	meta := h.Meta(c, "Choose a new password", "").Describe(resetDescription)
	token := strings.Clone(c.FormValue("token"))
	if _, err := h.mail.ResetPassword(h.Ctx(c), token, c.FormValue("password")); err != nil {
		e, ok := apperr.As(err)
		if !ok || len(e.Fields) == 0 {
			return err
		}
		v := pages.MailPageView{Token: token, Fields: map[string]string{}}
		for _, f := range e.Fields {
			if f.Field == "token" {
				v.Error = kit.FieldSentence(f.Field, f.Message)
			} else {
				v.Fields[f.Field] = kit.FieldSentence(f.Field, f.Message)
			}
		}
		return kit.Render(c, http.StatusUnprocessableEntity, pages.ResetPassword(meta, v))
	}
	if err := h.endSession(c); err != nil {
		return err
	}
	return kit.Render(c, http.StatusOK, pages.ResetPassword(meta, pages.MailPageView{Done: "Your password is changed and every browser signed in to your account is signed out. Sign in with the new password."}))
}

// VerifyEmailPage shows the button that confirms a mailed address (a link scanner fetching
// the link confirms nothing).
func (h *Handlers) VerifyEmailPage(c *fiber.Ctx) error {
	c.Set("Referrer-Policy", "no-referrer")
	return kit.Render(c, http.StatusOK, pages.VerifyEmail(h.Meta(c, "Confirm your address", ""), pages.MailPageView{Token: strings.Clone(c.Query("token"))}))
}

// VerifyEmailSubmit confirms the address the link was mailed to.
func (h *Handlers) VerifyEmailSubmit(c *fiber.Ctx) error {
	return h.mailedLinkSubmit(c, "Confirm your address", pages.VerifyEmail, func(ctx context.Context, token string) (string, error) {
		u, err := h.mail.VerifyEmail(ctx, token)
		return u.Email + " is confirmed.", err
	}, "This link has expired, was already used, or is for an address the account no longer has. Ask for a new one in your account settings.")
}

// mailedLinkSubmit carries out the action of a mailed link's button on the form's token:
// act says what it did; a token it finds invalid shows the page again with invalid (422).
func (h *Handlers) mailedLinkSubmit(c *fiber.Ctx, title string, page func(components.Meta, pages.MailPageView) templ.Component,
	act func(ctx context.Context, token string) (string, error), invalid string) error {
	meta := h.Meta(c, title, "")
	token := strings.Clone(c.FormValue("token"))
	done, err := act(h.Ctx(c), token)
	if err != nil {
		if apperr.KindOf(err) != apperr.Invalid {
			return err
		}
		return kit.Render(c, http.StatusUnprocessableEntity, page(meta, pages.MailPageView{Token: token, Error: invalid}))
	}
	return kit.Render(c, http.StatusOK, page(meta, pages.MailPageView{Done: done}))
}

// UnsubscribePage shows the button that stops a mailing (the mail's body link).
func (h *Handlers) UnsubscribePage(c *fiber.Ctx) error {
	return kit.Render(c, http.StatusOK, pages.Unsubscribe(h.Meta(c, "Unsubscribe", ""), pages.MailPageView{Token: strings.Clone(c.Query("token"))}))
}

// UnsubscribeSubmit stops the mailing the signed token names.
func (h *Handlers) UnsubscribeSubmit(c *fiber.Ctx) error {
	return h.mailedLinkSubmit(c, "Unsubscribe", pages.Unsubscribe, func(ctx context.Context, token string) (string, error) {
		name, err := h.mail.Unsubscribe(ctx, token)
		return "You will get no more " + name + ".", err
	}, "This unsubscribe link is not valid.")
}

// mailView is the email section of the settings page.
func (h *Handlers) mailView(ctx context.Context, u account.User) pages.MailSettingsView {
	v := pages.MailSettingsView{Enabled: h.mail.Enabled(), Email: u.Email}
	if !v.Enabled {
		return v
	}
	if p, err := h.mail.PrefsOf(ctx, u); err == nil {
		v.Verified, v.Alerts, v.Brief = p.Verified, p.Alerts, p.Brief
	}
	return v
}

// AccountMail saves price alerts and the daily brief by email.
func (h *Handlers) AccountMail(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	if err := h.mail.SetLists(h.Ctx(c), u, c.FormValue("alerts") == "on", c.FormValue("brief") == "on"); err != nil {
		return err
	}
	return kit.Redirect(c, "/settings/account?done=mail")
}

// AccountMailVerify mails a new confirmation link to the account's address.
func (h *Handlers) AccountMailVerify(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	if err := h.mail.SendVerification(h.Ctx(c), u); err != nil {
		return err
	}
	return kit.Redirect(c, "/settings/account?done=verify")
}

// afterSignUp asks a new member to confirm their address (mail on only); a failure to queue
// is logged, not shown: the account exists either way.
func (h *Handlers) afterSignUp(ctx context.Context, u account.User) {
	if !h.mail.Enabled() {
		return
	}
	if err := h.mail.SendVerification(ctx, u); err != nil {
		h.Log.Warn("queue confirmation mail", "err", err)
	}
}

// Mail is the area's mail service.
func (h *Handlers) Mail() *mail.Service { return h.mail }
