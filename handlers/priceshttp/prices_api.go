package priceshttp

import (
	"context"
	"strconv"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/quote"
	"github.com/shopspring/decimal"
)

// SpotJSON is one metal on the price board.
type SpotJSON struct {
	Metal     string    `json:"metal" schema:"enum=metals"`
	Symbol    string    `json:"symbol" schema:"enum=XAU|XAG|XPT|XPD"`
	Price     kit.Num   `json:"price" doc:"USD per troy ounce (or the answer's currency per its unit) at its source's precision: at least 2 and at most 4 decimals (LBMA silver 63.935 is served as 63.935); whole units in a currency without minor units (JPY, KRW, ISK)."`
	PrevClose *kit.Num  `json:"prev_close" doc:"USD per troy ounce at source precision (up to 4 decimals); change_pct is percent, 2 decimals."`
	Change    *kit.Num  `json:"change" doc:"USD per troy ounce at source precision (up to 4 decimals); change_pct is percent, 2 decimals."`
	ChangePct *kit.Num  `json:"change_pct" doc:"USD per troy ounce at source precision (up to 4 decimals); change_pct is percent, 2 decimals."`
	AsOf      time.Time `json:"as_of"`
	Source    string    `json:"source"`
	Stale     bool      `json:"stale" doc:"true when the price is last-known rather than live"`
	// ChangeFrom is the date of prev_close and ChangeAsOf the trading day of price: change
	// spans them. ChangeToday is true only for a live price whose previous close is the
	// preceding trading session; ChangeNote says otherwise why the change is not today's.
	ChangeFrom  *string `json:"change_from" schema:"format=date" doc:"Trading day whose close prev_close is; change runs from it to change_as_of. Null without a previous close."`
	ChangeAsOf  *string `json:"change_as_of" schema:"format=date" doc:"Trading day of price, the end of change. Null without a previous close."`
	ChangeToday bool    `json:"change_today" doc:"true only when the price is live and change_from is the trading session before change_as_of: only then is change today's move."`
	ChangeNote  *string `json:"change_note" doc:"Why change is not today's, naming its dates (a stale price, or a previous close older than the preceding session); null when change_today."`
}

// PricesJSON is the body of GET /v1/prices.
type PricesJSON struct {
	AsOf        *time.Time           `json:"as_of"`
	MarketsOpen bool                 `json:"markets_open"`
	Prices      map[string]*SpotJSON `json:"prices" schema:"permetal"`
	kit.QuoteJSON
}

// board is the live price board; without a price service, an empty one that still says
// whether COMEX is open.
func (h *Handlers) board(ctx context.Context) prices.Snapshot {
	if h.market == nil {
		return prices.Snapshot{MarketsOpen: prices.MarketsOpen(h.Now())}
	}
	return h.market.SpotPrices(ctx)
}

// pricesJSON renders the board: every metal present, null when never priced.
func pricesJSON(snap prices.Snapshot, t quote.Target) PricesJSON {
	out := PricesJSON{MarketsOpen: snap.MarketsOpen, Prices: map[string]*SpotJSON{}, QuoteJSON: kit.QuoteOf(t), AsOf: kit.AsOfOrNull(snap.AsOf)}
	for _, m := range metals.All {
		sp, ok := snap.Prices[m]
		if !ok {
			out.Prices[string(m)] = nil
			continue
		}
		j := &SpotJSON{Metal: string(m), Symbol: m.Symbol(), Price: kit.PriceIn(t.Price(sp.Price), t.Currency), AsOf: sp.AsOf.UTC(), Source: sp.Source, Stale: sp.Stale}
		if !sp.PrevClose.IsZero() {
			// Today's rate converts both ends, so change_pct is the metal's move, not the currency's.
			pc, ch, cp := kit.PriceIn(t.Price(sp.PrevClose), t.Currency), kit.PriceIn(t.Price(sp.Change), t.Currency), kit.Pct(sp.ChangePct)
			j.PrevClose, j.Change, j.ChangePct = &pc, &ch, &cp
			j.ChangeFrom, j.ChangeAsOf = kit.DayOrNull(sp.PrevDate), kit.DayOrNull(sp.Session)
		}
		j.ChangeToday = sp.ChangeIsToday()
		if note := prices.ChangeNote(sp); note != "" {
			j.ChangeNote = &note
		}
		out.Prices[string(m)] = j
	}
	return out
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

// maxAge is how long clients may cache prices: one poll interval.
func (h *Handlers) maxAge() time.Duration {
	if h.market == nil {
		return time.Minute
	}
	return h.market.Interval()
}

// APIPrices answers GET /v1/prices from memory, with an ETag.
func (h *Handlers) APIPrices(c *fiber.Ctx) error {
	t, err := kit.QuoteFor(c, h.quotes, true)
	if err != nil {
		return err
	}
	slot, key := "prices", h.snapshotKey()
	if t.Named {
		// One slot per currency and unit; the rate's day is part of the key.
		slot = "prices/" + t.Currency + "/" + string(t.Unit)
		key += "/" + t.RateDate.Format(time.DateOnly) + "/" + t.PerUSD.String()
	}
	body, etag, err := h.Cache.Get(slot, key, func() (any, error) { return pricesJSON(h.board(h.Ctx(c)), t), nil })
	if err != nil {
		return err
	}
	return kit.SendQuoted(c, t, body, etag, h.maxAge())
}

// HistoryJSON is the body of GET /v1/prices/history.
type HistoryJSON struct {
	Metal       string      `json:"metal" schema:"enum=metals"`
	Range       string      `json:"range"`
	Unit        string      `json:"unit" schema:"pattern=^[A-Z]{3}/(oz|g|kg|tola)$" doc:"Currency and weight unit of every price: USD/oz unless the currency or unit parameter (or your settings) say otherwise, e.g. EUR/g."`
	From        *string     `json:"from" schema:"format=date"`
	To          *string     `json:"to" schema:"format=date"`
	Granularity string      `json:"granularity" schema:"enum=daily|monthly+daily"`
	Count       int         `json:"count"`
	Points      []PointJSON `json:"points"`
	// Start is the first calendar day of the window (null for ALL); From is the first close
	// on or after it. Through is the date of the newest close; Stale says the data ends
	// before today, so every range counts back from Through.
	Start   *string `json:"start" schema:"format=date" doc:"First calendar day of the window; from is the first close on or after it (2026-02-28, a Saturday, gives from 2026-03-02). Null for ALL."`
	Through *string `json:"through" schema:"format=date" doc:"Date of the metal's newest daily close: the data ends here. Null when there is none."`
	Stale   bool    `json:"stale" doc:"true when the newest close (through) is before today: every range then counts back from through instead of today (1M is the month up to through), so the ranges stay nested and the series is never silently empty."`
	// Currency is always named; each close converts at its own day's rate.
	Currency   string  `json:"currency,omitempty" doc:"ISO 4217 code of every price: each close converted at its own day's exchange rate (the last published on or before it). Always present (USD too). Prices keep their source's precision (2 to 4 decimals), whole units in a currency without minor units (JPY, KRW, ISK)."`
	FXRateDate *string `json:"fx_rate_date,omitempty" schema:"format=date" doc:"Day of today's exchange rate into currency; absent for USD."`
	FXStale    *bool   `json:"fx_stale,omitempty" doc:"Today's exchange rate is old (offline, or the ECB file unreachable): the newest closes convert at the rate of fx_rate_date. Absent for USD."`
}

// PointJSON is one dated price.
type PointJSON struct {
	Date  string  `json:"date" schema:"format=date"`
	Price kit.Num `json:"price" doc:"USD per troy ounce at its source's precision: at least 2 and at most 4 decimals (LBMA silver 63.935 is served as 63.935)."`
	// Source names the series of the point (its terms: README, "Price history and its terms").
	Source string `json:"source" doc:"The series the point belongs to, as stored with it: an embedded series (\"LBMA Gold Price PM (embedded history)\", \"World Bank Pink Sheet monthly average, CC BY 4.0 (open history)\"), a provider's recording (\"live:gold-api\"), or an import (\"import:FILE\"). Its terms of use: README, \"Price history and its terms\"."`
}

// historyJSON renders a series.
func historyJSON(res prices.HistoryResult, t quote.Target, perUSD func(time.Time) (decimal.Decimal, error)) (HistoryJSON, error) {
	out := HistoryJSON{Metal: string(res.Metal), Range: string(res.Range), Unit: "USD/oz", Granularity: res.Granularity, Count: len(res.Points), Points: make([]PointJSON, len(res.Points)),
		Start: kit.DayOrNull(res.Start), Through: kit.DayOrNull(res.Through), Stale: res.Stale}
	if len(res.Points) > 0 {
		f, t := res.From.Format(time.DateOnly), res.To.Format(time.DateOnly)
		out.From, out.To = &f, &t
	}
	// Every history names its currency; the rate's day only when it is not the dollar.
	q := kit.QuoteOf(t)
	out.Unit, out.Currency, out.FXRateDate, out.FXStale = q.Currency+"/"+q.Unit, q.Currency, q.FXRateDate, q.FXStale
	for i, p := range res.Points {
		price := p.Price
		if !t.IsUSDOunce() {
			f, err := perUSD(p.Date)
			if err != nil {
				return HistoryJSON{}, err
			}
			price = t.PriceAt(p.Price, f)
		}
		out.Points[i] = PointJSON{Date: p.Date.Format(time.DateOnly), Price: kit.PriceIn(price, t.Currency), Source: p.Source}
	}
	return out, nil
}

// historyQuery reads the history parameters as typed: metal and range exactly as documented,
// max_points through the one integer parser.
func historyQuery(metal, rng, maxPoints string) (prices.HistoryQuery, error) {
	q, err := prices.HistoryQuery{Metal: metals.Metal(metal), Range: prices.Range(rng)}.Check()
	if err != nil {
		return q, err
	}
	q.MaxPoints, err = kit.ParseIntParam("max_points", maxPoints, prices.DefaultMaxPoints, prices.MinHistoryPoints, prices.MaxHistoryPoints)
	return q, err
}

// priceHistory parses, asks the price service and renders: GET /v1/prices/history and the
// get_price_history tool.
func (h *Handlers) priceHistory(ctx context.Context, metal, rng, maxPoints string, t quote.Target) (HistoryJSON, error) {
	q, err := historyQuery(metal, rng, maxPoints)
	if err != nil {
		return HistoryJSON{}, err
	}
	if h.market == nil {
		return HistoryJSON{}, apperr.UnavailableF("price history is not loaded")
	}
	res, err := h.market.PriceHistory(ctx, q)
	if err != nil {
		return HistoryJSON{}, err
	}
	return historyJSON(res, t, h.quotes.Daily(ctx, t).PerUSD)
}

// APIPriceHistory answers GET /v1/prices/history; the default size is cached per metal and range.
func (h *Handlers) APIPriceHistory(c *fiber.Ctx) error {
	q, err := historyQuery(c.Query("metal"), c.Query("range"), c.Query("max_points"))
	if err != nil {
		return err
	}
	t, err := kit.QuoteFor(c, h.quotes, true)
	if err != nil {
		return err
	}
	if h.market == nil {
		return apperr.UnavailableF("price history is not loaded")
	}
	m, r, n := string(q.Metal), string(q.Range), strconv.Itoa(q.MaxPoints)
	key := strconv.FormatUint(h.market.Generation(), 10) + "/" + h.Now().UTC().Format(time.DateOnly)
	slot := "history/" + m + "/" + r + "/" + n
	if q.MaxPoints != prices.DefaultMaxPoints {
		slot = "history/custom"
		key += "/" + m + r + n
	}
	if t.Named {
		slot = "history/quoted"
		key += "/" + m + r + n + "/" + t.Currency + "/" + string(t.Unit) + "/" + t.RateDate.Format(time.DateOnly) + "/" + t.PerUSD.String()
	}
	body, etag, err := h.Cache.Get(slot, key, func() (any, error) { return h.priceHistory(h.Ctx(c), m, r, n, t) })
	if err != nil {
		return err
	}
	return kit.SendQuoted(c, t, body, etag, h.maxAge())
}
