package handlers

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

var fiberParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// OpenAPIPath turns a Fiber route path into an OpenAPI one (/v1/holdings/:id → /v1/holdings/{id}).
func OpenAPIPath(p string) string { return fiberParam.ReplaceAllString(p, "{$1}") }

// tagDescriptions explain the groups of the API reference.
var tagDescriptions = map[string]string{
	"Market data":         "Spot prices and their history. Public.",
	"Calculators":         "Junk-silver melt values and what-if projections. Public; a key adds your own holdings.",
	"Portfolio":           "Your holdings, sales, valuation and analytics. Gold members' keys.",
	"Market intelligence": "Stack Signal articles, market news with analysis, and generation. Public, except generation (administrators).",
	"Social":              "Article views, likes and comments. Reading is public; liking and commenting need a member's key.",
	"Vault Watch":         "COMEX warehouse inventory: registered, eligible, drains and the oversubscribed ratio. Public.",
	"Dealer prices":       "Dealer quotes for coins and bars with premiums over spot, premium history, and click-through to catalogue URLs only. Public.",
	"Billing":             "Gold membership through Stripe: checkout, verification, the customer portal, and Stripe's webhook. Any member's key.",
}

func problemSchema() Schema {
	return Schema{"type": "object", "required": []string{"type", "title", "status"}, "properties": Schema{
		"type":   Schema{"type": "string", "description": "/problems/<slug>: invalid-parameter, unauthorized, membership-required, forbidden, not-found, conflict, rate-limited, unavailable, internal"},
		"title":  Schema{"type": "string"},
		"status": Schema{"type": "integer"},
		"detail": Schema{"type": "string"},
		"errors": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"message"}, "properties": Schema{
			"field": Schema{"type": "string"}, "row": Schema{"type": "integer"}, "message": Schema{"type": "string"}}}},
	}, "additionalProperties": true}
}

func holdingSchemas() map[string]Schema {
	num := Schema{"type": "number"}
	fields := Schema{
		"metal":          Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}},
		"product_name":   Schema{"type": "string", "maxLength": 200},
		"quantity":       Schema{"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Number of units."},
		"weight_oz":      Schema{"type": "number", "exclusiveMinimum": true, "minimum": 0, "maximum": 100000, "description": "Fine troy ounces per unit (up to 8 decimals)."},
		"purchase_price": Schema{"type": "number", "minimum": 0, "maximum": 100000000, "description": "Price per unit in USD (cents)."},
		"fees":           Schema{"type": "number", "minimum": 0, "maximum": 100000000, "description": "Tax and shipping for the whole line, USD."},
		"dealer":         Schema{"type": "string", "maxLength": 120},
		"purchase_date":  Schema{"type": "string", "format": "date", "nullable": true, "description": "YYYY-MM-DD, not in the future."},
		"notes":          Schema{"type": "string", "maxLength": 2000},
	}
	create := Schema{"type": "object", "additionalProperties": false, "required": []string{"metal", "quantity", "weight_oz", "purchase_price"}, "properties": fields}
	patch := Schema{"type": "object", "additionalProperties": false, "minProperties": 1, "properties": fields}
	holding := Schema{"type": "object", "required": []string{"id", "metal", "product_name", "quantity", "weight_oz", "total_oz", "purchase_price", "fees", "total_cost", "dealer", "purchase_date", "notes", "created_at", "updated_at",
		"sold_quantity", "remaining_quantity", "spot_at_purchase", "premium_pct"},
		"properties": Schema{
			"sold_quantity":      Schema{"type": "integer", "description": "Units of this lot sold so far (see /v1/sales)."},
			"remaining_quantity": Schema{"type": "integer", "description": "quantity − sold_quantity: units still held."},
			"spot_at_purchase":   Schema{"type": "number", "nullable": true, "description": "The metal's close (USD per troy ounce) on purchase_date, or the last close before it; stored with the lot and recomputed when its date or metal changes or the price history is corrected. Null when undated or no close is known."},
			"premium_pct":        Schema{"type": "number", "nullable": true, "description": "Premium paid per unit over its metal at spot_at_purchase, percent: (purchase_price ÷ (spot_at_purchase × weight_oz) − 1) × 100. Null without spot_at_purchase and for zero-price lots."},
			"id":                 Schema{"type": "string"}, "metal": fields["metal"], "product_name": Schema{"type": "string"}, "quantity": Schema{"type": "integer"},
			"weight_oz": num, "total_oz": num, "purchase_price": num, "fees": num, "total_cost": num, "dealer": Schema{"type": "string"},
			"purchase_date": Schema{"type": "string", "format": "date", "nullable": true}, "notes": Schema{"type": "string"},
			"created_at": Schema{"type": "string", "format": "date-time"}, "updated_at": Schema{"type": "string", "format": "date-time"},
		}}
	return map[string]Schema{"Holding": holding, "HoldingCreate": create, "HoldingPatch": patch}
}

// componentSchemas gathers every named schema the routes refer to.
func (h *Handlers) componentSchemas() map[string]Schema {
	out := map[string]Schema{"Problem": problemSchema()}
	for _, group := range []map[string]Schema{holdingSchemas(), h.areaSchemas()} {
		for k, v := range group {
			out[k] = v
		}
	}
	return out
}

func problemResponse(desc string) Schema {
	return Schema{"description": desc, "content": Schema{"application/problem+json": Schema{"schema": Schema{"$ref": "#/components/schemas/Problem"}}}}
}

// OpenAPI builds the OpenAPI 3.0.3 document from the route table.
func (h *Handlers) OpenAPI() Schema {
	paths := Schema{}
	tags := map[string]bool{}
	for _, r := range h.APIRoutes() {
		p := OpenAPIPath(r.Path)
		item, _ := paths[p].(Schema)
		if item == nil {
			item = Schema{}
			paths[p] = item
		}
		op := Schema{"operationId": r.OperationID, "summary": r.Summary, "tags": []string{r.Tag}}
		if r.Description != "" {
			op["description"] = r.Description
		}
		tags[r.Tag] = true
		var params []Schema
		for _, prm := range r.Params {
			ps := Schema{"name": prm.Name, "in": prm.In, "required": prm.Required || prm.In == "path", "schema": prm.Schema}
			if prm.Description != "" {
				ps["description"] = prm.Description
			}
			params = append(params, ps)
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		if r.BodyByType != nil {
			content := Schema{}
			for t, sc := range r.BodyByType {
				content[t] = Schema{"schema": sc}
			}
			op["requestBody"] = Schema{"required": true, "content": content}
		} else if r.Body != nil {
			types := r.BodyTypes
			if len(types) == 0 {
				types = []string{"application/json"}
			}
			content := Schema{}
			for _, t := range types {
				content[t] = Schema{"schema": r.Body}
			}
			op["requestBody"] = Schema{"required": !r.BodyOptional, "content": content}
		}
		responses := Schema{}
		for _, resp := range r.Responses {
			rs := Schema{"description": resp.Description}
			if resp.Contents != nil {
				content := Schema{}
				for t, sc := range resp.Contents {
					content[t] = Schema{"schema": sc}
				}
				rs["content"] = content
			} else if resp.Schema != nil {
				ct := resp.ContentType
				if ct == "" {
					ct = "application/json"
				}
				rs["content"] = Schema{ct: Schema{"schema": resp.Schema}}
			} else if resp.Status >= 400 {
				rs = problemResponse(resp.Description)
			}
			responses[strconv.Itoa(resp.Status)] = rs
		}
		add := func(code int, desc string) {
			if _, ok := responses[strconv.Itoa(code)]; !ok {
				responses[strconv.Itoa(code)] = problemResponse(desc)
			}
		}
		if len(r.Params) > 0 || r.Body != nil || r.BodyByType != nil {
			add(400, "A parameter or field is invalid; errors names it.")
		}
		add(401, "The API key is missing (where required), malformed, unknown or revoked.")
		switch r.Auth {
		case AuthGold:
			add(403, "The key's account needs Gold membership (type /problems/membership-required; detail links the upgrade page).")
			op["security"] = []Schema{{"bearerAuth": []string{}}}
		case AuthAdmin:
			add(403, "The key's account is not an administrator.")
			op["security"] = []Schema{{"bearerAuth": []string{}}}
		case AuthMember:
			op["security"] = []Schema{{"bearerAuth": []string{}}}
		default:
			op["security"] = []Schema{{}, {"bearerAuth": []string{}}}
		}
		if strings.Contains(r.Path, ":") {
			add(404, "Not found.")
		}
		add(429, "Rate limit exceeded; Retry-After says when to try again.")
		add(500, "Unexpected server error; the X-Request-Id header identifies it.")
		op["responses"] = responses
		item[strings.ToLower(r.Method)] = op
	}
	var tagList []Schema
	names := make([]string, 0, len(tags))
	for t := range tags {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		tagList = append(tagList, Schema{"name": t, "description": tagDescriptions[t]})
	}
	return Schema{
		"openapi": "3.0.3",
		"info": Schema{
			"title":       "Ounce API",
			"version":     "1.0.0",
			"description": "Precious-metals prices, history, market intelligence, COMEX vault data and calculators, plus your own holdings and portfolio (Gold membership). Send `Authorization: Bearer <API key>`; create keys under Settings → Developer Access. Errors are RFC 9457 problem+json. Numbers: prices are kept at their source's precision through every computation and rounded only when rendered — money amounts (values, costs, P/L, melt values, day changes) to cents, `price` fields and other prices per ounce (spot, prev_close, change, history points) to the source's precision, at least 2 and at most 4 decimals; percentages to 2 decimals; ounces to 5. \"today\" and \"live\" figures are only those of live prices: stale figures carry their dates (as_of, change_from, through).",
			"contact":     Schema{"name": "Ounce", "url": h.cfg.BaseURL},
			"license":     Schema{"name": "Proprietary", "url": h.cfg.BaseURL + "/legal"},
		},
		"servers":    []Schema{{"url": h.cfg.BaseURL}},
		"tags":       tagList,
		"paths":      paths,
		"components": Schema{"schemas": usedSchemas(paths, h.componentSchemas()), "securitySchemes": Schema{"bearerAuth": Schema{"type": "http", "scheme": "bearer", "bearerFormat": "ounce_<64 hex>", "description": "An API key from Settings → Developer Access. A signed-in browser may call the same routes with its session cookie instead, sending the page's CSRF token in X-CSRF-Token on every write."}}},
	}
}

// OpenAPIJSON serves GET /openapi.json.
func (h *Handlers) OpenAPIJSON(c *fiber.Ctx) error {
	body, etag, err := h.cache.get("openapi", "v", func() (any, error) { return h.OpenAPI(), nil })
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderAccessControlAllowOrigin, "*")
	return sendCached(c, body, etag, 5*time.Minute)
}

// usedSchemas keeps the named schemas the paths refer to, directly or through other named
// schemas, so the document carries no unused components.
func usedSchemas(paths Schema, all map[string]Schema) map[string]Schema {
	used := map[string]Schema{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case Schema:
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
		case []Schema:
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
