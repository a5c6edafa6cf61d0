// Command portfolio measures GET /v1/portfolio, GET /v1/analytics and the 5-year value chart
// for one member with 10,000 holdings (a tenth of them partly sold), on SQLite and on
// PostgreSQL: latency percentiles over loopback HTTP with one client and with four, next to the raw SQL
// aggregate queries alone. It prints a Markdown section for BENCHMARKS.md.
//
//	go run ./bench/portfolio [-holdings 10000] [-requests 2000] [-pg postgres://…] > bench/PORTFOLIO_RESULTS.md
//
// Without -pg (or OUNCE_TEST_POSTGRES_URL) only SQLite is measured.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/bench/benchkit"
	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// only limits the rows measured (-only): comma-separated parts of their names.
var only string

func wanted(row string) bool {
	if only == "" {
		return true
	}
	for _, part := range strings.Split(only, ",") {
		if strings.Contains(row, part) {
			return true
		}
	}
	return false
}

func main() {
	holdings := flag.Int("holdings", 10_000, "holdings of the measured member")
	requests := flag.Int("requests", 2000, "requests per endpoint and client setting")
	currencyOnly := flag.Bool("currency-only", false, "measure only the valuation in another currency (issue 25)")
	pg := flag.String("pg", os.Getenv("OUNCE_TEST_POSTGRES_URL"), "PostgreSQL URL (a throwaway schema is created and dropped)")
	flag.StringVar(&only, "only", "", "measure only the rows whose name contains one of these comma-separated parts")
	flag.Parse()
	ctx := context.Background()

	fmt.Printf("## Portfolio and analytics with %d holdings\n\n", *holdings)
	fmt.Printf("Measured by `go run ./bench/portfolio` on %s, %d CPUs (%s/%s), %s. One member holds %d lots over all four metals with purchase dates across 2015–2026; every tenth lot is partly sold. ",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), *holdings)
	fmt.Printf("Requests go over loopback HTTP with a bearer key (authentication, logging at info into a discarded writer, no rate limit), %d per row after a warm-up; \"4 clients\" runs four at once. ", *requests)
	fmt.Printf("On PostgreSQL the tables are vacuumed and analysed after seeding, as autovacuum would do soon after such an import. \"SQL only\" times the store's reads alone, in process: the position ledger's per-metal totals (analytics adds the first and last purchase days) and the 5Y chart's days, kept by the store with every write to holdings and sales. \"Right after an edit\" rows edit one holding through the store (ledger included) before each request. Each member's latest chart per range is kept until their ledger revision, the stored closes or the day move: the plain history row is served from it, the row right after an edit recomputes it every time. The \"before (in process)\" rows re-run earlier per-request methods on the same data: every purchase day priced against the history, the aggregate over every lot (PortfolioTotals), and the chart replaying every day.\n\n")
	fmt.Println("| engine | what | clients | p50 | p90 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")

	engines := benchkit.Engines(ctx, *pg, "ounce-bench-portfolio")
	var notes []string
	for _, eng := range engines {
		s, raw, done := eng.Open()
		before := benchkit.LoadAvg()
		n := run(ctx, eng.Name, s, raw, *holdings, *requests, *currencyOnly)
		notes = append(notes, n...)
		notes = append(notes, fmt.Sprintf("- %s: load average (1 min) %s before, %s after: other work on the machine competes for its two cores.", eng.Name, before, benchkit.LoadAvg()))
		done()
	}
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
}

// run seeds one store and measures it, printing table rows; it returns notes for below the table.
func run(ctx context.Context, name string, s *db.Store, raw *sqlx.DB, holdings, requests int, currencyOnly bool) []string {
	_, err := s.Migrate(ctx)
	benchkit.Must(err)
	market := benchkit.LiveMarket(ctx, s)
	now := time.Now().UTC()
	a, err := app.New(app.Options{Store: s, Market: market, Config: app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}, Account: account.Config{NewUsersGold: true}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	benchkit.Must(err)
	srv := a.Server
	u, err := s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
	benchkit.Must(err)
	key, _, err := a.Account.CreateAPIKey(ctx, u, "bench")
	benchkit.Must(err)

	seedStart := time.Now()
	benchkit.Seed(ctx, s, u.ID, holdings)
	seeded := time.Since(seedStart)
	// Fill every lot's spot at purchase, as the refresh job does after the history loads.
	refreshStart := time.Now()
	refreshed, err := a.Portfolio.RefreshSpots(ctx)
	benchkit.Must(err)
	refreshTook := time.Since(refreshStart)
	// A second member whose lots were bought in three currencies: a third each in USD, EUR and
	// GBP (sales in their lot's), valued in USD and in EUR in the same run.
	mu, err := s.InsertUser(ctx, "bench-fx@example.com", "x", db.TierGold, false)
	benchkit.Must(err)
	fxKey, _, err := a.Account.CreateAPIKey(ctx, mu, "bench")
	benchkit.Must(err)
	benchkit.Seed(ctx, s, mu.ID, holdings)
	lots, err := s.AllHoldings(ctx, mu.ID)
	benchkit.Must(err)
	for i, h := range lots {
		if cur := []string{"USD", "EUR", "GBP"}[i%3]; cur != "USD" {
			_, err := raw.ExecContext(ctx, raw.Rebind(`UPDATE holdings SET purchase_currency = ? WHERE id = ?`), cur, h.ID)
			benchkit.Must(err)
			_, err = raw.ExecContext(ctx, raw.Rebind(`UPDATE sales SET currency = ? WHERE holding_id = ?`), cur, h.ID)
			benchkit.Must(err)
		}
	}
	if s.Engine == db.Postgres {
		// What autovacuum does soon after a bulk import: statistics and the visibility map.
		_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings, sales, position_days, position_totals`)
		benchkit.Must(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	benchkit.Must(err)
	go func() { _ = srv.App.Listener(ln) }()
	defer func() { _ = srv.App.Shutdown() }()
	base := "http://" + ln.Addr().String()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	getAs := func(key, path string) func() {
		return func() {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := client.Do(req)
			benchkit.Must(err)
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != 200 {
				panic(fmt.Sprintf("%s: status %d", path, res.StatusCode))
			}
		}
	}
	get := func(path string) func() { return getAs(key, path) }
	today := db.NewDate(prices.SessionDate(now))
	sqlPortfolio := func() {
		_, err := s.PositionTotals(ctx, u.ID, today, db.HeldOnly)
		benchkit.Must(err)
	}
	sqlAnalytics := func() {
		_, err := s.PositionTotals(ctx, u.ID, today, db.WithPurchases)
		benchkit.Must(err)
	}
	since5Y := db.NewDate(prices.Range5Y.Start(now))
	sqlHistory := func() {
		_, err := s.HistoryChanges(ctx, u.ID, since5Y)
		benchkit.Must(err)
	}
	// The aggregate over every lot that analytics ran per request before the position ledger.
	lotsAnalytics := func() {
		totals, err := s.PortfolioTotals(ctx, u.ID, today, db.WithPurchases)
		benchkit.Must(err)
		paid, ref := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
		for _, t := range totals {
			paid[t.Metal], ref[t.Metal] = t.Paid, t.Ref
		}
		_ = portfolio.Analyze(portfolio.Value(totals, market.Snapshot(), true), totals, paid, ref)
	}
	sqlPerformance := func() {
		_, err := s.PerformanceDays(ctx, u.ID)
		benchkit.Must(err)
	}
	sqlDays := func() {
		_, err := s.PositionChanges(ctx, u.ID)
		benchkit.Must(err)
	}
	// The previous method, in process, as the baseline: analytics priced every purchase day
	// against the history on the first request after an edit, and the chart replayed every
	// day since the first purchase.
	spotOn := func(m metals.Metal, day time.Time) (decimal.Decimal, bool) { return market.CloseOn(m, day) }
	oldAnalytics := func() {
		totals, err := s.PortfolioTotals(ctx, u.ID, today, db.WithPurchases)
		benchkit.Must(err)
		changes, err := s.PositionChanges(ctx, u.ID)
		benchkit.Must(err)
		paid, ref := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
		for _, ch := range changes {
			if !ch.Dated || !ch.PricedOz.IsPositive() {
				continue
			}
			if spot, ok := spotOn(ch.Metal, ch.Day.Time); ok {
				paid[ch.Metal] = paid[ch.Metal].Add(ch.Paid)
				ref[ch.Metal] = ref[ch.Metal].Add(ch.PricedOz.Mul(spot))
			}
		}
		_ = portfolio.Analyze(portfolio.Value(totals, market.Snapshot(), true), totals, paid, ref)
	}
	oldHistory := func() {
		changes, err := s.PositionChanges(ctx, u.ID)
		benchkit.Must(err)
		_ = portfolio.ReplayHistory(market, changes, prices.Range5Y, time.Now())
	}
	// touch edits one holding through the store, as the edit form does (its quantity goes 2,
	// 3, 2, …), so the ledger and the holdings change in one transaction before the request.
	all, err := s.AllHoldings(ctx, u.ID)
	benchkit.Must(err)
	edited := all[1]
	touch := func() {
		edited.Quantity = 3 - edited.Quantity%2
		_, err := s.UpdateHolding(ctx, edited)
		benchkit.Must(err)
	}
	rows := []struct {
		what    string
		f, pre  func()
		clients []int
	}{
		{"SQL only: portfolio aggregate", sqlPortfolio, nil, []int{1}},
		{"`GET /v1/portfolio`", get("/v1/portfolio"), nil, []int{1, 4}},
		{"SQL only: analytics aggregate", sqlAnalytics, nil, []int{1}},
		{"`GET /v1/analytics`", get("/v1/analytics"), nil, []int{1, 4}},
		{"SQL only: history 5Y changes from the ledger", sqlHistory, nil, []int{1}},
		{"SQL only: purchases per metal and day", sqlDays, nil, []int{1}},
		{"before (in process): analytics after an edit, pricing every purchase day", oldAnalytics, touch, []int{1}},
		{"before (in process): analytics after an edit, aggregating every lot", lotsAnalytics, touch, []int{1}},
		{"before (in process): history 5Y replaying every day", oldHistory, nil, []int{1}},
		{"`GET /v1/analytics` right after an edit", get("/v1/analytics"), touch, []int{1}},
		{"`GET /v1/portfolio/history?range=5Y` (chart kept)", get("/v1/portfolio/history?range=5Y"), nil, []int{1}},
		{"`GET /v1/portfolio/history?range=5Y` right after an edit (recomputed)", get("/v1/portfolio/history?range=5Y"), touch, []int{1}},
		{"SQL only: performance days from the ledger", sqlPerformance, nil, []int{1}},
		{"`GET /v1/portfolio/performance/summary` (all 10 periods)", get("/v1/portfolio/performance/summary"), nil, []int{1, 4}},
		{"`GET /v1/portfolio/performance/summary` right after an edit", get("/v1/portfolio/performance/summary"), touch, []int{1}},
		{"`GET /v1/portfolio/performance?period=MAX` (with every flow)", get("/v1/portfolio/performance?period=MAX"), nil, []int{1}},
	}
	fxRows := []struct {
		what    string
		f, pre  func()
		clients []int
	}{
		{"`GET /v1/portfolio` (lots in USD only)", get("/v1/portfolio"), nil, []int{1}},
		{"`GET /v1/portfolio` (lots in USD, EUR, GBP)", getAs(fxKey, "/v1/portfolio"), nil, []int{1}},
		{"`GET /v1/portfolio?currency=EUR` (lots in USD, EUR, GBP)", getAs(fxKey, "/v1/portfolio?currency=EUR"), nil, []int{1}},
		{"`GET /v1/analytics` (lots in USD only)", get("/v1/analytics"), nil, []int{1}},
		{"`GET /v1/analytics` (lots in USD, EUR, GBP)", getAs(fxKey, "/v1/analytics"), nil, []int{1}},
		{"`GET /v1/analytics?currency=EUR` (lots in USD, EUR, GBP)", getAs(fxKey, "/v1/analytics?currency=EUR"), nil, []int{1}},
	}
	if currencyOnly {
		rows = fxRows
	} else {
		rows = append(rows, fxRows...)
	}
	p99 := map[string]time.Duration{}
	p50 := map[string]time.Duration{}
	for _, r := range rows {
		if !wanted(r.what) {
			continue
		}
		for _, c := range r.clients {
			n := requests
			if r.pre != nil {
				n = max(requests/4, 50)
			}
			d, _ := benchkit.Measure(r.f, r.pre, c, n)
			fmt.Printf("| %s | %s | %d | %s | %s | %s | %s |\n", name, r.what, c, benchkit.MS(d[50]), benchkit.MS(d[90]), benchkit.MS(d[99]), benchkit.MS(d[100]))
			if c == 1 {
				p50[r.what], p99[r.what] = d[50], d[99]
			}
		}
	}
	ratio := func(a, b string) string {
		return fmt.Sprintf("%.1f× at p50, %.1f× at p99", float64(p50[a])/float64(p50[b]), float64(p99[a])/float64(p99[b]))
	}
	fxNote := fmt.Sprintf("- %s: in EUR over USD, same run, same 3-currency member (one client): portfolio %s; analytics %s. 3-currency member in EUR over the USD-only member: portfolio %s; analytics %s.", name,
		ratio("`GET /v1/portfolio?currency=EUR` (lots in USD, EUR, GBP)", "`GET /v1/portfolio` (lots in USD, EUR, GBP)"),
		ratio("`GET /v1/analytics?currency=EUR` (lots in USD, EUR, GBP)", "`GET /v1/analytics` (lots in USD, EUR, GBP)"),
		ratio("`GET /v1/portfolio?currency=EUR` (lots in USD, EUR, GBP)", "`GET /v1/portfolio` (lots in USD only)"),
		ratio("`GET /v1/analytics?currency=EUR` (lots in USD, EUR, GBP)", "`GET /v1/analytics` (lots in USD only)"))
	if currencyOnly {
		return []string{fxNote}
	}
	notes := []string{fxNote,
		fmt.Sprintf("- %s: storing the spot at purchase of %d lots (the refresh after the history loads) took %s.", name, refreshed, refreshTook.Round(time.Millisecond)),
		fmt.Sprintf("- %s: seeding %d holdings took %s.", name, holdings, seeded.Round(time.Millisecond)),
	}
	if p50["SQL only: portfolio aggregate"] > 0 && p50["SQL only: analytics aggregate"] > 0 { // not left out by -only
		notes[2] += fmt.Sprintf(" Endpoint over SQL alone (one client): portfolio %s; analytics %s.",
			ratio("`GET /v1/portfolio`", "SQL only: portfolio aggregate"), ratio("`GET /v1/analytics`", "SQL only: analytics aggregate"))
	}
	return notes
}
