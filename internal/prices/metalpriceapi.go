package prices

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// MetalpriceAPIName is the registry name of the MetalpriceAPI adapter.
const MetalpriceAPIName = "metalpriceapi"

// MetalpriceAPIBaseURL is the public (US) endpoint of MetalpriceAPI.
const MetalpriceAPIBaseURL = "https://api.metalpriceapi.com"

// MetalpriceAPIKeyEnv is the environment variable the key is read from.
const MetalpriceAPIKeyEnv = "OUNCE_METALPRICEAPI_KEY"

// MetalpriceAPI reads MetalpriceAPI.com. It quotes currency-style rates (metal
// per dollar), so its answers need inverting.
type MetalpriceAPI struct{ endpoint }

// NewMetalpriceAPI builds the adapter; an empty baseURL means the public endpoint
// and a nil client gets a 10 s timeout.
func NewMetalpriceAPI(baseURL, key string, client *http.Client) *MetalpriceAPI {
	return &MetalpriceAPI{newEndpoint(baseURL, MetalpriceAPIBaseURL, key, client)}
}

// Name identifies the adapter in Quote.Source and in logs.
func (p *MetalpriceAPI) Name() string { return MetalpriceAPIName }

type metalpriceBody struct {
	Success   *bool                  `json:"success"`
	Base      string                 `json:"base"`
	Timestamp json.Number            `json:"timestamp"`
	Rates     map[string]json.Number `json:"rates"`
	Error     *struct {
		StatusCode json.Number `json:"statusCode"`
		Message    string      `json:"message"`
	} `json:"error"`
}

// invertPlaces is the precision of 1/rate before rounding to cents; far more
// than cents need, so the rounding is the only loss.
const invertPlaces = 12

// Latest fetches all four metals in one call. When the body carries USDXAU-style
// keys (already dollars per ounce) they are used as they are; otherwise the
// XAU-style rates are inverted in decimal.
func (p *MetalpriceAPI) Latest(ctx context.Context) (map[metals.Metal]Quote, error) {
	syms := make([]string, len(metals.All))
	for i, m := range metals.All {
		syms[i] = m.Symbol()
	}
	q := url.Values{"api_key": {p.key}, "base": {"USD"}, "currencies": {strings.Join(syms, ",")}}
	body, status, err := get(ctx, p.client, p.base+"/v1/latest?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	return decodeMetalpriceLatest(status, body, p.now())
}

// decodeMetalpriceLatest judges a MetalpriceAPI answer; now stands in for a
// missing timestamp.
func decodeMetalpriceLatest(status int, body []byte, now time.Time) (map[metals.Metal]Quote, error) {
	var b metalpriceBody
	derr := decodeJSON(body, &b)
	if b.Error != nil || (b.Success != nil && !*b.Success) || !ok2xx(status) {
		msg := ""
		if b.Error != nil {
			msg = b.Error.Message
			if b.Error.StatusCode != "" {
				msg = fmt.Sprintf("%s (code %s)", msg, b.Error.StatusCode)
			}
		}
		if !ok2xx(status) {
			return nil, statusError(status, msg)
		}
		return nil, fmt.Errorf("%w: %s", ErrProvider, clip(msg))
	}
	if derr != nil {
		return nil, derr
	}
	if b.Success == nil {
		return nil, fmt.Errorf("%w: no success flag", ErrBadResponse)
	}
	if b.Base != "USD" {
		return nil, fmt.Errorf("%w: base %q, want USD", ErrBadResponse, clip(b.Base))
	}
	asOf, ok := unixTime(b.Timestamp)
	if !ok {
		asOf = now.UTC()
	}
	out := make(map[metals.Metal]Quote, len(metals.All))
	for _, m := range metals.All {
		price, found, err := metalpricePrice(m, b.Rates)
		if err != nil {
			return nil, err
		}
		if found {
			out[m] = Quote{Metal: m, Price: price, AsOf: asOf, Source: MetalpriceAPIName}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no gold, silver, platinum or palladium rate", ErrBadResponse)
	}
	return out, nil
}

func metalpricePrice(m metals.Metal, rates map[string]json.Number) (decimal.Decimal, bool, error) {
	if n, ok := rates["USD"+m.Symbol()]; ok {
		p, err := priceFrom(m, n)
		return p, true, err
	}
	n, ok := rates[m.Symbol()]
	if !ok {
		return decimal.Decimal{}, false, nil
	}
	rate, err := parseNumber(n)
	if err != nil {
		return decimal.Decimal{}, true, fmt.Errorf("%s: %w", m, err)
	}
	if !rate.IsPositive() {
		return decimal.Decimal{}, true, fmt.Errorf("%w: %s rate %s is not positive", ErrBadResponse, m, rate)
	}
	price := metals.Price(decimal.NewFromInt(1).DivRound(rate, invertPlaces))
	return price, true, CheckPrice(m, price)
}
