package performancehttp

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/performance"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/pages"
)

// SeriesPointJSON is one day of a period.
type SeriesPointJSON struct {
	Date            string   `json:"date" schema:"format=date"`
	Value           *kit.Num `json:"value" doc:"The stack at that day's closes, in currency; null when a metal held had no price."`
	TWRPct          *kit.Num `json:"twr_pct" doc:"Time-weighted return from the period's start to that day, percent; null before anything is held."`
	BenchmarkValue  *kit.Num `json:"benchmark_value" doc:"The start value and the flows up to that day put into the benchmark metal at each day's close, worth at that day's close."`
	BenchmarkTWRPct *kit.Num `json:"benchmark_twr_pct" doc:"The benchmark metal's price change from the period's start to that day, percent."`
}

// SeriesJSON is a period day by day.
type SeriesJSON struct {
	Period    string            `json:"period" schema:"enum=Periods" doc:"The preset asked for, or custom for from/to."`
	From      string            `json:"from" schema:"format=date" doc:"First day of the period; the first point is the close before it (the start value)."`
	To        string            `json:"to" schema:"format=date" doc:"Last day of the period; the last point's twr_pct is the period's twr_pct in GET /v1/portfolio/performance/summary."`
	Currency  string            `json:"currency" doc:"ISO 4217 code of every amount."`
	Metal     *string           `json:"metal" schema:"enum=metals" doc:"The one metal measured, null for the whole stack."`
	Benchmark string            `json:"benchmark" schema:"enum=metals"`
	Points    []SeriesPointJSON `json:"points" doc:"Every close of the metals held and of the benchmark in the period, oldest first, after the close before it."`
	AsOf      *time.Time        `json:"as_of" doc:"When the end value's prices are of: the live board's time, or the date of the newest close used."`
	Stale     bool              `json:"stale" doc:"true when prices are not live for a period ending today, or the closes stop short of its end."`
	Notes     []string          `json:"notes" doc:"Why points or figures are missing."`
}

// SeriesToJSON renders a series.
func SeriesToJSON(s performance.Series) SeriesJSON {
	out := SeriesJSON{Period: s.Period, From: s.From.Format(time.DateOnly), To: s.To.Format(time.DateOnly), Currency: s.Currency,
		Benchmark: string(s.Benchmark), Points: make([]SeriesPointJSON, len(s.Points)), AsOf: kit.AsOfOrNull(s.AsOf), Stale: s.Stale, Notes: s.Notes}
	if s.Metal != "" {
		m := string(s.Metal)
		out.Metal = &m
	}
	for i, p := range s.Points {
		out.Points[i] = SeriesPointJSON{Date: p.Date.Format(time.DateOnly), Value: num(p.Value, kit.Money), TWRPct: num(p.TWRPct, pct4),
			BenchmarkValue: num(p.BenchmarkValue, kit.Money), BenchmarkTWRPct: num(p.BenchmarkTWRPct, pct4)}
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	return out
}

// APISeries answers GET /v1/portfolio/performance/series.
func (h *Handlers) APISeries(c *fiber.Ctx) error {
	return kit.PrivateMemberJSON(c, func(u account.User) (performance.Series, error) {
		return h.perf.Series(h.Ctx(c), u, query(func(k string) string { return c.Query(k) }))
	}, SeriesToJSON)
}

// seriesRoute is GET /v1/portfolio/performance/series (listed before the period's path).
func (h *Handlers) seriesRoute() kit.APIRoute {
	return kit.APIRoute{Method: "GET", Path: "/v1/portfolio/performance/series", Auth: kit.AuthGold, Handler: h.APISeries, OperationID: "getPerformanceSeries", Tag: "Portfolio",
		Summary: "A period day by day: value, cumulative time-weighted return and the benchmark",
		Description: "The data of the dashboard's performance chart. The first point is the close before the period (the start value, 0 %); each later point is a close of the metals held or of the benchmark: the stack's value, " +
			"the time-weighted return chained from the start to that day, and what the start value and the same dated flows put into the benchmark metal would be worth. The last point's twr_pct and benchmark_value are the period's twr_pct and benchmark.end_value of GET /v1/portfolio/performance/summary. " +
			"1D has points only when prices are live; a note says so otherwise.",
		Params: params,
		Responses: []kit.Response{{Status: 200, Description: "The period's points, oldest first.", Schema: schema(SeriesJSON{})},
			{Status: 400, Description: "A bad period, date or metal, named in errors."}},
		Example: "GET /v1/portfolio/performance/series?period=YTD"}
}

// The chart's views: the stack's value against the benchmark's, or both as a return.
const (
	viewValue = "value"
	viewPct   = "pct"
)

// chartPoints bounds the points drawn: a phone shows a few hundred at most.
const chartPoints = 400

// chartQuery is what a chart request asks for, checked.
type chartQuery struct {
	period, view, bench string
}

func readChartQuery(get func(string) string) (chartQuery, error) {
	q := chartQuery{period: strings.ToUpper(strings.TrimSpace(strings.Clone(get("period")))), view: strings.Clone(get("view")), bench: strings.ToLower(strings.Clone(get("benchmark")))}
	if q.period == "" {
		q.period = performance.DefaultPeriod
	}
	switch q.view {
	case "":
		q.view = viewValue
	case viewValue, viewPct:
	default:
		return q, apperr.InvalidField("view", "must be value or pct")
	}
	if q.bench == "" {
		q.bench = string(metals.Gold)
	}
	return q, nil
}

func (q chartQuery) with(period, view, bench string) url.Values {
	v := url.Values{}
	v.Set("period", period)
	v.Set("view", view)
	v.Set("benchmark", bench)
	return v
}

// chartView draws a period's series as the value or the return, against the benchmark.
func (h *Handlers) chartView(ctx context.Context, u account.User, q chartQuery) (pages.PerformanceChartView, error) {
	s, err := h.perf.Series(ctx, u, performance.Query{Period: q.period, Benchmark: q.bench})
	if err != nil {
		return pages.PerformanceChartView{}, err
	}
	bench := metals.Metal(q.bench)
	v := pages.PerformanceChartView{Period: s.Period, View: q.view, Benchmark: q.bench}
	for _, n := range s.Notes {
		// The stale-price note names each metal's newest close; it heads the chart.
		if strings.HasPrefix(n, "prices are not live") {
			v.AsOf = sentence(n)
		} else {
			v.Notes = append(v.Notes, sentence(n))
		}
	}
	// 1D is offered only while prices are live (every preset ends today, so a preset that is
	// not stale is live).
	live := !s.Stale && s.Period != "custom"
	for _, p := range performance.Presets {
		if p == "1D" && !live && s.Period != "1D" {
			continue
		}
		v.Periods = append(v.Periods, pages.ChartLink{Label: p, Query: q.with(p, q.view, q.bench).Encode(), Current: p == s.Period})
	}
	v.Views = []pages.ChartLink{
		{Label: "Value", Query: q.with(s.Period, viewValue, q.bench).Encode(), Current: q.view == viewValue},
		{Label: "Return %", Query: q.with(s.Period, viewPct, q.bench).Encode(), Current: q.view == viewPct},
	}
	for _, m := range metals.All {
		v.Metals = append(v.Metals, pages.ChartOption{Value: string(m), Label: m.Title(), Selected: m == bench})
	}
	period := format.Date(s.From) + " – " + format.Date(s.To)
	v.Dates = period
	stack := components.ChartSeries{Name: "Stack", Legend: "Your stack", Class: "stroke-amber-600 dark:stroke-amber-400", Swatch: "bg-amber-600 dark:bg-amber-400"}
	other := components.ChartSeries{Name: bench.Title(), Legend: "The same purchases and sales in " + strings.ToLower(bench.Title()), Class: "stroke-sky-600 dark:stroke-sky-400", Swatch: "bg-sky-600 dark:bg-sky-400"}
	if q.view == viewPct {
		other.Legend = kit.Capitalize(strings.ToLower(bench.Title()) + "'s price")
	}
	pick := func(p performance.SeriesPoint) (*decimal.Decimal, *decimal.Decimal) {
		if q.view == viewPct {
			return p.TWRPct, p.BenchmarkTWRPct
		}
		return p.Value, p.BenchmarkValue
	}
	label := func(d decimal.Decimal) string {
		if q.view == viewPct {
			return format.SignedPct(d)
		}
		return format.Money(d, s.Currency)
	}
	// Only days with the stack's figure are drawn; the benchmark line is drawn when it is
	// known on each of them.
	var kept []performance.SeriesPoint
	withBench := true
	for _, p := range s.Points {
		a, b := pick(p)
		if a == nil {
			continue
		}
		kept = append(kept, p)
		withBench = withBench && b != nil
	}
	kept = thin(kept, chartPoints)
	for _, p := range kept {
		a, b := pick(p)
		day := format.ISODate(p.Date)
		fa, _ := a.Float64() // drawing only: labels keep the exact figures
		stack.Points = append(stack.Points, components.ChartPoint{X: day, Y: fa, Label: label(*a)})
		if withBench {
			fb, _ := b.Float64()
			other.Points = append(other.Points, components.ChartPoint{X: day, Y: fb, Label: label(*b)})
		}
	}
	chart := components.Chart{ID: "performance-svg", Series: []components.ChartSeries{stack}}
	if withBench && len(kept) > 0 {
		chart.Series = append(chart.Series, other)
	} else if len(kept) > 0 {
		v.Notes = append(v.Notes, "The "+strings.ToLower(bench.Title())+" line is left out: it has no close for a day of the period.")
	}
	if q.view == viewPct {
		chart.Title, chart.YSuffix = "Time-weighted return, "+s.Period+", against "+strings.ToLower(bench.Title()), "%"
	} else {
		chart.Title, chart.YPrefix = "Stack value, "+s.Period+", against the same flows in "+strings.ToLower(bench.Title()), format.Symbol(s.Currency)
	}
	if n := len(kept); n > 0 {
		first, last := kept[0], kept[n-1]
		fa, fb := pick(first)
		la, lb := pick(last)
		if q.view == viewPct {
			chart.Description = "Time-weighted return of the stack from " + format.Date(first.Date) + " to " + format.Date(last.Date) + ": " + label(*la) + "."
			if withBench {
				chart.Description += " " + bench.Title() + "'s price over the same days: " + label(*lb) + "."
			}
		} else {
			chart.Description = "Value of the stack from " + format.Date(first.Date) + " to " + format.Date(last.Date) + ": " + label(*fa) + " to " + label(*la) + "."
			if withBench {
				chart.Description += " The same purchases and sales in " + strings.ToLower(bench.Title()) + ": " + label(*fb) + " to " + label(*lb) + "."
			}
		}
	} else {
		chart.Description = "Nothing to draw for " + s.Period + "."
	}
	v.Chart = chart
	return v, nil
}

// sentence starts a note with a capital and ends it with a full stop.
func sentence(n string) string {
	n = kit.Capitalize(n)
	if n == "" {
		return n
	}
	if !strings.HasSuffix(n, ".") {
		n += "."
	}
	return n
}

// thin keeps at most n points, evenly spaced, the first and the last always.
func thin(p []performance.SeriesPoint, n int) []performance.SeriesPoint {
	if len(p) <= n || n < 2 {
		return p
	}
	out := make([]performance.SeriesPoint, n)
	for i := range n {
		out[i] = p[i*(len(p)-1)/(n-1)]
	}
	return out
}

// DashboardPerformanceChart is the chart fragment the presets and toggles swap in.
func (h *Handlers) DashboardPerformanceChart(c *fiber.Ctx) error {
	_, _, v, err := h.askedChart(c)
	if err != nil {
		return err
	}
	return kit.RenderNoStore(c, pages.PerformanceChart(v))
}

// askedChart is the member's chart as the request's query asks for it (period, metal,
// benchmark), with the member and the query read.
func (h *Handlers) askedChart(c *fiber.Ctx) (account.User, chartQuery, pages.PerformanceChartView, error) {
	u, _ := kit.UserFrom(c)
	q, err := readChartQuery(func(k string) string { return c.Query(k) })
	if err != nil {
		return u, q, pages.PerformanceChartView{}, err
	}
	v, err := h.chartView(h.Ctx(c), u, q)
	return u, q, v, err
}

// PerformancePage is GET /performance: the chart and the table on a page of their own, where
// the presets and toggles lead without JavaScript.
func (h *Handlers) PerformancePage(c *fiber.Ctx) error {
	u, q, v, err := h.askedChart(c)
	if err != nil {
		return err
	}
	rs, err := h.perf.Summary(h.Ctx(c), u, "", q.bench)
	if err != nil {
		return err
	}
	m := h.Meta(c, "Performance", "home").Describe("How your stack did over every period: value change, time- and money-weighted return, against a metal and after inflation.")
	return kit.RenderNoStore(c, pages.PerformancePage(m, v, View(rs)))
}
