package priceshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// calculatorRoutes are the public calculators of /v1: junk-silver melt values and what-if
// projections (with a key, of the caller's own stack).
func (h *Handlers) calculatorRoutes() []kit.APIRoute {
	var coinParams []kit.Param
	for _, c := range metals.Coins {
		coinParams = append(coinParams, kit.Param{Name: c.Param, In: "query", Description: c.Label + " (" + c.SilverOz.String() + " oz silver each).", Schema: kit.Schema{"type": "integer", "minimum": 0, "maximum": portfolio.MaxCoins, "default": 0}})
	}
	for _, f := range metals.FaceLots {
		coinParams = append(coinParams, kit.Param{Name: f.Param, In: "query", Description: f.Label + ": US dollars of face value (" + f.OzPerFaceDollar.String() + " oz silver per $1 face uncirculated), whole cents.", Schema: kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 1000000, "default": 0}})
	}
	coinParams = append(coinParams, kit.Param{Name: "basis", In: "query", Description: "uncirculated: the mint's silver content per coin; circulated: worn 90% dimes, quarters and halves at 0.715 oz per $1 face.", Schema: kit.Schema{"type": "string", "enum": []string{"uncirculated", "circulated"}, "default": "uncirculated"}})
	coinParams = append(coinParams, kit.QuoteParams(true)...)
	var targetParams []kit.Param
	for _, m := range metals.All {
		targetParams = append(targetParams, kit.Param{Name: string(m), In: "query", Description: "Target " + string(m) + " price, USD per troy ounce (in the currency and unit parameters when given, else your settings); the current price (live, or the last known close, dated in the answer) when omitted.", Schema: kit.Schema{"type": "number", "format": "double", "exclusiveMinimum": true, "minimum": 0, "maximum": 10000000}})
	}
	targetParams = append(targetParams, kit.QuoteParams(true)...)
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/junk-silver", Handler: h.APIJunkSilver, OperationID: "getJunkSilver", Tag: "Calculators",
			Summary: "Melt value of pre-1965 US silver coins at the current silver price", Params: coinParams,
			Description: "Each line's silver_oz is rounded to 5 places and its melt_value is those ounces at spot, to the cent; each total is the sum of its lines, so the figures shown add up.",
			Responses:   []kit.Response{{Status: 200, Description: "Per-coin breakdown and totals.", Schema: priceSchema(JunkSilverJSON{})}},
			Example:     "GET /v1/junk-silver?dimes=50&quarters=40&basis=circulated"},
		{Method: "GET", Path: "/v1/speculation", Handler: h.APISpeculation, OperationID: "getSpeculation", Tag: "Calculators",
			Summary:     "What-if: your stack and the market at target prices",
			Description: "Missing targets default to the current price (live, or the last known close, dated in the answer). Scenarios are presets relative to the current price (bull ×1.25, moon ×2, hyper ×5). With a Gold member's key the projection covers your own holdings; with a free member's key portfolio is null and note says why; without a key portfolio is null. Each metal's current_value and projected_value is its ounces × price to the cent; the portfolio's values are their sums and gain their difference, so the figures shown add up.",
			Params:      targetParams,
			Responses:   []kit.Response{{Status: 200, Description: "Current prices, targets, multipliers, scenarios and, with a key, your projection.", Schema: priceSchema(speculationToolJSON{})}},
			Example:     "GET /v1/speculation?silver=100&gold=5000"},
	}
}
