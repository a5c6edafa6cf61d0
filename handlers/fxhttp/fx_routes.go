package fxhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
)

// rateSchema is the body of GET /v1/fx.
var rateSchema = kit.Schema{"type": "object", "required": []string{"date", "currency", "per_usd", "per_eur", "rate_date", "source", "stale"},
	"properties": kit.Schema{
		"date":      kit.Schema{"type": "string", "format": "date", "description": "The day asked for."},
		"currency":  kit.Schema{"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217 code."},
		"per_usd":   kit.Schema{"type": "number", "format": "double", "description": "Units of the currency per 1 US dollar: from 1999 the ECB's euro rates crossed through the euro (currency per EUR ÷ USD per EUR) in decimal, to the significant figures of the currency's published rate (at least five); before 1999 the Federal Reserve's H.10 rate."},
		"per_eur":   kit.Schema{"type": "number", "format": "double", "nullable": true, "description": "Units of the currency per 1 euro as the ECB published it; null before the euro's first reference rate (1999-01-04)."},
		"rate_date": kit.Schema{"type": "string", "format": "date", "description": "The day of the rate used: the last one published on or before date (Friday's for a Sunday)."},
		"source":    kit.Schema{"type": "string", "description": "Where the rate comes from: the embedded ECB reference rates, the Federal Reserve H.10 series (before 1999), the ECB daily file fetched by this server, or an operator's import (\"import:FILE\")."},
		"stale":     kit.Schema{"type": "boolean", "description": "true when rate_date is more than 5 days before date: the newest rate known is old (offline, the ECB unreachable, or a currency no longer quoted), so it names its date instead of passing for the day's."},
	}}

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
