package handlers

import (
	"context"

	"github.com/gofiber/fiber/v2"
)

// Auth is what a route demands of the caller. The same levels guard both trees: /v1 routes
// authenticate by bearer key, pages by session; web enforces the level before the handler runs.
type Auth int

// Authentication levels of routes.
const (
	// AuthNone routes are public; a valid key or session, when present, is still recognised.
	AuthNone Auth = iota
	// AuthMember routes need any signed-in member (a valid API key, or a session on pages).
	AuthMember
	// AuthGold routes need a gold member.
	AuthGold
	// AuthAdmin routes need an administrator.
	AuthAdmin
)

// Schema is a JSON Schema fragment as OpenAPI 3.0 writes it.
type Schema = map[string]any

// Param describes one query or path parameter.
type Param struct {
	Name        string
	In          string // "query" or "path"
	Description string
	Required    bool
	Schema      Schema
	Example     string
}

// Response describes one documented response.
type Response struct {
	Status      int
	Description string
	Schema      Schema // nil for no body
	ContentType string // default application/json
	// Contents documents a response served in several media types (media type → schema);
	// it replaces Schema and ContentType when set.
	Contents map[string]Schema
}

// APIRoute is one /v1 route with everything needed to serve and document it.
type APIRoute struct {
	Method      string
	Path        string // Fiber syntax, e.g. /v1/holdings/:id
	Auth        Auth
	Handler     fiber.Handler
	OperationID string
	Summary     string
	Description string
	Tag         string
	Params      []Param
	Body        Schema
	BodyTypes   []string // request content types; default application/json when Body is set
	// BodyByType documents a request body accepted in several shapes (media type → schema);
	// it replaces Body and BodyTypes when set.
	BodyByType map[string]Schema
	Responses  []Response
	Example    string // an example request line for llms.txt and docs, e.g. "GET /v1/prices"
}

// APIRoutes is the table of every /v1 route. The web layer registers exactly these, and the
// OpenAPI document and llms.txt are generated from them, so they cannot drift apart.
func (h *Handlers) APIRoutes() []APIRoute {
	var out []APIRoute
	out = append(out, h.pricesRoutes()...)
	out = append(out, h.calculatorRoutes()...)
	// Portfolio first: its fixed paths (/v1/holdings/export, /import) must match before
	// the /v1/holdings/:id pattern does.
	out = append(out, h.portfolioRoutes()...)
	out = append(out, h.holdingsRoutes()...)
	out = append(out, h.intelRoutes()...)
	out = append(out, h.vaultRoutes()...)
	out = append(out, h.receiptsRoutes()...)
	return out
}

// PageRoute is one browser route. Routes above AuthNone send visitors to the sign-in page;
// AuthGold routes show free members the way to membership; AuthAdmin routes are 404 to others.
type PageRoute struct {
	Method  string
	Path    string
	Handler fiber.Handler
	Auth    Auth
}

// PageRoutes is the table of every browser page and form endpoint, registered by web.
func (h *Handlers) PageRoutes() []PageRoute {
	out := []PageRoute{
		{"GET", "/", h.Home, AuthNone},
		{"GET", "/holdings", h.HoldingsIndex, AuthGold},
		{"GET", "/holdings/new", h.HoldingsNew, AuthGold},
		{"POST", "/holdings", h.HoldingsSave, AuthGold},
		{"GET", "/holdings/:id/edit", h.HoldingsEdit, AuthGold},
		{"POST", "/holdings/:id", h.HoldingsSave, AuthGold},
		{"POST", "/holdings/:id/delete", h.HoldingsDelete, AuthGold},
		{"GET", "/docs/api", h.APIDocsPage, AuthNone},
		{"GET", "/legal", h.LegalPage, AuthNone},
	}
	out = append(out, h.accountPages()...)
	out = append(out, h.pricePages()...)
	out = append(out, h.portfolioPages()...)
	out = append(out, h.intelPages()...)
	out = append(out, h.receiptsPages()...)
	return out
}

// Job is a named background loop: Run works until its context ends. The server's one job
// runner starts each, logs it by Name, and restarts it after a panic.
type Job struct {
	Name string
	Run  func(ctx context.Context)
}

// Jobs are the background loops of the services that the server runs until it stops (price
// feed, intelligence scheduler…).
func (h *Handlers) Jobs() []Job {
	var out []Job
	if h.market != nil {
		out = append(out, Job{Name: "price feed", Run: h.market.Run})
	}
	out = append(out, Job{Name: "intel scheduler", Run: h.intel.Scheduler})
	return out
}

func (h *Handlers) holdingsRoutes() []APIRoute {
	idParam := Param{Name: "id", In: "path", Required: true, Description: "Holding id, as returned when it was created.", Schema: Schema{"type": "string", "maxLength": 64}}
	return []APIRoute{
		{Method: "GET", Path: "/v1/holdings", Auth: AuthGold, Handler: h.APIHoldingsList, OperationID: "listHoldings", Tag: "Portfolio",
			Summary: "List your holdings, newest purchase first",
			Params: []Param{
				{Name: "limit", In: "query", Description: "Page size.", Schema: Schema{"type": "integer", "minimum": 1, "maximum": 200, "default": 50}},
				{Name: "offset", In: "query", Description: "Items to skip.", Schema: Schema{"type": "integer", "minimum": 0, "default": 0}},
				{Name: "metal", In: "query", Description: "Only this metal.", Schema: metalSchema()},
			},
			Responses: []Response{{Status: 200, Description: "A page of holdings.", Schema: Schema{"type": "object", "required": []string{"holdings", "limit", "offset", "total"}, "properties": Schema{
				"holdings": Schema{"type": "array", "items": Schema{"$ref": "#/components/schemas/Holding"}},
				"limit":    Schema{"type": "integer"}, "offset": Schema{"type": "integer"}, "total": Schema{"type": "integer"},
			}}}},
			Example: "GET /v1/holdings?limit=10"},
		{Method: "POST", Path: "/v1/holdings", Auth: AuthGold, Handler: h.APIHoldingsCreate, OperationID: "createHolding", Tag: "Portfolio",
			Summary: "Record a purchase", Body: Schema{"$ref": "#/components/schemas/HoldingCreate"},
			Responses: []Response{{Status: 201, Description: "Created; Location names the new holding.", Schema: Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 413, Description: "Body over 64 KiB."}},
			Example:   `POST /v1/holdings {"metal":"silver","product_name":"1 oz Eagle","quantity":20,"weight_oz":1,"purchase_price":32.5,"purchase_date":"2026-11-02"}`},
		{Method: "GET", Path: "/v1/holdings/:id", Auth: AuthGold, Handler: h.APIHoldingsGet, OperationID: "getHolding", Tag: "Portfolio",
			Summary: "One of your holdings", Params: []Param{idParam},
			Responses: []Response{{Status: 200, Description: "The holding.", Schema: Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 404, Description: "No such holding of yours."}},
			Example:   "GET /v1/holdings/h_abc123"},
		{Method: "PATCH", Path: "/v1/holdings/:id", Auth: AuthGold, Handler: h.APIHoldingsUpdate, OperationID: "updateHolding", Tag: "Portfolio",
			Summary: "Change fields of a holding", Params: []Param{idParam}, Body: Schema{"$ref": "#/components/schemas/HoldingPatch"},
			Responses: []Response{{Status: 200, Description: "The updated holding.", Schema: Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 404, Description: "No such holding of yours."},
				{Status: 409, Description: "The holding has sales: its metal, quantity, weight, price and fees are fixed, and it cannot be dated after its first sale."}, {Status: 413, Description: "Body over 64 KiB."}},
			Example: `PATCH /v1/holdings/h_abc123 {"quantity":25}`},
		{Method: "DELETE", Path: "/v1/holdings/:id", Auth: AuthGold, Handler: h.APIHoldingsDelete, OperationID: "deleteHolding", Tag: "Portfolio",
			Summary: "Delete a holding", Params: []Param{idParam},
			Responses: []Response{{Status: 204, Description: "Deleted."}, {Status: 404, Description: "No such holding of yours."}, {Status: 409, Description: "The holding has recorded sales; it is kept so realized profit stays explained."}},
			Example:   "DELETE /v1/holdings/h_abc123"},
	}
}

func metalSchema() Schema {
	return Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}}
}
