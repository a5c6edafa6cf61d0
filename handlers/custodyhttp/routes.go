package custodyhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/custody"
)

// APIRoutes are the area's /v1 routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	locID := kit.PathParam("id", "Location id.", 64, "")
	holdID := kit.PathParam("id", "Holding id.", 64, "")
	loc := kit.Ref("Location")
	return append([]kit.APIRoute{
		{Method: "GET", Path: "/v1/locations", Auth: kit.AuthGold, Handler: h.APIList, OperationID: "listLocations", Tag: "Portfolio",
			Summary:   "Your storage locations, by name",
			Responses: []kit.Response{{Status: 200, Description: "Every location with its count of lots.", Schema: schema(LocationsJSON{})}},
			Example:   "GET /v1/locations"},
		{Method: "POST", Path: "/v1/locations", Auth: kit.AuthGold, Handler: h.APICreate, OperationID: "createLocation", Tag: "Portfolio",
			Summary: "Add a storage location (a home safe, bank box, private vault, dealer storage or IRA custodian)", Body: schema(LocationCreateJSON{}),
			Responses: []kit.Response{{Status: 201, Description: "Created; Location names it.", Schema: loc}, kit.BodyTooLarge(custody.MaxBody),
				{Status: 422, Description: "You already keep 200 locations."}},
			Example: `POST /v1/locations {"name":"Bank box, Main St","kind":"bank_box","insured_value":25000}`},
		{Method: "GET", Path: "/v1/locations/:id", Auth: kit.AuthGold, Handler: h.APIGet, OperationID: "getLocation", Tag: "Portfolio",
			Summary: "One of your storage locations", Params: []kit.Param{locID},
			Responses: []kit.Response{{Status: 200, Description: "The location.", Schema: loc}, kit.NotYours("location")},
			Example:   "GET /v1/locations/loc_abc"},
		{Method: "PATCH", Path: "/v1/locations/:id", Auth: kit.AuthGold, Handler: h.APIUpdate, OperationID: "updateLocation", Tag: "Portfolio",
			Summary: "Change fields of a storage location", Params: []kit.Param{locID}, Body: kit.PatchOf(LocationCreateJSON{}, consts()),
			Responses: []kit.Response{{Status: 200, Description: "The updated location.", Schema: loc}, kit.NotYours("location"),
				kit.BodyTooLarge(custody.MaxBody), {Status: 422, Description: "The body names no field to change."}},
			Example: `PATCH /v1/locations/loc_abc {"insured_value":30000}`},
		{Method: "DELETE", Path: "/v1/locations/:id", Auth: kit.AuthGold, Handler: h.APIDelete, OperationID: "deleteLocation", Tag: "Portfolio",
			Summary: "Delete a storage location that holds no lots", Params: []kit.Param{locID},
			Responses: []kit.Response{{Status: 204, Description: "Deleted (transfers that named it keep its id)."}, kit.NotYours("location"),
				{Status: 409, Description: "Lots are still kept there: move them first."}},
			Example: "DELETE /v1/locations/loc_abc"},
		{Method: "POST", Path: "/v1/holdings/:id/move", Auth: kit.AuthGold, Handler: h.APIMove, OperationID: "moveHolding", Tag: "Portfolio",
			Summary:     "Move a lot to another location, recording the transfer",
			Description: "The lot's location_id becomes to_location_id and a transfer {from_location_id, to_location_id, date, note} is recorded; GET /v1/holdings/{id} lists them. Moving a lot to where it already is: 400 naming to_location_id.",
			Params:      []kit.Param{holdID}, Body: schema(MoveJSON{}),
			Responses: []kit.Response{{Status: 201, Description: "Moved; the transfer recorded.", Schema: schema(MoveResultJSON{})}, kit.NotYours("holding"),
				kit.BodyTooLarge(custody.MaxBody)},
			MaxBody: custody.MaxBody,
			Example: `POST /v1/holdings/h_abc/move {"to_location_id":"loc_abc","date":"2026-11-20","note":"to the bank"}`},
		{Method: "POST", Path: "/v1/holdings/bulk", Auth: kit.AuthGold, Handler: h.APIBulk, OperationID: "bulkHoldings", Tag: "Portfolio",
			Summary:     "Move or tag several lots at once, all or nothing",
			Description: "action move puts every lot named at to_location_id and records a transfer for each, by the rules of POST /v1/holdings/{id}/move; tag adds tag to each lot and untag removes it. All or nothing: an id that is not one of your lots answers 404 naming it, a lot breaking a rule 400 naming the field and the lot, and then nothing is changed.",
			Body:        schema(BulkJSON{}),
			Responses: []kit.Response{{Status: 200, Description: "Done; updated counts the lots changed.", Schema: schema(BulkResultJSON{})},
				{Status: 404, Description: "One of the ids is not a holding of yours; its id is named and nothing was changed."}, kit.BodyTooLarge(custody.MaxBulkBody)},
			MaxBody: custody.MaxBulkBody,
			Example: `POST /v1/holdings/bulk {"ids":["h_abc","h_def"],"action":"move","to_location_id":"loc_abc","date":"2026-11-20","note":"to the bank"}`},
		{Method: "GET", Path: "/v1/reports/inventory", Auth: kit.AuthGold, Handler: h.APIInventory, OperationID: "getInventoryStatement", Tag: "Portfolio",
			Summary:     "A dated inventory statement of what you hold, per location, for an insurer",
			Description: "Per location (or only location_id; none: the unassigned lots) each lot still held: description, units, fine ounces, purchase date and the cost of the units held, its value at spot and at replacement cost (the median ask of fresh dealer quotes of the same catalogue product when there are any, else spot × the product form's typical premium, our estimate; each line says which), the totals per location, and the spot prices used with their sources and dates. format=pdf (default) or csv (one row per lot, plain decimals in USD).",
			Params: []kit.Param{
				{Name: "location_id", In: "query", Description: "One of your locations; none: unassigned lots; omitted: every location.", Schema: kit.Schema{"type": "string", "maxLength": 64}},
				{Name: "format", In: "query", Description: "pdf (default) or csv.", Schema: kit.Schema{"type": "string", "enum": []string{"pdf", "csv"}, "default": "pdf"}},
			},
			Responses: []kit.Response{{Status: 200, Description: "The statement, as an attachment.", Contents: map[string]kit.Schema{"application/pdf": {"type": "string", "format": "binary"}, "text/csv": {"type": "string"}}},
				kit.NotYours("location")},
			Example: "GET /v1/reports/inventory?format=pdf"},
	}, h.documentRoutes()...)
}
