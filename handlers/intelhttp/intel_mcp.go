package intelhttp

import (
	"context"
	"encoding/json"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
)

// MCPTools are the area's tools for the MCP server: Stack Signal and Vault Watch.
func (h *Handlers) MCPTools() []kit.MCPTool {
	return []kit.MCPTool{
		{Name: "get_stack_signal", Description: "Stack Signal: editorial articles on precious metals with commentary, the prices at publication and their source links; filter by category (the eight news categories or SYNTHESIS for the daily synthesis).",
			Method: "GET", Path: "/v1/stack-signal",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, _ *account.User) (any, error) {
				return h.stackSignal(ctx, a["limit"], a["offset"], a["category"])
			}},
		{Name: "get_vault_watch", Description: "COMEX warehouse inventory for a metal: registered and eligible ounces, daily changes (the drain), registered share, days to zero at the recent outflow, the oversubscribed ratio when open interest is known, depositories and history.",
			Method: "GET", Path: "/v1/vault-watch",
			Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, _ *account.User) (any, error) {
				return h.vaultWatch(ctx, a["metal"], a["days"])
			}},
	}
}
