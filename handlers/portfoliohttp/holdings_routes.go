package portfoliohttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
)

func (h *Handlers) holdingsRoutes() []kit.APIRoute {
	idParam := kit.PathParam("id", "Holding id, as returned when it was created.", 64, "")
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/holdings", Auth: kit.AuthGold, Handler: h.APIHoldingsList, OperationID: "listHoldings", Tag: "Portfolio",
			Summary: "List your holdings, newest purchase first",
			Params: append(kit.PageQuery(), []kit.Param{
				kit.MetalFilter(""),
				{Name: "q", In: "query", Description: "Only lots whose product name, dealer, notes or tags contain this text (any case).", Schema: kit.Schema{"type": "string", "maxLength": 200}},
				{Name: "tag", In: "query", Description: "Only lots with this tag.", Schema: kit.Schema{"type": "string", "maxLength": 40}},
				{Name: "location_id", In: "query", Description: "Only lots kept at this location; none: only unassigned lots.", Schema: kit.Schema{"type": "string", "maxLength": 64}},
				{Name: "form", In: "query", Description: "Only lots of this product form (read from the catalogue, else from the product name's words).", Schema: kit.Schema{"type": "string", "enum": []string{"coin", "bar", "round", "junk", "other"}}},
				{Name: "from", In: "query", Description: "Only lots bought on or after this day (undated lots are left out).", Schema: kit.Schema{"type": "string", "format": "date"}},
				{Name: "to", In: "query", Description: "Only lots bought on or before this day (undated lots are left out); not before from.", Schema: kit.Schema{"type": "string", "format": "date"}},
				{Name: "sort", In: "query", Description: "Order: date (purchase date; undated lots after every dated one), metal (gold, silver, platinum, palladium), form (by its name: bars, coins, junk silver, other, rounds), location (by name in any case; unassigned as \"Unassigned\"), cost (cost basis left, in the lot's own currency) or value (fine ounces left at the live spot in US dollars; lots of a metal without a price last). Equal keys keep the default order, then the lot's id. Without sort (or order), newest purchase first.", Schema: kit.Schema{"type": "string", "enum": []string{"date", "metal", "form", "location", "cost", "value"}}},
				{Name: "order", In: "query", Description: "Direction of sort: desc by default for date, cost and value, asc for the others. order without sort sorts by date.", Schema: kit.Schema{"type": "string", "enum": []string{"asc", "desc"}}},
				CurrencyParam(),
			}...),
			Responses: []kit.Response{{Status: 200, Description: "A page of holdings.", Schema: pfSchema(HoldingsPageJSON{})}, {Status: 400, Description: "Unknown currency, sort, order, form or metal, a date that is not YYYY-MM-DD, to before from (errors names the parameter)."}},
			Example:   "GET /v1/holdings?limit=10&sort=cost&order=asc&form=bar"},
		{Method: "POST", Path: "/v1/holdings", Auth: kit.AuthGold, Handler: h.APIHoldingsCreate, OperationID: "createHolding", Tag: "Portfolio",
			Summary: "Record a purchase", Body: kit.Ref("HoldingCreate"),
			Responses: []kit.Response{{Status: 201, Description: "Created; Location names the new holding.", Schema: kit.Ref("Holding")}, kit.BodyTooLarge(portfolio.MaxHoldingBody),
				{Status: 422, Description: "You already keep the most holdings a member may (" + format.Int(portfolio.MaxHoldings) + "); delete some before adding more."}},
			Example: `POST /v1/holdings {"metal":"silver","product_name":"1 oz Eagle","quantity":20,"weight_oz":1,"purchase_price":32.5,"purchase_date":"2026-11-02"}`},
		{Method: "GET", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsGet, OperationID: "getHolding", Tag: "Portfolio",
			Summary: "One of your holdings", Params: []kit.Param{idParam},
			Responses: []kit.Response{{Status: 200, Description: "The holding.", Schema: kit.Ref("Holding")}, kit.NotYours("holding")},
			Example:   "GET /v1/holdings/h_abc123"},
		{Method: "PATCH", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsUpdate, OperationID: "updateHolding", Tag: "Portfolio",
			Summary: "Change fields of a holding", Params: []kit.Param{idParam}, Body: kit.Ref("HoldingPatch"),
			Responses: []kit.Response{{Status: 200, Description: "The updated holding.", Schema: kit.Ref("Holding")}, kit.NotYours("holding"),
				{Status: 409, Description: "The holding has sales: its metal, quantity, weight, price and fees are fixed, and it cannot be dated after its first sale."}, kit.BodyTooLarge(portfolio.MaxHoldingBody),
				{Status: 422, Description: "The body names no field to change ({}): errors names body."}},
			Example: `PATCH /v1/holdings/h_abc123 {"quantity":25}`},
		{Method: "DELETE", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsDelete, OperationID: "deleteHolding", Tag: "Portfolio",
			Summary: "Delete a holding", Params: []kit.Param{idParam},
			Responses: []kit.Response{kit.Deleted(), kit.NotYours("holding"), {Status: 409, Description: "The holding has recorded sales; it is kept so realized profit stays explained."}},
			Example:   "DELETE /v1/holdings/h_abc123"},
	}
}
