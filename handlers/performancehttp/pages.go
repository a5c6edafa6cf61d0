package performancehttp

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/performance"
	"github.com/ouncehq/ounce/views/pages"
)

// PageRoutes are the dashboard's performance fragment, its chart, and the page both are on.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthGold, []kit.PageRoute{
		{Method: "GET", Path: "/dashboard/performance", Handler: h.DashboardPerformance},
		{Method: "GET", Path: "/dashboard/performance/chart", Handler: h.DashboardPerformanceChart},
		{Method: "GET", Path: "/performance", Handler: h.PerformancePage},
	})
}

func pctText(d *decimal.Decimal) string {
	if d == nil {
		return "—"
	}
	return format.SignedPct(*d)
}

// View formats a summary for the dashboard table.
func View(rs []performance.Result) pages.PerformanceView {
	v := pages.PerformanceView{Benchmark: "gold", Currency: "USD"}
	seen := map[string]bool{}
	for _, r := range rs {
		v.Benchmark, v.Currency = string(r.Benchmark.Metal), r.Currency
		row := pages.PerformanceRow{Period: r.Period, Dates: format.Date(r.From) + " – " + format.Date(r.To), Change: "—", TWR: pctText(r.TWRPct),
			MWR: pctText(r.MWRPct), VsBench: "—", Real: pctText(r.RealTWRPct), ChangeTone: kit.Tone(r.Gain), VsTone: "flat"}
		if r.Gain != nil {
			row.Change = format.SignedMoney(*r.Gain, r.Currency)
		} else if r.Period == "1D" && r.Stale {
			// The day's change needs live prices: the row says why it is empty.
			row.Change = "prices not live"
		}
		if r.Annualized && r.MWRPct != nil {
			row.MWR += " a year"
		}
		if r.Gain != nil && r.Benchmark.Gain != nil {
			d := r.Gain.Sub(*r.Benchmark.Gain)
			row.VsBench, row.VsTone = format.SignedMoney(d, r.Currency), kit.Tone(&d)
		}
		v.Rows = append(v.Rows, row)
		for _, n := range r.Notes {
			if !seen[n] {
				seen[n] = true
				v.Notes = append(v.Notes, r.Period+": "+n+".")
			}
		}
	}
	return v
}

// DashboardPerformance is the dashboard's performance fragment: the chart (year to date, value
// against gold) and the table.
func (h *Handlers) DashboardPerformance(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	rs, err := h.perf.Summary(h.Ctx(c), u, "", "")
	if err != nil {
		return err
	}
	q, _ := readChartQuery(func(string) string { return "" })
	chart, err := h.chartView(h.Ctx(c), u, q)
	if err != nil {
		return err
	}
	return kit.RenderNoStore(c, pages.DashboardPerformanceCard(chart, View(rs)))
}
