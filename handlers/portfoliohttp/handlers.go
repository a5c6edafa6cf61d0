// Package portfoliohttp adapts a member's stack to HTTP: holdings, sales, valuation, analytics, value history, import and export and the product catalogue under /v1 and as MCP tools, and the dashboard, ledger, sales and import pages.
package portfoliohttp

import (
	"context"
	"io"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/pages"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	portfolio *portfolio.Service
	// ticker is the price board above the dashboard, drawn by the prices area.
	ticker func() pages.TickerView
	// briefCard draws the daily-brief card into the dashboard (the advisor area's); nil leaves
	// the card to load after the page.
	briefCard func(*fiber.Ctx) (templ.Component, error)
	// archive writes and restores the ZIP export (the custody area's); nil answers format=zip
	// and ZIP imports with 422.
	archive Archive
}

// Archive is the ZIP export with every document, and its import (issue 28).
type Archive interface {
	// Archive reads what the ZIP lists and answers what writes it.
	Archive(ctx context.Context, u account.User) (func(io.Writer) error, error)
	ImportArchive(ctx context.Context, u account.User, data []byte) (portfolio.ImportResult, error)
}

// WithArchive has export and import handle the ZIP with documents.
func (h *Handlers) WithArchive(a Archive) *Handlers {
	h.archive = a
	return h
}

// WithBriefCard has the dashboard draw the daily-brief card in its first response.
func (h *Handlers) WithBriefCard(f func(*fiber.Ctx) (templ.Component, error)) *Handlers {
	h.briefCard = f
	return h
}

// New builds the area's adapters.
func New(b *kit.Base, portfolio *portfolio.Service, ticker func() pages.TickerView) *Handlers {
	return &Handlers{Base: b, portfolio: portfolio, ticker: ticker}
}

// APIRoutes are the area's /v1 routes. The portfolio's fixed paths (/v1/holdings/export,
// /v1/holdings/import) come before the /v1/holdings/:id pattern, which would match them.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	out := h.portfolioRoutes()
	out = append(out, h.holdingsRoutes()...)
	return append(out, h.productRoutes()...)
}
