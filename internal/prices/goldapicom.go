package prices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

// GoldAPIComName is the registry name of the gold-api.com adapter.
const GoldAPIComName = "gold-api"

// GoldAPIComBaseURL is the public endpoint of gold-api.com.
const GoldAPIComBaseURL = "https://api.gold-api.com"

// GoldAPICom reads gold-api.com, which needs no key; that makes it the provider
// Ounce can always fall back to.
type GoldAPICom struct{ endpoint }

// NewGoldAPICom builds the adapter; an empty baseURL means the public endpoint
// and a nil client gets a 10 s timeout.
func NewGoldAPICom(baseURL string, client *http.Client) *GoldAPICom {
	return &GoldAPICom{newEndpoint(baseURL, GoldAPIComBaseURL, "", client)}
}

// Name identifies the adapter in Quote.Source and in logs.
func (p *GoldAPICom) Name() string { return GoldAPIComName }

type goldAPIComBody struct {
	Currency  string      `json:"currency"`
	Price     json.Number `json:"price"`
	Symbol    string      `json:"symbol"`
	UpdatedAt string      `json:"updatedAt"`
	Error     string      `json:"error"`
	Message   string      `json:"message"`
}

// Latest asks for each metal separately (the API has one endpoint per symbol)
// and returns the metals that answered well, plus an error naming the others.
func (p *GoldAPICom) Latest(ctx context.Context) (map[metals.Metal]Quote, error) {
	return fetchEach(ctx, metals.All, p.one)
}

func (p *GoldAPICom) one(ctx context.Context, m metals.Metal) (Quote, error) {
	body, status, err := get(ctx, p.client, p.base+"/price/"+m.Symbol(), nil)
	if err != nil {
		return Quote{}, err
	}
	return decodeGoldAPICom(m, status, body, p.now())
}

// decodeGoldAPICom judges one gold-api.com answer for m; now stands in for a
// missing timestamp.
func decodeGoldAPICom(m metals.Metal, status int, body []byte, now time.Time) (Quote, error) {
	var b goldAPIComBody
	derr := decodeJSON(body, &b)
	if !ok2xx(status) {
		return Quote{}, statusError(status, firstNonEmpty(b.Error, b.Message))
	}
	if derr != nil {
		return Quote{}, derr
	}
	if b.Error != "" {
		return Quote{}, fmt.Errorf("%w: %s", ErrProvider, clip(b.Error))
	}
	if b.Currency != "USD" {
		return Quote{}, fmt.Errorf("%w: currency %q, want USD", ErrBadResponse, clip(b.Currency))
	}
	if b.Symbol != m.Symbol() {
		return Quote{}, fmt.Errorf("%w: asked for %s, got symbol %q", ErrBadResponse, m.Symbol(), clip(b.Symbol))
	}
	price, err := priceFrom(m, b.Price)
	if err != nil {
		return Quote{}, err
	}
	asOf := now.UTC()
	if b.UpdatedAt != "" {
		t, err := time.Parse(time.RFC3339, b.UpdatedAt)
		if err != nil {
			return Quote{}, fmt.Errorf("%w: updatedAt %q: not RFC 3339", ErrBadResponse, clip(b.UpdatedAt))
		}
		asOf = t.UTC()
	}
	return Quote{Metal: m, Price: price, AsOf: asOf, Source: GoldAPIComName}, nil
}

// fetchEach runs one request per metal concurrently. Metals that fail are left
// out of the map and described in the (joined) error.
func fetchEach(ctx context.Context, ms []metals.Metal, one func(context.Context, metals.Metal) (Quote, error)) (map[metals.Metal]Quote, error) {
	type result struct {
		q   Quote
		err error
	}
	results := make([]result, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, err := one(ctx, m)
			results[i] = result{q, err}
		}()
	}
	wg.Wait()
	out := make(map[metals.Metal]Quote, len(ms))
	var errs []error
	for i, r := range results {
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ms[i], r.err))
			continue
		}
		out[ms[i]] = r.q
	}
	if len(out) == 0 {
		return nil, errors.Join(errs...)
	}
	return out, errors.Join(errs...)
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
