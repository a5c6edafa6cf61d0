package priceshttp

import (
	"context"
	"encoding/json"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
)

// MCPTools are the area's tools for the MCP server: prices, their history and the calculators.
func (h *Handlers) MCPTools() []kit.MCPTool {
	return []kit.MCPTool{
		{Name: "get_spot_prices", Description: "Current spot prices of gold, silver, platinum and palladium in USD per troy ounce (or the currency and unit asked for, default your settings), with the previous session's close, the day's change and whether each price is live or last-known (stale).",
			Method: "GET", Path: "/v1/prices",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				t, err := kit.QuoteArgs(ctx, h.quotes, u, a["currency"], a["unit"], true)
				if err != nil {
					return nil, err
				}
				return pricesJSON(h.board(ctx), t), nil
			}},
		{Name: "get_price_history", Description: "Historical closes of one metal over 1M, 3M, 6M, 1Y, 5Y or ALL (gold back to 1950), downsampled to max_points so peaks survive.",
			Method: "GET", Path: "/v1/prices/history",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				t, err := kit.QuoteArgs(ctx, h.quotes, u, a["currency"], a["unit"], true)
				if err != nil {
					return nil, err
				}
				return h.priceHistory(ctx, a["metal"], a["range"], a["max_points"], t)
			}},
		{Name: "get_junk_silver", Description: "Melt value of pre-1965 US silver coins (dimes, quarters, half dollars, 40% Kennedy halves, Morgan/Peace dollars, war nickels), counted or by face value (face_90, face_40), at the current silver price.",
			Method: "GET", Path: "/v1/junk-silver",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				t, err := kit.QuoteArgs(ctx, h.quotes, u, a["currency"], a["unit"], true)
				if err != nil {
					return nil, err
				}
				return h.JunkSilver(ctx, a, a["basis"], t)
			}},
		{Name: "get_speculation", Description: "What-if projection at target prices per metal (missing targets default to the current price, live or the last known close), with preset bull, moon and hyper scenarios; with a key, your own holdings are projected too.",
			Method: "GET", Path: "/v1/speculation",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, u *account.User) (any, error) {
				t, err := kit.QuoteArgs(ctx, h.quotes, u, a["currency"], a["unit"], true)
				if err != nil {
					return nil, err
				}
				return h.speculationTool(ctx, a, u, t)
			}},
	}
}
