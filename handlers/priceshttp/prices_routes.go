package priceshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// metalProps lists one property per metal with the same schema.
func metalProps(s kit.Schema) kit.Schema {
	p := kit.Schema{}
	for _, m := range metals.All {
		p[string(m)] = s
	}
	return p
}

// pricesRoutes are the /v1 market-data routes: the live board and the history.
func (h *Handlers) pricesRoutes() []kit.APIRoute {
	priceSchema := kit.Schema{"type": "number", "format": "double", "description": "USD per troy ounce at its source's precision: at least 2 and at most 4 decimals (LBMA silver 63.935 is served as 63.935)."}
	nnum := kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "USD per troy ounce at source precision (up to 4 decimals); change_pct is percent, 2 decimals."}
	spot := kit.Schema{"type": "object", "nullable": true, "required": []string{"metal", "symbol", "price", "prev_close", "change", "change_pct", "as_of", "source", "stale", "change_from", "change_as_of", "change_today", "change_note"},
		"properties": kit.Schema{
			"metal": kit.MetalSchema(), "symbol": kit.Schema{"type": "string", "enum": []string{"XAU", "XAG", "XPT", "XPD"}},
			"price": priceSchema, "prev_close": nnum, "change": nnum, "change_pct": nnum,
			"as_of": kit.Schema{"type": "string", "format": "date-time"}, "source": kit.Schema{"type": "string"},
			"stale":        kit.Schema{"type": "boolean", "description": "true when the price is last-known rather than live"},
			"change_from":  kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Trading day whose close prev_close is; change runs from it to change_as_of. Null without a previous close."},
			"change_as_of": kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Trading day of price, the end of change. Null without a previous close."},
			"change_today": kit.Schema{"type": "boolean", "description": "true only when the price is live and change_from is the trading session before change_as_of: only then is change today's move."},
			"change_note":  kit.Schema{"type": "string", "nullable": true, "description": "Why change is not today's, naming its dates (a stale price, or a previous close older than the preceding session); null when change_today."},
		}}
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/prices", Handler: h.APIPrices, OperationID: "getSpotPrices", Tag: "Market data",
			Summary:     "Spot prices of gold, silver, platinum and palladium with the day's change",
			Description: "Served from memory. prev_close is the last price of the previous COMEX session (New York time). When no provider is reachable the last stored price is served with stale=true and its as_of.",
			Responses: []kit.Response{{Status: 200, Description: "The price board.", Schema: kit.Schema{"type": "object", "required": []string{"as_of", "markets_open", "prices"}, "properties": kit.Schema{
				"as_of": kit.Schema{"type": "string", "format": "date-time", "nullable": true}, "markets_open": kit.Schema{"type": "boolean"},
				"prices": kit.Schema{"type": "object", "required": metals.Names(), "properties": metalProps(spot)},
			}}}},
			Example: "GET /v1/prices"},
		{Method: "GET", Path: "/v1/prices/history", Handler: h.APIPriceHistory, OperationID: "getPriceHistory", Tag: "Market data",
			Summary:     "Daily closes of one metal over a range, downsampled so peaks survive",
			Description: "ALL uses daily closes where they exist and monthly averages before (gold back to 1950). Downsampling keeps peaks: the series is cut into consecutive windows of ⌈N ÷ (⌊max_points÷2⌋ − 1)⌉ closes counted from the oldest, and the lowest and the highest close of every window are returned unchanged, together with the first and the last close, so count ≤ max_points and no high or low visible at the chart's resolution is lost.",
			Params: []kit.Param{
				{Name: "metal", In: "query", Required: true, Description: "The metal.", Schema: kit.MetalSchema()},
				{Name: "range", In: "query", Description: "How far back, in calendar months (clamped to a shorter month's end: 3M of 29 May starts 28 Feb), from today, or from through when the data ends before today (stale=true). Every range counts back from the same day, so 1M ⊂ 3M ⊂ 6M ⊂ 1Y ⊂ 5Y ⊂ ALL.", Schema: kit.Schema{"type": "string", "enum": []string{"1M", "3M", "6M", "1Y", "5Y", "ALL"}, "default": "1Y"}},
				{Name: "max_points", In: "query", Description: "At most this many points; at least 4 (the first and last close and one window's low and high), so the series' lowest and highest close always survive. Outside the bounds: 400 naming max_points.", Schema: kit.Schema{"type": "integer", "minimum": prices.MinHistoryPoints, "maximum": prices.MaxHistoryPoints, "default": prices.DefaultMaxPoints}},
			},
			Responses: []kit.Response{{Status: 200, Description: "The series, oldest first.", Schema: kit.Schema{"type": "object", "required": []string{"metal", "range", "unit", "from", "to", "granularity", "count", "points", "start", "through", "stale"}, "properties": kit.Schema{
				"metal": kit.MetalSchema(), "range": kit.Schema{"type": "string"}, "unit": kit.Schema{"type": "string", "enum": []string{"USD/oz"}},
				"from": kit.Schema{"type": "string", "format": "date", "nullable": true}, "to": kit.Schema{"type": "string", "format": "date", "nullable": true},
				"granularity": kit.Schema{"type": "string", "enum": []string{"daily", "monthly+daily"}}, "count": kit.Schema{"type": "integer"},
				"through": kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Date of the metal's newest daily close: the data ends here. Null when there is none."},
				"start":   kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "First calendar day of the window; from is the first close on or after it (2026-02-28, a Saturday, gives from 2026-03-02). Null for ALL."},
				"stale":   kit.Schema{"type": "boolean", "description": "true when the newest close (through) is before today: every range then counts back from through instead of today (1M is the month up to through), so the ranges stay nested and the series is never silently empty."},
				"points":  kit.Schema{"type": "array", "items": kit.Schema{"type": "object", "required": []string{"date", "price", "source"}, "properties": kit.Schema{"date": kit.Schema{"type": "string", "format": "date"}, "price": priceSchema, "source": pointSourceSchema}}},
			}}}},
			Example: "GET /v1/prices/history?metal=gold&range=5Y&max_points=200"},
	}
}

// pointSourceSchema documents the series name of each history point.
var pointSourceSchema = kit.Schema{"type": "string", "description": "The series the point belongs to, as stored with it: an embedded series (\"LBMA Gold Price PM (embedded history)\", \"World Bank Pink Sheet monthly average, CC BY 4.0 (open history)\"), a provider's recording (\"live:gold-api\"), or an import (\"import:FILE\"). Its terms of use: README, \"Price history and its terms\"."}
