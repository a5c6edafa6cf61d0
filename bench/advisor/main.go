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
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/ouncehq/ounce/bench/benchkit"
	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
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
	holdings, requests, pg := benchkit.MemberFlags(500)
	flag.Parse()
	ctx := context.Background()

	fmt.Printf("## Advisor: built-in replies with %d holdings (issue 14)\n\n", *holdings)
	fmt.Printf("%s One Gold member holds %d lots over all four metals with purchase dates across 2015–2026; every tenth lot is partly sold; the demo Stack Signal articles, the bundled COMEX history and demo dealer quotes are loaded, no language model is configured. ",
		benchkit.MeasuredBy("advisor"), *holdings)
	fmt.Printf("`POST /v1/advisor/chat` goes over loopback HTTP with a bearer key, %d requests per row after a warm-up; each request validates, counts the quota, answers and stores both turns (the member's quota is reset between requests, untimed). \"engine only\" times the built-in reply in process (no HTTP, no quota, no storage). `GET /v1/portfolio` in the same run is the baseline: the valuation every stack answer rests on.\n\n", *requests)
	fmt.Println("| engine | what | clients | p50 | p90 | p99 | max |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")

	notes := benchkit.EachEngine(ctx, *pg, "ounce-bench-advisor", func(name string, s *db.Store, raw *sqlx.DB) []string {
		return run(ctx, name, s, raw, *holdings, *requests)
	})
	fmt.Println()
	for _, n := range notes {
		fmt.Println(n)
	}
}

// run seeds one store and measures it, printing table rows; it returns notes for below the table.
func run(ctx context.Context, name string, s *db.Store, raw *sqlx.DB, holdings, requests int) []string {
	_, err := s.Migrate(ctx)
	benchkit.Must(err)
	market := benchkit.LiveMarket(ctx, s)
	now := time.Now().UTC()
	cfg := app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}, Account: account.Config{NewUsersGold: true}}
	cfg.SetOffline(true)
	a, err := app.New(app.Options{Store: s, Market: market, Config: cfg, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	benchkit.Must(err)
	srv := a.Server
	benchkit.Must(a.Intel.EnsureSeed(ctx))
	u, err := s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
	benchkit.Must(err)
	key, _, err := a.Account.CreateAPIKey(ctx, u, "bench")
	benchkit.Must(err)

	seedStart := time.Now()
	benchkit.Seed(ctx, s, u.ID, holdings)
	seeded := time.Since(seedStart)
	if s.Engine == db.Postgres {
		_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings`)
		benchkit.Must(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	benchkit.Must(err)
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
			benchkit.Must(err)
			_, _ = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
			if res.StatusCode != 200 {
				panic(fmt.Sprintf("%s %s: status %d", method, path, res.StatusCode))
			}
		}
	}
	resetQuota := func() { benchkit.Must(s.PruneAdvisorUsage(ctx, db.NewDate(now.AddDate(0, 0, 3)))) }
	adv := a.Advisor
	engine := func(q string) func() {
		return func() {
			r, err := adv.Builtin(ctx, u, q)
			benchkit.Must(err)
			if len(r.Facts) == 0 {
				panic("no facts for " + q + ": " + r.Text)
			}
		}
	}
	var all []time.Duration
	var worst string
	var worstP99 time.Duration
	row := func(what string, f, pre func(), clients, n int) map[int]time.Duration {
		d, _ := benchkit.Measure(f, pre, clients, n)
		fmt.Printf("| %s | %s | %d | %s | %s | %s | %s |\n", name, what, clients, benchkit.MS(d[50]), benchkit.MS(d[90]), benchkit.MS(d[99]), benchkit.MS(d[100]))
		return d
	}
	base99 := row("`GET /v1/portfolio` (baseline)", call("GET", "/v1/portfolio", nil), nil, 1, requests)[99]
	for _, q := range questions {
		d, lat := benchkit.Measure(call("POST", "/v1/advisor/chat", map[string]string{"message": q.q}), resetQuota, 1, requests)
		fmt.Printf("| %s | chat: %s | 1 | %s | %s | %s | %s |\n", name, q.kind, benchkit.MS(d[50]), benchkit.MS(d[90]), benchkit.MS(d[99]), benchkit.MS(d[100]))
		all = append(all, lat...)
		if d[99] > worstP99 {
			worstP99, worst = d[99], q.kind
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p int) time.Duration { return all[max(p*len(all)/100-1, 0)] }
	fmt.Printf("| %s | **chat: all kinds together** | 1 | %s | %s | **%s** | %s |\n", name, benchkit.MS(pct(50)), benchkit.MS(pct(90)), benchkit.MS(pct(99)), benchkit.MS(pct(100)))
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
		_, lat := benchkit.Measure(engine(q.q), nil, 1, requests)
		eng = append(eng, lat...)
	}
	sort.Slice(eng, func(i, j int) bool { return eng[i] < eng[j] })
	epct := func(p int) time.Duration { return eng[max(p*len(eng)/100-1, 0)] }
	fmt.Printf("| %s | engine only, all kinds | 1 | %s | %s | %s | %s |\n", name, benchkit.MS(epct(50)), benchkit.MS(epct(90)), benchkit.MS(epct(99)), benchkit.MS(epct(100)))
	return []string{
		fmt.Sprintf("- %s: seeding %d holdings took %s. Slowest kind at p99: %s (%s); chat p99 over all kinds is %.1f× the portfolio baseline's p99.", name, holdings, seeded.Round(time.Millisecond),
			worst, benchkit.MS(worstP99), float64(pct(99))/float64(base99)),
	}
}
