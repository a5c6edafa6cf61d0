package dealershttp

import "github.com/ouncehq/ounce/handlers/kit"

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)

// OpenAPITags describe the tags of its routes in the API reference.
func (h *Handlers) OpenAPITags() map[string]string {
	return map[string]string{
		"Dealer prices": "Dealer quotes for coins and bars with premiums over spot, premium history, and click-through to catalogue URLs only. Public.",
	}
}
