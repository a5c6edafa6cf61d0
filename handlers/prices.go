package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// SpotJSON is one metal on the price board.
type SpotJSON struct {
	Metal     string    `json:"metal"`
	Symbol    string    `json:"symbol"`
	Price     Num       `json:"price"`
	PrevClose *Num      `json:"prev_close"`
	Change    *Num      `json:"change"`
	ChangePct *Num      `json:"change_pct"`
	AsOf      time.Time `json:"as_of"`
	Source    string    `json:"source"`
	Stale     bool      `json:"stale"`
}

// PricesJSON is the body of GET /v1/prices.
type PricesJSON struct {
	AsOf        *time.Time           `json:"as_of"`
	MarketsOpen bool                 `json:"markets_open"`
	Prices      map[string]*SpotJSON `json:"prices"`
}

// SpotPrices is the use case behind GET /v1/prices: the in-memory board, never the database.
func (h *Handlers) SpotPrices(context.Context) (PricesJSON, error) {
	out := PricesJSON{MarketsOpen: prices.MarketsOpen(h.now()), Prices: map[string]*SpotJSON{}}
	for _, m := range metals.All {
		out.Prices[string(m)] = nil
	}
	if h.market == nil {
		return out, nil
	}
	snap := h.market.Snapshot()
	out.MarketsOpen = snap.MarketsOpen
	if !snap.AsOf.IsZero() {
		t := snap.AsOf.UTC()
		out.AsOf = &t
	}
	for _, m := range metals.All {
		sp, ok := snap.Prices[m]
		if !ok {
			continue
		}
		j := &SpotJSON{Metal: string(m), Symbol: m.Symbol(), Price: money(sp.Price), AsOf: sp.AsOf.UTC(), Source: sp.Source, Stale: sp.Stale}
		if !sp.PrevClose.IsZero() {
			pc, ch, cp := money(sp.PrevClose), money(sp.Change), pct(sp.ChangePct)
			j.PrevClose, j.Change, j.ChangePct = &pc, &ch, &cp
		}
		out.Prices[string(m)] = j
	}
	return out, nil
}

// bodyCache keeps an encoded response and its ETag until its key changes, so hot read-only
// endpoints cost a comparison rather than an encoding.
type bodyCache struct {
	mu      sync.Mutex
	entries map[string]cachedBody
}

type cachedBody struct {
	key  string
	body []byte
	etag string
}

func (bc *bodyCache) get(slot, key string, build func() (any, error)) ([]byte, string, error) {
	bc.mu.Lock()
	e, ok := bc.entries[slot]
	bc.mu.Unlock()
	if ok && e.key == key {
		return e.body, e.etag, nil
	}
	v, err := build()
	if err != nil {
		return nil, "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(b)
	e = cachedBody{key: key, body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	bc.mu.Lock()
	if bc.entries == nil {
		bc.entries = map[string]cachedBody{}
	}
	bc.entries[slot] = e
	bc.mu.Unlock()
	return e.body, e.etag, nil
}

// sendCached writes a cached JSON body with validators, answering 304 when the client has it.
func sendCached(c *fiber.Ctx, body []byte, etag string, maxAge time.Duration) error {
	rh := &c.Response().Header
	rh.SetCanonical(hdrETag, []byte(etag))
	rh.SetCanonical(hdrCacheControl, []byte(cacheControl(maxAge)))
	if c.Get(fiber.HeaderIfNoneMatch) == etag {
		return c.SendStatus(http.StatusNotModified)
	}
	rh.SetContentTypeBytes(mimeJSON)
	return c.Send(body)
}

var (
	hdrETag         = []byte(fiber.HeaderETag)
	hdrCacheControl = []byte(fiber.HeaderCacheControl)
	mimeJSON        = []byte(fiber.MIMEApplicationJSONCharsetUTF8)
)

var cacheControls sync.Map // time.Duration → header value

func cacheControl(maxAge time.Duration) string {
	if v, ok := cacheControls.Load(maxAge); ok {
		return v.(string)
	}
	v := "public, max-age=" + strconv.Itoa(int(maxAge.Seconds()))
	cacheControls.Store(maxAge, v)
	return v
}

// snapshotKey changes whenever anything shown by /v1/prices changes: the board's sequence
// number and whether COMEX is open.
func (h *Handlers) snapshotKey() string {
	if h.market == nil {
		return "none"
	}
	snap := h.market.Snapshot()
	k := strconv.FormatUint(snap.Seq, 36)
	if snap.MarketsOpen {
		return k + "o"
	}
	return k + "c"
}

func (h *Handlers) maxAge() time.Duration {
	if h.market == nil {
		return time.Minute
	}
	return h.market.Interval()
}

// APIPrices answers GET /v1/prices from memory, with an ETag.
func (h *Handlers) APIPrices(c *fiber.Ctx) error {
	body, etag, err := h.cache.get("prices", h.snapshotKey(), func() (any, error) { return h.SpotPrices(h.ctx(c)) })
	if err != nil {
		return err
	}
	return sendCached(c, body, etag, h.maxAge())
}

// HistoryJSON is the body of GET /v1/prices/history.
type HistoryJSON struct {
	Metal       string      `json:"metal"`
	Range       string      `json:"range"`
	Unit        string      `json:"unit"`
	From        *string     `json:"from"`
	To          *string     `json:"to"`
	Granularity string      `json:"granularity"`
	Count       int         `json:"count"`
	Points      []PointJSON `json:"points"`
}

// PointJSON is one dated price.
type PointJSON struct {
	Date  string `json:"date"`
	Price Num    `json:"price"`
}

// historyParams validates the history query.
func historyParams(metal, rng, maxPoints string) (metals.Metal, prices.Range, int, error) {
	if metal == "" {
		return "", "", 0, Invalid("metal", "is required: one of gold, silver, platinum, palladium")
	}
	m := metals.Metal(metal)
	if !m.Valid() {
		return "", "", 0, Invalid("metal", "must be one of gold, silver, platinum, palladium")
	}
	r, err := parseRangeParam(rng)
	if err != nil {
		return "", "", 0, err
	}
	n := prices.DefaultMaxPoints
	if maxPoints != "" {
		n, err = strconv.Atoi(maxPoints)
		if err != nil || n < 2 || n > 10000 {
			return "", "", 0, Invalid("max_points", "must be an integer between 2 and 10000")
		}
	}
	return m, r, n, nil
}

// PriceHistory is the use case behind GET /v1/prices/history.
func (h *Handlers) PriceHistory(_ context.Context, metal, rng, maxPoints string) (HistoryJSON, error) {
	m, r, n, err := historyParams(metal, rng, maxPoints)
	if err != nil {
		return HistoryJSON{}, err
	}
	if h.market == nil {
		return HistoryJSON{}, NewProblem(http.StatusServiceUnavailable, ProbUnavailable, "price history is not loaded")
	}
	res := h.market.History(m, r, n)
	out := HistoryJSON{Metal: string(m), Range: string(r), Unit: "USD/oz", Granularity: res.Granularity, Count: len(res.Points), Points: make([]PointJSON, len(res.Points))}
	if len(res.Points) > 0 {
		f, t := res.From.Format("2006-01-02"), res.To.Format("2006-01-02")
		out.From, out.To = &f, &t
	}
	for i, p := range res.Points {
		out.Points[i] = PointJSON{Date: p.Date.Format("2006-01-02"), Price: money(p.Price)}
	}
	return out, nil
}

// APIPriceHistory answers GET /v1/prices/history; the default size is cached per metal and range.
func (h *Handlers) APIPriceHistory(c *fiber.Ctx) error {
	metal, rng, mp := c.Query("metal"), c.Query("range"), c.Query("max_points")
	m, r, n, err := historyParams(metal, rng, mp)
	if err != nil {
		return err
	}
	if h.market == nil {
		return NewProblem(http.StatusServiceUnavailable, ProbUnavailable, "price history is not loaded")
	}
	key := strconv.FormatUint(h.market.Generation(), 10) + "/" + h.now().UTC().Format("2006-01-02")
	slot := "history/" + string(m) + "/" + string(r) + "/" + strconv.Itoa(n)
	if n != prices.DefaultMaxPoints {
		slot = "history/custom"
		key += "/" + string(m) + string(r) + strconv.Itoa(n)
	}
	body, etag, err := h.cache.get(slot, key, func() (any, error) { return h.PriceHistory(h.ctx(c), string(m), string(r), strconv.Itoa(n)) })
	if err != nil {
		return err
	}
	return sendCached(c, body, etag, h.maxAge())
}

// metalProps lists one property per metal with the same schema.
func metalProps(s Schema) Schema {
	p := Schema{}
	for _, m := range metals.All {
		p[string(m)] = s
	}
	return p
}

func (h *Handlers) pricesRoutes() []APIRoute {
	num := Schema{"type": "number"}
	nnum := Schema{"type": "number", "nullable": true}
	spot := Schema{"type": "object", "nullable": true, "required": []string{"metal", "symbol", "price", "prev_close", "change", "change_pct", "as_of", "source", "stale"},
		"properties": Schema{
			"metal": metalSchema(), "symbol": Schema{"type": "string", "enum": []string{"XAU", "XAG", "XPT", "XPD"}},
			"price": num, "prev_close": nnum, "change": nnum, "change_pct": nnum,
			"as_of": Schema{"type": "string", "format": "date-time"}, "source": Schema{"type": "string"},
			"stale": Schema{"type": "boolean", "description": "true when the price is last-known rather than live"},
		}}
	return []APIRoute{
		{Method: "GET", Path: "/v1/prices", Handler: h.APIPrices, OperationID: "getSpotPrices", Tag: "Market data",
			Summary:     "Spot prices of gold, silver, platinum and palladium with the day's change",
			Description: "Served from memory. prev_close is the last price of the previous COMEX session (New York time). When no provider is reachable the last stored price is served with stale=true and its as_of.",
			Responses: []Response{{Status: 200, Description: "The price board.", Schema: Schema{"type": "object", "required": []string{"as_of", "markets_open", "prices"}, "properties": Schema{
				"as_of": Schema{"type": "string", "format": "date-time", "nullable": true}, "markets_open": Schema{"type": "boolean"},
				"prices": Schema{"type": "object", "required": metals.Names(), "properties": metalProps(spot)},
			}}}},
			Example: "GET /v1/prices"},
		{Method: "GET", Path: "/v1/prices/history", Handler: h.APIPriceHistory, OperationID: "getPriceHistory", Tag: "Market data",
			Summary:     "Daily closes of one metal over a range, downsampled so peaks survive",
			Description: "ALL uses daily closes where they exist and monthly averages before (gold back to 1950). Downsampling is Largest-Triangle-Three-Buckets.",
			Params: []Param{
				{Name: "metal", In: "query", Required: true, Description: "The metal.", Schema: metalSchema()},
				{Name: "range", In: "query", Description: "How far back from today.", Schema: Schema{"type": "string", "enum": []string{"1M", "3M", "6M", "1Y", "5Y", "ALL"}, "default": "1Y"}},
				{Name: "max_points", In: "query", Description: "At most this many points.", Schema: Schema{"type": "integer", "minimum": 2, "maximum": 10000, "default": 1000}},
			},
			Responses: []Response{{Status: 200, Description: "The series, oldest first.", Schema: Schema{"type": "object", "required": []string{"metal", "range", "unit", "from", "to", "granularity", "count", "points"}, "properties": Schema{
				"metal": metalSchema(), "range": Schema{"type": "string"}, "unit": Schema{"type": "string", "enum": []string{"USD/oz"}},
				"from": Schema{"type": "string", "format": "date", "nullable": true}, "to": Schema{"type": "string", "format": "date", "nullable": true},
				"granularity": Schema{"type": "string", "enum": []string{"daily", "monthly+daily"}}, "count": Schema{"type": "integer"},
				"points": Schema{"type": "array", "items": Schema{"type": "object", "required": []string{"date", "price"}, "properties": Schema{"date": Schema{"type": "string", "format": "date"}, "price": num}}},
			}}}},
			Example: "GET /v1/prices/history?metal=gold&range=5Y&max_points=200"},
	}
}

// parseRangeParam reads a history range exactly as documented (1M 3M 6M 1Y 5Y ALL; empty is
// the default), the way every /v1 enum is read.
func parseRangeParam(rng string) (prices.Range, error) {
	if rng == "" {
		return prices.DefaultRange, nil
	}
	for _, r := range prices.Ranges {
		if string(r) == rng {
			return r, nil
		}
	}
	return "", Invalid("range", "must be one of 1M, 3M, 6M, 1Y, 5Y, ALL")
}
