package kit

import (
	"encoding/json"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/metals"
)

// IsHTMX reports whether the request came from HTMX and wants a fragment.
func IsHTMX(c *fiber.Ctx) bool { return c.Get("HX-Request") == "true" }

// Render writes a templ component straight into the response.
func Render(c *fiber.Ctx, status int, comp templ.Component) error {
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Vary("HX-Request")
	return comp.Render(c.UserContext(), c.Response().BodyWriter())
}

// RenderNoStore renders comp at 200 for figures that change with every price, which no
// cache may keep.
func RenderNoStore(c *fiber.Ctx, comp templ.Component) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return Render(c, http.StatusOK, comp)
}

// RenderView renders at 200 what page makes of the view that view builds for the member u,
// or answers the error building it.
func RenderView[V any](c *fiber.Ctx, u account.User, view func(*fiber.Ctx, account.User) (V, error), page func(V) templ.Component) error {
	v, err := view(c, u)
	if err != nil {
		return err
	}
	return Render(c, http.StatusOK, page(v))
}

// Flash is the notice a page shows after a redirect that set flag=1 in its query, else "";
// cmp.Or picks the first of several.
func Flash(c *fiber.Ctx, flag, text string) string {
	if c.Query(flag) == "1" {
		return text
	}
	return ""
}

// Page renders the full page for a normal request and only the fragment for HTMX.
func Page(c *fiber.Ctx, status int, full, fragment templ.Component) error {
	if IsHTMX(c) && fragment != nil {
		return Render(c, status, fragment)
	}
	return Render(c, status, full)
}

// WriteJSON encodes v as the response body.
func WriteJSON(c *fiber.Ctx, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(b)
}

// SendDownload answers body as a file for the requester alone: its type, its
// Content-Disposition (attachment or inline, with the file's name) and no-store, so no
// cache keeps a member's statement or document.
func SendDownload(c *fiber.Ctx, contentType, disposition string, body []byte) error {
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, disposition)
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(http.StatusOK).Send(body)
}

// Num is a decimal rendered as a JSON number with a fixed number of places.
type Num struct {
	D      decimal.Decimal
	Places int32
}

// MarshalJSON renders the number without quotes.
func (n Num) MarshalJSON() ([]byte, error) { return []byte(n.D.StringFixed(n.Places)), nil }

// String renders the number for humans.
func (n Num) String() string { return n.D.StringFixed(n.Places) }

func Money(d decimal.Decimal) Num  { return Num{d.Round(2), 2} }
func Pct(d decimal.Decimal) Num    { return Num{d.Round(2), 2} }
func Ounces(d decimal.Decimal) Num { return Num{d.Round(5), 5} }

// PriceNum renders a price per ounce at its source's precision: at least cents, at most
// metals.PricePlaces (LBMA silver 63.935 stays 63.935; gold 4405.8 is 4405.80).
func PriceNum(d decimal.Decimal) Num {
	d = metals.Price(d)
	places := int32(2)
	if e := -d.Exponent(); e > places {
		// Trailing zeros beyond cents say nothing: 58.4100 is 58.41.
		for t := d.StringFixed(int32(e)); e > places && t[len(t)-1] == '0'; t = t[:len(t)-1] {
			e--
		}
		places = e
	}
	return Num{d, places}
}

// Tone classifies a signed amount for colouring: up, down or flat (unknown is flat).
func Tone(d *decimal.Decimal) string {
	switch {
	case d == nil || d.IsZero():
		return "flat"
	case d.IsPositive():
		return "up"
	}
	return "down"
}

// OptMoney renders nil as JSON null.
func OptMoney(d *decimal.Decimal) *Num {
	if d == nil {
		return nil
	}
	n := Money(*d)
	return &n
}
