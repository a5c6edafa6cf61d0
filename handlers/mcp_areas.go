package handlers

import (
	"context"
	"encoding/json"

	"github.com/ouncehq/ounce/db"
)

// mcpAreaTools are the tools whose use cases live in other areas: holdings now, and Stack
// Signal, Vault Watch and the portfolio as those areas land.
func (h *Handlers) mcpAreaTools() []MCPTool {
	create := holdingSchemas()["HoldingCreate"]
	return []MCPTool{
		{Name: "add_holding", Description: "Record a purchase in your holdings (Gold members): metal, quantity, fine weight per unit in troy ounces, price per unit in USD, and optionally product_name, fees, dealer, purchase_date, notes.",
			Method: "POST", Path: "/v1/holdings", Gold: true, Schema: create,
			Call: func(ctx context.Context, _ map[string]string, raw json.RawMessage, u *db.User) (any, error) {
				in, err := ParseHoldingJSON(raw)
				if err != nil {
					return nil, err
				}
				hold, err := h.CreateHolding(ctx, *u, in)
				if err != nil {
					return nil, err
				}
				return HoldingToJSON(hold), nil
			}},
	}
}
