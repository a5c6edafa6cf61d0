package handlers

import (
	"context"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/mail"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/social"
)

// The services behind the adapters, for the CLI and tests that drive them directly.

// Account returns the account service, for the web layer's bearer check and for tests and
// tools that create members and keys.
func (h *Handlers) Account() *account.Service { return h.account }

// Advisor returns the advisor service (the CLI and tests use it directly).
func (h *Handlers) Advisor() *advisor.Service { return h.advisor }

// Alerts returns the price alert service (tests and the CLI use it directly).
func (h *Handlers) Alerts() *alerts.Service { return h.alerts }

// Dealers returns the dealer-price service (tests and tools that call use cases directly).
func (h *Handlers) Dealers() *dealers.Service { return h.dealers }

// Market returns the price service (tests publish prices through it).
func (h *Handlers) Market() *prices.Service { return h.market }

// Portfolio returns the portfolio service, for tools and benchmarks (the spot refresh).
func (h *Handlers) Portfolio() *portfolio.Service { return h.portfolio }

// Intel returns the market-intelligence service (first-start seeding, runs, articles).
func (h *Handlers) Intel() *intel.Service { return h.intel }

// Vault returns the Vault Watch service (workbook imports, open interest).
func (h *Handlers) Vault() *comex.Service { return h.vault }

// Social returns the social service (the CLI's mute and tests use it directly).
func (h *Handlers) Social() *social.Service { return h.social }

// SessionUser loads the signed-in member of a browser request, if any (the web layer's
// session middleware asks).
func (h *Handlers) SessionUser(ctx context.Context) (db.User, bool) {
	return h.accountHTTP.SessionUser(ctx)
}

// Mail returns the mail service (tests drain its outbox directly).
func (h *Handlers) Mail() *mail.Service { return h.accountHTTP.Mail() }
