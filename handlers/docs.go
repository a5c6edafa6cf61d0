package handlers

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/views/pages"
)

// docsView turns the OpenAPI document into the reference page's model, so the page shows
// exactly what the document says.
func (h *Handlers) docsView(keyPrefix string, signedIn bool) pages.DocsView {
	doc := h.OpenAPI()
	v := pages.DocsView{BaseURL: h.Site.BaseURL, KeyPrefix: keyPrefix, SignedIn: signedIn}
	groups := map[string]*pages.DocGroup{}
	var order []string
	for _, r := range h.APIRoutes() {
		op := doc["paths"].(kit.Schema)[OpenAPIPath(r.Path)].(kit.Schema)[strings.ToLower(r.Method)].(kit.Schema)
		d := pages.DocOp{ID: r.OperationID, Method: r.Method, Path: OpenAPIPath(r.Path), Summary: r.Summary, Description: r.Description}
		switch r.Auth {
		case kit.AuthNone:
			d.Auth = "public"
		case kit.AuthMember:
			d.Auth = "API key"
		case kit.AuthGold:
			d.Auth = "Gold member"
		case kit.AuthAdmin:
			d.Auth = "administrator"
		}
		for _, p := range r.Params {
			dp := pages.DocParam{Name: p.Name, In: p.In, Required: p.Required || p.In == "path", Description: p.Description}
			dp.Type, _ = p.Schema["type"].(string)
			var cons []string
			if e, ok := p.Schema["enum"].([]string); ok {
				cons = append(cons, "one of "+strings.Join(e, ", "))
			}
			for _, k := range []string{"minimum", "maximum", "default"} {
				if x, ok := p.Schema[k]; ok {
					cons = append(cons, fmt.Sprintf("%s %v", k, x))
				}
			}
			dp.Constraints = strings.Join(cons, "; ")
			d.Params = append(d.Params, dp)
		}
		if r.Example != "" {
			d.Curl = exampleCurl(h.Site.BaseURL, r)
			if keyPrefix != "" {
				// Show which of the reader's keys goes there, never the secret itself.
				d.Curl = strings.ReplaceAll(d.Curl, "$OUNCE_KEY", keyPrefix+"…")
			}
		}
		codes := []int{}
		for c := range op["responses"].(kit.Schema) {
			n, _ := strconv.Atoi(c)
			codes = append(codes, n)
		}
		sort.Ints(codes)
		for _, c := range codes {
			d.Statuses = append(d.Statuses, strconv.Itoa(c))
		}
		g, ok := groups[r.Tag]
		if !ok {
			g = &pages.DocGroup{Tag: r.Tag}
			groups[r.Tag] = g
			order = append(order, r.Tag)
		}
		g.Ops = append(g.Ops, d)
	}
	for _, t := range order {
		v.Groups = append(v.Groups, *groups[t])
	}
	return v
}

// APIDocsPage is /docs/api.
func (h *Handlers) APIDocsPage(c *fiber.Ctx) error {
	prefix := ""
	u, signedIn := kit.UserFrom(c)
	if signedIn {
		prefix = h.auth.ActiveKeyPrefix(h.Ctx(c), u)
	}
	return kit.Render(c, http.StatusOK, pages.APIDocs(h.Meta(c, "API", "").Describe("Reference for the Ounce JSON API: each /v1 route with what it takes and returns, and how to call it with an API key."), h.docsView(prefix, signedIn)))
}

// LegalPage is /legal.
func (h *Handlers) LegalPage(c *fiber.Ctx) error {
	return kit.Render(c, http.StatusOK, pages.Legal(h.Meta(c, "Terms and privacy", "").Describe("The terms of using Ounce and what it stores about you: market data for information only, no sale of data, and deletion with your account.")))
}
