package intelhttp

import "github.com/ouncehq/ounce/handlers/kit"

// vaultRoutes are the /v1 Vault Watch routes.
func (h *Handlers) vaultRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/vault-watch", Auth: kit.AuthNone, Handler: h.APIVaultWatch, OperationID: "getVaultWatch", Tag: "Market intelligence",
			Summary:     "COMEX warehouse inventory: registered and eligible ounces, daily drains, oversubscription",
			Description: "Figures from the CME daily metal stocks reports. Reports are dated by CME activity date (one report per metal and activity date; importing a workbook again replaces it). Changes compare each report with the previous one. The drain is measured per CME business day between the activity dates of the oldest and newest report inside the last drain_window_business_days business days; days_to_zero and oversubscribed_ratio are null when unknown, never 0, and days_to_zero_reason says why. stale is true when the newest report is older than a normal publishing gap; the history still counts back from it.",
			Params: []kit.Param{
				{Name: "metal", In: "query", Description: "The metal.", Schema: kit.Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}, "default": "silver"}, Example: "silver"},
				{Name: "days", In: "query", Description: "Calendar days of history, counted back from the newest report.", Schema: kit.Schema{"type": "integer", "minimum": 1, "maximum": 365, "default": 30}, Example: "90"},
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The metal's warehouse figures and history.", Schema: h.intelRef("VaultWatch")},
				kit.BadQuery(),
				{Status: 404, Description: "No report is stored for the metal."},
			},
			Example: "GET /v1/vault-watch?metal=silver&days=90"},
	}
}
