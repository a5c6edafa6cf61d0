// Command portfolio measures GET /v1/portfolio and GET /v1/analytics for one member with
// 10,000 holdings (a tenth of them partly sold), on SQLite and on PostgreSQL: latency
// percentiles over loopback HTTP with one client and with four, next to the raw SQL
// aggregate queries alone. It prints a Markdown section for BENCHMARKS.md.
//
//	go run ./bench/portfolio [-holdings 10000] [-requests 2000] [-pg postgres://…] > bench/PORTFOLIO_RESULTS.md
//
// Without -pg (or OUNCE_TEST_POSTGRES_URL) only SQLite is measured.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

func main() {
	holdings := flag.Int("holdings", 10_000, "holdings of the measured member")
	requests := flag.Int("requests", 2000, "requests per endpoint and client setting")
	pg := flag.String("pg", os.Getenv("OUNCE_TEST_POSTGRES_URL"), "PostgreSQL URL (a throwaway schema is created and dropped)")
	flag.Parse()
	ctx := context.Background()

	fmt.Printf("## Portfolio and analytics with %d holdings\n\n", *holdings)
	fmt.Printf("Measured by `go run ./bench/portfolio` on %s, %d CPUs (%s/%s), %s. One member holds %d lots over all four metals with purchase dates across 2015–2026; every tenth lot is partly sold. ",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), *holdings)
	fmt.Printf("Requests go over loopback HTTP with a bearer key (authentication, logging at info into a discarded writer, no rate limit), %d per row after a warm-up; \"4 clients\" runs four at once. ", *requests)
	fmt.Printf("On PostgreSQL the table is vacuumed and analysed after seeding, as autovacuum would do soon after such an import. \"SQL only\" times the store's queries alone, in process: the per-metal sums of holdings and of sales (analytics adds sums over every purchase). Each lot stores its spot at purchase, so analytics sums premiums in the same aggregate; the \"before (in process)\" rows re-run the previous per-request method (every purchase day priced against the history; the chart replaying every day) on the same data.\n\n")
	fmt.Println("| engine | what | clients | p50 | p90 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")

	// Each engine opens the store and, beside it, a plain connection to the same database for
	// what an operator would do by hand (VACUUM, touching a row), which the Store does not offer.
	type engine struct {
		name string
		open func() (*db.Store, *sqlx.DB, func())
	}
	engines := []engine{{"SQLite", func() (*db.Store, *sqlx.DB, func()) {
		dir, err := os.MkdirTemp("", "ounce-bench-portfolio")
		must(err)
		path := filepath.Join(dir, "ounce.db")
		s, err := db.Open(ctx, "", path)
		must(err)
		raw, err := sqlx.ConnectContext(ctx, "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		must(err)
		return s, raw, func() { _ = raw.Close(); _ = s.Close(); _ = os.RemoveAll(dir) }
	}}}
	if *pg != "" {
		engines = append(engines, engine{"PostgreSQL", func() (*db.Store, *sqlx.DB, func()) { return pgStore(ctx, *pg) }})
	}
	var notes []string
	for _, eng := range engines {
		s, raw, done := eng.open()
		before := loadAvg()
		n := run(ctx, eng.name, s, raw, *holdings, *requests)
		notes = append(notes, n...)
		notes = append(notes, fmt.Sprintf("- %s: load average (1 min) %s before, %s after: other work on the machine competes for its two cores.", eng.name, before, loadAvg()))
		done()
	}
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
}

// run seeds one store and measures it, printing table rows; it returns notes for below the table.
func run(ctx context.Context, name string, s *db.Store, raw *sqlx.DB, holdings, requests int) []string {
	_, err := s.Migrate(ctx)
	must(err)
	market, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true})
	must(err)
	now := time.Now().UTC()
	snap := prices.Snapshot{AsOf: now, Prices: map[metals.Metal]prices.Spot{}}
	for m, q := range map[metals.Metal][2]string{metals.Gold: {"2650.40", "2630.10"}, metals.Silver: {"31.25", "31.50"}, metals.Platinum: {"1000.00", "990.00"}, metals.Palladium: {"1100.55", "1098.00"}} {
		p, prev := decimal.RequireFromString(q[0]), decimal.RequireFromString(q[1])
		snap.Prices[m] = prices.Spot{Metal: m, Symbol: m.Symbol(), Price: p, PrevClose: prev, Change: p.Sub(prev), ChangePct: metals.Percent(metals.PctChange(prev, p)), AsOf: now, Source: "bench"}
	}
	market.Feed().Apply(snap)
	srv, err := web.New(web.Options{Store: s, Market: market, Config: web.Config{Site: handlers.Site{BaseURL: "http://127.0.0.1"}, Account: account.Config{NewUsersGold: true}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(err)
	u, err := s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
	must(err)
	key, _, err := srv.Handlers().Account().CreateAPIKey(ctx, u, "bench")
	must(err)

	seedStart := time.Now()
	seed(ctx, s, u.ID, holdings)
	seeded := time.Since(seedStart)
	// Fill every lot's spot at purchase, as the refresh job does after the history loads.
	refreshStart := time.Now()
	refreshed, err := srv.Handlers().Portfolio().RefreshSpots(ctx)
	must(err)
	refreshTook := time.Since(refreshStart)
	if s.Engine == db.Postgres {
		// What autovacuum does soon after a bulk import: statistics and the visibility map.
		_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings`)
		must(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go func() { _ = srv.App.Listener(ln) }()
	defer func() { _ = srv.App.Shutdown() }()
	base := "http://" + ln.Addr().String()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	get := func(path string) func() {
		return func() {
			req, _ := http.NewRequest("GET", base+path, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			res, err := client.Do(req)
			must(err)
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != 200 {
				panic(fmt.Sprintf("%s: status %d", path, res.StatusCode))
			}
		}
	}
	today := db.NewDate(prices.SessionDate(now))
	sqlPortfolio := func() {
		_, err := s.PortfolioTotals(ctx, u.ID, today, db.HeldOnly)
		must(err)
	}
	sqlAnalytics := func() {
		_, err := s.PortfolioTotals(ctx, u.ID, today, db.WithPurchases)
		must(err)
	}
	sqlDays := func() {
		_, err := s.PositionChanges(ctx, u.ID)
		must(err)
	}
	// The previous method, in process, as the baseline: analytics priced every purchase day
	// against the history on the first request after an edit, and the chart replayed every
	// day since the first purchase.
	spotOn := func(m metals.Metal, day time.Time) (decimal.Decimal, bool) { return market.CloseOn(m, day) }
	oldAnalytics := func() {
		totals, err := s.PortfolioTotals(ctx, u.ID, today, db.WithPurchases)
		must(err)
		changes, err := s.PositionChanges(ctx, u.ID)
		must(err)
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
		must(err)
		_ = portfolio.ReplayHistory(market, changes, prices.Range5Y, time.Now())
	}
	// touch changes one holding, as any edit would, so the next analytics request recomputes
	// the premium over every purchase day.
	touch := func() {
		_, err := raw.ExecContext(ctx, raw.Rebind(`UPDATE holdings SET updated_at = ? WHERE id = (SELECT MIN(id) FROM holdings WHERE user_id = ?)`),
			time.Now().UTC(), u.ID)
		must(err)
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
		{"SQL only: purchases per metal and day", sqlDays, nil, []int{1}},
		{"before (in process): analytics after an edit, pricing every purchase day", oldAnalytics, touch, []int{1}},
		{"before (in process): history 5Y replaying every day", oldHistory, nil, []int{1}},
		{"`GET /v1/analytics` right after an edit", get("/v1/analytics"), touch, []int{1}},
		{"`GET /v1/portfolio/history?range=5Y`", get("/v1/portfolio/history?range=5Y"), nil, []int{1}},
	}
	p99 := map[string]time.Duration{}
	p50 := map[string]time.Duration{}
	for _, r := range rows {
		for _, c := range r.clients {
			n := requests
			if r.pre != nil {
				n = max(requests/4, 50)
			}
			d := measure(r.f, r.pre, c, n)
			fmt.Printf("| %s | %s | %d | %s | %s | %s | %s |\n", name, r.what, c, ms(d[50]), ms(d[90]), ms(d[99]), ms(d[100]))
			if c == 1 {
				p50[r.what], p99[r.what] = d[50], d[99]
			}
		}
	}
	ratio := func(a, b string) string {
		return fmt.Sprintf("%.1f× at p50, %.1f× at p99", float64(p50[a])/float64(p50[b]), float64(p99[a])/float64(p99[b]))
	}
	return []string{
		fmt.Sprintf("- %s: storing the spot at purchase of %d lots (the refresh after the history loads) took %s.", name, refreshed, refreshTook.Round(time.Millisecond)),
		fmt.Sprintf("- %s: seeding %d holdings took %s. Endpoint over SQL alone (one client): portfolio %s; analytics %s.", name, holdings, seeded.Round(time.Millisecond),
			ratio("`GET /v1/portfolio`", "SQL only: portfolio aggregate"), ratio("`GET /v1/analytics`", "SQL only: analytics aggregate")),
	}
}

// seed imports n holdings in one transaction, then sells part of every tenth.
func seed(ctx context.Context, s *db.Store, userID int64, n int) {
	rng := mrand.New(mrand.NewPCG(1, 2))
	weights := []string{"1", "0.1", "0.25", "0.5", "0.7734", "0.07234", "10", "32.15074657", "0.03215"}
	products := []string{"Eagle", "Maple Leaf", "Britannia", "Krugerrand", "Philharmonic", "bar", "round", "junk dimes"}
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]db.Holding, n)
	for i := range rows {
		m := metals.All[rng.IntN(4)]
		rows[i] = db.Holding{Metal: string(m), ProductName: fmt.Sprintf("%s %s #%d", m.Title(), products[rng.IntN(len(products))], i),
			Quantity: int64(1 + rng.IntN(100)), WeightOz: decimal.RequireFromString(weights[rng.IntN(len(weights))]),
			PurchasePrice: decimal.New(int64(100+rng.IntN(300_000)), -2), Fees: decimal.New(int64(rng.IntN(3)*rng.IntN(5000)), -2),
			Dealer: "Dealer " + string(rune('A'+rng.IntN(6))), PurchaseDate: db.NewDate(start.AddDate(0, 0, rng.IntN(4200)))}
	}
	_, err := s.ImportHoldings(ctx, userID, rows)
	must(err)
	all, err := s.AllHoldings(ctx, userID)
	must(err)
	for i, h := range all {
		if i%10 != 0 || h.Quantity < 2 {
			continue
		}
		_, err := s.InsertSale(ctx, userID, h.ID, db.Sale{Quantity: 1 + int64(rng.IntN(int(h.Quantity-1))), PricePerUnit: decimal.New(int64(100+rng.IntN(300_000)), -2),
			Fees: decimal.Zero, SoldOn: db.NewDate(h.PurchaseDate.AddDate(0, 1, 0))})
		must(err)
	}
}

// measure runs f requests times (after a warm-up) from clients goroutines and returns the
// latency percentiles 50, 90, 99 and 100. pre, when set, runs before each request, untimed
// (with one client only).
func measure(f, pre func(), clients, requests int) map[int]time.Duration {
	for i := 0; i < 20; i++ {
		if pre != nil {
			pre()
		}
		f()
	}
	lat := make([]time.Duration, requests)
	var wg sync.WaitGroup
	var next int
	var mu sync.Mutex
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= requests {
					return
				}
				if pre != nil {
					pre()
				}
				t := time.Now()
				f()
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	out := map[int]time.Duration{}
	for _, p := range []int{50, 90, 99, 100} {
		i := p*len(lat)/100 - 1
		if i < 0 {
			i = 0
		}
		out[p] = lat[i]
	}
	return out
}

// loadAvg is the one-minute load average, or "?" where /proc is missing.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) == 0 {
		return "?"
	}
	f := strings.Fields(string(b))
	return f[0]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// pgStore opens a store in a fresh schema of the database at base, and a plain connection to
// it, both closed and the schema dropped by the returned func.
func pgStore(ctx context.Context, base string) (*db.Store, *sqlx.DB, func()) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	admin, err := sqlx.ConnectContext(ctx, "postgres", base)
	must(err)
	_, err = admin.ExecContext(ctx, `CREATE SCHEMA `+schema)
	must(err)
	u, err := url.Parse(base)
	must(err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := db.Open(ctx, u.String(), "")
	must(err)
	raw, err := sqlx.ConnectContext(ctx, "postgres", u.String())
	must(err)
	return s, raw, func() {
		_ = raw.Close()
		_ = s.Close()
		_, _ = admin.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		_ = admin.Close()
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
