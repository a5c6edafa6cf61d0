// Package dealershttp adapts dealer price comparison to HTTP: quotes with premiums over spot, premium history and click-through under /v1, and the dealer pages.
package dealershttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/quote"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	dealers *dealers.Service
	// quotes converts prices into the currency and unit asked for (USD only without rates).
	quotes *quote.Quoter
}

// New builds the area's adapters.
func New(b *kit.Base, dealers *dealers.Service) *Handlers {
	return &Handlers{Base: b, dealers: dealers, quotes: quote.New(nil, nil)}
}

// WithQuotes answers prices in any currency and weight unit through q.
func (h *Handlers) WithQuotes(q *quote.Quoter) *Handlers {
	h.quotes = q
	return h
}
