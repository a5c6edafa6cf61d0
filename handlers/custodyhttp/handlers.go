// Package custodyhttp adapts where a stack is kept to HTTP: storage locations and moving lots
// between them under /v1, and the locations page.
package custodyhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/custody"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the MCP tools (none) and the tag descriptions: its routes are
	// under Portfolio, described by the portfolio area.
	kit.NoExtras
	custody *custody.Service
}

// New builds the area's adapters.
func New(b *kit.Base, svc *custody.Service) *Handlers { return &Handlers{Base: b, custody: svc} }

// *Handlers is this area's one value of the kit.Area contract.
var _ kit.Area = (*Handlers)(nil)

// OpenAPIComponents are the area's named schemas.
func (h *Handlers) OpenAPIComponents() map[string]kit.Schema {
	return map[string]kit.Schema{"Location": kit.SchemaOf(LocationJSON{}, consts())}
}

// PageRoutes are the locations page and its forms.
func (h *Handlers) PageRoutes() []kit.PageRoute { return h.pageRoutes() }
