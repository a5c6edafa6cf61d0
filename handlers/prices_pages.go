package handlers

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/pages"
)

// pricePages are the markets and calculator pages.
func (h *Handlers) pricePages() []PageRoute {
	return []PageRoute{
		{"GET", "/markets", h.MarketsPage, AuthNone},
		{"GET", "/markets/chart", h.MarketsChart, AuthNone},
		{"GET", "/events/prices", h.PriceEvents, AuthNone},
		{"GET", "/calculators/junk-silver", h.JunkSilverPage, AuthNone},
		{"GET", "/calculators/junk-silver/result", h.JunkSilverResult, AuthNone},
		{"GET", "/calculators/what-if", h.WhatIfPage, AuthNone},
		{"GET", "/calculators/what-if/result", h.WhatIfResult, AuthNone},
	}
}

func signedChange(d decimal.Decimal, money bool) string {
	if money {
		s := usd(d.Abs())
		if d.IsNegative() {
			return "−" + s
		}
		return "+" + s
	}
	s := d.Abs().StringFixed(2) + "%"
	if d.IsNegative() {
		return "−" + s
	}
	return "+" + s
}

// tickerView formats the live board.
func (h *Handlers) tickerView() pages.TickerView {
	v := pages.TickerView{Offline: h.cfg.Offline, MarketsOpen: prices.MarketsOpen(h.now())}
	var snap prices.Snapshot
	if h.market != nil {
		snap = h.market.Snapshot()
		v.MarketsOpen = snap.MarketsOpen
	}
	for _, m := range metals.All {
		c := pages.PriceCard{Metal: string(m), Title: m.Title(), Symbol: m.Symbol()}
		if sp, ok := snap.Prices[m]; ok {
			c.Known, c.Price, c.Stale, c.Source = true, usd(sp.Price), sp.Stale, sp.Source
			c.AsOf = sp.AsOf.UTC().Format("2 Jan 2006 15:04 MST")
			if sp.AsOf.UTC().Hour() == 0 && sp.AsOf.Minute() == 0 {
				c.AsOf = "close of " + sp.AsOf.UTC().Format("2 Jan 2006")
			}
			if !sp.PrevClose.IsZero() {
				c.Change, c.ChangePct = signedChange(sp.Change, true), signedChange(sp.ChangePct, false)
				c.Up, c.Down = sp.Change.IsPositive(), sp.Change.IsNegative()
			}
			v.AnyStale = v.AnyStale || sp.Stale
		}
		v.Cards = append(v.Cards, c)
	}
	g, okG := snap.Prices[metals.Gold]
	s, okS := snap.Prices[metals.Silver]
	if okG && okS && s.Price.IsPositive() {
		v.Ratio = g.Price.Div(s.Price).StringFixed(2)
	}
	v.AsOf = "never"
	if !snap.AsOf.IsZero() {
		v.AsOf = snap.AsOf.UTC().Format("2 Jan 2006 15:04 MST")
	}
	return v
}

// chartView builds the history panel for a metal and range.
func (h *Handlers) chartView(metal, rng string) (pages.ChartView, error) {
	m, r, _, err := historyParams(metal, rng, "")
	if err != nil {
		return pages.ChartView{}, err
	}
	v := pages.ChartView{Metal: string(m), Range: string(r), Metals: metals.Names()}
	for _, x := range prices.Ranges {
		v.Ranges = append(v.Ranges, string(x))
	}
	v.Chart = components.Chart{ID: "chart-" + string(m), Title: m.Title() + " price, " + string(r), YPrefix: "$"}
	if h.market == nil {
		return v, nil
	}
	res := h.market.History(m, r, 240)
	series := components.ChartSeries{Name: m.Title(), Class: "stroke-amber-600 dark:stroke-amber-400"}
	var hi, lo *prices.Close
	for i := range res.Points {
		p := res.Points[i]
		f, _ := p.Price.Float64() // drawing only: the label keeps the exact value
		series.Points = append(series.Points, components.ChartPoint{X: p.Date.Format("2006-01-02"), Y: f, Label: usd(p.Price)})
		if hi == nil || p.Price.GreaterThan(hi.Price) {
			hi = &res.Points[i]
		}
		if lo == nil || p.Price.LessThan(lo.Price) {
			lo = &res.Points[i]
		}
	}
	v.Chart.Series = []components.ChartSeries{series}
	v.Granularity = res.Granularity
	if len(res.Points) > 0 {
		v.From, v.To = res.From.Format("2 Jan 2006"), res.To.Format("2 Jan 2006")
		v.High, v.HighDate, v.Low, v.LowDate = usd(hi.Price), hi.Date.Format("2006-01-02"), usd(lo.Price), lo.Date.Format("2006-01-02")
		v.Chart.Description = m.Title() + " in US dollars per troy ounce from " + v.From + " to " + v.To + "; high " + v.High + " on " + v.HighDate + ", low " + v.Low + " on " + v.LowDate + "."
	}
	return v, nil
}

func (h *Handlers) marketsView(c *fiber.Ctx, hero bool) (pages.MarketsView, error) {
	metal := c.Query("metal", "gold")
	rng := c.Query("range", "1Y")
	cv, err := h.chartView(metal, rng)
	if err != nil {
		return pages.MarketsView{}, err
	}
	return pages.MarketsView{Ticker: h.tickerView(), Chart: cv, Hero: hero}, nil
}

// MarketsPage is the live price board.
func (h *Handlers) MarketsPage(c *fiber.Ctx) error {
	v, err := h.marketsView(c, false)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.Markets(h.meta(c, "Markets", "markets"), v))
}

// MarketsChart is the chart fragment for metal and range buttons.
func (h *Handlers) MarketsChart(c *fiber.Ctx) error {
	cv, err := h.chartView(c.Query("metal", "gold"), c.Query("range", "1Y"))
	if err != nil {
		return err
	}
	return page(c, http.StatusOK, pages.Markets(h.meta(c, "Markets", "markets"), pages.MarketsView{Ticker: h.tickerView(), Chart: cv}), pages.HistoryChart(cv))
}

// PriceEvents streams the price ticker as server-sent events ("prices"), one per tick,
// with a comment every 15 s so proxies keep the connection open.
func (h *Handlers) PriceEvents(c *fiber.Ctx) error {
	if h.market == nil {
		return NewProblem(http.StatusServiceUnavailable, ProbUnavailable, "no price feed")
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	updates, stop := h.market.Subscribe()
	done := h.done
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer stop()
		send := func() bool {
			var buf bytes.Buffer
			if err := pages.PriceTicker(h.tickerView()).Render(context.Background(), &buf); err != nil {
				return false
			}
			w.WriteString("event: prices\n")
			for _, line := range strings.Split(buf.String(), "\n") {
				w.WriteString("data: " + line + "\n")
			}
			w.WriteString("\n")
			return w.Flush() == nil
		}
		// Subscribe hands over the current board first, so the stream starts with it.
		beat := time.NewTicker(15 * time.Second)
		defer beat.Stop()
		for {
			select {
			case <-done:
				return
			case _, ok := <-updates:
				if !ok || !send() {
					return
				}
			case <-beat.C:
				if _, err := w.WriteString(": keep-alive\n\n"); err != nil || w.Flush() != nil {
					return
				}
			}
		}
	})
	return nil
}

func (h *Handlers) junkView(q func(string) string) pages.JunkSilverView {
	counts := map[string]string{}
	v := pages.JunkSilverView{Basis: q("basis")}
	for _, coin := range metals.Coins {
		counts[coin.Param] = q(coin.Param)
		v.Coins = append(v.Coins, pages.CoinInput{Param: coin.Param, Label: coinLabel(coin.Param), Value: q(coin.Param), OzPerCoin: coin.SilverOz.String()})
	}
	res, err := h.JunkSilver(context.Background(), counts, q("basis"))
	if err != nil {
		p := AsProblem(err)
		v.Result.Error = capitalize(p.Detail) + "."
		for _, fe := range p.Errors {
			for i := range v.Coins {
				if v.Coins[i].Param == fe.Field {
					v.Coins[i].Error = capitalize(fe.Message) + "."
				}
			}
		}
		return v
	}
	r := pages.JunkResultView{Face: usd(res.TotalFaceValue.D), Oz: res.TotalSilverOz.String(), Melt: usd(res.TotalMeltValue.D), PerFace: usd(res.MeltPerFaceDollar.D),
		Spot: usd(res.Spot.Price.D), SpotAsOf: res.Spot.AsOf.Format("2 Jan 2006 15:04 MST"), Stale: res.Spot.Stale}
	for _, c := range res.Coins {
		r.Rows = append(r.Rows, pages.JunkRow{Label: coinLabel(c.Type), Quantity: decimal.NewFromInt(c.Quantity).String(), Face: usd(c.FaceValue.D), Oz: c.SilverOz.String(), Melt: usd(c.MeltValue.D)})
	}
	v.Result = r
	return v
}

func coinLabel(param string) string {
	switch param {
	case "dimes":
		return "Dimes (90%)"
	case "quarters":
		return "Quarters (90%)"
	case "half_dollars":
		return "Half dollars (90%)"
	case "kennedy_40":
		return "Kennedy halves (40%)"
	case "dollars":
		return "Morgan/Peace dollars"
	case "war_nickels":
		return "War nickels (35%)"
	}
	return param
}

// JunkSilverPage is the junk-silver calculator.
func (h *Handlers) JunkSilverPage(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.JunkSilver(h.meta(c, "Junk silver calculator", "calculators"), h.junkView(func(k string) string { return c.Query(k) })))
}

// JunkSilverResult is the result fragment, recomputed as the user types.
func (h *Handlers) JunkSilverResult(c *fiber.Ctx) error {
	v := h.junkView(func(k string) string { return c.Query(k) })
	return page(c, http.StatusOK, pages.JunkSilver(h.meta(c, "Junk silver calculator", "calculators"), v), pages.JunkResult(v.Result))
}

func (h *Handlers) whatIfView(c *fiber.Ctx) pages.WhatIfView {
	targets := map[string]string{}
	for _, m := range metals.All {
		targets[string(m)] = c.Query(string(m))
	}
	u, signedIn := UserFrom(c)
	var up *db.User
	if signedIn {
		up = &u
	}
	v := pages.WhatIfView{SignedIn: signedIn}
	for _, sc := range scenarioMultiples {
		q := url.Values{}
		if h.market != nil {
			snap := h.market.Snapshot()
			for _, m := range metals.All {
				if sp, ok := snap.Prices[m]; ok {
					q.Set(string(m), sp.Price.Mul(sc.Multiple).Round(2).String())
				}
			}
		}
		v.Scenarios = append(v.Scenarios, pages.WhatIfScenario{Name: sc.Name, Label: sc.Label, Query: q.Encode()})
	}
	res, err := h.Speculation(h.ctx(c), targets, up)
	errs := map[string]string{}
	if err != nil {
		p := AsProblem(err)
		v.Result.Error = capitalize(p.Detail) + "."
		for _, fe := range p.Errors {
			errs[fe.Field] = capitalize(fe.Message) + "."
		}
	}
	for _, m := range metals.All {
		row := pages.WhatIfRow{Metal: string(m), Title: m.Title(), TargetInput: targets[string(m)], Error: errs[string(m)]}
		if err == nil {
			row.Current, row.Target = usd(res.Current[string(m)].D), usd(res.Targets[string(m)].D)
			row.Multiplier = res.Multipliers[string(m)].D.StringFixed(2) + "×"
			if res.Portfolio != nil {
				l := res.Portfolio.Metals[string(m)]
				row.Oz, row.CurrentValue, row.ProjectedValue = l.Oz.String(), usd(l.CurrentValue.D), usd(l.ProjectedValue.D)
			}
		} else if h.market != nil {
			if sp, ok := h.market.Snapshot().Prices[m]; ok {
				row.Current = usd(sp.Price)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	if err == nil {
		v.Result.Rows, v.Result.Stale = v.Rows, res.Stale
		if res.Portfolio != nil {
			p := res.Portfolio
			v.Result.HasPortfolio = true
			v.Result.CurrentValue, v.Result.ProjectedValue = usd(p.CurrentValue.D), usd(p.ProjectedValue.D)
			v.Result.Gain, v.Result.GainPct = signedChange(p.Gain.D, true), signedChange(p.GainPct.D, false)
		}
	}
	return v
}

// WhatIfPage is the what-if calculator.
func (h *Handlers) WhatIfPage(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.WhatIf(h.meta(c, "What-if calculator", "calculators"), h.whatIfView(c)))
}

// WhatIfResult is the projection fragment.
func (h *Handlers) WhatIfResult(c *fiber.Ctx) error {
	v := h.whatIfView(c)
	return page(c, http.StatusOK, pages.WhatIf(h.meta(c, "What-if calculator", "calculators"), v), pages.WhatIfResult(v.Result))
}
