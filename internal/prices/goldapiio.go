package prices

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

// GoldAPIIOName is the registry name of the GoldAPI.io adapter.
const GoldAPIIOName = "goldapi"

// GoldAPIIOBaseURL is the public endpoint of GoldAPI.io.
const GoldAPIIOBaseURL = "https://www.goldapi.io"

// GoldAPIIOKeyEnv is the environment variable the key is read from.
const GoldAPIIOKeyEnv = "OUNCE_GOLDAPI_KEY"

// GoldAPIIO reads GoldAPI.io, one call per metal, with the key in a header. Its
// free plan has a small monthly quota, so it suits a low polling rate.
type GoldAPIIO struct{ endpoint }

// NewGoldAPIIO builds the adapter; an empty baseURL means the public endpoint and
// a nil client gets a 10 s timeout.
func NewGoldAPIIO(baseURL, key string, client *http.Client) *GoldAPIIO {
	return &GoldAPIIO{newEndpoint(baseURL, GoldAPIIOBaseURL, key, client)}
}

// Name identifies the adapter in Quote.Source and in logs.
func (p *GoldAPIIO) Name() string { return GoldAPIIOName }

type goldAPIIOBody struct {
	Timestamp json.Number `json:"timestamp"`
	Metal     string      `json:"metal"`
	Currency  string      `json:"currency"`
	Price     json.Number `json:"price"`
	Error     string      `json:"error"`
}

// Latest asks for each metal separately and returns the metals that answered
// well, plus an error naming the others.
func (p *GoldAPIIO) Latest(ctx context.Context) (map[metals.Metal]Quote, error) {
	return fetchEach(ctx, metals.All, p.one)
}

func (p *GoldAPIIO) one(ctx context.Context, m metals.Metal) (Quote, error) {
	h := http.Header{"X-Access-Token": {p.key}}
	body, status, err := get(ctx, p.client, p.base+"/api/"+m.Symbol()+"/USD", h)
	if err != nil {
		return Quote{}, err
	}
	return decodeGoldAPIIO(m, status, body, p.now())
}

// decodeGoldAPIIO judges one GoldAPI.io answer for m; now stands in for a
// missing timestamp.
func decodeGoldAPIIO(m metals.Metal, status int, body []byte, now time.Time) (Quote, error) {
	var b goldAPIIOBody
	derr := decodeJSON(body, &b)
	if !ok2xx(status) {
		return Quote{}, statusError(status, b.Error)
	}
	if b.Error != "" {
		return Quote{}, fmt.Errorf("%w: %s", ErrProvider, clip(b.Error))
	}
	if derr != nil {
		return Quote{}, derr
	}
	if b.Currency != "USD" {
		return Quote{}, fmt.Errorf("%w: currency %q, want USD", ErrBadResponse, clip(b.Currency))
	}
	if b.Metal != m.Symbol() {
		return Quote{}, fmt.Errorf("%w: asked for %s, got metal %q", ErrBadResponse, m.Symbol(), clip(b.Metal))
	}
	price, err := priceFrom(m, b.Price)
	if err != nil {
		return Quote{}, err
	}
	asOf, ok := unixTime(b.Timestamp)
	if !ok {
		asOf = now.UTC()
	}
	return Quote{Metal: m, Price: price, AsOf: asOf, Source: GoldAPIIOName}, nil
}
