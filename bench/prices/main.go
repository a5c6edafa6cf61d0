// Command prices measures /v1/prices and /v1/prices/history?range=5Y against a bare Fiber
// handler that returns the same bytes, both on loopback in one run with wrk, plus the first
// start (embedded history load). It prints a Markdown section for BENCHMARKS.md.
//
//	go run ./bench/prices [-duration 10s] [-connections 32] > bench/results/prices.md
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
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/prices"
)

type result struct {
	rps      float64
	p50, p99 time.Duration
	errors   string
}

func main() {
	duration := flag.Duration("duration", 10*time.Second, "wrk duration per target")
	conns := flag.Int("connections", 32, "wrk connections")
	rounds := flag.Int("rounds", 3, "alternating Ounce/baseline rounds per endpoint; medians are reported")
	flag.Parse()
	if _, err := exec.LookPath("wrk"); err != nil {
		fmt.Fprintln(os.Stderr, "wrk is needed: apt-get install wrk")
		os.Exit(1)
	}
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "ounce-bench")
	defer os.RemoveAll(dir)

	// First start: open, migrate, load the embedded history, seed the feed.
	start := time.Now()
	store, err := db.Open(ctx, "", filepath.Join(dir, "ounce.db"))
	must(err)
	_, err = store.Migrate(ctx)
	must(err)
	market, err := prices.NewService(ctx, store, prices.ServiceConfig{Offline: true})
	must(err)
	firstStart := time.Since(start)
	start = time.Now()
	_, err = prices.NewService(ctx, store, prices.ServiceConfig{Offline: true})
	must(err)
	warmStart := time.Since(start)

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.New(app.Options{Store: store, Market: market, Config: app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}}, Logger: quiet})
	must(err)
	srv := a.Server
	ounceURL := serve(srv.App)

	targets := []struct{ name, path string }{{"/v1/prices", "/v1/prices"}, {"/v1/prices/history?metal=gold&range=5Y", "/v1/prices/history?metal=gold&range=5Y"}}
	fmt.Println("## Prices (issue: market prices)")
	fmt.Println()
	fmt.Printf("Measured %s with `go run ./bench/prices` on %d cores (%s/%s): wrk %s × %d connections × 2 threads, Ounce and baseline alternating for %d rounds per endpoint, all on loopback in one run; the table shows medians and, for the ratio, the range over rounds. ",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, *duration, *conns, *rounds)
	fmt.Println("The baseline is a bare Fiber app, with the same server timeouts as Ounce (they cost a deadline syscall per request either way), whose only handler writes the bytes our endpoint returned; so the ratio is the cost of Ounce's middleware (request id, security headers, rate-limit and auth checks; metrics off; access log at the production level) and handler.")
	fmt.Println()
	fmt.Println("| endpoint | Ounce req/s | baseline req/s | throughput ratio (min–max) | Ounce p50 / p99 | baseline p50 / p99 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, t := range targets {
		body, ct := fetch(ounceURL + t.path)
		bare := fiber.New(fiber.Config{DisableStartupMessage: true, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second})
		bare.Get(strings.SplitN(t.path, "?", 2)[0], func(c *fiber.Ctx) error {
			c.Set(fiber.HeaderContentType, ct)
			return c.Send(body)
		})
		bareURL := serve(bare)
		var os_, bs []result
		var ratios []float64
		for i := 0; i < *rounds; i++ {
			o := wrk(ounceURL+t.path, *duration, *conns)
			b := wrk(bareURL+t.path, *duration, *conns)
			os_, bs = append(os_, o), append(bs, b)
			ratios = append(ratios, o.rps/b.rps)
			if o.errors != "" || b.errors != "" {
				fmt.Fprintf(os.Stderr, "wrk reported errors: ounce %q, baseline %q\n", o.errors, b.errors)
			}
		}
		_ = bare.Shutdown()
		o, b := median(os_), median(bs)
		sort.Float64s(ratios)
		fmt.Printf("| `GET %s` (%d bytes) | %.0f | %.0f | **%.2f** (%.2f–%.2f) | %s / %s | %s / %s |\n", t.name, len(body), o.rps, b.rps, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1], o.p50, o.p99, b.p50, b.p99)
	}
	fmt.Println()
	fmt.Printf("First start on SQLite (open, migrate, load %s closes of embedded history in one transaction, seed the feed): **%s**. A second start with the history already stored: %s.\n",
		countCloses(ctx, store), firstStart.Round(time.Millisecond), warmStart.Round(time.Millisecond))
	_ = srv.App.Shutdown()
}

// median takes the median of each figure separately.
func median(rs []result) result {
	pick := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	return result{
		rps: pick(func(r result) float64 { return r.rps }),
		p50: time.Duration(pick(func(r result) float64 { return float64(r.p50) })),
		p99: time.Duration(pick(func(r result) float64 { return float64(r.p99) })),
	}
}

func countCloses(ctx context.Context, s *db.Store) string {
	n, _ := s.CountCloses(ctx)
	return strconv.Itoa(n)
}

func serve(app *fiber.App) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go func() { _ = app.Listener(ln) }()
	return "http://" + ln.Addr().String()
}

func fetch(url string) ([]byte, string) {
	res, err := http.Get(url)
	must(err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(err)
	if res.StatusCode != 200 {
		must(fmt.Errorf("%s: %d %s", url, res.StatusCode, b))
	}
	return b, res.Header.Get("Content-Type")
}

var (
	rpsRe = regexp.MustCompile(`Requests/sec:\s+([\d.]+)`)
	pRe   = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([\d.]+)(us|ms|s)`)
	errRe = regexp.MustCompile(`(?m)^\s+(Non-2xx.*|Socket errors.*)$`)
)

func wrk(url string, d time.Duration, conns int) result {
	out, err := exec.Command("wrk", "-t2", "-c"+strconv.Itoa(conns), "-d"+d.String(), "--latency", url).CombinedOutput()
	must(err)
	var r result
	if m := rpsRe.FindSubmatch(out); m != nil {
		r.rps, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	for _, m := range pRe.FindAllSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(string(m[2]), 64)
		unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[string(m[3])]
		dur := time.Duration(v * float64(unit)).Round(time.Microsecond)
		if string(m[1]) == "50" {
			r.p50 = dur
		} else {
			r.p99 = dur
		}
	}
	for _, m := range errRe.FindAllSubmatch(out, -1) {
		r.errors += strings.TrimSpace(string(m[1])) + "; "
	}
	return r
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
