package portfoliohttp

import "github.com/ouncehq/ounce/handlers/kit"

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)

// OpenAPIComponents are the named schemas its routes refer to: the holding shapes (shared
// with its MCP tool) and the portfolio ones.
func (h *Handlers) OpenAPIComponents() map[string]kit.Schema {
	out := HoldingSchemas()
	for k, v := range h.Schemas() {
		out[k] = v
	}
	return out
}

// OpenAPITags describe the tags of its routes in the API reference.
func (h *Handlers) OpenAPITags() map[string]string {
	return map[string]string{
		"Portfolio": "Your holdings, sales, valuation and analytics. Gold members' keys.",
	}
}
