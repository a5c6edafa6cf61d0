package handlers

import "github.com/ouncehq/ounce/internal/metals"

// metalProps lists one property per metal with the same schema.
func metalProps(s Schema) Schema {
	p := Schema{}
	for _, m := range metals.All {
		p[string(m)] = s
	}
	return p
}

// pricesRoutes are the /v1 market-data routes: the live board and the history.
func (h *Handlers) pricesRoutes() []APIRoute {
	num := Schema{"type": "number"}
	nnum := Schema{"type": "number", "nullable": true}
	spot := Schema{"type": "object", "nullable": true, "required": []string{"metal", "symbol", "price", "prev_close", "change", "change_pct", "as_of", "source", "stale"},
		"properties": Schema{
			"metal": metalSchema(), "symbol": Schema{"type": "string", "enum": []string{"XAU", "XAG", "XPT", "XPD"}},
			"price": num, "prev_close": nnum, "change": nnum, "change_pct": nnum,
			"as_of": Schema{"type": "string", "format": "date-time"}, "source": Schema{"type": "string"},
			"stale": Schema{"type": "boolean", "description": "true when the price is last-known rather than live"},
		}}
	return []APIRoute{
		{Method: "GET", Path: "/v1/prices", Handler: h.APIPrices, OperationID: "getSpotPrices", Tag: "Market data",
			Summary:     "Spot prices of gold, silver, platinum and palladium with the day's change",
			Description: "Served from memory. prev_close is the last price of the previous COMEX session (New York time). When no provider is reachable the last stored price is served with stale=true and its as_of.",
			Responses: []Response{{Status: 200, Description: "The price board.", Schema: Schema{"type": "object", "required": []string{"as_of", "markets_open", "prices"}, "properties": Schema{
				"as_of": Schema{"type": "string", "format": "date-time", "nullable": true}, "markets_open": Schema{"type": "boolean"},
				"prices": Schema{"type": "object", "required": metals.Names(), "properties": metalProps(spot)},
			}}}},
			Example: "GET /v1/prices"},
		{Method: "GET", Path: "/v1/prices/history", Handler: h.APIPriceHistory, OperationID: "getPriceHistory", Tag: "Market data",
			Summary:     "Daily closes of one metal over a range, downsampled so peaks survive",
			Description: "ALL uses daily closes where they exist and monthly averages before (gold back to 1950). Downsampling keeps peaks: the series is cut into consecutive windows of ⌈N ÷ (⌊max_points÷2⌋ − 1)⌉ closes counted from the oldest, and the lowest and the highest close of every window are returned unchanged, together with the first and the last close, so count ≤ max_points and no high or low visible at the chart's resolution is lost.",
			Params: []Param{
				{Name: "metal", In: "query", Required: true, Description: "The metal.", Schema: metalSchema()},
				{Name: "range", In: "query", Description: "How far back from today.", Schema: Schema{"type": "string", "enum": []string{"1M", "3M", "6M", "1Y", "5Y", "ALL"}, "default": "1Y"}},
				{Name: "max_points", In: "query", Description: "At most this many points.", Schema: Schema{"type": "integer", "minimum": 2, "maximum": 10000, "default": 1000}},
			},
			Responses: []Response{{Status: 200, Description: "The series, oldest first.", Schema: Schema{"type": "object", "required": []string{"metal", "range", "unit", "from", "to", "granularity", "count", "points"}, "properties": Schema{
				"metal": metalSchema(), "range": Schema{"type": "string"}, "unit": Schema{"type": "string", "enum": []string{"USD/oz"}},
				"from": Schema{"type": "string", "format": "date", "nullable": true}, "to": Schema{"type": "string", "format": "date", "nullable": true},
				"granularity": Schema{"type": "string", "enum": []string{"daily", "monthly+daily"}}, "count": Schema{"type": "integer"},
				"points": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"date", "price"}, "properties": Schema{"date": Schema{"type": "string", "format": "date"}, "price": num}}},
			}}}},
			Example: "GET /v1/prices/history?metal=gold&range=5Y&max_points=200"},
	}
}
