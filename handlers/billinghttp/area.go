package billinghttp

import "github.com/ouncehq/ounce/handlers/kit"

// *Handlers is this area's one value of the kit.Area contract: internal/app builds it with New
// and lists it once; handlers.New assembles every area's routes, schemas and tools.
var _ kit.Area = (*Handlers)(nil)

// OpenAPITags describe the tags of its routes in the API reference.
func (h *Handlers) OpenAPITags() map[string]string {
	return map[string]string{
		"Billing": "Gold membership through Stripe: checkout, verification, the customer portal, and Stripe's webhook. Any member's key.",
	}
}
