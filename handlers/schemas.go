package handlers

// areaSchemas merges the named schemas each area contributes to the OpenAPI components.
func (h *Handlers) areaSchemas() map[string]Schema {
	out := map[string]Schema{}
	for k, v := range h.intelSchemas() {
		out[k] = v
	}
	return out
}
