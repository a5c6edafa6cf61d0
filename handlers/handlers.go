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
	"github.com/ouncehq/ounce/internal/ratelimit"
	"github.com/ouncehq/ounce/views/components"
)

// Config is the part of the service configuration the handlers need.
type Config struct {
	BaseURL string
	// NewUsersGold makes sign-ups start on the gold tier (self-hosted, no payment provider).
	NewUsersGold bool
	Offline      bool
	Version      string
	// ContactEmail and LegalURL appear in the AI plugin manifest (OUNCE_CONTACT_EMAIL, OUNCE_LEGAL_URL).
	ContactEmail string
	LegalURL     string
	// PaymentsEnabled is true when a payment provider is configured.
	PaymentsEnabled bool
	// Market intelligence (issue areas news, Stack Signal, Vault Watch).
	NewsFeeds     string        // OUNCE_NEWS_FEEDS: list or file; empty = defaults
	IntelInterval time.Duration // OUNCE_INTEL_INTERVAL; 0 = default
	LLMBaseURL    string        // OUNCE_LLM_BASE_URL
	LLMModel      string        // OUNCE_LLM_MODEL
	LLMAPIKey     string        // OUNCE_LLM_API_KEY
	CMEBaseURL    string        // OUNCE_CME_BASE_URL; empty = the exchange's site
}

// Deps are everything the handlers are built from.
type Deps struct {
	Store    *db.Store
	Sessions *scs.SessionManager
	Config   Config
	Logger   *slog.Logger
	Now      func() time.Time
	// OnKeyUsed is told each time an API key authenticates, so last use can be coalesced.
	OnKeyUsed func(keyID int64, at time.Time)
	// Limiter guards sign-in attempts.
	Limiter Limiter
	// Market is the price service; nil only in tests that need no prices.
	Market *prices.Service
	// Done closes when the server shuts down, ending long-lived streams.
	Done <-chan struct{}
}

// Handlers is the one value every route hangs off.
type Handlers struct {
	store    *db.Store
	sessions *scs.SessionManager
	cfg      Config
	log      *slog.Logger
	now      func() time.Time
	keyUsed  func(int64, time.Time)
	limiter  Limiter
	market   *prices.Service
	account  *account.Service
	intel    *intel.Service
	vault    *comex.Service
	cache    bodyCache
	// portfolio is the holdings, sales, valuation and import/export service.
	portfolio *portfolio.Service
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
	if d.OnKeyUsed == nil {
		d.OnKeyUsed = func(int64, time.Time) {}
	}
	h := &Handlers{store: d.Store, sessions: d.Sessions, cfg: d.Config, log: d.Logger, now: d.Now, keyUsed: d.OnKeyUsed, limiter: d.Limiter, market: d.Market, done: d.Done,
		account:   newAccount(d),
		portfolio: portfolio.New(portfolio.Deps{Store: d.Store, Prices: d.Market, Now: d.Now, Logger: d.Logger})}
	h.intel, h.vault = newMarketServices(d)
	return h
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

// Limiter counts hits in fixed windows; the web layer provides a shared or in-memory one
// (internal/ratelimit).
type Limiter = ratelimit.Limiter

// Market returns the price service (tests publish prices through it).
func (h *Handlers) Market() *prices.Service { return h.market }
