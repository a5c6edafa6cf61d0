// Package performancehttp adapts the performance service to HTTP: returns for any period
// under /v1/portfolio/performance, the MCP tool get_performance, and the dashboard's
// performance table fragment.
package performancehttp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/performance"
)

// Handlers are the area's adapters over its service.
type Handlers struct {
	*kit.Base
	// NoExtras answers nil for the component schemas (the routes inline theirs) and the tag
	// descriptions (the routes use the portfolio's tag).
	kit.NoExtras
	perf *performance.Service
}

// New builds the area's adapters.
func New(b *kit.Base, perf *performance.Service) *Handlers { return &Handlers{Base: b, perf: perf} }

var _ kit.Area = (*Handlers)(nil)

// FlowJSON is one day's money in or out.
type FlowJSON struct {
	Date   string  `json:"date" schema:"format=date"`
	Amount kit.Num `json:"amount" doc:"Purchases at cost, fees included (positive), or net sale proceeds (negative), in currency."`
	Kind   string  `json:"kind" schema:"enum=purchase|sale"`
}

// BenchmarkJSON is the same flows put into one metal.
type BenchmarkJSON struct {
	Metal    string   `json:"metal" schema:"enum=metals"`
	EndValue *kit.Num `json:"end_value" doc:"The start value and every flow put into (or taken out of) the metal at its day's close, held to the end."`
	Gain     *kit.Num `json:"gain" doc:"end_value − start_value − net_flows."`
	TWRPct   *kit.Num `json:"twr_pct" doc:"The metal's own price change over the period, percent."`
}

// PerformanceJSON is one period's performance.
type PerformanceJSON struct {
	Period         string        `json:"period" schema:"enum=Periods" doc:"The preset asked for, or custom for from/to."`
	From           string        `json:"from" schema:"format=date" doc:"First day of the period; start_value is the stack at the close before it."`
	To             string        `json:"to" schema:"format=date" doc:"Last day of the period."`
	Currency       string        `json:"currency" doc:"ISO 4217 code of every amount."`
	Metal          *string       `json:"metal" schema:"enum=metals" doc:"The one metal measured, null for the whole stack."`
	StartValue     *kit.Num      `json:"start_value"`
	EndValue       *kit.Num      `json:"end_value"`
	NetFlows       *kit.Num      `json:"net_flows" doc:"Purchases at cost (fees included) less net sale proceeds."`
	Gain           *kit.Num      `json:"gain" doc:"end_value − start_value − net_flows."`
	UnrealizedGain *kit.Num      `json:"unrealized_gain" doc:"The change in the unrealized profit or loss of what is held: gain − realized_gain."`
	RealizedGain   *kit.Num      `json:"realized_gain" doc:"Profit or loss of the period's sales against their cost basis."`
	TWRPct         *kit.Num      `json:"twr_pct" doc:"Time-weighted return, percent: each day's (value + proceeds) / (previous value + purchases), chain-linked."`
	MWRPct         *kit.Num      `json:"mwr_pct" doc:"Money-weighted return (XIRR, actual/365), percent: a rate per year when annualized, else the growth over the period."`
	Annualized     bool          `json:"annualized" doc:"true when the period is longer than 365 days and mwr_pct is per year."`
	OzStart        *kit.Num      `json:"oz_start" doc:"Fine troy ounces held at the start."`
	OzEnd          *kit.Num      `json:"oz_end" doc:"Fine troy ounces held at the end."`
	Benchmark      BenchmarkJSON `json:"benchmark"`
	RealTWRPct     *kit.Num      `json:"real_twr_pct" doc:"twr_pct after inflation: (1 + TWR) ÷ (CPI of the end month ÷ CPI of the start month) − 1."`
	CPISeries      *string       `json:"cpi_series" doc:"The consumer price index used; null for a currency without one."`
	Flows          []FlowJSON    `json:"flows" doc:"Money in and out per day of the period (empty in the summary)."`
	AsOf           *time.Time    `json:"as_of" doc:"When the end value's prices are of: the live board's time, or the date of the newest close used."`
	Stale          bool          `json:"stale" doc:"true when prices are not live for a period ending today, or the closes stop short of its end."`
	Notes          []string      `json:"notes" doc:"Why a figure is null, and what the answer leaves out."`
}

// SummaryJSON is every preset period.
type SummaryJSON struct {
	Periods []PerformanceJSON `json:"periods"`
}

func consts() kit.Consts {
	return kit.Consts{"Periods": append(append([]string{}, performance.Presets...), "custom")}
}

func schema(v any) kit.Schema { return kit.SchemaOf(v, consts()) }

func num(d *decimal.Decimal, f func(decimal.Decimal) kit.Num) *kit.Num { return kit.NumOrNull(d, f) }

func pct4(d decimal.Decimal) kit.Num { return kit.Num{D: d.Round(4), Places: 4} }

// ToJSON renders one period.
func ToJSON(r performance.Result) PerformanceJSON {
	out := PerformanceJSON{Period: r.Period, From: r.From.Format(time.DateOnly), To: r.To.Format(time.DateOnly), Currency: r.Currency,
		StartValue: num(r.StartValue, kit.Money), EndValue: num(r.EndValue, kit.Money), NetFlows: num(r.NetFlows, kit.Money),
		Gain: num(r.Gain, kit.Money), UnrealizedGain: num(r.UnrealizedGain, kit.Money), RealizedGain: num(r.RealizedGain, kit.Money),
		TWRPct: num(r.TWRPct, pct4), MWRPct: num(r.MWRPct, pct4), Annualized: r.Annualized,
		OzStart: num(r.OzStart, kit.Ounces), OzEnd: num(r.OzEnd, kit.Ounces),
		Benchmark: BenchmarkJSON{Metal: string(r.Benchmark.Metal), EndValue: num(r.Benchmark.EndValue, kit.Money),
			Gain: num(r.Benchmark.Gain, kit.Money), TWRPct: num(r.Benchmark.TWRPct, pct4)},
		RealTWRPct: num(r.RealTWRPct, pct4), Flows: make([]FlowJSON, len(r.Flows)), AsOf: kit.AsOfOrNull(r.AsOf), Stale: r.Stale, Notes: r.Notes}
	if r.Metal != "" {
		m := string(r.Metal)
		out.Metal = &m
	}
	if r.CPISeries != "" {
		out.CPISeries = &r.CPISeries
	}
	for i, f := range r.Flows {
		out.Flows[i] = FlowJSON{Date: f.Date.Format(time.DateOnly), Amount: kit.Money(f.Amount), Kind: f.Kind}
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out
}

func query(get func(string) string) performance.Query {
	// Copied: Fiber reuses the request's buffers.
	c := func(k string) string { return strings.Clone(get(k)) }
	return performance.Query{Period: c("period"), From: c("from"), To: c("to"), Metal: c("metal"), Benchmark: c("benchmark"), Currency: c("currency")}
}

// APIPerformance answers GET /v1/portfolio/performance.
func (h *Handlers) APIPerformance(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	r, err := h.perf.Performance(h.Ctx(c), u, query(func(k string) string { return c.Query(k) }))
	if err != nil {
		return err
	}
	return kit.PrivateJSON(c, http.StatusOK, ToJSON(r))
}

func (h *Handlers) summary(ctx context.Context, u account.User, metal, bench, currency string) (SummaryJSON, error) {
	rs, err := h.perf.SummaryIn(ctx, u, metal, bench, currency)
	if err != nil {
		return SummaryJSON{}, err
	}
	out := SummaryJSON{Periods: make([]PerformanceJSON, len(rs))}
	for i, r := range rs {
		out.Periods[i] = ToJSON(r)
	}
	return out, nil
}

// APISummary answers GET /v1/portfolio/performance/summary.
func (h *Handlers) APISummary(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	out, err := h.summary(h.Ctx(c), u, strings.Clone(c.Query("metal")), strings.Clone(c.Query("benchmark")), strings.Clone(c.Query("currency")))
	if err != nil {
		return err
	}
	return kit.PrivateJSON(c, http.StatusOK, out)
}

var params = []kit.Param{
	{Name: "period", In: "query", Description: "A preset period counted back from today (UTC): 1D (only with live prices), WTD, MTD, QTD, YTD, 1Y, 3Y, 5Y, 10Y or MAX (since the first purchase). Not with from/to.", Schema: kit.Schema{"type": "string", "enum": performance.Presets, "default": performance.DefaultPeriod}, Example: "YTD"},
	{Name: "from", In: "query", Description: "First day of a custom period, YYYY-MM-DD (replaces period).", Schema: kit.DateSchema(), Example: "2024-01-01"},
	{Name: "to", In: "query", Description: "Last day of a custom period, YYYY-MM-DD, not after today (default today).", Schema: kit.DateSchema(), Example: "2024-12-31"},
	{Name: "metal", In: "query", Description: "Only this metal's purchases, sales and value (default the whole stack).", Schema: kit.MetalSchema()},
	{Name: "benchmark", In: "query", Description: "The metal the same flows are compared with (default gold).", Schema: kit.MetalSchema()},
	{Name: "currency", In: "query", Description: "ISO 4217 code to answer in (default: your display currency, USD without one); an unknown code is 400 listing the supported ones. " +
		"Values are fine oz × each day's USD close × that day's rate; purchases and sales count at the rate of their own day, exactly when bought in this currency.",
		Schema: kit.Schema{"type": "string", "pattern": "^[A-Za-z]{3}$"}, Example: "EUR"},
}

// APIRoutes are the area's /v1 routes; the summary's fixed path comes first.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return []kit.APIRoute{h.seriesRoute(),
		{Method: "GET", Path: "/v1/portfolio/performance/summary", Auth: kit.AuthGold, Handler: h.APISummary, OperationID: "getPerformanceSummary", Tag: "Portfolio",
			Summary:     "How your stack did over every preset period at once",
			Description: "The answer of GET /v1/portfolio/performance for each of 1D, WTD, MTD, QTD, YTD, 1Y, 3Y, 5Y, 10Y and MAX, in that order, without the flows of each (ask for one period to list them).",
			Params:      params[3:],
			Responses: []kit.Response{{Status: 200, Description: "Every preset period.", Schema: schema(SummaryJSON{})},
				{Status: 400, Description: "A bad metal or currency, named in errors."}},
			Example: "GET /v1/portfolio/performance/summary"},
		{Method: "GET", Path: "/v1/portfolio/performance", Auth: kit.AuthGold, Handler: h.APIPerformance, OperationID: "getPerformance", Tag: "Portfolio",
			Summary: "How your stack did over a period: gain, time- and money-weighted return, against a metal, after inflation",
			Description: "Start value is the stack at the close before the period; end value at its last day's close (live prices for a period ending today when every metal held is live). " +
				"Net flows are purchases at cost (fees included) less net sale proceeds; gain = end − start − net flows, split into realized (the period's sales against their cost basis) and unrealized. " +
				"twr_pct chains each day's (value + proceeds) ÷ (previous value + purchases), purchases counted at the start of their day, proceeds at its end; a day starting with nothing held is skipped. " +
				"mwr_pct is the XIRR (actual/365) of −start value, −purchases and +proceeds on their days and +end value: per year when annualized (periods over 365 days), else the growth over the period. " +
				"The benchmark puts the start value and every flow into the benchmark metal at that day's close. real_twr_pct deflates twr_pct by the currency's consumer price index (US CPI-U for USD). " +
				"A figure that cannot be computed is null and notes say why. Amounts are in currency (your display currency by default): each day's value at that day's exchange rate, each purchase and sale at the rate of its own day (exactly, when bought in that currency).",
			Params: params,
			Responses: []kit.Response{{Status: 200, Description: "The period's performance.", Schema: schema(PerformanceJSON{})},
				{Status: 400, Description: "A bad period, date, metal or currency, named in errors."},
				{Status: 422, Description: "A bad period, date or metal, named in errors."}},
			Example: "GET /v1/portfolio/performance?period=YTD"},
	}
}

// MCPTools are the area's tools.
func (h *Handlers) MCPTools() []kit.MCPTool {
	return []kit.MCPTool{{Name: "get_performance", Description: "How your stack did over a period (Gold members): period 1D|WTD|MTD|QTD|YTD|1Y|3Y|5Y|10Y|MAX or from/to dates; start and end value, net flows, gain (realized and unrealized), time- and money-weighted return, change in ounces, a metal benchmark of the same flows, and the return after inflation; currency (ISO 4217, default your display currency) to answer in.",
		Method: "GET", Path: "/v1/portfolio/performance", Gold: true,
		Call: func(ctx context.Context, a map[string]string, _ json.RawMessage, u *account.User) (any, error) {
			r, err := h.perf.Performance(ctx, *u, query(func(k string) string { return a[k] }))
			if err != nil {
				return nil, err
			}
			return ToJSON(r), nil
		}}}
}
