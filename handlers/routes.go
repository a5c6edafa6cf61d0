package handlers

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
)

// APIRoutes is the table of every /v1 route. The web layer registers exactly these, and the
// OpenAPI document and llms.txt are generated from them, so they cannot drift apart.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	var out []kit.APIRoute
	out = append(out, h.pricesHTTP.APIRoutes()...)
	// Portfolio first: its fixed paths (/v1/holdings/export, /import) must match before
	// the /v1/holdings/:id pattern does.
	out = append(out, h.portfolioRoutes()...)
	out = append(out, h.holdingsRoutes()...)
	out = append(out, h.productRoutes()...)
	out = append(out, h.intelRoutes()...)
	out = append(out, h.vaultRoutes()...)
	out = append(out, h.dealersHTTP.APIRoutes()...)
	out = append(out, h.billingHTTP.APIRoutes()...)
	out = append(out, h.socialRoutes()...)
	out = append(out, h.receiptsRoutes()...)
	out = append(out, h.advisorHTTP.APIRoutes()...)
	out = append(out, h.alertsHTTP.APIRoutes()...)
	return out
}

// PageRoutes is the table of every browser page and form endpoint, registered by web.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	out := []kit.PageRoute{
		{Method: "GET", Path: "/", Handler: h.Home, Auth: kit.AuthNone},
		{Method: "GET", Path: "/holdings", Handler: h.HoldingsIndex, Auth: kit.AuthGold},
		{Method: "GET", Path: "/holdings/new", Handler: h.HoldingsNew, Auth: kit.AuthGold},
		{Method: "GET", Path: "/holdings/sales", Handler: h.SalesIndex, Auth: kit.AuthGold},
		{Method: "POST", Path: "/holdings/sales/:id/undo", Handler: h.SaleUndo, Auth: kit.AuthGold},
		{Method: "POST", Path: "/holdings", Handler: h.HoldingsSave, Auth: kit.AuthGold},
		{Method: "GET", Path: "/holdings/:id/edit", Handler: h.HoldingsEdit, Auth: kit.AuthGold},
		{Method: "POST", Path: "/holdings/:id", Handler: h.HoldingsSave, Auth: kit.AuthGold},
		{Method: "POST", Path: "/holdings/:id/delete", Handler: h.HoldingsDelete, Auth: kit.AuthGold},
		{Method: "GET", Path: "/docs/api", Handler: h.APIDocsPage, Auth: kit.AuthNone},
		{Method: "GET", Path: "/legal", Handler: h.LegalPage, Auth: kit.AuthNone},
	}
	out = append(out, h.accountPages()...)
	out = append(out, h.pricesHTTP.PageRoutes()...)
	out = append(out, h.portfolioPages()...)
	out = append(out, h.intelPages()...)
	out = append(out, h.dealersHTTP.PageRoutes()...)
	out = append(out, h.billingHTTP.PageRoutes()...)
	out = append(out, h.socialPages()...)
	out = append(out, h.receiptsPages()...)
	out = append(out, h.advisorHTTP.PageRoutes()...)
	out = append(out, h.alertsHTTP.PageRoutes()...)
	return out
}

// Jobs are the background loops of the services that the server runs until it stops (price
// feed, intelligence scheduler…).
func (h *Handlers) Jobs() []kit.Job {
	var out []kit.Job
	if h.market != nil {
		out = append(out, kit.Job{Name: "price feed", Run: h.market.Run})
	}
	out = append(out, kit.Job{Name: "intel scheduler", Run: h.intel.Scheduler})
	if h.dealers != nil {
		out = append(out, kit.Job{Name: "dealer prices", Run: h.dealers.Run})
	}
	if h.billing != nil {
		out = append(out, kit.Job{Name: "billing grace periods", Run: h.billing.Run})
	}
	if h.advisor != nil {
		out = append(out, kit.Job{Name: "morning briefs", Run: func(ctx context.Context) { h.advisor.RunBriefs(ctx, 5*time.Minute) }})
	}
	if h.portfolio != nil && h.portfolio.Live() {
		out = append(out, kit.Job{Name: "spot at purchase refresh", Run: func(ctx context.Context) { h.portfolio.RunSpotRefresh(ctx, time.Minute) }})
	}
	if h.social != nil {
		out = append(out, kit.Job{Name: "article viewer pruning", Run: func(ctx context.Context) { h.social.RunPruner(ctx, 10*time.Minute) }})
	}
	if h.alerts != nil {
		out = append(out, kit.Job{Name: "price alerts", Run: h.alerts.Run})
	}
	return out
}

func (h *Handlers) holdingsRoutes() []kit.APIRoute {
	idParam := kit.Param{Name: "id", In: "path", Required: true, Description: "Holding id, as returned when it was created.", Schema: kit.Schema{"type": "string", "maxLength": 64}}
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/holdings", Auth: kit.AuthGold, Handler: h.APIHoldingsList, OperationID: "listHoldings", Tag: "Portfolio",
			Summary: "List your holdings, newest purchase first",
			Params: []kit.Param{
				{Name: "limit", In: "query", Description: "Page size.", Schema: kit.Schema{"type": "integer", "minimum": 1, "maximum": 200, "default": 50}},
				{Name: "offset", In: "query", Description: "Items to skip.", Schema: kit.Schema{"type": "integer", "minimum": 0, "default": 0}},
				{Name: "metal", In: "query", Description: "Only this metal.", Schema: kit.MetalSchema()},
			},
			Responses: []kit.Response{{Status: 200, Description: "A page of holdings.", Schema: kit.Schema{"type": "object", "required": []string{"holdings", "limit", "offset", "total"}, "properties": kit.Schema{
				"holdings": kit.Schema{"type": "array", "items": kit.Schema{"$ref": "#/components/schemas/Holding"}},
				"limit":    kit.Schema{"type": "integer"}, "offset": kit.Schema{"type": "integer"}, "total": kit.Schema{"type": "integer"},
			}}}},
			Example: "GET /v1/holdings?limit=10"},
		{Method: "POST", Path: "/v1/holdings", Auth: kit.AuthGold, Handler: h.APIHoldingsCreate, OperationID: "createHolding", Tag: "Portfolio",
			Summary: "Record a purchase", Body: kit.Schema{"$ref": "#/components/schemas/HoldingCreate"},
			Responses: []kit.Response{{Status: 201, Description: "Created; Location names the new holding.", Schema: kit.Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 413, Description: "Body over 64 KiB."},
				{Status: 422, Description: "You already keep the most holdings a member may (" + format.Int(portfolio.MaxHoldings) + "); delete some before adding more."}},
			Example: `POST /v1/holdings {"metal":"silver","product_name":"1 oz Eagle","quantity":20,"weight_oz":1,"purchase_price":32.5,"purchase_date":"2026-11-02"}`},
		{Method: "GET", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsGet, OperationID: "getHolding", Tag: "Portfolio",
			Summary: "One of your holdings", Params: []kit.Param{idParam},
			Responses: []kit.Response{{Status: 200, Description: "The holding.", Schema: kit.Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 404, Description: "No such holding of yours."}},
			Example:   "GET /v1/holdings/h_abc123"},
		{Method: "PATCH", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsUpdate, OperationID: "updateHolding", Tag: "Portfolio",
			Summary: "Change fields of a holding", Params: []kit.Param{idParam}, Body: kit.Schema{"$ref": "#/components/schemas/HoldingPatch"},
			Responses: []kit.Response{{Status: 200, Description: "The updated holding.", Schema: kit.Schema{"$ref": "#/components/schemas/Holding"}}, {Status: 404, Description: "No such holding of yours."},
				{Status: 409, Description: "The holding has sales: its metal, quantity, weight, price and fees are fixed, and it cannot be dated after its first sale."}, {Status: 413, Description: "Body over 64 KiB."}},
			Example: `PATCH /v1/holdings/h_abc123 {"quantity":25}`},
		{Method: "DELETE", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsDelete, OperationID: "deleteHolding", Tag: "Portfolio",
			Summary: "Delete a holding", Params: []kit.Param{idParam},
			Responses: []kit.Response{{Status: 204, Description: "Deleted."}, {Status: 404, Description: "No such holding of yours."}, {Status: 409, Description: "The holding has recorded sales; it is kept so realized profit stays explained."}},
			Example:   "DELETE /v1/holdings/h_abc123"},
	}
}
