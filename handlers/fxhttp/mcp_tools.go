package fxhttp

import (
	"context"
	"encoding/json"
	"github.com/ouncehq/ounce/internal/account"

	"github.com/ouncehq/ounce/handlers/kit"
)

// MCPTools are the area's tools.
func (h *Handlers) MCPTools() []kit.MCPTool {
	return []kit.MCPTool{
		{Name: "get_exchange_rate", Description: "The exchange rate of a currency for a day (ECB euro reference rates since 1999, Federal Reserve H.10 before): units per US dollar and per euro, the day of the rate used (the last on or before the day asked) and whether it is stale.",
			Method: "GET", Path: "/v1/fx",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, _ *account.User) (any, error) {
				return h.rate(ctx, a["currency"], a["date"])
			}},
	}
}
