package priceshttp

import (
	"bytes"
	"context"
	"net/http"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// The page's meta description (search results, link previews).
const marketsDescription = "Spot prices for gold, silver, platinum and palladium, each with its date and source, and charts of their price history."

// chartPoints is how many points the markets chart draws.
const chartPoints = 240

// TickerView formats the live board (from memory: it needs no request context).
func (h *Handlers) TickerView() pages.TickerView {
	snap := h.board(context.Background())
	v := pages.TickerView{Offline: h.Site.Offline, MarketsOpen: snap.MarketsOpen, AnyStale: snap.AnyStale(), AsOf: "never"}
	for _, m := range metals.All {
		c := pages.PriceCard{Metal: string(m), Title: m.Title(), Symbol: m.Symbol()}
		if sp, ok := snap.Prices[m]; ok {
			c.Known, c.Price, c.Stale, c.Source = true, format.PriceUSD(sp.Price), sp.Stale, sp.Source
			c.AsOf = format.DateTime(sp.AsOf)
			if at := sp.AsOf.UTC(); at.Hour() == 0 && at.Minute() == 0 {
				// A close carries a date, not a moment.
				c.AsOf = "close of " + format.Date(sp.AsOf)
			}
			if !sp.PrevClose.IsZero() {
				c.Change, c.ChangePct = format.SignedPriceUSD(sp.Change), format.SignedPct(sp.ChangePct)
				c.Up, c.Down = sp.Change.IsPositive(), sp.Change.IsNegative()
				if !sp.ChangeIsToday() && !sp.PrevDate.IsZero() {
					c.ChangeSpan = format.Date(sp.Session) + " vs " + format.Date(sp.PrevDate) + " close"
				}
			}
		}
		v.Cards = append(v.Cards, c)
	}
	if r, ok := snap.GoldSilverRatio(); ok {
		v.Ratio = format.Number(r, 2)
		// The ratio divides two closes of different days only when it says which.
		if g, s := snap.Prices[metals.Gold], snap.Prices[metals.Silver]; !g.Session.Equal(s.Session) {
			v.Ratio += " (gold of " + format.Date(g.Session) + ", silver of " + format.Date(s.Session) + ")"
		}
	}
	if !snap.AsOf.IsZero() {
		v.AsOf = format.DateTime(snap.AsOf)
	}
	v.Live = len(snap.Prices) > 0 && !snap.AnyStale() && !h.Site.Offline
	if !v.Live {
		var dated []format.Dated
		for _, m := range metals.All {
			if sp, ok := snap.Prices[m]; ok {
				dated = append(dated, format.Dated{Name: strings.ToLower(m.Title()), At: sp.AsOf})
			}
		}
		if len(dated) > 0 {
			v.AsOf = format.DatedList(dated)
		}
	}
	return v
}

// chartView builds the history panel for a metal and range.
func (h *Handlers) chartView(ctx context.Context, metal, rng string) (pages.ChartView, error) {
	q, err := historyQuery(metal, rng, "")
	if err != nil {
		return pages.ChartView{}, err
	}
	m, r := q.Metal, q.Range
	v := pages.ChartView{Metal: string(m), Range: string(r), Metals: metals.Names()}
	for _, x := range prices.Ranges {
		v.Ranges = append(v.Ranges, string(x))
	}
	v.Chart = components.Chart{ID: "chart-" + string(m), Title: m.Title() + " price, " + string(r), YPrefix: "$"}
	if h.market == nil {
		return v, nil
	}
	q.MaxPoints = chartPoints
	res, err := h.market.PriceHistory(ctx, q)
	if err != nil {
		return v, err
	}
	series := components.ChartSeries{Name: m.Title(), Class: "stroke-amber-600 dark:stroke-amber-400"}
	for _, p := range res.Points {
		// Floats only place the line; the label keeps the exact value.
		series.Points = append(series.Points, components.ChartPoint{X: format.ISODate(p.Date), Y: p.Price.InexactFloat64(), Label: format.PriceUSD(p.Price) + pointSource(p.Source)})
	}
	v.Chart.Series = []components.ChartSeries{series}
	v.Granularity = res.Granularity
	if res.Stale {
		v.Through, v.Anchored = format.Date(res.Through), true
		v.Chart.Title += " to " + v.Through
	}
	if hi, lo, ok := res.Extremes(); ok {
		v.From, v.To = format.Date(res.From), format.Date(res.To)
		v.High, v.HighDate, v.Low, v.LowDate = format.PriceUSD(hi.Price), format.Date(hi.Date), format.PriceUSD(lo.Price), format.Date(lo.Date)
		v.Chart.Description = m.Title() + " in US dollars per troy ounce from " + v.From + " to " + v.To + "; high " + v.High + " on " + v.HighDate + ", low " + v.Low + " on " + v.LowDate + "."
	}
	return v, nil
}

// MarketsView is the markets page for ?metal= (default gold) and ?range= (default 1Y).
func (h *Handlers) MarketsView(c *fiber.Ctx, hero bool) (pages.MarketsView, error) {
	cv, err := h.chartView(h.Ctx(c), c.Query("metal", "gold"), c.Query("range", "1Y"))
	if err != nil {
		return pages.MarketsView{}, err
	}
	v := pages.MarketsView{Ticker: h.TickerView(), Chart: cv, Hero: hero}
	v.TickerKey = pages.TickerKey(v.Ticker)
	return v, nil
}

// MarketsPage is the live price board.
func (h *Handlers) MarketsPage(c *fiber.Ctx) error {
	v, err := h.MarketsView(c, false)
	if err != nil {
		return err
	}
	return kit.Render(c, http.StatusOK, pages.Markets(h.Meta(c, "Markets", "markets").Describe(marketsDescription), v))
}

// MarketsChart is the chart fragment for metal and range buttons.
func (h *Handlers) MarketsChart(c *fiber.Ctx) error {
	cv, err := h.chartView(h.Ctx(c), c.Query("metal", "gold"), c.Query("range", "1Y"))
	if err != nil {
		return err
	}
	full := pages.Markets(h.Meta(c, "Markets", "markets").Describe(marketsDescription), pages.MarketsView{Ticker: h.TickerView(), Chart: cv})
	return kit.Page(c, http.StatusOK, full, pages.HistoryChart(cv))
}

// PriceEvents streams the price ticker as server-sent events ("prices"), one per tick,
// with a comment every 25 s so proxies keep the connection open. It ends cleanly when the
// server shuts down. Every stream sends the same bytes, rendered once per tick.
func (h *Handlers) PriceEvents(c *fiber.Ctx) error {
	if h.market == nil {
		return apperr.UnavailableF("no price feed")
	}
	h.tickerOnce.Do(h.startTicker)
	h.ticker.Serve(c)
	return nil
}

// startTicker follows the price feed with one subscription and publishes each board,
// rendered once, to every stream.
func (h *Handlers) startTicker() {
	h.ticker = kit.NewBroadcast(h.Done)
	updates, stop := h.market.Subscribe()
	go func() {
		defer stop()
		// The stream outlives any request, so it renders with its own context.
		ctx := context.Background()
		var buf bytes.Buffer
		for {
			select {
			case <-h.Done:
				return
			case _, ok := <-updates:
				if !ok {
					return
				}
				buf.Reset()
				if err := pages.PriceTicker(h.TickerView()).Render(ctx, &buf); err != nil {
					h.Log.Error("rendering the price ticker", "err", err)
					continue
				}
				h.ticker.PublishKeyed([]byte(kit.SSEEvent("prices", buf.String())), pages.ContentKey(buf.Bytes()))
			}
		}
	}()
}

// pointSource names a chart point's series in its label, so the chart credits the data it
// draws (the World Bank's licence asks for attribution).
func pointSource(src string) string {
	switch {
	case src == "":
		return ""
	case src == prices.OpenHistorySource:
		return " · " + prices.OpenHistoryAttribution
	}
	return " · " + src
}
