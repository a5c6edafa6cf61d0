// Package priceshttp adapts spot prices, their history and the calculators to HTTP: /v1 routes, the markets page with its live stream and charts, and the junk-silver and what-if calculators.
package priceshttp

import (
	"sync"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/quote"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	market    *prices.Service
	portfolio *portfolio.Service
	// quotes converts prices into the currency and unit asked for (USD only without rates).
	quotes *quote.Quoter

	// ticker is the live price stream, rendered once per tick for every client; started by
	// the first stream.
	tickerOnce sync.Once
	ticker     *kit.Broadcast
}

// New builds the area's adapters.
func New(b *kit.Base, market *prices.Service, portfolio *portfolio.Service) *Handlers {
	return &Handlers{Base: b, market: market, portfolio: portfolio, quotes: quote.New(nil, nil)}
}

// WithQuotes answers prices in any currency and weight unit through q.
func (h *Handlers) WithQuotes(q *quote.Quoter) *Handlers {
	h.quotes = q
	return h
}

// APIRoutes are the area's /v1 routes: prices, then the calculators.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return append(h.pricesRoutes(), h.calculatorRoutes()...)
}
