package priceshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// calculatorRoutes are the public calculators of /v1: junk-silver melt values and what-if
// projections (with a key, of the caller's own stack).
func (h *Handlers) calculatorRoutes() []kit.APIRoute {
	num := kit.Schema{"type": "number", "format": "double"}
	spotRef := kit.Schema{"type": "object", "required": []string{"price", "as_of", "stale"}, "properties": kit.Schema{"price": num, "as_of": kit.Schema{"type": "string", "format": "date-time"}, "stale": kit.Schema{"type": "boolean"}}}
	var coinParams []kit.Param
	for _, c := range metals.Coins {
		coinParams = append(coinParams, kit.Param{Name: c.Param, In: "query", Description: c.Label + " (" + c.SilverOz.String() + " oz silver each).", Schema: kit.Schema{"type": "integer", "minimum": 0, "maximum": portfolio.MaxCoins, "default": 0}})
	}
	for _, f := range metals.FaceLots {
		coinParams = append(coinParams, kit.Param{Name: f.Param, In: "query", Description: f.Label + ": US dollars of face value (" + f.OzPerFaceDollar.String() + " oz silver per $1 face uncirculated), whole cents.", Schema: kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 1000000, "default": 0}})
	}
	coinParams = append(coinParams, kit.Param{Name: "basis", In: "query", Description: "uncirculated: the mint's silver content per coin; circulated: worn 90% dimes, quarters and halves at 0.715 oz per $1 face.", Schema: kit.Schema{"type": "string", "enum": []string{"uncirculated", "circulated"}, "default": "uncirculated"}})
	coinTypes := make([]string, len(metals.Coins))
	for i, c := range metals.Coins {
		coinTypes[i] = c.Param
	}
	faceTypes := make([]string, len(metals.FaceLots))
	for i, f := range metals.FaceLots {
		faceTypes[i] = f.Param
	}
	var targetParams []kit.Param
	for _, m := range metals.All {
		targetParams = append(targetParams, kit.Param{Name: string(m), In: "query", Description: "Target " + string(m) + " price, USD per troy ounce; the current price (live, or the last known close, dated in the answer) when omitted.", Schema: kit.Schema{"type": "number", "format": "double", "exclusiveMinimum": true, "minimum": 0, "maximum": 10000000}})
	}
	byMetal := kit.Schema{"type": "object", "required": metals.Names(), "properties": metalProps(num)}
	line := kit.Schema{"type": "object", "required": []string{"oz", "current_value", "projected_value"}, "properties": kit.Schema{"oz": num, "current_value": num, "projected_value": num}}
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/junk-silver", Handler: h.APIJunkSilver, OperationID: "getJunkSilver", Tag: "Calculators",
			Summary: "Melt value of pre-1965 US silver coins at the current silver price", Params: coinParams,
			Description: "Each line's silver_oz is rounded to 5 places and its melt_value is those ounces at spot, to the cent; each total is the sum of its lines, so the figures shown add up.",
			Responses: []kit.Response{{Status: 200, Description: "Per-coin breakdown and totals.", Schema: kit.Schema{"type": "object",
				"required": []string{"spot", "basis", "coins", "face", "total_face_value", "total_silver_oz", "total_melt_value", "melt_per_face_dollar"},
				"properties": kit.Schema{"spot": spotRef, "basis": kit.Schema{"type": "string", "enum": []string{"uncirculated", "circulated"}},
					"coins": kit.Schema{"type": "array", "items": kit.Schema{"type": "object", "required": []string{"type", "quantity", "face_value", "silver_oz_per_coin", "silver_oz", "melt_value"}, "properties": kit.Schema{
						"type": kit.Schema{"type": "string", "enum": coinTypes}, "quantity": kit.Schema{"type": "integer"}, "face_value": num, "silver_oz_per_coin": num, "silver_oz": num, "melt_value": num}}},
					"face": kit.Schema{"type": "array", "description": "Junk silver entered by face value (face_90, face_40); totals include it.", "items": kit.Schema{"type": "object", "required": []string{"type", "face_value", "silver_oz_per_face_dollar", "silver_oz", "melt_value"}, "properties": kit.Schema{
						"type": kit.Schema{"type": "string", "enum": faceTypes}, "face_value": num, "silver_oz_per_face_dollar": num, "silver_oz": num, "melt_value": num}}},
					"total_face_value": num, "total_silver_oz": num, "total_melt_value": num, "melt_per_face_dollar": num}}}},
			Example: "GET /v1/junk-silver?dimes=50&quarters=40&basis=circulated"},
		{Method: "GET", Path: "/v1/speculation", Handler: h.APISpeculation, OperationID: "getSpeculation", Tag: "Calculators",
			Summary:     "What-if: your stack and the market at target prices",
			Description: "Missing targets default to the current price (live, or the last known close, dated in the answer). Scenarios are presets relative to the current price (bull ×1.25, moon ×2, hyper ×5). With a Gold member's key the projection covers your own holdings; with a free member's key portfolio is null and note says why; without a key portfolio is null. Each metal's current_value and projected_value is its ounces × price to the cent; the portfolio's values are their sums and gain their difference, so the figures shown add up.",
			Params:      targetParams,
			Responses: []kit.Response{{Status: 200, Description: "Current prices, targets, multipliers, scenarios and, with a key, your projection.", Schema: kit.Schema{"type": "object",
				"required": []string{"current", "targets", "multipliers", "scenarios", "stale", "portfolio"},
				"properties": kit.Schema{"current": byMetal, "targets": byMetal, "multipliers": byMetal, "stale": kit.Schema{"type": "boolean"},
					"scenarios": kit.Schema{"type": "object", "required": []string{"bull", "moon", "hyper"}, "properties": kit.Schema{"bull": byMetal, "moon": byMetal, "hyper": byMetal}},
					"note":      kit.Schema{"type": "string", "description": "Only for a free member's key: projecting your own stack is part of Gold membership, so portfolio is null."},
					"portfolio": kit.Schema{"type": "object", "nullable": true, "required": []string{"current_value", "projected_value", "gain", "gain_pct", "metals"}, "properties": kit.Schema{
						"current_value": num, "projected_value": num, "gain": num, "gain_pct": num, "metals": kit.Schema{"type": "object", "required": metals.Names(), "properties": metalProps(line)}}},
				}}}},
			Example: "GET /v1/speculation?silver=100&gold=5000"},
	}
}
