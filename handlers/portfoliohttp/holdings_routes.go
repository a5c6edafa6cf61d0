package portfoliohttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
)

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
				{Status: 409, Description: "The holding has sales: its metal, quantity, weight, price and fees are fixed, and it cannot be dated after its first sale."}, {Status: 413, Description: "Body over 64 KiB."},
				{Status: 422, Description: "The body names no field to change ({}): errors names body."}},
			Example: `PATCH /v1/holdings/h_abc123 {"quantity":25}`},
		{Method: "DELETE", Path: "/v1/holdings/:id", Auth: kit.AuthGold, Handler: h.APIHoldingsDelete, OperationID: "deleteHolding", Tag: "Portfolio",
			Summary: "Delete a holding", Params: []kit.Param{idParam},
			Responses: []kit.Response{{Status: 204, Description: "Deleted."}, {Status: 404, Description: "No such holding of yours."}, {Status: 409, Description: "The holding has recorded sales; it is kept so realized profit stays explained."}},
			Example:   "DELETE /v1/holdings/h_abc123"},
	}
}

func HoldingSchemas() map[string]kit.Schema {
	num := kit.Schema{"type": "number", "format": "double"}
	fields := kit.Schema{
		"metal":          kit.Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}},
		"product_name":   kit.Schema{"type": "string", "maxLength": 200},
		"quantity":       kit.Schema{"type": "integer", "minimum": 1, "maximum": 1000000, "description": "Number of units."},
		"weight_oz":      kit.Schema{"type": "number", "format": "double", "exclusiveMinimum": true, "minimum": 0, "maximum": 100000, "description": "Fine troy ounces per unit (up to 8 decimals)."},
		"purchase_price": kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 100000000, "description": "Price per unit in USD (cents)."},
		"fees":           kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 100000000, "description": "Tax and shipping for the whole line, USD."},
		"dealer":         kit.Schema{"type": "string", "maxLength": 120},
		"purchase_date":  kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "YYYY-MM-DD, not in the future."},
		"notes":          kit.Schema{"type": "string", "maxLength": 2000},
	}
	create := kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"metal", "quantity", "weight_oz", "purchase_price"}, "properties": fields}
	patch := kit.Schema{"type": "object", "additionalProperties": false, "minProperties": 1, "properties": fields}
	holding := kit.Schema{"type": "object", "required": []string{"id", "metal", "product_name", "quantity", "weight_oz", "total_oz", "purchase_price", "fees", "total_cost", "dealer", "purchase_date", "notes", "created_at", "updated_at",
		"sold_quantity", "remaining_quantity", "spot_at_purchase", "premium_pct"},
		"properties": kit.Schema{
			"sold_quantity":      kit.Schema{"type": "integer", "description": "Units of this lot sold so far (see /v1/sales)."},
			"remaining_quantity": kit.Schema{"type": "integer", "description": "quantity − sold_quantity: units still held."},
			"spot_at_purchase":   kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "The metal's close (USD per troy ounce, at its source's precision: 2 to 4 decimals, LBMA silver 63.935 stays 63.935) on purchase_date, or the last close before it; stored with the lot and recomputed when its date or metal changes or the price history is corrected. Null when undated or no close is known."},
			"premium_pct":        kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "Premium paid per unit over its metal at spot_at_purchase, percent: (purchase_price ÷ (spot_at_purchase × weight_oz) − 1) × 100. Null without spot_at_purchase and for zero-price lots."},
			"id":                 kit.Schema{"type": "string"}, "metal": fields["metal"], "product_name": kit.Schema{"type": "string"}, "quantity": kit.Schema{"type": "integer"},
			"weight_oz": num, "total_oz": num, "purchase_price": num, "fees": num, "total_cost": num, "dealer": kit.Schema{"type": "string"},
			"purchase_date": kit.Schema{"type": "string", "format": "date", "nullable": true}, "notes": kit.Schema{"type": "string"},
			"created_at": kit.Schema{"type": "string", "format": "date-time"}, "updated_at": kit.Schema{"type": "string", "format": "date-time"},
		}}
	return map[string]kit.Schema{"Holding": holding, "HoldingCreate": create, "HoldingPatch": patch}
}
