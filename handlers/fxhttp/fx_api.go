package fxhttp

import (
	"context"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
)

// RateJSON is the body of GET /v1/fx.
type RateJSON struct {
	_        struct{} `schema:"open"`
	Date     string   `json:"date" schema:"format=date" doc:"The day asked for."`
	Currency string   `json:"currency" schema:"pattern=^[A-Z]{3}$" doc:"ISO 4217 code."`
	PerUSD   kit.Num  `json:"per_usd" doc:"Units of the currency per 1 US dollar: from 1999 the ECB's euro rates crossed through the euro (currency per EUR ÷ USD per EUR) in decimal, to the significant figures of the currency's published rate (at least five); before 1999 the Federal Reserve's H.10 rate."`
	PerEUR   *kit.Num `json:"per_eur" doc:"Units of the currency per 1 euro as the ECB published it; null before the euro's first reference rate (1999-01-04)."`
	RateDate string   `json:"rate_date" schema:"format=date" doc:"The day of the rate used: the last one published on or before date (Friday's for a Sunday)."`
	Source   string   `json:"source" doc:"Where the rate comes from: the embedded ECB reference rates, the Federal Reserve H.10 series (before 1999), the ECB daily file fetched by this server, or an operator's import (\"import:FILE\")."`
	Stale    bool     `json:"stale" doc:"true when rate_date is more than 5 days before date: the newest rate known is old (offline, the ECB unreachable, or a currency no longer quoted), so it names its date instead of passing for the day's."`
}

// num keeps every digit the rate has (a published 0.84770 stays five decimals).
func num(d interface{ Exponent() int32 }) int32 { return max(0, -d.Exponent()) }

func rateJSON(r fx.Rate) RateJSON {
	out := RateJSON{Date: r.Date.Format(time.DateOnly), Currency: r.Currency, PerUSD: kit.Num{D: r.PerUSD, Places: num(r.PerUSD)},
		RateDate: r.RateDate.Format(time.DateOnly), Source: r.Source, Stale: r.Stale}
	if r.PerEUR != nil {
		out.PerEUR = &kit.Num{D: *r.PerEUR, Places: num(*r.PerEUR)}
	}
	return out
}

// rate parses the parameters, asks the service and renders: GET /v1/fx and its tool.
func (h *Handlers) rate(ctx context.Context, currency, date string) (RateJSON, error) {
	if h.fx == nil {
		return RateJSON{}, apperr.UnavailableF("exchange rates are not loaded")
	}
	if strings.TrimSpace(currency) == "" {
		return RateJSON{}, apperr.InvalidField("currency", "is required: an ISO 4217 code such as EUR; supported: "+strings.Join(h.fx.Supported(ctx), ", "))
	}
	day := h.Now().UTC()
	if date != "" {
		d, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return RateJSON{}, apperr.InvalidField("date", "must be a date like 2025-05-09")
		}
		day = d
	}
	r, err := h.fx.Lookup(ctx, currency, day)
	if err != nil {
		return RateJSON{}, err
	}
	return rateJSON(r), nil
}

// APIRate answers GET /v1/fx.
func (h *Handlers) APIRate(c *fiber.Ctx) error {
	out, err := h.rate(h.Ctx(c), c.Query("currency"), c.Query("date"))
	return kit.JSONResult(c, out, err)
}
