// Package advisorhttp adapts the daily brief and the advisor chat to HTTP: /v1 routes and MCP tools, the brief and advisor pages, and the chat's reply stream.
package advisorhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/advisor"
)

// Handlers are the area's adapters over its service, sharing the server's kit.Base.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the Area methods this area has nothing for.
	kit.NoExtras
	advisor *advisor.Service
}

// New builds the area's adapters.
func New(b *kit.Base, advisor *advisor.Service) *Handlers {
	return &Handlers{Base: b, advisor: advisor}
}
