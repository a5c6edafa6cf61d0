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
	holdings, requests, pg := benchkit.MemberFlags(2000)
	currencyOnly := flag.Bool("currency-only", false, "measure only the valuation in another currency (issue 25)")
	tableOnly := flag.Bool("table-only", false, "measure only the ledger's table view over every lot (issue 28)")
	flag.StringVar(&only, "only", "", "measure only the rows whose name contains one of these comma-separated parts")
	flag.Parse()
	ctx := context.Background()

	if *tableOnly {
		fmt.Printf("## Ledger table over every lot (issue 28)\n\nMeasured by `go run ./bench/portfolio -table-only -requests %d` on %s, %d CPUs (%s/%s), %s, load average %s. A member signed up through the form holds %d lots (the seed above); each request is a page of `/holdings?view=table` over loopback HTTP with the session cookie, %d per row after a warm-up. \"SQL only\" is the store's query for one page alone, in process.\n\n",
			*requests, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), benchkit.LoadAvg(), *holdings, *requests)
	} else {
		printPortfolioHeader(*holdings, *requests)
	}
	fmt.Println("| engine | what | clients | p50 | p90 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")

	notes := benchkit.EachEngine(ctx, *pg, "ounce-bench-portfolio", func(name string, s *db.Store, raw *sqlx.DB) []string {
		if *tableOnly {
			return tableRun(ctx, name, s, raw, *holdings, *requests)
		}
		return run(ctx, name, s, raw, *holdings, *requests, *currencyOnly)
	})
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
}

// bench is one engine's seeded store and running server.
type bench struct {
	ctx      context.Context
	s        *db.Store
	raw      *sqlx.DB
	market   *prices.Service
	a        *app.App
	u        db.User
	key      string
	fxKey    string
	base     string
	client   *http.Client
	seeded   time.Duration
	refresh  time.Duration
	refreshN int
}

// row is one measured line of the table: f timed, pre run untimed before each request.
type row struct {
	what    string
	f, pre  func()
	clients []int
}

// run seeds one store and measures it, printing table rows; it returns notes for below the table.
func run(ctx context.Context, name string, s *db.Store, raw *sqlx.DB, holdings, requests int, currencyOnly bool) []string {
	b := setup(ctx, s, raw, holdings)
	defer func() { _ = b.a.Server.App.Shutdown() }()
	rows, fxRows := b.rows(), b.fxRows()
	if currencyOnly {
		rows = fxRows
	} else {
		rows = append(rows, fxRows...)
	}
	p50, p99 := measureRows(name, rows, requests)
	return notes(name, b, holdings, currencyOnly, p50, p99)
}

// setup migrates and seeds the store (the measured member and a member with lots in three
// currencies) and starts the server on loopback.
func setup(ctx context.Context, s *db.Store, raw *sqlx.DB, holdings int) *bench {
	_, err := s.Migrate(ctx)
	benchkit.Must(err)
	b := &bench{ctx: ctx, s: s, raw: raw, market: benchkit.LiveMarket(ctx, s)}
	b.a, err = app.New(app.Options{Store: s, Market: b.market, Config: app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}, Account: account.Config{NewUsersGold: true}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	benchkit.Must(err)
	b.u, err = s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
	benchkit.Must(err)
	b.key, _, err = b.a.Account.CreateAPIKey(ctx, b.u, "bench")
	benchkit.Must(err)

	seedStart := time.Now()
	benchkit.Seed(ctx, s, b.u.ID, holdings)
	b.seeded = time.Since(seedStart)
	// Fill every lot's spot at purchase, as the refresh job does after the history loads.
	refreshStart := time.Now()
	b.refreshN, err = b.a.Portfolio.RefreshSpots(ctx)
	benchkit.Must(err)
	b.refresh = time.Since(refreshStart)
	b.seedCurrencies(holdings)
	if s.Engine == db.Postgres {
		// What autovacuum does soon after a bulk import: statistics and the visibility map.
		_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings, sales, position_days, position_totals`)
		benchkit.Must(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	benchkit.Must(err)
	go func() { _ = b.a.Server.App.Listener(ln) }()
	b.base = "http://" + ln.Addr().String()
	b.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	return b
}

// seedCurrencies adds a second member whose lots were bought in three currencies: a third
// each in USD, EUR and GBP (sales in their lot's), valued in USD and in EUR in the same run.
func (b *bench) seedCurrencies(holdings int) {
	ctx, s, raw := b.ctx, b.s, b.raw
	mu, err := s.InsertUser(ctx, "bench-fx@example.com", "x", db.TierGold, false)
	benchkit.Must(err)
	b.fxKey, _, err = b.a.Account.CreateAPIKey(ctx, mu, "bench")
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
}

// getAs requests path with key and checks the answer is 200.
func (b *bench) getAs(key, path string) func() {
	return func() {
		req, _ := http.NewRequest("GET", b.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := b.client.Do(req)
		benchkit.Must(err)
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 200 {
			panic(fmt.Sprintf("%s: status %d", path, res.StatusCode))
		}
	}
}

// rows are the measured member's rows: the store's reads alone, the endpoints, and the
// earlier per-request methods re-run in process as baselines.
func (b *bench) rows() []row {
	ctx, s, u := b.ctx, b.s, b.u
	get := func(path string) func() { return b.getAs(b.key, path) }
	now := time.Now().UTC()
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
	sqlPerformance := func() {
		_, err := s.PerformanceDays(ctx, u.ID)
		benchkit.Must(err)
	}
	sqlDays := func() {
		_, err := s.PositionChanges(ctx, u.ID)
		benchkit.Must(err)
	}
	oldAnalytics, lotsAnalytics, oldHistory := b.before(today)
	touch := b.toucher()
	return []row{
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
		{"`GET /v1/portfolio/performance/summary` right after an edit of the newest lot", get("/v1/portfolio/performance/summary"), b.newestToucher(), []int{1}},
		{"`GET /v1/portfolio/performance?period=MAX` (with every flow)", get("/v1/portfolio/performance?period=MAX"), nil, []int{1}},
	}
}

// before are the earlier per-request methods, in process, as baselines: analytics priced
// every purchase day against the history on the first request after an edit (or aggregated
// every lot, before the ledger), and the chart replayed every day since the first purchase.
func (b *bench) before(today db.Date) (oldAnalytics, lotsAnalytics, oldHistory func()) {
	ctx, s, u, market := b.ctx, b.s, b.u, b.market
	lotsAnalytics = func() {
		totals, err := s.PortfolioTotals(ctx, u.ID, today, db.WithPurchases)
		benchkit.Must(err)
		paid, ref := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
		for _, t := range totals {
			paid[t.Metal], ref[t.Metal] = t.Paid, t.Ref
		}
		_ = portfolio.Analyze(portfolio.Value(totals, market.Snapshot(), true), totals, paid, ref)
	}
	oldAnalytics = func() {
		totals, err := s.PortfolioTotals(ctx, u.ID, today, db.WithPurchases)
		benchkit.Must(err)
		changes, err := s.PositionChanges(ctx, u.ID)
		benchkit.Must(err)
		paid, ref := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
		for _, ch := range changes {
			if !ch.Dated || !ch.PricedOz.IsPositive() {
				continue
			}
			if spot, ok := market.CloseOn(ch.Metal, ch.Day.Time); ok {
				paid[ch.Metal] = paid[ch.Metal].Add(ch.Paid)
				ref[ch.Metal] = ref[ch.Metal].Add(ch.PricedOz.Mul(spot))
			}
		}
		_ = portfolio.Analyze(portfolio.Value(totals, market.Snapshot(), true), totals, paid, ref)
	}
	oldHistory = func() {
		changes, err := s.PositionChanges(ctx, u.ID)
		benchkit.Must(err)
		_ = portfolio.ReplayHistory(market, changes, prices.Range5Y, time.Now())
	}
	return oldAnalytics, lotsAnalytics, oldHistory
}

// toucher edits one holding through the store, as the edit form does (its quantity goes 2,
// 3, 2, …), so the ledger and the holdings change in one transaction before the request.
func (b *bench) toucher() func() {
	all, err := b.s.AllHoldings(b.ctx, b.u.ID)
	benchkit.Must(err)
	edited := all[1]
	return func() {
		edited.Quantity = 3 - edited.Quantity%2
		_, err := b.s.UpdateHolding(b.ctx, portfolio.WithTotals(edited))
		benchkit.Must(err)
	}
}

// newestToucher edits the member's latest dated purchase with nothing sold (toucher edits
// the second oldest): with the ledger's days kept, only the days from it on are read again.
func (b *bench) newestToucher() func() {
	all, err := b.s.AllHoldings(b.ctx, b.u.ID) // oldest first
	benchkit.Must(err)
	var edited db.Holding
	for i := len(all) - 1; i >= 0; i-- {
		h := all[i]
		h.Quantity = 3 - h.Quantity%2 // a sold lot's quantity cannot change
		if _, err := b.s.UpdateHolding(b.ctx, portfolio.WithTotals(h)); !h.PurchaseDate.IsZero() && err == nil {
			edited = h
			break
		}
	}
	return func() {
		edited.Quantity = 3 - edited.Quantity%2
		_, err := b.s.UpdateHolding(b.ctx, portfolio.WithTotals(edited))
		benchkit.Must(err)
	}
}

// fxRows compare the member with lots in three currencies with the dollar-only member, in
// USD and in EUR.
func (b *bench) fxRows() []row {
	get := func(path string) func() { return b.getAs(b.key, path) }
	fx := func(path string) func() { return b.getAs(b.fxKey, path) }
	return []row{
		{"`GET /v1/portfolio` (lots in USD only)", get("/v1/portfolio"), nil, []int{1}},
		{"`GET /v1/portfolio` (lots in USD, EUR, GBP)", fx("/v1/portfolio"), nil, []int{1}},
		{"`GET /v1/portfolio?currency=EUR` (lots in USD, EUR, GBP)", fx("/v1/portfolio?currency=EUR"), nil, []int{1}},
		{"`GET /v1/analytics` (lots in USD only)", get("/v1/analytics"), nil, []int{1}},
		{"`GET /v1/analytics` (lots in USD, EUR, GBP)", fx("/v1/analytics"), nil, []int{1}},
		{"`GET /v1/analytics?currency=EUR` (lots in USD, EUR, GBP)", fx("/v1/analytics?currency=EUR"), nil, []int{1}},
		{"`GET /v1/portfolio/performance/summary?currency=EUR` (lots in USD, EUR, GBP)", fx("/v1/portfolio/performance/summary?currency=EUR"), nil, []int{1}},
	}
}

// measureRows times the wanted rows, printing each, and returns their one-client p50 and p99.
func measureRows(name string, rows []row, requests int) (p50, p99 map[string]time.Duration) {
	p50, p99 = map[string]time.Duration{}, map[string]time.Duration{}
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
	return p50, p99
}

// notes are the lines below the table: ratios between rows of the same run, seeding times.
func notes(name string, b *bench, holdings int, currencyOnly bool, p50, p99 map[string]time.Duration) []string {
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
	out := []string{fxNote,
		fmt.Sprintf("- %s: storing the spot at purchase of %d lots (the refresh after the history loads) took %s.", name, b.refreshN, b.refresh.Round(time.Millisecond)),
		fmt.Sprintf("- %s: seeding %d holdings took %s.", name, holdings, b.seeded.Round(time.Millisecond)),
	}
	if p50["SQL only: portfolio aggregate"] > 0 && p50["SQL only: analytics aggregate"] > 0 { // not left out by -only
		out[2] += fmt.Sprintf(" Endpoint over SQL alone (one client): portfolio %s; analytics %s.",
			ratio("`GET /v1/portfolio`", "SQL only: portfolio aggregate"), ratio("`GET /v1/analytics`", "SQL only: analytics aggregate"))
	}
	const summary, edited, plain = "`GET /v1/portfolio/performance/summary` (all 10 periods)", "`GET /v1/portfolio/performance/summary` right after an edit", "`GET /v1/portfolio`"
	if p50[summary] > 0 && p50[plain] > 0 {
		out = append(out, fmt.Sprintf("- %s: performance summary over `GET /v1/portfolio`, same run (one client): kept %s; right after an edit %s.", name, ratio(summary, plain), ratio(edited, plain)))
	}
	return out
}

// printPortfolioHeader is the portfolio run's heading and method paragraph.
func printPortfolioHeader(holdings, requests int) {
	fmt.Printf("## Portfolio and analytics with %d holdings\n\n", holdings)
	fmt.Printf("%s One member holds %d lots over all four metals with purchase dates across 2015–2026; every tenth lot is partly sold. ",
		benchkit.MeasuredBy("portfolio"), holdings)
	fmt.Printf("Requests go over loopback HTTP with a bearer key (authentication, logging at info into a discarded writer, no rate limit), %d per row after a warm-up; \"4 clients\" runs four at once. ", requests)
	fmt.Printf("On PostgreSQL the tables are vacuumed and analysed after seeding, as autovacuum would do soon after such an import. \"SQL only\" times the store's reads alone, in process: the position ledger's per-metal totals (analytics adds the first and last purchase days) and the 5Y chart's days, kept by the store with every write to holdings and sales. \"Right after an edit\" rows edit one holding through the store (ledger included) before each request. Each member's latest chart per range is kept until their ledger revision, the stored closes or the day move: the plain history row is served from it, the row right after an edit recomputes it every time. The \"before (in process)\" rows re-run earlier per-request methods on the same data: every purchase day priced against the history, the aggregate over every lot (PortfolioTotals), and the chart replaying every day.\n\n")
}
