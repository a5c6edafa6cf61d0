package kit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// RequireUser returns the bearer-authenticated user; the web middleware guarantees one on
// protected routes, so a missing user is a wiring bug reported as 401.
func RequireUser(c *fiber.Ctx) (u account.User, err error) {
	u, ok := UserFrom(c)
	if !ok {
		return u, NewProblem(http.StatusUnauthorized, ProbUnauthorized, "send Authorization: Bearer <API key>")
	}
	return u, nil
}

// UserInput is the bearer-authenticated user and the request body read by parse: how a
// handler that acts for a member on a JSON body begins.
func UserInput[T any](c *fiber.Ctx, parse func([]byte) (T, error)) (account.User, T, error) {
	var in T
	u, err := RequireUser(c)
	if err != nil {
		return u, in, err
	}
	in, err = parse(c.Body())
	return u, in, err
}

// PageParams reads the limit and offset of a list.
func PageParams(c *fiber.Ctx) (limit, offset int, err error) {
	if limit, err = QueryInt(c, "limit", DefaultPageLimit, 1, MaxPageLimit); err != nil {
		return 0, 0, err
	}
	offset, err = QueryInt(c, "offset", 0, 0, 1<<31-1)
	return limit, offset, err
}

// NumOrNull renders an unknown value as JSON null.
func NumOrNull(d *decimal.Decimal, f func(decimal.Decimal) Num) *Num {
	if d == nil {
		return nil
	}
	n := f(*d)
	return &n
}

// AsOfOrNull is the time of the newest price, null without one.
func AsOfOrNull(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// DayOrNull is the calendar date of t, null for the zero time.
func DayOrNull(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

// DateOrNull is a calendar date, null for none.
func DateOrNull(d fmt.Stringer) *string {
	s := d.String()
	if s == "" {
		return nil
	}
	return &s
}

// MaxJSONBody bounds a small JSON request body (a comment, a like, a chat message).
const MaxJSONBody = 64 << 10

// JSONObjectBody reads an optional JSON object whose members are all among allowed. An empty
// body is an empty object.
func JSONObjectBody(raw []byte, allowed ...string) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if len(raw) > MaxJSONBody {
		return nil, apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxJSONBody)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || out == nil {
		return nil, apperr.InvalidField("body", "must be a JSON object")
	}
	if dec.More() {
		return nil, apperr.InvalidField("body", "must hold exactly one JSON object")
	}
	for k := range out {
		if !slices.Contains(allowed, k) {
			return nil, apperr.InvalidField(k, "unknown field")
		}
	}
	return out, nil
}

// ClaimedUserID is the userId a client sent in the body (a string or an integer) or the
// query. When both are sent and differ, the answer matches no id, so the service refuses it.
func ClaimedUserID(c *fiber.Ctx, body map[string]json.RawMessage) (string, error) {
	q := c.Query("userId")
	raw, ok := body["userId"]
	if !ok || string(raw) == "null" {
		return q, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", apperr.InvalidField("userId", "must be your user id, as a string or an integer")
		}
		s = n.String()
	}
	if q != "" && q != s {
		return q + "," + s, nil
	}
	return s, nil
}

// Caller is the authenticated user, or the zero User for a visitor.
func Caller(c *fiber.Ctx) account.User {
	u, _ := UserFrom(c)
	return u
}

// Redirect sends the browser elsewhere: HX-Redirect for HTMX, 303 otherwise.
func Redirect(c *fiber.Ctx, to string) error {
	if IsHTMX(c) {
		c.Set("HX-Redirect", to)
		return c.SendStatus(http.StatusNoContent)
	}
	return c.Redirect(to, http.StatusSeeOther)
}

// Capitalize upper-cases the first letter of a message shown on its own.
func Capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// MetalList renders a stored metal list, never as null.
func MetalList(l []string) []string {
	if l == nil {
		return []string{}
	}
	return []string(l)
}

// ParseMetalParam reads an optional metal exactly as documented; def applies when raw is blank.
func ParseMetalParam(raw, def string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return def, nil
	}
	if m := metals.Metal(raw); m.Valid() {
		return string(m), nil
	}
	return "", apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
}

// Purity is a fineness to as many places as it was given (0.9999, 0.9167).
func Purity(d decimal.Decimal) Num { return Num{d, max(-d.Exponent(), 1)} }

// ClaimBody reads a JSON object body whose members are among allowed (JSONObjectBody) and
// the userId the client claims in it or the query (ClaimedUserID).
func ClaimBody(c *fiber.Ctx, allowed ...string) (body map[string]json.RawMessage, claim string, err error) {
	if body, err = JSONObjectBody(c.Body(), allowed...); err != nil {
		return nil, "", err
	}
	claim, err = ClaimedUserID(c, body)
	return body, claim, err
}
