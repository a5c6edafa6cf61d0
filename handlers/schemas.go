package handlers

import "github.com/ouncehq/ounce/handlers/kit"

// areaSchemas merges the named schemas each area contributes to the OpenAPI components.
func (h *Handlers) areaSchemas() map[string]kit.Schema {
	out := map[string]kit.Schema{}
	for _, group := range []map[string]kit.Schema{h.intelHTTP.Schemas(), h.portfolioHTTP.Schemas(), h.socialHTTP.Schemas(), h.advisorHTTP.Schemas(), h.alertsHTTP.Schemas()} {
		for k, v := range group {
			out[k] = v
		}
	}
	return out
}
