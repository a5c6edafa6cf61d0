package portfoliohttp

import (
	"context"
	"encoding/json"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
)

// MCPTools are the area's tools for the MCP server: the portfolio, analytics and recording a purchase.
func (h *Handlers) MCPTools() []kit.MCPTool {
	create := HoldingSchemas()["HoldingCreate"]
	return append([]kit.MCPTool{
		{Name: "get_portfolio", Description: "Your stack valued at live spot (Gold members): total value, cost basis, unrealized and realized profit/loss, the day's change, and per metal ounces, value, cost, allocation and break-even price; in the currency and weight unit asked for (default your settings), named in the answer.",
			Method: "GET", Path: "/v1/portfolio", Gold: true,
			Call: func(ctx context.Context, args map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				return valuedIn(ctx, h, *u, args["currency"], args["unit"], h.portfolio.PortfolioIn, portfolioJSON)
			}},
		{Name: "get_analytics", Description: "Your per-metal analytics (Gold members): cost basis, average cost per ounce, break-even spot price and distance to it, allocation by value and by weight, purchase count and dates, average premium paid over spot; in the currency and weight unit asked for (default your settings), named in the answer.",
			Method: "GET", Path: "/v1/analytics", Gold: true,
			Call: func(ctx context.Context, args map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				return valuedIn(ctx, h, *u, args["currency"], args["unit"], h.portfolio.AnalyticsIn, analyticsJSON)
			}},
		{Name: "add_holding", Description: "Record a purchase in your holdings (Gold members): metal, quantity, fine weight per unit in troy ounces, price per unit in USD, and optionally product_name, fees, dealer, purchase_date, notes.",
			Method: "POST", Path: "/v1/holdings", Gold: true, Schema: create,
			Call: func(ctx context.Context, _ map[string]string, raw json.RawMessage, u *account.User) (any, error) {
				return h.createHolding(ctx, *u, raw)
			}},
	}, h.taxMCPTools()...)
}
