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
	Date     string   `json:"date"`
	Currency string   `json:"currency"`
	PerUSD   kit.Num  `json:"per_usd"`
	PerEUR   *kit.Num `json:"per_eur"`
	RateDate string   `json:"rate_date"`
	Source   string   `json:"source"`
	Stale    bool     `json:"stale"`
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
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, fiber.StatusOK, out)
}
