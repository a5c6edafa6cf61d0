package handlers

// areaSchemas merges the named schemas each area contributes to the OpenAPI components.
func (h *Handlers) areaSchemas() map[string]Schema {
	out := map[string]Schema{}
	for _, group := range []map[string]Schema{h.intelSchemas(), h.portfolioSchemas(), h.socialSchemas(), h.advisorSchemas(), h.alertsSchemas()} {
		for k, v := range group {
			out[k] = v
		}
	}
	return out
}
