package kit

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/quote"
)

// QuoteJSON names the currency and weight unit of an answer's prices and the exchange rate
// that converted them (issue 25). Every answer names its currency and unit, USD and oz too.
type QuoteJSON struct {
	Currency   string  `json:"currency,omitempty" doc:"ISO 4217 code of every price and amount in this answer (those documented as USD are in it): the currency parameter, else your display currency, else USD. Always present. Amounts are rounded to the currency's minor units (cents; whole yen, won and krónur); prices per weight keep their source's precision (2 to 4 decimals) in a currency with minor units and are whole units in one without."`
	Unit       string  `json:"unit,omitempty" doc:"Weight unit of every price per weight in this answer (those documented as per troy ounce are per it): the unit parameter, else your weight unit, else oz; g, kg or tola (11.6638038 g). Always present."`
	FXRateDate *string `json:"fx_rate_date,omitempty" schema:"format=date" doc:"Day of the exchange rate that converted today's USD prices (the last published on or before today); absent for USD."`
	FXStale    *bool   `json:"fx_stale,omitempty" doc:"The exchange rate is old (offline, or the ECB file unreachable): quote fx_rate_date with the figures. Absent for USD."`
}

// QuoteOf renders a target: its currency and unit always, the rate when not in dollars.
func QuoteOf(t quote.Target) QuoteJSON {
	out := QuoteJSON{Currency: t.Currency, Unit: string(t.Unit)}
	if out.Currency == "" {
		out.Currency = "USD"
	}
	if out.Unit == "" {
		out.Unit = string(metals.Ounce)
	}
	if t.Currency != "USD" {
		d, st := t.RateDate.Format(time.DateOnly), t.Stale
		out.FXRateDate, out.FXStale = &d, &st
	}
	return out
}

// QuoteParams are the currency and (with perWeight) unit query parameters of a price route.
func QuoteParams(perWeight bool) []Param {
	ps := []Param{{Name: "currency", In: "query", Description: "ISO 4217 code to answer in (default: your display currency, USD anonymously); an unknown code is 400 naming currency and listing the supported ones. Today's prices convert at today's rate (named by fx_rate_date), each past close at its own day's.",
		Schema: Schema{"type": "string", "pattern": "^[A-Za-z]{3}$"}, Example: "EUR"}}
	if perWeight {
		ps = append(ps, Param{Name: "unit", In: "query", Description: "Weight unit of prices per weight (default: your weight unit, oz anonymously); anything else is 400 naming unit.",
			Schema: Schema{"type": "string", "enum": metals.UnitNames()}, Example: "g"})
	}
	return ps
}

// QuoteFor resolves the request's currency and unit parameters against the signed-in member's
// settings.
func QuoteFor(c *fiber.Ctx, q *quote.Quoter, perWeight bool) (quote.Target, error) {
	return QuoteArgs(c.UserContext(), q, userPtr(c), strings.Clone(c.Query("currency")), strings.Clone(c.Query("unit")), perWeight)
}

// QuoteArgs resolves currency and unit given as arguments (the MCP tools).
func QuoteArgs(ctx context.Context, q *quote.Quoter, u *account.User, currency, unit string, perWeight bool) (quote.Target, error) {
	return q.Resolve(ctx, u, currency, unit, perWeight)
}

func userPtr(c *fiber.Ctx) *account.User {
	if u, ok := UserFrom(c); ok {
		return &u
	}
	return nil
}

// SendQuoted is SendCached for an answer in t: one chosen by the member's settings is private,
// so no shared cache hands one member's currency to another caller of the same URL.
func SendQuoted(c *fiber.Ctx, t quote.Target, body []byte, etag string, maxAge time.Duration) error {
	err := SendCached(c, body, etag, maxAge)
	if t.Personal {
		c.Response().Header.Set(fiber.HeaderCacheControl, "private, max-age="+strconv.Itoa(int(maxAge.Seconds())))
		c.Response().Header.Add(fiber.HeaderVary, "Authorization, Cookie")
	}
	return err
}
