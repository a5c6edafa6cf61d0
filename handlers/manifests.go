package handlers

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
)

// LLMsText renders /llms.txt from the route table and the MCP tools, so it cannot drift
// from what the service actually serves.
func (h *Handlers) LLMsText() string {
	base := h.Site.BaseURL
	var b strings.Builder
	b.WriteString("# Ounce\n\n")
	b.WriteString("> Precious-metals portfolio and market intelligence: live spot prices for gold, silver, platinum and palladium (USD per troy ounce), 75 years of price history, Stack Signal articles, market news with analysis, COMEX warehouse inventory, junk-silver and what-if calculators, and — for Gold members — holdings, portfolio valuation and analytics.\n\n")
	fmt.Fprintf(&b, "Base URL: %s\n\n", base)
	b.WriteString("## Authentication\n\n")
	b.WriteString("Public endpoints need no credential. Portfolio endpoints need `Authorization: Bearer <API key>` of a Gold member; create keys in the web app under Settings → Developer Access. A missing or bad key is 401 (with WWW-Authenticate: Bearer); a valid key without Gold membership is 403 `/problems/membership-required`.\n\n")
	b.WriteString("## Conventions\n\n")
	b.WriteString("- JSON with snake_case fields; money rounded to cents, percentages to 2 places, ounces to 5 places.\n")
	b.WriteString("- Lists are `{<items>, limit, offset, total}`.\n")
	b.WriteString("- Errors are RFC 9457 `application/problem+json`: `{type, title, status, detail, errors:[{field, message}]}`; bad input is 400 naming the field.\n")
	b.WriteString("- Prices carry `stale` and `as_of`: when no live provider answers, the last known value is served and marked stale. Nothing is invented.\n")
	b.WriteString("- Rate limits: per key and per client address; 429 with Retry-After.\n\n")
	b.WriteString("## Endpoints\n\n")
	for _, r := range h.APIRoutes() {
		auth := "public"
		switch r.Auth {
		case kit.AuthMember:
			auth = "API key"
		case kit.AuthGold:
			auth = "Gold member's API key"
		case kit.AuthAdmin:
			auth = "administrator's API key"
		}
		fmt.Fprintf(&b, "- `%s %s` — %s (%s).", r.Method, OpenAPIPath(r.Path), r.Summary, auth)
		var ps []string
		for _, p := range r.Params {
			if p.In == "query" {
				ps = append(ps, p.Name)
			}
		}
		if len(ps) > 0 {
			fmt.Fprintf(&b, " Query: %s.", strings.Join(ps, ", "))
		}
		if r.Example != "" {
			fmt.Fprintf(&b, " Example: `%s`", exampleCurl(base, r))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## MCP\n\n")
	fmt.Fprintf(&b, "A Model Context Protocol server (Streamable HTTP) is at %s/mcp. Public tools: ", base)
	var pub, gold []string
	for _, t := range h.MCPTools() {
		if t.Gold {
			gold = append(gold, t.Name)
		} else {
			pub = append(pub, t.Name)
		}
	}
	b.WriteString(strings.Join(pub, ", ") + ".")
	if len(gold) > 0 {
		b.WriteString(" With a Gold member's bearer key also: " + strings.Join(gold, ", ") + ".")
	}
	b.WriteString("\n\n## Machine-readable descriptions\n\n")
	fmt.Fprintf(&b, "- OpenAPI 3.0: %s/openapi.json\n- MCP manifest: %s/.well-known/mcp.json\n- AI plugin manifest: %s/.well-known/ai-plugin.json\n- Human docs: %s/docs/api\n", base, base, base, base)
	return b.String()
}

// exampleCurl turns a route's example ("GET /v1/x?y=1" or "POST /v1/x {json}") into curl.
func exampleCurl(base string, r kit.APIRoute) string {
	method, rest, _ := strings.Cut(r.Example, " ")
	path, body, _ := strings.Cut(rest, " ")
	var b strings.Builder
	b.WriteString("curl")
	if method != "GET" {
		b.WriteString(" -X " + method)
	}
	if r.Auth != kit.AuthNone {
		b.WriteString(` -H "Authorization: Bearer $OUNCE_KEY"`)
	}
	switch {
	case strings.HasPrefix(body, "file=@"):
		// A multipart upload of the field file.
		b.WriteString(" -F " + body)
	case strings.HasPrefix(body, "@"):
		// A file upload: the example names the file.
		b.WriteString(` -H "Content-Type: text/csv" --data-binary ` + body)
	case body != "":
		b.WriteString(` -H "Content-Type: application/json" -d '` + body + `'`)
	}
	b.WriteString(" '" + base + path + "'")
	return b.String()
}

// LLMsTxt serves GET /llms.txt.
func (h *Handlers) LLMsTxt(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "text/plain; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "public, max-age=300")
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	return c.SendString(h.LLMsText())
}

// AIPlugin is the AI plugin manifest (schema v1).
func (h *Handlers) AIPlugin() kit.Schema {
	base := h.Site.BaseURL
	contact := h.Site.ContactEmail
	if contact == "" {
		host := "localhost"
		if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
			host = u.Hostname()
		}
		contact = "support@" + host
	}
	legal := h.Site.LegalURL
	if legal == "" {
		legal = base + "/legal"
	}
	return kit.Schema{
		"schema_version":        "v1",
		"name_for_human":        "Ounce",
		"name_for_model":        "ounce",
		"description_for_human": "Live precious-metals prices, history, market intelligence and your stack's value.",
		"description_for_model": "Use Ounce for gold, silver, platinum and palladium: spot prices (USD per troy ounce, with stale flags), price history back to 1950, Stack Signal articles and market news by category, COMEX registered/eligible inventory, junk-silver melt values and what-if projections. With the user's Gold-member API key: their holdings, portfolio valuation and analytics. Quote as_of and say when data is stale.",
		"auth":                  kit.Schema{"type": "user_http", "authorization_type": "bearer"},
		"api":                   kit.Schema{"type": "openapi", "url": base + "/openapi.json", "is_user_authenticated": false},
		"logo_url":              base + "/static/img/favicon.svg",
		"contact_email":         contact,
		"legal_info_url":        legal,
	}
}

// AIPluginJSON serves GET /.well-known/ai-plugin.json.
func (h *Handlers) AIPluginJSON(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	return kit.WriteJSON(c, http.StatusOK, h.AIPlugin())
}

// MCPManifestJSON serves GET /.well-known/mcp.json.
func (h *Handlers) MCPManifestJSON(c *fiber.Ctx) error {
	return h.sendPublicDocument(c, "mcp.json", func() any { return h.MCPManifest() })
}
