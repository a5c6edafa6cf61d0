package accounthttp

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// The page's meta description (search results, link previews).
const (
	signUpDescription = "Create an Ounce account to track your gold, silver, platinum and palladium holdings against their spot prices."
	loginDescription  = "Sign in to Ounce to see your precious-metals holdings, their value and your price alerts."
)

// startSession signs u in on this browser with a fresh session token (no session fixation)
// and a fresh CSRF token, so nothing a visitor's page carried is valid after sign-in.
func (h *Handlers) startSession(c *fiber.Ctx, u account.User) error {
	ctx := c.UserContext()
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.Sessions.Put(ctx, sessUserID, u.ID)
	h.Sessions.Put(ctx, sessGen, u.SessionGen)
	h.Sessions.Put(ctx, kit.SessionCSRFKey, newCSRFToken())
	return nil
}

// newCSRFToken is 32 random bytes, URL-safe.
func newCSRFToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// refusedForm reports whether err is a refusal a sign-in or sign-up form shows in place
// (anything below 500, and "too busy, come back in a moment"), setting Retry-After if it has one.
func refusedForm(c *fiber.Ctx, err error) (*kit.Problem, bool) {
	p := kit.AsProblem(err)
	if p.Status >= 500 && p.Status != http.StatusServiceUnavailable {
		return p, false
	}
	if p.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, fmt.Sprint(p.RetryAfter))
	}
	return p, true
}

// SignUpPage shows the sign-up form.
func (h *Handlers) SignUpPage(c *fiber.Ctx) error {
	return kit.Render(c, http.StatusOK, pages.SignUp(h.Meta(c, "Create account", "").Describe(signUpDescription), pages.AuthForm{}))
}

// SignUpSubmit creates the account and signs it in.
func (h *Handlers) SignUpSubmit(c *fiber.Ctx) error {
	email := c.FormValue("email")
	u, err := h.account.SignUp(h.Ctx(c), kit.ClientIP(c), account.Credentials{Email: email, Password: c.FormValue("password")})
	if err != nil {
		p, ok := refusedForm(c, err)
		if !ok {
			return err
		}
		f := pages.AuthForm{Email: email, Fields: map[string]string{}}
		for _, fe := range p.Errors {
			f.Fields[fe.Field] = kit.FieldSentence(fe.Field, fe.Message)
		}
		status := http.StatusUnprocessableEntity
		switch {
		case p.Status == http.StatusTooManyRequests || p.Status == http.StatusServiceUnavailable:
			status, f.Error = p.Status, kit.ErrorSentence(p)
		case len(p.Errors) == 0:
			// A taken address gets the same answer as any other refusal to keep accounts private.
			f.Error = "We could not create an account with that email. If it is yours, sign in instead."
		}
		return kit.Render(c, status, pages.SignUp(h.Meta(c, "Create account", "").Describe(signUpDescription), f))
	}
	if err := h.startSession(c, u); err != nil {
		return err
	}
	h.afterSignUp(h.Ctx(c), u)
	return kit.Redirect(c, "/")
}

// LoginPage shows the sign-in form.
func (h *Handlers) LoginPage(c *fiber.Ctx) error {
	return kit.Render(c, http.StatusOK, pages.Login(h.Meta(c, "Sign in", "").Describe(loginDescription), pages.AuthForm{NextPath: safeNext(c.Query("next"))}))
}

// LoginSubmit checks credentials and signs the browser in.
func (h *Handlers) LoginSubmit(c *fiber.Ctx) error {
	email := c.FormValue("email")
	next := safeNext(c.FormValue("next"))
	u, err := h.account.Authenticate(h.Ctx(c), kit.ClientIP(c), account.Credentials{Email: email, Password: c.FormValue("password")})
	if err != nil {
		p, ok := refusedForm(c, err)
		if !ok {
			return err
		}
		return kit.Render(c, p.Status, pages.Login(h.Meta(c, "Sign in", "").Describe(loginDescription), pages.AuthForm{Email: email, Error: kit.ErrorSentence(p), NextPath: next}))
	}
	if err := h.startSession(c, u); err != nil {
		return err
	}
	return kit.Redirect(c, next)
}

// endSession signs this browser out: a fresh session token, then the session destroyed.
func (h *Handlers) endSession(c *fiber.Ctx) error {
	ctx := c.UserContext()
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	return h.Sessions.Destroy(ctx)
}

// Logout ends the browser session.
func (h *Handlers) Logout(c *fiber.Ctx) error {
	if err := h.endSession(c); err != nil {
		return err
	}
	return kit.Redirect(c, "/")
}

// developerView is the developer page's view of u's keys.
func (h *Handlers) developerView(c *fiber.Ctx, u account.User) (pages.DeveloperView, error) {
	keys, err := h.account.APIKeys(h.Ctx(c), u)
	if err != nil {
		return pages.DeveloperView{}, err
	}
	v := pages.DeveloperView{Max: account.MaxActiveAPIKeys, BaseURL: h.Site.BaseURL, IsGold: account.IsGold(u)}
	for _, k := range keys {
		row := pages.APIKeyRow{ID: strconv.FormatInt(k.ID, 10), Name: k.Name, Prefix: k.Prefix, Created: format.Date(k.CreatedAt), LastUsed: "never", Revoked: k.RevokedAt != nil}
		if k.LastUsedAt != nil {
			row.LastUsed = humanAgo(h.Now(), *k.LastUsedAt)
		}
		if !row.Revoked {
			v.Active++
		}
		v.Keys = append(v.Keys, row)
	}
	return v, nil
}

// DeveloperPage is Settings → Developer Access.
func (h *Handlers) DeveloperPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	return kit.RenderView(c, u, h.developerView, func(v pages.DeveloperView) templ.Component {
		return pages.Developer(h.Meta(c, "Developer access", "settings"), v)
	})
}

// DeveloperCreateKey creates a key and shows it once.
func (h *Handlers) DeveloperCreateKey(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	secret, k, err := h.account.CreateAPIKey(h.Ctx(c), u, c.FormValue("name"))
	status := http.StatusOK
	var formErr string
	if err != nil {
		p := kit.AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		status = http.StatusUnprocessableEntity
		formErr = p.Detail
		if len(p.Errors) > 0 {
			formErr = "Name " + p.Errors[0].Message + "."
		}
	}
	v, verr := h.developerView(c, u)
	if verr != nil {
		return verr
	}
	v.NewKey, v.NewName, v.Error = secret, k.Name, formErr
	c.Set(fiber.HeaderCacheControl, "no-store")
	m := h.Meta(c, "Developer access", "settings")
	return kit.Page(c, status, pages.Developer(m, v), pages.DeveloperKeys(m, v))
}

// DeveloperRevokeConfirm asks before revoking a key: the Revoke link's page without
// JavaScript (with it, htmx asks and posts in place). Its form posts to DeveloperRevokeKey.
// Someone else's key, an unknown one and one already revoked are NotFound.
func (h *Handlers) DeveloperRevokeConfirm(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil {
		return kit.NotFound("API key")
	}
	keys, err := h.account.APIKeys(h.Ctx(c), u)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.ID == id && k.RevokedAt == nil {
			path := "/settings/developer/keys/" + strconv.FormatInt(id, 10) + "/revoke"
			v := pages.ConfirmView{Question: "Revoke the key “" + k.Name + "”?",
				Detail: "Programs and agents using it (" + k.Prefix + "…) stop working at once. This cannot be undone; you can create a new key.",
				Action: path, Button: "Revoke", Cancel: "/settings/developer"}
			return kit.Render(c, http.StatusOK, pages.Confirm(h.Meta(c, "Revoke API key", "settings"), v))
		}
	}
	return kit.NotFound("API key")
}

// DeveloperRevokeKey revokes one of the member's keys.
func (h *Handlers) DeveloperRevokeKey(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	id, err := strconv.ParseInt(c.Params("id"), 10, 64)
	if err != nil {
		return kit.NotFound("API key")
	}
	if err := h.account.RevokeAPIKey(h.Ctx(c), u, id); err != nil {
		return err
	}
	if !kit.IsHTMX(c) {
		return kit.Redirect(c, "/settings/developer")
	}
	return kit.RenderView(c, u, h.developerView, func(v pages.DeveloperView) templ.Component {
		return pages.DeveloperKeys(h.Meta(c, "", "settings"), v)
	})
}

// humanAgo renders a past time relative to now.
func humanAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + " h ago"
	}
	return format.Date(t)
}

// safeNext keeps post-login redirects on this site: p when it is a path on this origin,
// otherwise "/". The value ends up in a Location or HX-Redirect header, so it must be
// printable ASCII with no way to start a new header line, and no decoding of it — by us, a
// proxy or a browser — may turn it into another host ("//host", "/\\host", "/\thost",
// "https:", "javascript:").
func safeNext(p string) string {
	if !sameOriginPath(p) {
		return "/"
	}
	return p
}

func sameOriginPath(p string) bool {
	if len(p) > 2048 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 0x21 || p[i] > 0x7e {
			return false
		}
	}
	// Percent-decode up to three times (double and triple encodings), checking each layer.
	s := p
	for range 4 {
		if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || strings.ContainsRune(s, '\\') {
			return false
		}
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == 0x7f {
				return false
			}
		}
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
			return false
		}
		d, err := url.PathUnescape(s)
		if err != nil {
			return false
		}
		if d == s {
			return true
		}
		s = d
	}
	return false
}
