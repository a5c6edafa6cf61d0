package priceshttp

import "github.com/ouncehq/ounce/handlers/kit"

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)

// OpenAPITags describe the tags of its routes in the API reference.
func (h *Handlers) OpenAPITags() map[string]string {
	return map[string]string{
		"Market data": "Spot prices and their history. Public.",
		"Calculators": "Junk-silver melt values and what-if projections. Public; a key adds your own holdings.",
	}
}
