package handlers

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
)

var fiberParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// OpenAPIPath turns a Fiber route path into an OpenAPI one (/v1/holdings/:id → /v1/holdings/{id}).
func OpenAPIPath(p string) string { return fiberParam.ReplaceAllString(p, "{$1}") }

func problemResponse(desc string) kit.Schema {
	return kit.Schema{"description": desc, "content": kit.Schema{"application/problem+json": kit.Schema{"schema": kit.Schema{"$ref": "#/components/schemas/Problem"}}}}
}

// OpenAPI builds the OpenAPI 3.0.3 document from the route table.
func (h *Handlers) OpenAPI() kit.Schema {
	paths := kit.Schema{}
	tags := map[string]bool{}
	for _, r := range h.APIRoutes() {
		p := OpenAPIPath(r.Path)
		item, _ := paths[p].(kit.Schema)
		if item == nil {
			item = kit.Schema{}
			paths[p] = item
		}
		tags[r.Tag] = true
		item[strings.ToLower(r.Method)] = openAPIOperation(r)
	}
	tagList := h.openAPITags(tags)
	return kit.Schema{
		"openapi": "3.0.3",
		"info": kit.Schema{
			"title":       "Ounce API",
			"version":     "1.0.0",
			"description": "Precious-metals prices, history, market intelligence, COMEX vault data and calculators, plus your own holdings and portfolio (Gold membership). Send `Authorization: Bearer <API key>`; create keys under Settings → Developer Access. Errors are RFC 9457 problem+json. Numbers: prices are kept at their source's precision through every computation and rounded only when rendered — money amounts (values, costs, P/L, melt values, day changes) to cents, `price` fields and other prices per ounce (spot, prev_close, change, history points) to the source's precision, at least 2 and at most 4 decimals; percentages to 2 decimals; ounces to 5. Every number is `format: double`: decode it into a 64-bit float (or a decimal), never a 32-bit one, which cannot hold 1234567.89. \"today\" and \"live\" figures are only those of live prices: stale figures carry their dates (as_of, change_from, through).",
			"contact":     kit.Schema{"name": "Ounce", "url": h.Site.BaseURL},
			"license":     kit.Schema{"name": "Proprietary", "url": h.Site.BaseURL + "/legal"},
		},
		"servers":    []kit.Schema{{"url": h.Site.BaseURL}},
		"tags":       tagList,
		"paths":      paths,
		"components": kit.Schema{"schemas": usedSchemas(paths, h.componentSchemas()), "securitySchemes": kit.Schema{"bearerAuth": kit.Schema{"type": "http", "scheme": "bearer", "bearerFormat": "ounce_<64 hex>", "description": "An API key from Settings → Developer Access. A signed-in browser may call the same routes with its session cookie instead, sending the page's CSRF token in X-CSRF-Token on every write."}}},
	}
}

// openAPITags lists the tags used, sorted, with their descriptions.
func (h *Handlers) openAPITags(tags map[string]bool) []kit.Schema {
	descriptions := h.tagDescriptions()
	var tagList []kit.Schema
	names := make([]string, 0, len(tags))
	for t := range tags {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		tagList = append(tagList, kit.Schema{"name": t, "description": descriptions[t]})
	}
	return tagList
}

// openAPIOperation is the operation of one route: its parameters, body, responses and security.
func openAPIOperation(r kit.APIRoute) kit.Schema {
	op := kit.Schema{"operationId": r.OperationID, "summary": r.Summary, "tags": []string{r.Tag}}
	if r.Description != "" {
		op["description"] = r.Description
	}
	var params []kit.Schema
	for _, prm := range r.Params {
		ps := kit.Schema{"name": prm.Name, "in": prm.In, "required": prm.Required || prm.In == "path", "schema": prm.Schema}
		if prm.Description != "" {
			ps["description"] = prm.Description
		}
		params = append(params, ps)
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if body := openAPIRequestBody(r); body != nil {
		op["requestBody"] = body
	}
	responses := openAPIDeclaredResponses(r)
	addStandardProblems(r, responses)
	op["security"] = openAPISecurity(r.Auth)
	op["responses"] = responses
	return op
}

// openAPIRequestBody is the route's request body, nil when it takes none.
func openAPIRequestBody(r kit.APIRoute) kit.Schema {
	if r.BodyByType != nil {
		content := kit.Schema{}
		for t, sc := range r.BodyByType {
			content[t] = kit.Schema{"schema": sc}
		}
		return kit.Schema{"required": true, "content": content}
	}
	if r.Body == nil {
		return nil
	}
	types := r.BodyTypes
	if len(types) == 0 {
		types = []string{"application/json"}
	}
	content := kit.Schema{}
	for _, t := range types {
		content[t] = kit.Schema{"schema": r.Body}
	}
	return kit.Schema{"required": !r.BodyOptional, "content": content}
}

// openAPIDeclaredResponses are the responses the route declares, by status.
func openAPIDeclaredResponses(r kit.APIRoute) kit.Schema {
	responses := kit.Schema{}
	for _, resp := range r.Responses {
		rs := kit.Schema{"description": resp.Description}
		if resp.Contents != nil {
			content := kit.Schema{}
			for t, sc := range resp.Contents {
				content[t] = kit.Schema{"schema": sc}
			}
			rs["content"] = content
		} else if resp.Schema != nil {
			ct := resp.ContentType
			if ct == "" {
				ct = "application/json"
			}
			rs["content"] = kit.Schema{ct: kit.Schema{"schema": resp.Schema}}
		} else if resp.Status >= 400 {
			rs = problemResponse(resp.Description)
		}
		responses[strconv.Itoa(resp.Status)] = rs
	}
	return responses
}

// addStandardProblems adds the problems every route of its kind can answer, unless the route
// declares that status itself.
func addStandardProblems(r kit.APIRoute, responses kit.Schema) {
	add := func(code int, desc string) {
		if _, ok := responses[strconv.Itoa(code)]; !ok {
			responses[strconv.Itoa(code)] = problemResponse(desc)
		}
	}
	if len(r.Params) > 0 || r.Body != nil || r.BodyByType != nil {
		add(400, "A parameter or field is invalid; errors names it.")
	}
	if (len(r.Params) > 0 || r.Body != nil || r.BodyByType != nil) && !r.SignedBody {
		add(422, "A parameter or text field holds a control character (only tab and line breaks are allowed); errors names it.")
	}
	if r.Body != nil || r.BodyByType != nil {
		add(415, "The request named a Content-Encoding; bodies are accepted uncompressed only (errors names the header).")
	}
	add(401, "The API key is missing (where required), malformed, unknown or revoked.")
	switch r.Auth {
	case kit.AuthGold:
		add(403, "The key's account needs Gold membership (type /problems/membership-required; detail links the upgrade page).")
	case kit.AuthAdmin:
		add(403, "The key's account is not an administrator.")
	}
	if strings.Contains(r.Path, ":") {
		add(404, "Not found.")
	}
	add(429, "Rate limit exceeded; Retry-After says when to try again.")
	add(500, "Unexpected server error; the X-Request-Id header identifies it.")
}

// openAPISecurity is how a route of that auth is called: with a key, or also without one.
func openAPISecurity(auth kit.Auth) []kit.Schema {
	switch auth {
	case kit.AuthGold, kit.AuthAdmin, kit.AuthMember:
		return []kit.Schema{{"bearerAuth": []string{}}}
	}
	return []kit.Schema{{}, {"bearerAuth": []string{}}}
}

// OpenAPIJSON serves GET /openapi.json.
func (h *Handlers) OpenAPIJSON(c *fiber.Ctx) error {
	return h.sendPublicDocument(c, "openapi", func() any { return h.OpenAPI() })
}

// sendPublicDocument serves a document any origin may read (the API description, the
// manifests), encoded once into the cache slot and fresh for five minutes.
func (h *Handlers) sendPublicDocument(c *fiber.Ctx, slot string, build func() any) error {
	body, etag, err := h.Cache.Get(slot, "v", func() (any, error) { return build(), nil })
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	return kit.SendCached(c, body, etag, 5*time.Minute)
}

// usedSchemas keeps the named schemas the paths refer to, directly or through other named
// schemas, so the document carries no unused components.
func usedSchemas(paths kit.Schema, all map[string]kit.Schema) map[string]kit.Schema {
	used := map[string]kit.Schema{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case kit.Schema:
			if ref, ok := x["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if _, seen := used[name]; !seen {
					if sc, ok := all[name]; ok {
						used[name] = sc
						visit(sc)
					}
				}
			}
			for _, child := range x {
				visit(child)
			}
		case []kit.Schema:
			for _, child := range x {
				visit(child)
			}
		case []any:
			for _, child := range x {
				visit(child)
			}
		}
	}
	visit(paths)
	return used
}
