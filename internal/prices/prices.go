// Package prices is the price heartbeat of Ounce: adapters for the spot-price
// providers, their aggregation, the spike guard, COMEX market hours, the embedded
// daily history, chart downsampling and the in-memory live feed.
//
// The package is pure: it performs HTTP calls to providers but stores nothing.
// The caller persists quotes and closes, serves snapshots and fans them out.
package prices

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// Quote is one provider's (or the aggregate's) price for a metal, in US dollars
// per troy ounce, at the provider's precision up to metals.PricePlaces.
type Quote struct {
	Metal metals.Metal
	Price decimal.Decimal
	// AsOf is the provider's own timestamp for the price when it gives one, so a
	// delayed plan is not mistaken for a fresh price.
	AsOf   time.Time
	Source string
}

// Close is a daily (or monthly-average) price point.
type Close struct {
	// Date is the calendar day at UTC midnight; time of day carries no meaning.
	Date  time.Time
	Price decimal.Decimal
	// Source names the series the close belongs to (price_closes.source), where known.
	Source string
}

// Provider is a source of live spot prices. It may answer for only some of the
// metals; a metal it cannot price is simply absent from the map.
//
// An adapter that fetches metals one by one returns the metals it did get
// together with a non-nil error describing the ones it did not, so callers
// should use whatever the map holds even when err != nil.
type Provider interface {
	Name() string
	Latest(ctx context.Context) (map[metals.Metal]Quote, error)
}

// HistoryProvider is a Provider that can also backfill daily closes, used to
// fill the gap between the embedded history and today.
type HistoryProvider interface {
	Provider
	Timeseries(ctx context.Context, m metals.Metal, from, to time.Time) ([]Close, error)
}

// Errors shared by the adapters, so callers can tell a misconfigured key from a
// flaky network without parsing messages.
var (
	// ErrProvider marks an error reported by the provider itself (error body,
	// non-2xx status).
	ErrProvider = errors.New("provider error")
	// ErrBadResponse marks a response that could not be trusted: malformed JSON,
	// wrong currency or unit, missing, non-positive or implausible prices.
	ErrBadResponse = errors.New("bad provider response")
)

// band is the range of prices that could plausibly be real for a metal, in USD
// per troy ounce. It exists to catch unit mix-ups (grams, kilograms, inverted
// rates) and junk values, not to judge the market, so it is deliberately wide.
type band struct{ lo, hi decimal.Decimal }

var bands = map[metals.Metal]band{
	metals.Gold:      {decimal.NewFromInt(100), decimal.NewFromInt(100000)},
	metals.Silver:    {decimal.NewFromInt(1), decimal.NewFromInt(10000)},
	metals.Platinum:  {decimal.NewFromInt(50), decimal.NewFromInt(50000)},
	metals.Palladium: {decimal.NewFromInt(50), decimal.NewFromInt(50000)},
}

// CheckPrice reports whether price is a believable live spot price for m. Every
// adapter and the aggregator run it, and the caller may run it on prices that
// arrive by other routes (another instance, an import).
func CheckPrice(m metals.Metal, price decimal.Decimal) error {
	b, ok := bands[m]
	if !ok {
		return fmt.Errorf("%w: unknown metal %q", ErrBadResponse, m)
	}
	if !price.IsPositive() {
		return fmt.Errorf("%w: %s price %s is not positive", ErrBadResponse, m, price)
	}
	if price.LessThan(b.lo) || price.GreaterThan(b.hi) {
		return fmt.Errorf("%w: %s price %s outside plausible range %s..%s", ErrBadResponse, m, price, b.lo, b.hi)
	}
	return nil
}

// maxBody bounds what we read from a provider: real answers are a few KB and a
// misbehaving endpoint must not be able to exhaust memory.
const maxBody = 1 << 20

// defaultTimeout applies when the caller passes a nil *http.Client.
const defaultTimeout = 10 * time.Second

func clientOrDefault(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: defaultTimeout}
}

// endpoint is what every HTTP provider adapter holds: its base URL (no trailing slash), its
// key (empty for a keyless provider), its client and its clock.
type endpoint struct {
	base   string
	key    string
	client *http.Client
	now    func() time.Time
}

// newEndpoint is an adapter's endpoint: an empty baseURL means def, and a nil client gets a
// 10 s timeout.
func newEndpoint(baseURL, def, key string, client *http.Client) endpoint {
	return endpoint{base: baseOrDefault(baseURL, def), key: key, client: clientOrDefault(client), now: time.Now}
}

func baseOrDefault(base, def string) string {
	if base == "" {
		base = def
	}
	return strings.TrimRight(base, "/")
}

// get performs a GET and returns the body of a 2xx answer. For other statuses it
// returns the body too, so the adapter can extract the provider's message.
func get(ctx context.Context, c *http.Client, rawURL string, header http.Header) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, 0, redact(err)
	}
	req.Header.Set("Accept", "application/json")
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, 0, redact(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, resp.StatusCode, redact(err)
	}
	if len(body) > maxBody {
		return nil, resp.StatusCode, fmt.Errorf("%w: body larger than %d bytes", ErrBadResponse, maxBody)
	}
	return body, resp.StatusCode, nil
}

// redact strips the query string from URLs inside transport errors: keyed
// providers take the API key as a query parameter, and these errors end up in
// logs.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.RawQuery = ""
			ue.URL = u.String()
		} else {
			ue.URL = "(url withheld)"
		}
	}
	return err
}

// statusError describes a non-2xx answer, including the provider's own message
// when it could be found, but never the body wholesale (it may echo the key).
func statusError(status int, msg string) error {
	if msg != "" {
		return fmt.Errorf("%w: HTTP %d: %s", ErrProvider, status, clip(msg))
	}
	return fmt.Errorf("%w: HTTP %d", ErrProvider, status)
}

func ok2xx(status int) bool { return status >= 200 && status <= 299 }

// clip keeps provider messages short and on one line in our logs and errors.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// decodeJSON decodes a provider body keeping numbers as text, so prices never pass
// through float64.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: malformed JSON: %v", ErrBadResponse, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%w: trailing data after JSON value", ErrBadResponse)
	}
	return nil
}

// maxExponent bounds scientific notation in provider numbers: decimal would
// happily build a ten-million-digit integer for "1e10000000".
const maxExponent = 30

// parseNumber turns the text of a JSON number into a decimal without float
// arithmetic. It accepts the JSON number grammar with a bounded exponent.
func parseNumber(n json.Number) (decimal.Decimal, error) {
	s := string(n)
	if s == "" {
		return decimal.Decimal{}, fmt.Errorf("%w: missing number", ErrBadResponse)
	}
	if len(s) > 64 {
		return decimal.Decimal{}, fmt.Errorf("%w: number %q too long", ErrBadResponse, clip(s))
	}
	if !validJSONNumber(s) {
		return decimal.Decimal{}, fmt.Errorf("%w: %q is not a number", ErrBadResponse, clip(s))
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%w: %q is not a number", ErrBadResponse, clip(s))
	}
	return d, nil
}

// validJSONNumber checks the JSON number grammar, -?(0|[1-9]digits)[.digits][e[+-]digits],
// with |exponent| ≤ maxExponent.
func validJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || (s[start] == '0' && i-start > 1) {
		return false // no digits, or a leading zero JSON does not allow
	}
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == fs {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			exp = exp*10 + int(s[i]-'0')
			if exp > maxExponent {
				return false
			}
			i++
		}
		if i == es {
			return false
		}
	}
	return i == len(s)
}

// priceFrom parses, bounds to PricePlaces and sanity-checks a provider's price.
func priceFrom(m metals.Metal, n json.Number) (decimal.Decimal, error) {
	d, err := parseNumber(n)
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%s: %w", m, err)
	}
	d = metals.Price(d)
	if err := CheckPrice(m, d); err != nil {
		return decimal.Decimal{}, err
	}
	return d, nil
}

// unixTime reads a provider's Unix timestamp. Some providers switch to
// milliseconds on some endpoints, which is recognisable by magnitude.
func unixTime(n json.Number) (time.Time, bool) {
	if n == "" {
		return time.Time{}, false
	}
	v, err := n.Int64()
	if err != nil || v <= 0 {
		return time.Time{}, false
	}
	if v > 1e12 {
		return time.UnixMilli(v).UTC(), true
	}
	return time.Unix(v, 0).UTC(), true
}
