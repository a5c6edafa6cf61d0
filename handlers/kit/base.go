// Package kit is what the adapters of every area share: the route types and auth levels
// both trees use, problems and the one mapping of domain errors to them, rendering and JSON
// number types, the strict parameter parser, OpenAPI schema builders, the request locals the
// web layer sets, and Base (sessions, site, logger, clock) that each area's Handlers embeds.
package kit

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/views/components"

	"github.com/ouncehq/ounce/internal/account"
)

// Site is what the adapters publish about this installation: its address and version in
// documents and manifests, and whether it runs offline (the pages say so).
type Site struct {
	// BaseURL is the public URL (OUNCE_BASE_URL), without a trailing slash.
	BaseURL string
	Version string
	// Offline is set when market-data sources are never contacted (OUNCE_OFFLINE).
	Offline bool
	// ContactEmail and LegalURL appear in the AI plugin manifest (OUNCE_CONTACT_EMAIL, OUNCE_LEGAL_URL).
	ContactEmail string
	LegalURL     string
	// PaymentsEnabled is true when a payment provider is configured.
	PaymentsEnabled bool
}

// Locals keys shared with the web middleware.
const (
	localUser      = "ounce.user"
	localKeyID     = "ounce.keyid"
	LocalNonce     = "ounce.nonce"
	LocalCSRF      = "ounce.csrf"
	localRequestID = "ounce.rid"
	localClientIP  = "ounce.ip"
)

// SetUser records the authenticated user of the request.
func SetUser(c *fiber.Ctx, u account.User) { c.Locals(localUser, u) }

// UserFrom returns the authenticated user, if any.
func UserFrom(c *fiber.Ctx) (account.User, bool) {
	u, ok := c.Locals(localUser).(account.User)
	return u, ok
}

// SetKeyID records the id of the API key a /v1 request authenticated with.
func SetKeyID(c *fiber.Ctx, id int64) { c.Locals(localKeyID, id) }

// KeyIDFrom returns the id of the request's API key (0 without one).
func KeyIDFrom(c *fiber.Ctx) int64 { id, _ := c.Locals(localKeyID).(int64); return id }

// SetNonce records the CSP nonce of the request for the templates.
func SetNonce(c *fiber.Ctx, n string) { c.Locals(LocalNonce, n) }

// SetCSRF records the CSRF token the page must echo back.
func SetCSRF(c *fiber.Ctx, t string) { c.Locals(LocalCSRF, t) }

// SetCSRFSource records how to get the request's CSRF token when a page first needs one:
// for a visitor that may mint a token and set its cookie, which only pages should do.
func SetCSRFSource(c *fiber.Ctx, f func() string) { c.Locals(LocalCSRF, f) }

// CSRF is the token a page must echo back in its forms (_csrf) and HTMX requests
// (X-CSRF-Token), or "" outside the browser routes.
func CSRF(c *fiber.Ctx) string {
	switch v := c.Locals(LocalCSRF).(type) {
	case string:
		return v
	case func() string:
		t := v()
		c.Locals(LocalCSRF, t)
		return t
	}
	return ""
}

// SetClientIP records the client's address as the web layer worked it out (the peer, or the
// right-most untrusted address a trusted proxy reported).
func SetClientIP(c *fiber.Ctx, ip string) { c.Locals(localClientIP, ip) }

// ClientIP is the client's address: what SetClientIP recorded, else the peer's.
func ClientIP(c *fiber.Ctx) string {
	if ip, ok := c.Locals(localClientIP).(string); ok {
		return ip
	}
	return c.IP()
}

// BearerToken extracts the token of an "Authorization: Bearer <token>" header, the scheme in
// any letter case (RFC 9110 makes it case-insensitive). /v1 and /mcp share it.
func BearerToken(h string) (string, bool) {
	const p = "bearer "
	if len(h) <= len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	t := strings.TrimSpace(h[len(p):])
	return t, t != ""
}

// SetRequestID records the request id.
func SetRequestID(c *fiber.Ctx, id string) { c.Locals(localRequestID, id) }

// RequestID returns the request id.
func RequestID(c *fiber.Ctx) string { s, _ := c.Locals(localRequestID).(string); return s }

// Base is what every area's adapters share: sessions, the site, the logger and clock, the
// shutdown signal, and the cache of encoded bodies. Each area's Handlers embeds one *Base.
type Base struct {
	Sessions *scs.SessionManager
	Site     Site
	Log      *slog.Logger
	Now      func() time.Time
	// Done closes when the server shuts down, ending long-lived streams.
	Done  <-chan struct{}
	Cache BodyCache
}

// Meta assembles what every page layout needs.
func (h *Base) Meta(c *fiber.Ctx, title, nav string) components.Meta {
	m := components.Meta{Title: title, Nav: nav, Version: h.Site.Version}
	m.Nonce, _ = c.Locals(LocalNonce).(string)
	m.CSRF = CSRF(c)
	if u, ok := UserFrom(c); ok {
		m.UserEmail = u.Email
		m.UserTier = u.Tier
		m.SignedIn = true
	}
	return m
}

// Ctx is the request's context for service calls.
func (h *Base) Ctx(c *fiber.Ctx) context.Context { return c.UserContext() }

// SessionCSRFKey is the session key of a signed-in browser's CSRF token; visitors without a
// session carry theirs in a signed cookie instead (see web).
const SessionCSRFKey = "csrf"

// IsGold says whether the member has Gold access, for the web layer's route levels (web
// imports no area service; the rule itself is internal/account's).
func IsGold(u account.User) bool { return account.IsGold(u) }
