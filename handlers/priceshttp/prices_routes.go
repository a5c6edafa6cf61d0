package priceshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// priceSchema generates the schema of a market-data or calculator wire struct (objects open).
func priceSchema(v any) kit.Schema {
	coins := make([]string, len(metals.Coins))
	for i, c := range metals.Coins {
		coins[i] = c.Param
	}
	faces := make([]string, len(metals.FaceLots))
	for i, f := range metals.FaceLots {
		faces[i] = f.Param
	}
	return kit.OpenSchemaOf(v, kit.Consts{"Coins": coins, "Faces": faces})
}

// pricesRoutes are the /v1 market-data routes: the live board and the history.
func (h *Handlers) pricesRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/prices", Handler: h.APIPrices, OperationID: "getSpotPrices", Tag: "Market data",
			Summary:     "Spot prices of gold, silver, platinum and palladium with the day's change",
			Description: "Served from memory. prev_close is the last price of the previous COMEX session (New York time). When no provider is reachable the last stored price is served with stale=true and its as_of.",
			Params:      kit.QuoteParams(true),
			Responses:   []kit.Response{{Status: 200, Description: "The price board.", Schema: priceSchema(PricesJSON{})}},
			Example:     "GET /v1/prices"},
		{Method: "GET", Path: "/v1/prices/history", Handler: h.APIPriceHistory, OperationID: "getPriceHistory", Tag: "Market data",
			Summary:     "Daily closes of one metal over a range, downsampled so peaks survive",
			Description: "ALL uses daily closes where they exist and monthly averages before (gold back to 1950). Downsampling keeps peaks: the series is cut into consecutive windows of ⌈N ÷ (⌊max_points÷2⌋ − 1)⌉ closes counted from the oldest, and the lowest and the highest close of every window are returned unchanged, together with the first and the last close, so count ≤ max_points and no high or low visible at the chart's resolution is lost.",
			Params: []kit.Param{
				{Name: "metal", In: "query", Required: true, Description: "The metal.", Schema: kit.MetalSchema()},
				{Name: "range", In: "query", Description: "How far back, in calendar months (clamped to a shorter month's end: 3M of 29 May starts 28 Feb), from today, or from through when the data ends before today (stale=true). Every range counts back from the same day, so 1M ⊂ 3M ⊂ 6M ⊂ 1Y ⊂ 5Y ⊂ ALL.", Schema: kit.Schema{"type": "string", "enum": []string{"1M", "3M", "6M", "1Y", "5Y", "ALL"}, "default": "1Y"}},
				{Name: "max_points", In: "query", Description: "At most this many points; at least 4 (the first and last close and one window's low and high), so the series' lowest and highest close always survive. Outside the bounds: 400 naming max_points.", Schema: kit.Schema{"type": "integer", "minimum": prices.MinHistoryPoints, "maximum": prices.MaxHistoryPoints, "default": prices.DefaultMaxPoints}},
				kit.QuoteParams(true)[0], kit.QuoteParams(true)[1],
			},
			Responses: []kit.Response{{Status: 200, Description: "The series, oldest first.", Schema: priceSchema(HistoryJSON{})}},
			Example:   "GET /v1/prices/history?metal=gold&range=5Y&max_points=200"},
	}
}
