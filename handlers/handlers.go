// Package handlers holds Ounce's use cases and their two thin transports: server-rendered
// HTML/HTMX pages and the /v1 JSON API. Use-case functions take plain values, never *fiber.Ctx.
package handlers

import (
	"context"
	"log/slog"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/receipts"
	"github.com/ouncehq/ounce/views/components"
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

// Services are the use cases the adapters call, one per area, built by the web layer.
type Services struct {
	Account   *account.Service
	Portfolio *portfolio.Service
	// Market is the price service; nil only in tests that need no prices.
	Market *prices.Service
	Intel  *intel.Service
	Vault  *comex.Service
	// Receipts reads dealer receipts into proposed holdings.
	Receipts *receipts.Service
}

// Deps are everything the handlers are built from.
type Deps struct {
	Sessions *scs.SessionManager
	Site     Site
	Services Services
	Logger   *slog.Logger
	Now      func() time.Time
	// Done closes when the server shuts down, ending long-lived streams.
	Done <-chan struct{}
}

// Handlers is the one value every route hangs off: adapters over the services.
type Handlers struct {
	sessions  *scs.SessionManager
	cfg       Site
	log       *slog.Logger
	now       func() time.Time
	account   *account.Service
	portfolio *portfolio.Service
	market    *prices.Service
	intel     *intel.Service
	vault     *comex.Service
	receipts  *receipts.Service
	cache     bodyCache
	done      <-chan struct{}
}

// New builds the handlers.
func New(d Deps) *Handlers {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	sv := d.Services
	return &Handlers{sessions: d.Sessions, cfg: d.Site, log: d.Logger, now: d.Now, done: d.Done,
		account: sv.Account, portfolio: sv.Portfolio, market: sv.Market, intel: sv.Intel, vault: sv.Vault,
		receipts: sv.Receipts}
}

// Locals keys shared with the web middleware.
const (
	localUser      = "ounce.user"
	localKeyID     = "ounce.keyid"
	localNonce     = "ounce.nonce"
	localCSRF      = "ounce.csrf"
	localRequestID = "ounce.rid"
)

// SetUser records the authenticated user of the request.
func SetUser(c *fiber.Ctx, u db.User) { c.Locals(localUser, u) }

// UserFrom returns the authenticated user, if any.
func UserFrom(c *fiber.Ctx) (db.User, bool) {
	u, ok := c.Locals(localUser).(db.User)
	return u, ok
}

// SetNonce records the CSP nonce of the request for the templates.
func SetNonce(c *fiber.Ctx, n string) { c.Locals(localNonce, n) }

// SetCSRF records the CSRF token the page must echo back.
func SetCSRF(c *fiber.Ctx, t string) { c.Locals(localCSRF, t) }

// SetRequestID records the request id.
func SetRequestID(c *fiber.Ctx, id string) { c.Locals(localRequestID, id) }

// RequestID returns the request id.
func RequestID(c *fiber.Ctx) string { s, _ := c.Locals(localRequestID).(string); return s }

// meta assembles what every page layout needs.
func (h *Handlers) meta(c *fiber.Ctx, title, nav string) components.Meta {
	m := components.Meta{Title: title, Nav: nav, Version: h.cfg.Version}
	m.Nonce, _ = c.Locals(localNonce).(string)
	m.CSRF, _ = c.Locals(localCSRF).(string)
	if u, ok := UserFrom(c); ok {
		m.UserEmail = u.Email
		m.UserTier = u.Tier
		m.SignedIn = true
	}
	return m
}

func (h *Handlers) ctx(c *fiber.Ctx) context.Context { return c.UserContext() }

// Market returns the price service (tests publish prices through it).
func (h *Handlers) Market() *prices.Service { return h.market }
