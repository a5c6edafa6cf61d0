package handlers

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
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
	// MaxBody is the largest request body the route reads, in bytes; 0 means DefaultMaxBody.
	// The server refuses a longer body with 413 while reading it, before any handler runs.
	MaxBody int

	// BodyOptional documents the body as optional (a route that also works without one).
	BodyOptional bool
}

// DefaultMaxBody is the request body limit of every route that sets no MaxBody: forms and
// JSON are small, and a larger limit only lets a stranger make the server buffer more.
const DefaultMaxBody = 64 << 10

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
	out = append(out, h.productRoutes()...)
	out = append(out, h.intelRoutes()...)
	out = append(out, h.vaultRoutes()...)
	out = append(out, h.dealerRoutes()...)
	out = append(out, h.billingRoutes()...)
	out = append(out, h.socialRoutes()...)
	out = append(out, h.receiptsRoutes()...)
	out = append(out, h.advisorRoutes()...)
	out = append(out, h.alertsRoutes()...)
	return out
}

// PageRoute is one browser route. Routes above AuthNone send visitors to the sign-in page;
// AuthGold routes show free members the way to membership; AuthAdmin routes are 404 to others.
type PageRoute struct {
	Method  string
	Path    string
	Handler fiber.Handler
	Auth    Auth
	// MaxBody is the largest request body the route reads, in bytes; 0 means DefaultMaxBody.
	MaxBody int
}

// PageRoutes is the table of every browser page and form endpoint, registered by web.
func (h *Handlers) PageRoutes() []PageRoute {
	out := []PageRoute{
		{Method: "GET", Path: "/", Handler: h.Home, Auth: AuthNone},
		{Method: "GET", Path: "/holdings", Handler: h.HoldingsIndex, Auth: AuthGold},
		{Method: "GET", Path: "/holdings/new", Handler: h.HoldingsNew, Auth: AuthGold},
		{Method: "GET", Path: "/holdings/sales", Handler: h.SalesIndex, Auth: AuthGold},
		{Method: "POST", Path: "/holdings/sales/:id/undo", Handler: h.SaleUndo, Auth: AuthGold},
		{Method: "POST", Path: "/holdings", Handler: h.HoldingsSave, Auth: AuthGold},
		{Method: "GET", Path: "/holdings/:id/edit", Handler: h.HoldingsEdit, Auth: AuthGold},
		{Method: "POST", Path: "/holdings/:id", Handler: h.HoldingsSave, Auth: AuthGold},
		{Method: "POST", Path: "/holdings/:id/delete", Handler: h.HoldingsDelete, Auth: AuthGold},
		{Method: "GET", Path: "/docs/api", Handler: h.APIDocsPage, Auth: AuthNone},
		{Method: "GET", Path: "/legal", Handler: h.LegalPage, Auth: AuthNone},
	}
	out = append(out, h.accountPages()...)
	out = append(out, h.pricePages()...)
	out = append(out, h.portfolioPages()...)
	out = append(out, h.intelPages()...)
	out = append(out, h.dealerPages()...)
	out = append(out, h.billingPages()...)
	out = append(out, h.socialPages()...)
	out = append(out, h.receiptsPages()...)
	out = append(out, h.advisorPages()...)
	out = append(out, h.alertsPages()...)
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
	if h.dealers != nil {
		out = append(out, Job{Name: "dealer prices", Run: h.dealers.Run})
	}
	if h.billing != nil {
		out = append(out, Job{Name: "billing grace periods", Run: h.billing.Run})
	}
	if h.advisor != nil {
		out = append(out, Job{Name: "morning briefs", Run: func(ctx context.Context) { h.advisor.RunBriefs(ctx, 5*time.Minute) }})
	}
	if h.portfolio != nil && h.portfolio.Live() {
		out = append(out, Job{Name: "spot at purchase refresh", Run: func(ctx context.Context) { h.portfolio.RunSpotRefresh(ctx, time.Minute) }})
	}
	if h.social != nil {
		out = append(out, Job{Name: "article viewer pruning", Run: func(ctx context.Context) { h.social.RunPruner(ctx, 10*time.Minute) }})
	}
	if h.alerts != nil {
		out = append(out, Job{Name: "price alerts", Run: h.alerts.Run})
	}
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
			Responses: []Response{{Status: 201, Description: "Created; Location names the new holding.", Schema: Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 413, Description: "Body over 64 KiB."},
				{Status: 422, Description: "You already keep the most holdings a member may (" + format.Int(portfolio.MaxHoldings) + "); delete some before adding more."}},
			Example: `POST /v1/holdings {"metal":"silver","product_name":"1 oz Eagle","quantity":20,"weight_oz":1,"purchase_price":32.5,"purchase_date":"2026-11-02"}`},
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
