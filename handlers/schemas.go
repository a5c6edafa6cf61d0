package handlers

import "github.com/ouncehq/ounce/handlers/kit"

// componentSchemas gathers every named schema the routes refer to: Problem and each area's.
func (h *Handlers) componentSchemas() map[string]kit.Schema {
	out := map[string]kit.Schema{"Problem": kit.ProblemSchema()}
	for _, a := range h.areas {
		for k, v := range a.OpenAPIComponents() {
			out[k] = v
		}
	}
	return out
}

// tagDescriptions explain the groups of the API reference, as each area describes its tags.
func (h *Handlers) tagDescriptions() map[string]string {
	out := map[string]string{}
	for _, a := range h.areas {
		for k, v := range a.OpenAPITags() {
			out[k] = v
		}
	}
	return out
}
