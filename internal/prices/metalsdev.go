package prices

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

// MetalsDevName is the registry name of the metals.dev adapter.
const MetalsDevName = "metals-dev"

// MetalsDevBaseURL is the public endpoint of metals.dev.
const MetalsDevBaseURL = "https://api.metals.dev"

// MetalsDevKeyEnv is the environment variable the key is read from.
const MetalsDevKeyEnv = "OUNCE_METALSDEV_KEY"

// metalsDevMaxDays is the longest range one timeseries call may cover.
const metalsDevMaxDays = 30

// MetalsDev reads metals.dev. One call returns all four metals, and it offers a
// daily timeseries, so it can also backfill history.
type MetalsDev struct{ endpoint }

// NewMetalsDev builds the adapter; an empty baseURL means the public endpoint
// and a nil client gets a 10 s timeout.
func NewMetalsDev(baseURL, key string, client *http.Client) *MetalsDev {
	return &MetalsDev{newEndpoint(baseURL, MetalsDevBaseURL, key, client)}
}

// Name identifies the adapter in Quote.Source and in logs.
func (p *MetalsDev) Name() string { return MetalsDevName }

type metalsDevStatus struct {
	Status       string      `json:"status"`
	ErrorCode    json.Number `json:"error_code"`
	ErrorMessage string      `json:"error_message"`
}

// check turns a failure body (which metals.dev sometimes sends with HTTP 200)
// or a non-2xx status into an error.
func (s metalsDevStatus) check(status int, decodeErr error) error {
	if s.Status == "failure" || s.ErrorMessage != "" || !ok2xx(status) {
		msg := s.ErrorMessage
		if s.ErrorCode != "" {
			msg = fmt.Sprintf("%s (code %s)", msg, s.ErrorCode)
		}
		if !ok2xx(status) {
			return statusError(status, msg)
		}
		return fmt.Errorf("%w: %s", ErrProvider, clip(msg))
	}
	if decodeErr != nil {
		return decodeErr
	}
	if s.Status != "success" {
		return fmt.Errorf("%w: status %q", ErrBadResponse, clip(s.Status))
	}
	return nil
}

type metalsDevLatest struct {
	metalsDevStatus
	Currency   string                 `json:"currency"`
	Unit       string                 `json:"unit"`
	Metals     map[string]json.Number `json:"metals"`
	Timestamps struct {
		Metal string `json:"metal"`
	} `json:"timestamps"`
}

// Latest fetches the four metals in one call. A price that is present but wrong
// rejects the whole answer: it usually means the unit or currency is off for all.
func (p *MetalsDev) Latest(ctx context.Context) (map[metals.Metal]Quote, error) {
	q := url.Values{"api_key": {p.key}, "currency": {"USD"}, "unit": {"toz"}}
	body, status, err := get(ctx, p.client, p.base+"/v1/latest?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	return decodeMetalsDevLatest(status, body, p.now())
}

// decodeMetalsDevLatest judges a metals.dev latest answer; now stands in for a
// missing timestamp.
func decodeMetalsDevLatest(status int, body []byte, now time.Time) (map[metals.Metal]Quote, error) {
	var b metalsDevLatest
	derr := decodeJSON(body, &b)
	if err := b.check(status, derr); err != nil {
		return nil, err
	}
	if b.Currency != "USD" {
		return nil, fmt.Errorf("%w: currency %q, want USD", ErrBadResponse, clip(b.Currency))
	}
	if b.Unit != "" && b.Unit != "toz" {
		return nil, fmt.Errorf("%w: unit %q, want toz", ErrBadResponse, clip(b.Unit))
	}
	asOf := now.UTC()
	if b.Timestamps.Metal != "" {
		t, err := time.Parse(time.RFC3339, b.Timestamps.Metal)
		if err != nil {
			return nil, fmt.Errorf("%w: timestamps.metal %q: not RFC 3339", ErrBadResponse, clip(b.Timestamps.Metal))
		}
		asOf = t.UTC()
	}
	out := make(map[metals.Metal]Quote, len(metals.All))
	for _, m := range metals.All {
		n, ok := b.Metals[string(m)]
		if !ok {
			continue
		}
		price, err := priceFrom(m, n)
		if err != nil {
			return nil, err
		}
		out[m] = Quote{Metal: m, Price: price, AsOf: asOf, Source: MetalsDevName}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no gold, silver, platinum or palladium price", ErrBadResponse)
	}
	return out, nil
}

type metalsDevSeries struct {
	metalsDevStatus
	Currency string `json:"currency"`
	Unit     string `json:"unit"`
	Rates    map[string]struct {
		Metals map[string]json.Number `json:"metals"`
	} `json:"rates"`
}

// Timeseries returns the daily closes of m between from and to (inclusive, by
// UTC calendar date), calling the API in chunks of at most 30 days. Days the
// API has no price for are absent.
func (p *MetalsDev) Timeseries(ctx context.Context, m metals.Metal, from, to time.Time) ([]Close, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("timeseries: unknown metal %q", m)
	}
	from, to = utcDate(from), utcDate(to)
	if to.Before(from) {
		return nil, fmt.Errorf("timeseries: end %s before start %s", to.Format(time.DateOnly), from.Format(time.DateOnly))
	}
	var out []Close
	for start := from; !start.After(to); start = start.AddDate(0, 0, metalsDevMaxDays) {
		end := start.AddDate(0, 0, metalsDevMaxDays-1)
		if end.After(to) {
			end = to
		}
		chunk, err := p.series(ctx, m, start, end)
		if err != nil {
			return nil, fmt.Errorf("timeseries %s..%s: %w", start.Format(time.DateOnly), end.Format(time.DateOnly), err)
		}
		out = append(out, chunk...)
	}
	slices.SortFunc(out, func(a, b Close) int { return a.Date.Compare(b.Date) })
	out = slices.CompactFunc(out, func(a, b Close) bool { return a.Date.Equal(b.Date) })
	return out, nil
}

func (p *MetalsDev) series(ctx context.Context, m metals.Metal, start, end time.Time) ([]Close, error) {
	q := url.Values{"api_key": {p.key}, "start_date": {start.Format(time.DateOnly)}, "end_date": {end.Format(time.DateOnly)}}
	body, status, err := get(ctx, p.client, p.base+"/v1/timeseries?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	return decodeMetalsDevSeries(m, status, body, start, end)
}

// decodeMetalsDevSeries judges a metals.dev timeseries answer, keeping m's
// closes dated within start..end, unordered.
func decodeMetalsDevSeries(m metals.Metal, status int, body []byte, start, end time.Time) ([]Close, error) {
	var b metalsDevSeries
	derr := decodeJSON(body, &b)
	if err := b.check(status, derr); err != nil {
		return nil, err
	}
	if b.Currency != "" && b.Currency != "USD" {
		return nil, fmt.Errorf("%w: currency %q, want USD", ErrBadResponse, clip(b.Currency))
	}
	if b.Unit != "" && b.Unit != "toz" {
		return nil, fmt.Errorf("%w: unit %q, want toz", ErrBadResponse, clip(b.Unit))
	}
	var out []Close
	for day, r := range b.Rates {
		d, err := time.Parse(time.DateOnly, day)
		if err != nil {
			return nil, fmt.Errorf("%w: rate date %q", ErrBadResponse, clip(day))
		}
		if d.Before(start) || d.After(end) {
			continue // outside what we asked for; not ours to keep
		}
		n, ok := r.Metals[string(m)]
		if !ok {
			continue
		}
		price, err := priceFrom(m, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", day, err)
		}
		out = append(out, Close{Date: d, Price: price})
	}
	return out, nil
}

// utcDate is the calendar date of t in UTC, at midnight.
func utcDate(t time.Time) time.Time {
	y, mo, d := t.UTC().Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
}
