package priceshttp

import (
	"context"
	"encoding/json"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/quote"
)

// MCPTools are the area's tools for the MCP server: prices, their history and the calculators.
func (h *Handlers) MCPTools() []kit.MCPTool {
	return []kit.MCPTool{
		{Name: "get_spot_prices", Description: "Current spot prices of gold, silver, platinum and palladium in USD per troy ounce (or the currency and unit asked for, default your settings), with the previous session's close, the day's change and whether each price is live or last-known (stale).",
			Method: "GET", Path: "/v1/prices",
			Call: h.quoted(func(ctx context.Context, a map[string]string, u *account.User, t quote.Target) (any, error) {
				return pricesJSON(h.board(ctx), t), nil
			})},
		{Name: "get_price_history", Description: "Historical closes of one metal over 1M, 3M, 6M, 1Y, 5Y or ALL (gold back to 1950), downsampled to max_points so peaks survive.",
			Method: "GET", Path: "/v1/prices/history",
			Call: h.quoted(func(ctx context.Context, a map[string]string, u *account.User, t quote.Target) (any, error) {
				return h.priceHistory(ctx, a["metal"], a["range"], a["max_points"], t)
			})},
		{Name: "get_junk_silver", Description: "Melt value of pre-1965 US silver coins (dimes, quarters, half dollars, 40% Kennedy halves, Morgan/Peace dollars, war nickels), counted or by face value (face_90, face_40), at the current silver price.",
			Method: "GET", Path: "/v1/junk-silver",
			Call: h.quoted(func(ctx context.Context, a map[string]string, u *account.User, t quote.Target) (any, error) {
				return h.JunkSilver(ctx, a, a["basis"], t)
			})},
		{Name: "get_speculation", Description: "What-if projection at target prices per metal (missing targets default to the current price, live or the last known close), with preset bull, moon and hyper scenarios; with a key, your own holdings are projected too.",
			Method: "GET", Path: "/v1/speculation",
			Call: h.quoted(func(ctx context.Context, a map[string]string, u *account.User, t quote.Target) (any, error) {
				return h.speculationTool(ctx, a, u, t)
			})},
	}
}

// quoted is the call of a tool whose figures are in the currency and weight unit its
// arguments ask for (default: the member's settings, else USD per ounce), as its REST twin's.
func (h *Handlers) quoted(call func(ctx context.Context, a map[string]string, u *account.User, t quote.Target) (any, error)) func(context.Context, map[string]string, json.RawMessage, *account.User) (any, error) {
	return func(ctx context.Context, a map[string]string, _ json.RawMessage, u *account.User) (any, error) {
		t, err := kit.QuoteArgs(ctx, h.quotes, u, a["currency"], a["unit"], true)
		if err != nil {
			return nil, err
		}
		return call(ctx, a, u, t)
	}
}
