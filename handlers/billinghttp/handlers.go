// Package billinghttp adapts Gold membership to HTTP: Stripe checkout, verification and the customer portal under /v1, Stripe's webhook, and the membership page.
package billinghttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/billing"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	billing *billing.Service
}

// New builds the area's adapters.
func New(b *kit.Base, billing *billing.Service) *Handlers {
	return &Handlers{Base: b, billing: billing}
}
