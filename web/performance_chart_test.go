package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestPerformanceSeriesAPI: the day-by-day series of a period ends on the summary's TWR and
// benchmark for the same period, starts at the close before it, and bad parameters are named.
func TestPerformanceSeriesAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, nil), func(t *testing.T, e *env) {
		_, key := e.user("series@example.com", db.TierGold)
		pfCreate(t, e, key, pfH("gold", 2, "1", "2000", "10", "2025-01-10"))
		sv := pfCreate(t, e, key, pfH("silver", 100, "1", "25", "0", "2026-03-02"))
		pfSell(t, e, key, sv, map[string]any{"quantity": 40, "price_per_unit": 30, "sold_on": "2026-06-01"})

		for _, bench := range []string{"gold", "silver"} {
			sum := pfJSON(t, e.api("GET", "/v1/portfolio/performance/summary?benchmark="+bench, key, nil))
			checked := 0
			for _, p := range sum["periods"].([]any) {
				per := p.(map[string]any)
				if _, ok := per["twr_pct"].(json.Number); !ok {
					continue
				}
				name := per["period"].(string)
				r := e.api("GET", "/v1/portfolio/performance/series?period="+name+"&benchmark="+bench, key, nil)
				if r.Status != 200 {
					t.Fatalf("series %s: %d %s", name, r.Status, r.Body)
				}
				s := pfJSON(t, r)
				pts := s["points"].([]any)
				if len(pts) < 2 || s["from"] != per["from"] || s["to"] != per["to"] || s["benchmark"] != bench {
					t.Fatalf("series %s: %d points, %v–%v, benchmark %v; summary %v–%v", name, len(pts), s["from"], s["to"], s["benchmark"], per["from"], per["to"])
				}
				last := pts[len(pts)-1].(map[string]any)
				if last["twr_pct"] != per["twr_pct"] || last["value"] != per["end_value"] || last["benchmark_value"] != per["benchmark"].(map[string]any)["end_value"] {
					t.Errorf("%s/%s: series ends at twr %v value %v benchmark %v; summary twr %v end %v benchmark %v", name, bench,
						last["twr_pct"], last["value"], last["benchmark_value"], per["twr_pct"], per["end_value"], per["benchmark"].(map[string]any)["end_value"])
				}
				if s["stale"] != per["stale"] || s["as_of"] != per["as_of"] {
					t.Errorf("%s: stale %v as_of %v; summary %v %v", name, s["stale"], s["as_of"], per["stale"], per["as_of"])
				}
				checked++
			}
			if checked < 5 {
				t.Fatalf("%s: only %d periods compared", bench, checked)
			}
		}
		// YTD starts at the close before January 1 (0 % there is not claimed: the stack was held).
		y := pfJSON(t, e.api("GET", "/v1/portfolio/performance/series?period=YTD", key, nil))
		first := y["points"].([]any)[0].(map[string]any)
		if y["from"] != "2026-01-01" || first["date"] != "2025-12-31" || !pfDec(t, first, "twr_pct").IsZero() {
			t.Errorf("YTD from %v, first point %v", y["from"], first)
		}
		// 1D offline: no points, and a note saying prices are not live.
		d := pfJSON(t, e.api("GET", "/v1/portfolio/performance/series?period=1D", key, nil))
		if len(d["points"].([]any)) != 0 || !strings.Contains(strings.Join(strs(d["notes"]), " "), "not live") {
			t.Errorf("1D offline: %v", d)
		}
		for q, field := range map[string]string{"period=2W": "period", "from=2025-02-30": "from", "from=2026-06-01&to=2026-01-01": "from",
			"from=2026-01-01&to=2099-01-01": "to", "benchmark=copper": "benchmark"} {
			r := e.api("GET", "/v1/portfolio/performance/series?"+q, key, nil)
			if r.Status != 400 || pfProblemField(t, r) != field {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
		_, free := e.user("free-series@example.com", db.TierFree)
		if r := e.api("GET", "/v1/portfolio/performance/series", free, nil); r.Status != 403 {
			t.Errorf("free member: %d", r.Status)
		}
	})
}

// TestPortfolioHistoryYTDAndDates: YTD starts on January 1 of the clock's year (not a year
// back), a window of dates is honoured, and bad or reversed dates are refused naming the field.
func TestPortfolioHistoryYTDAndDates(t *testing.T) {
	eachEngine(t, pfMarket(t, nil), func(t *testing.T, e *env) {
		_, key := e.user("hist@example.com", db.TierGold)
		pfCreate(t, e, key, pfH("gold", 1, "1", "2000", "0", "2024-03-04"))

		y := pfJSON(t, e.api("GET", "/v1/portfolio/history?range=YTD", key, nil))
		from, _ := y["from"].(string)
		if y["range"] != "YTD" || y["start"] != "2026-01-01" || from < "2026-01-01" || from > "2026-01-05" {
			t.Errorf("YTD: range %v start %v first point %v", y["range"], y["start"], y["from"])
		}
		if one := pfJSON(t, e.api("GET", "/v1/portfolio/history?range=1Y", key, nil)); one["start"] == y["start"] {
			t.Errorf("1Y starts where YTD does: %v", one["start"])
		}

		c := pfJSON(t, e.api("GET", "/v1/portfolio/history?from=2026-03-01&to=2026-06-30", key, nil))
		cf, _ := c["from"].(string)
		ct, _ := c["to"].(string)
		if c["range"] != "custom" || c["start"] != "2026-03-01" || cf < "2026-03-01" || cf > "2026-03-04" || ct > "2026-06-30" || ct < "2026-06-26" || c["stale"] != false {
			t.Errorf("custom window: range %v start %v points %v–%v stale %v", c["range"], c["start"], cf, ct, c["stale"])
		}
		for q, field := range map[string]string{"from=2026-13-01": "from", "from=2026-06-30&to=2026-03-01": "from", "to=2026-03-01": "from",
			"from=2026-01-01&to=2099-01-01": "to", "from=2026-01-01&to=30/06/2026": "to", "range=YTD&from=2026-01-01": "range", "range=9Y": "range", "range=ytd": "range"} {
			r := e.api("GET", "/v1/portfolio/history?"+q, key, nil)
			if r.Status != 400 || pfProblemField(t, r) != field {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
	})
}

// TestDashboardPerformanceChart: the dashboard's performance fragment draws the chart of value
// against the benchmark; the % toggle draws other lines; presets, toggles and the benchmark
// choice are links and a form that work without JavaScript (/performance); the value chart
// takes dates of the member's own.
func TestDashboardPerformanceChart(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pfMarket(t, nil))
	b := e.browser()
	b.signUp("chart@example.com")
	u, _ := e.store.UserByEmail(t.Context(), "chart@example.com")
	for _, h := range []db.Holding{
		{UserID: u.ID, Metal: "gold", ProductName: "1 oz Buffalo", Quantity: 2, WeightOz: pfD("1"), PurchasePrice: pfD("2000"), Fees: pfD("0"), PurchaseDate: pfDate("2025-01-10")},
		{UserID: u.ID, Metal: "silver", ProductName: "Eagles", Quantity: 50, WeightOz: pfD("1"), PurchasePrice: pfD("30"), Fees: pfD("0"), PurchaseDate: pfDate("2026-02-02")},
	} {
		if _, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(h)); err != nil {
			t.Fatal(err)
		}
	}
	if r := b.get("/"); r.Status != 200 || doc(t, r).Find(`#dashboard-performance a[href="/performance"]`).Length() != 1 {
		t.Fatalf("dashboard: %d, or its performance slot has no link for a browser without JavaScript", r.Status)
	}
	r := b.send(pfHX("/dashboard/performance"))
	d := doc(t, r)
	if r.Status != 200 || d.Find("#performance-chart svg[role=img] path").Length() != 2 || d.Find("#dashboard-performance tbody tr").Length() != 10 {
		t.Fatalf("performance fragment: %d, %d chart lines, %d table rows", r.Status, d.Find("#performance-chart svg path").Length(), d.Find("#dashboard-performance tbody tr").Length())
	}
	if !strings.Contains(d.Find("#performance-svg-title").Text(), "Stack value, YTD, against the same flows in gold") ||
		!strings.Contains(d.Find("#performance-chart figcaption").Text(), "The same purchases and sales in gold") ||
		!strings.Contains(d.Find("#performance-svg-desc").Text(), "The same purchases and sales in gold:") {
		t.Errorf("value chart: title %q legend %q desc %q", d.Find("#performance-svg-title").Text(), d.Find("#performance-chart figcaption").Text(), d.Find("#performance-svg-desc").Text())
	}
	// The controls: YTD and Value are current; each is a link to /performance and swaps the chart.
	cur := d.Find(`#performance-chart a[aria-current="true"]`)
	if cur.Length() != 2 || !strings.Contains(cur.Text(), "YTD") || !strings.Contains(cur.Text(), "Value") {
		t.Errorf("current controls %q", cur.Text())
	}
	pct := d.Find(`#performance-chart a:contains("Return %")`)
	href, _ := pct.Attr("href")
	hx, _ := pct.Attr("hx-get")
	if !strings.HasPrefix(href, "/performance?") || !strings.HasPrefix(hx, "/dashboard/performance/chart?") || !strings.Contains(hx, "view=pct") {
		t.Errorf("%% toggle: href %q hx-get %q", href, hx)
	}
	if row := d.Find("#dashboard-performance tbody tr").First().Text(); !strings.Contains(row, "1D") || !strings.Contains(row, "prices not live") {
		t.Errorf("the 1D row does not say prices are not live: %q", row)
	}
	if d.Find(`#performance-chart a:contains("1D")`).Length() != 0 {
		t.Error("1D offered while prices are not live")
	}
	for _, p := range []string{"WTD", "MTD", "QTD", "1Y", "3Y", "5Y", "10Y", "MAX"} {
		if d.Find(`#performance-chart a[href*="period=`+p+`&"]`).Length() != 1 {
			t.Errorf("no %s preset", p)
		}
	}
	valuePaths := chartPaths(d.Find("#performance-chart svg path"))

	// The same period as a return: other lines, named as such.
	r = b.send(pfHX(hx))
	d = doc(t, r)
	if r.Status != 200 || d.Find("#performance-chart svg path").Length() != 2 {
		t.Fatalf("%% chart: %d %s", r.Status, r.Body)
	}
	if chartPaths(d.Find("#performance-chart svg path")) == valuePaths {
		t.Error("the % chart draws the same lines as the value chart")
	}
	if !strings.Contains(d.Find("#performance-svg-title").Text(), "Time-weighted return, YTD, against gold") || !strings.Contains(d.Find("#performance-svg-desc").Text(), "Gold's price over the same days") {
		t.Errorf("%% chart: title %q desc %q", d.Find("#performance-svg-title").Text(), d.Find("#performance-svg-desc").Text())
	}
	// Prices are not live: the chart says so and names the date.
	if txt := d.Find("#performance-chart").Text(); !strings.Contains(txt, "Prices are not live") || !strings.Contains(txt, "gold 2026-08-17, silver 2026-08-10") || strings.Contains(strings.ToLower(txt), "today") {
		t.Errorf("stale chart does not name its date: %q", d.Find("#performance-chart").Text())
	}

	// Without JavaScript: the full page with another benchmark and period.
	r = b.get("/performance?period=1Y&view=value&benchmark=silver")
	d = doc(t, r)
	if r.Status != 200 || !strings.Contains(d.Find("#performance-svg-title").Text(), "Stack value, 1Y, against the same flows in silver") ||
		d.Find(`#performance-benchmark option[value="silver"][selected]`).Length() != 1 || d.Find("#dashboard-performance tbody tr").Length() != 10 {
		t.Fatalf("performance page: %d %q", r.Status, d.Find("#performance-svg-title").Text())
	}
	if r := b.send(pfHX("/dashboard/performance/chart?view=bars")); r.Status != 400 || !strings.Contains(string(r.Body), "View must be value or pct") {
		t.Errorf("bad view: %d %s", r.Status, r.Body)
	}

	// The value-over-time chart: dates of one's own, honoured.
	r = b.send(pfHX("/dashboard/chart?" + url.Values{"from": {"2026-03-01"}, "to": {"2026-06-30"}}.Encode()))
	d = doc(t, r)
	if r.Status != 200 || !strings.Contains(d.Find("#portfolio-chart-title").Text(), "1 Mar 2026 to 30 Jun 2026") ||
		!strings.Contains(d.Find("#portfolio-chart-desc").Text(), "from 2 Mar 2026") || d.Find(`#chart-from[value="2026-03-01"]`).Length() != 1 {
		t.Errorf("dates chart: %d title %q desc %q", r.Status, d.Find("#portfolio-chart-title").Text(), d.Find("#portfolio-chart-desc").Text())
	}
	if d.Find(`#dashboard-chart a[aria-current]`).Length() != 0 {
		t.Error("a range is marked current for a window of dates")
	}
	// Reversed dates: refused, naming the field (HTMX shows the problem as a toast).
	if r := b.send(pfHX("/dashboard/chart?from=2026-06-30&to=2026-03-01")); r.Status != 400 || !strings.Contains(string(r.Body), "From must not be after to") {
		t.Errorf("reversed dates: %d %s", r.Status, r.Body)
	}
	// In the page address: the page says which field is wrong and which range it shows.
	r = b.get("/?from=2026-06-30&to=2026-03-01")
	if note := doc(t, r).Find("#dashboard-chart [role=status]").Text(); r.Status != 200 || !strings.Contains(note, "from: must not be after to") || !strings.Contains(note, "showing 1Y instead") {
		t.Errorf("reversed dates in the address: %d %q", r.Status, note)
	}
	// YTD on the page starts in January of the clock's year.
	r = b.send(pfHX("/dashboard/chart?range=YTD"))
	if desc := doc(t, r).Find("#portfolio-chart-desc").Text(); !strings.Contains(desc, "from 2 Jan 2026") {
		t.Errorf("YTD chart: %q", desc)
	}
}

// chartPaths is the d of every line drawn.
func chartPaths(s *goquery.Selection) string {
	var out []string
	s.Each(func(_ int, p *goquery.Selection) {
		d, _ := p.Attr("d")
		out = append(out, d)
	})
	return strings.Join(out, "|")
}

// TestPerformanceChartLive1D: with live prices the chart offers 1D and draws it.
func TestPerformanceChartLive1D(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pfMarket(t, pfQuotes))
	b := e.browser()
	b.signUp("live@example.com")
	u, _ := e.store.UserByEmail(t.Context(), "live@example.com")
	if _, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", ProductName: "Bar", Quantity: 1, WeightOz: pfD("1"), PurchasePrice: pfD("2000"), Fees: pfD("0"), PurchaseDate: pfDate("2025-01-10")})); err != nil {
		t.Fatal(err)
	}
	r := b.send(pfHX("/dashboard/performance/chart?period=1D&view=pct"))
	d := doc(t, r)
	if r.Status != 200 || d.Find(`#performance-chart a[aria-current="true"]:contains("1D")`).Length() != 1 || d.Find("#performance-chart svg path").Length() != 2 {
		t.Fatalf("live 1D: %d, current %q, %d lines", r.Status, d.Find(`#performance-chart a[aria-current="true"]`).Text(), d.Find("#performance-chart svg path").Length())
	}
	if txt := d.Find("#performance-chart").Text(); strings.Contains(txt, "not live") {
		t.Errorf("live 1D says prices are not live: %q", txt)
	}
}
