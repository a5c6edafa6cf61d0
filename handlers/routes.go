package handlers

import (
	"github.com/ouncehq/ounce/handlers/kit"
)

// APIRoutes is the table of every /v1 route. The web layer registers exactly these, and the
// OpenAPI document and llms.txt are generated from them, so they cannot drift apart.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	var out []kit.APIRoute
	for _, a := range h.areas {
		out = append(out, a.APIRoutes()...)
	}
	return out
}

// PageRoutes is the table of every browser page and form endpoint, registered by web.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	out := kit.PagesFor(kit.AuthNone, []kit.PageRoute{
		{Method: "GET", Path: "/", Handler: h.Home},
		{Method: "GET", Path: "/docs/api", Handler: h.APIDocsPage},
		{Method: "GET", Path: "/legal", Handler: h.LegalPage},
		{Method: "GET", Path: "/manifest.webmanifest", Handler: h.WebManifest}, // install.go
		{Method: "GET", Path: "/sw.js", Handler: h.ServiceWorker},
	})
	for _, a := range h.areas {
		out = append(out, a.PageRoutes()...)
	}
	return out
}
