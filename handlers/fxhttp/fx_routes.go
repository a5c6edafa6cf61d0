package fxhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
)

// rateSchema is the body of GET /v1/fx.
// rateSchema is generated from RateJSON.
var rateSchema = kit.SchemaOf(RateJSON{})

// APIRoutes are the area's /v1 routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/fx", Handler: h.APIRate, OperationID: "getExchangeRate", Tag: "Market data",
			Summary:     "The exchange rate of a currency used for a day, against the US dollar and the euro",
			Description: "Rates are data: the ECB euro reference rates (daily since 1999-01-04) and, before them, the Federal Reserve H.10 noon rates, embedded; the ECB daily file is fetched once a day by the server; an operator may add or correct rates (`ounce fx import`). The rate of a day is the last one published on or before it. Source: European Central Bank; Board of Governors of the Federal Reserve System.",
			Params: []kit.Param{
				{Name: "currency", In: "query", Required: true, Description: "ISO 4217 code (EUR, GBP, CHF, JPY, INR…). Unknown: 400 naming currency and listing the supported codes.", Schema: kit.Schema{"type": "string"}},
				{Name: "date", In: "query", Description: "The day (YYYY-MM-DD); today (UTC) when omitted. Not a date, in the future, or before any rate of the currency: 400 naming date.", Schema: kit.Schema{"type": "string", "format": "date"}},
			},
			Responses: []kit.Response{{Status: 200, Description: "The rate used for the day.", Schema: rateSchema}},
			Example:   "GET /v1/fx?currency=EUR&date=2016-06-24"},
	}
}
