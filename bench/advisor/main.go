// Command advisor measures the advisor's built-in replies for one Gold member with 10,000
// holdings (a tenth of them partly sold), on SQLite and on PostgreSQL: POST /v1/advisor/chat
// over loopback HTTP for each kind of question (quota reset untimed between requests), the
// engine alone in process, and in the same run GET /v1/portfolio as the baseline every stack
// answer rests on. It prints a Markdown section for BENCHMARKS.md.
//
//	go run ./bench/advisor [-holdings 10000] [-requests 500] [-pg postgres://…]
//
// Without -pg (or OUNCE_TEST_POSTGRES_URL) only SQLite is measured.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
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
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

// questions are one of each kind the engine answers, as a stacker would type them.
var questions = []struct{ kind, q string }{
	{"stack value", "what's my stack worth"},
	{"profit/loss", "am I up or down?"},
	{"break-even", "breakeven price for silver"},
	{"allocation", "what's my allocation"},
	{"price now", "gold price"},
	{"change/high/low over 1Y", "gold 52-week high"},
	{"gold/silver ratio", "gold silver ratio"},
	{"junk silver melt", "what is $10 face of junk silver worth"},
	{"what-if", "what if silver hits $50"},
	{"dealer premiums", "premium on 1 oz silver coins"},
	{"latest Stack Signal", "latest stack signal"},
	{"COMEX registered", "comex silver registered"},
}

func main() {
	holdings := flag.Int("holdings", 10_000, "holdings of the measured member")
	requests := flag.Int("requests", 500, "requests per endpoint and client setting")
	pg := flag.String("pg", os.Getenv("OUNCE_TEST_POSTGRES_URL"), "PostgreSQL URL (a throwaway schema is created and dropped)")
	flag.Parse()
	ctx := context.Background()

	fmt.Printf("## Advisor: built-in replies with %d holdings (issue 14)\n\n", *holdings)
	fmt.Printf("Measured by `go run ./bench/advisor` on %s, %d CPUs (%s/%s), %s. One Gold member holds %d lots over all four metals with purchase dates across 2015–2026; every tenth lot is partly sold; the demo Stack Signal articles, the bundled COMEX history and demo dealer quotes are loaded, no language model is configured. ",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), *holdings)
	fmt.Printf("`POST /v1/advisor/chat` goes over loopback HTTP with a bearer key, %d requests per row after a warm-up; each request validates, counts the quota, answers and stores both turns (the member's quota is reset between requests, untimed). \"engine only\" times the built-in reply in process (no HTTP, no quota, no storage). `GET /v1/portfolio` in the same run is the baseline: the valuation every stack answer rests on.\n\n", *requests)
	fmt.Println("| engine | what | clients | p50 | p90 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")

	// Each engine opens the store and, beside it, a plain connection to the same database for
	// what an operator would do by hand (VACUUM, touching a row), which the Store does not offer.
	type engine struct {
		name string
		open func() (*db.Store, *sqlx.DB, func())
	}
	engines := []engine{{"SQLite", func() (*db.Store, *sqlx.DB, func()) {
		dir, err := os.MkdirTemp("", "ounce-bench-advisor")
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
	cfg := web.Config{Site: handlers.Site{BaseURL: "http://127.0.0.1"}, Account: account.Config{NewUsersGold: true}}
	cfg.SetOffline(true)
	srv, err := web.New(web.Options{Store: s, Market: market, Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	must(err)
	must(srv.Handlers().Intel().EnsureSeed(ctx))
	u, err := s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
	must(err)
	key, _, err := srv.Handlers().Account().CreateAPIKey(ctx, u, "bench")
	must(err)

	seedStart := time.Now()
	seed(ctx, s, u.ID, holdings)
	seeded := time.Since(seedStart)
	if s.Engine == db.Postgres {
		_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings`)
		must(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go func() { _ = srv.App.Listener(ln) }()
	defer func() { _ = srv.App.Shutdown() }()
	base := "http://" + ln.Addr().String()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	call := func(method, path string, body any) func() {
		var b []byte
		if body != nil {
			b, _ = json.Marshal(body)
		}
		return func() {
			req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
			req.Header.Set("Authorization", "Bearer "+key)
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			res, err := client.Do(req)
			must(err)
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != 200 {
				panic(fmt.Sprintf("%s %s: status %d", method, path, res.StatusCode))
			}
		}
	}
	resetQuota := func() { must(s.PruneAdvisorUsage(ctx, db.NewDate(now.AddDate(0, 0, 3)))) }
	adv := srv.Handlers().Advisor()
	engine := func(q string) func() {
		return func() {
			r, err := adv.Builtin(ctx, u, q)
			must(err)
			if len(r.Facts) == 0 {
				panic("no facts for " + q + ": " + r.Text)
			}
		}
	}
	var all []time.Duration
	var worst string
	var worstP99 time.Duration
	row := func(what string, f, pre func(), clients, n int) map[int]time.Duration {
		d, _ := measure(f, pre, clients, n)
		fmt.Printf("| %s | %s | %d | %s | %s | %s | %s |\n", name, what, clients, ms(d[50]), ms(d[90]), ms(d[99]), ms(d[100]))
		return d
	}
	base99 := row("`GET /v1/portfolio` (baseline)", call("GET", "/v1/portfolio", nil), nil, 1, requests)[99]
	for _, q := range questions {
		d, lat := measure(call("POST", "/v1/advisor/chat", map[string]string{"message": q.q}), resetQuota, 1, requests)
		fmt.Printf("| %s | chat: %s | 1 | %s | %s | %s | %s |\n", name, q.kind, ms(d[50]), ms(d[90]), ms(d[99]), ms(d[100]))
		all = append(all, lat...)
		if d[99] > worstP99 {
			worstP99, worst = d[99], q.kind
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p int) time.Duration { return all[max(p*len(all)/100-1, 0)] }
	fmt.Printf("| %s | **chat: all kinds together** | 1 | %s | %s | **%s** | %s |\n", name, ms(pct(50)), ms(pct(90)), ms(pct(99)), ms(pct(100)))
	var mixed int
	var mu sync.Mutex
	mix := func() {
		mu.Lock()
		q := questions[mixed%len(questions)].q
		mixed++
		mu.Unlock()
		resetQuota()
		call("POST", "/v1/advisor/chat", map[string]string{"message": q})()
	}
	row("chat: all kinds in turn (quota reset timed in)", mix, nil, 4, requests)
	var eng []time.Duration
	for _, q := range questions {
		_, lat := measure(engine(q.q), nil, 1, requests)
		eng = append(eng, lat...)
	}
	sort.Slice(eng, func(i, j int) bool { return eng[i] < eng[j] })
	epct := func(p int) time.Duration { return eng[max(p*len(eng)/100-1, 0)] }
	fmt.Printf("| %s | engine only, all kinds | 1 | %s | %s | %s | %s |\n", name, ms(epct(50)), ms(epct(90)), ms(epct(99)), ms(epct(100)))
	return []string{
		fmt.Sprintf("- %s: seeding %d holdings took %s. Slowest kind at p99: %s (%s); chat p99 over all kinds is %.1f× the portfolio baseline's p99.", name, holdings, seeded.Round(time.Millisecond),
			worst, ms(worstP99), float64(pct(99))/float64(base99)),
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
func measure(f, pre func(), clients, requests int) (map[int]time.Duration, []time.Duration) {
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
	return out, lat
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
