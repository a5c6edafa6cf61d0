// Package fxhttp adapts exchange rates to HTTP: GET /v1/fx and its MCP tool.
package fxhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/fx"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the pages (the settings section is the account area's) and the
	// component schemas (none of its own).
	kit.NoExtras
	fx *fx.Service
}

// New builds the area's adapters.
func New(b *kit.Base, svc *fx.Service) *Handlers { return &Handlers{Base: b, fx: svc} }

// OpenAPITags describe the tags of its routes in the API reference.
func (h *Handlers) OpenAPITags() map[string]string {
	return map[string]string{"Market data": "Spot prices, their history and exchange rates. Public."}
}
