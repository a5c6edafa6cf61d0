// Package intelhttp adapts market intelligence to HTTP: market news with analysis, Stack Signal articles and their generation, and Vault Watch, under /v1 and as MCP tools, and their pages.
package intelhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/intel"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	intel *intel.Service
	vault *comex.Service
}

// New builds the area's adapters.
func New(b *kit.Base, intel *intel.Service, vault *comex.Service) *Handlers {
	return &Handlers{Base: b, intel: intel, vault: vault}
}

// APIRoutes are the area's /v1 routes: market intelligence and Stack Signal, then Vault Watch.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return append(h.intelRoutes(), h.vaultRoutes()...)
}
