package intelhttp

import "github.com/ouncehq/ounce/handlers/kit"

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)

// OpenAPIComponents are the named schemas its routes refer to.
func (h *Handlers) OpenAPIComponents() map[string]kit.Schema { return h.Schemas() }

// OpenAPITags describe the tags of its routes in the API reference.
func (h *Handlers) OpenAPITags() map[string]string {
	return map[string]string{
		"Market intelligence": "Stack Signal articles, market news with analysis, and generation. Public, except generation (administrators).",
		"Vault Watch":         "COMEX warehouse inventory: registered, eligible, drains and the oversubscribed ratio. Public.",
	}
}
