// Command hardening measures what issue 11 is about, on two builds of ounce side by side (the
// code before the fixes and after), each as a real server process on loopback with an
// embedded SQLite database, offline:
//
//   - a sign-up burst: 256 sign-ups at 64 concurrent, from one address and from 256 addresses,
//     while /v1/prices is timed every 10 ms — resident memory and the price endpoint's p50;
//   - visitors: 5,000 anonymous GET /legal, then wrk on /markets without cookies — session
//     rows written, SQLite WAL size, requests per second;
//   - 40 held 15 MiB posts to /login — resident memory while they are held.
//
// It prints a Markdown section for BENCHMARKS.md.
//
//	go build -o /tmp/ounce-before ./cmd/ounce   # at the commit before
//	go build -o /tmp/ounce-after ./cmd/ounce
//	go run ./bench/hardening -before /tmp/ounce-before -after /tmp/ounce-after
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ouncehq/ounce/bench/benchkit"
	"github.com/ouncehq/ounce/db"
)

func main() {
	readBuilds := benchkit.BuildFlags("the fixes")
	wrkFor := flag.Duration("wrk", 10*time.Second, "wrk duration on /markets")
	only := flag.String("only", "burst,visitors,held", "which measurements to run")
	rounds := flag.Int("rounds", 3, "alternating wrk rounds per build on /markets")
	flag.Parse()
	bins := readBuilds("hardening -before BIN -after BIN")
	if _, err := exec.LookPath("wrk"); err != nil {
		fmt.Fprintln(os.Stderr, "wrk is needed: apt-get install wrk")
		os.Exit(1)
	}

	fmt.Printf("Measured %s with `go run ./bench/hardening` on %d CPUs (%s/%s), %s: each row is a fresh server process (SQLite, `OUNCE_OFFLINE=1`, `/v1` rate limit off, log level warn) on loopback.\n\n",
		time.Now().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())

	if strings.Contains(*only, "burst") {
		burstTable(bins)
	}
	if strings.Contains(*only, "visitors") {
		visitorsTable(bins, *wrkFor, *rounds)
	}
	if strings.Contains(*only, "held") {
		heldTable(bins)
	}
}

func burstTable(builds []benchkit.Build) {
	fmt.Println("**Sign-up burst (item 3).** 256 sign-ups (GET /signup, then POST) at 64 concurrent; /v1/prices requested every 10 ms meanwhile. \"one address\" sends all from 127.0.0.1; \"256 addresses\" from 127.0.1.1–127.0.2.0, as a botnet would, so the per-address limit does not apply and only the hashing bound does. RSS is the server's VmRSS at rest and its peak (VmHWM) over the burst.")
	fmt.Println()
	fmt.Println("| build | senders | RSS at rest | peak RSS | /v1/prices p50 at rest | p50 / p99 during burst | burst took | answers |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---|")
	for _, spread := range []bool{false, true} {
		for _, b := range builds {
			signupBurst(b.Name, b.Bin, spread)
		}
	}
	fmt.Println()
}

func visitorsTable(builds []benchkit.Build, wrkFor time.Duration, rounds int) {
	fmt.Printf("**Visitors (item 4).** 5,000 sequential anonymous GET /legal without cookies; then wrk (2 threads, 32 connections, %s) on /markets without cookies, the two builds alternating for %d rounds (medians, range in brackets); then the same with a cookie the server issued (a session cookie before, the CSRF cookie after). Both servers run side by side, idle but for the one measured.\n\n", wrkFor, rounds)
	fmt.Println("| build | session rows after 5,000 × /legal | took | /markets req/s anonymous | p50 / p99 | session rows written by wrk | SQLite WAL growth | /markets req/s with a cookie |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	type side struct {
		s              *server
		legal          time.Duration
		afterLegal     int
		wal0           int64
		rps, rpsCookie []float64
		p50, p99       []string
		cookie         string
	}
	sides := make([]*side, len(builds))
	for i, b := range builds {
		sd := &side{s: start(b.Bin)}
		defer sd.s.stop()
		c := &http.Client{Timeout: 10 * time.Second}
		t0 := time.Now()
		for j := 0; j < 5000; j++ {
			res, err := c.Get(sd.s.Base + "/legal")
			must(err)
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		sd.legal = time.Since(t0)
		sd.afterLegal = sessions(sd.s)
		sd.wal0 = walSize(sd.s)
		res, err := c.Get(sd.s.Base + "/markets")
		must(err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		var ck []string
		for _, k := range res.Cookies() {
			ck = append(ck, k.Name+"="+k.Value)
		}
		sd.cookie = strings.Join(ck, "; ")
		sides[i] = sd
	}
	for r := 0; r < rounds; r++ {
		for _, sd := range sides {
			rps, p50, p99 := wrk(sd.s.Base+"/markets", wrkFor, "")
			sd.rps, sd.p50, sd.p99 = append(sd.rps, rps), append(sd.p50, p50), append(sd.p99, p99)
		}
	}
	written := make([]int, len(sides))
	for i, sd := range sides {
		written[i] = sessions(sd.s) - sd.afterLegal
	}
	wal := make([]int64, len(sides))
	for i, sd := range sides {
		wal[i] = walSize(sd.s) - sd.wal0
	}
	for r := 0; r < rounds; r++ {
		for _, sd := range sides {
			rps, _, _ := wrk(sd.s.Base+"/markets", wrkFor, "Cookie: "+sd.cookie)
			sd.rpsCookie = append(sd.rpsCookie, rps)
		}
	}
	for i, sd := range sides {
		fmt.Printf("| %s | %d | %.1f s | %s | %s / %s | %d | %+.1f MiB | %s |\n", builds[i].Name, sd.afterLegal, sd.legal.Seconds(), medianRange(sd.rps),
			sd.p50[len(sd.p50)/2], sd.p99[len(sd.p99)/2], written[i], float64(wal[i])/(1<<20), medianRange(sd.rpsCookie))
	}
	fmt.Println()
}

func walSize(s *server) int64 {
	if fi, err := os.Stat(filepath.Join(s.Dir, "ounce.db-wal")); err == nil {
		return fi.Size()
	}
	return 0
}

func medianRange(v []float64) string {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return fmt.Sprintf("%.0f (%.0f–%.0f)", s[len(s)/2], s[0], s[len(s)-1])
}

func heldTable(builds []benchkit.Build) {
	fmt.Println("**Held large posts (item 6).** 40 connections each announce a 15 MiB form body to POST /login, send all of it but the last byte, and hold; RSS is sampled for 15 s.")
	fmt.Println()
	fmt.Println("| build | RSS at rest | peak RSS while held | answered early | body bytes the clients got to send |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, b := range builds {
		heldPosts(b.Name, b.Bin)
	}
	fmt.Println()
}

// server is one ounce process.
type server struct{ *benchkit.Server }

func start(bin string) *server {
	started, err := benchkit.StartServer(bin, "ounce-hardening", io.Discard, "OUNCE_OFFLINE=1", "OUNCE_LOG_LEVEL=warn",
		"OUNCE_RATE_LIMIT_PER_IP=0", "OUNCE_RATE_LIMIT_PER_KEY=0", "DATABASE_URL=")
	must(err)
	s := &server{started}
	for i := 0; i < 300; i++ {
		if res, err := http.Get(s.Base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				// Warm up: the pages and the price board once, then let the start-up settle.
				for _, p := range []string{"/v1/prices", "/markets", "/signup", "/legal"} {
					if r, err := http.Get(s.Base + p); err == nil {
						_, _ = io.Copy(io.Discard, r.Body)
						r.Body.Close()
					}
				}
				time.Sleep(2 * time.Second)
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	panic("server did not start")
}

func (s *server) stop() { s.Stop(10 * time.Second) }

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// pricesLatency times GET /v1/prices every 10 ms until stop closes.
func pricesLatency(base string, stop <-chan struct{}) []time.Duration {
	c := &http.Client{Timeout: 10 * time.Second}
	var out []time.Duration
	for {
		select {
		case <-stop:
			return out
		default:
		}
		t0 := time.Now()
		if res, err := c.Get(base + "/v1/prices"); err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			out = append(out, time.Since(t0))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(float64(len(s)-1)*p)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

var csrfRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signUp runs one browser's sign-up from the given loopback address and returns the status.
func signUp(base, from, email string) int {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c := &http.Client{Jar: jar, Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/signup")
	if err != nil {
		return 0
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfRe.FindSubmatch(b)
	if m == nil {
		return res.StatusCode
	}
	form := url.Values{"_csrf": {string(m[1])}, "email": {email}, "password": {"a burst of sign-ups " + email}}
	res, err = c.PostForm(base+"/signup", form)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func signupBurst(name, bin string, spread bool) {
	s := start(bin)
	defer s.stop()
	stop := make(chan struct{})
	rest := make(chan []time.Duration)
	go func() { rest <- pricesLatency(s.Base, stop) }()
	time.Sleep(2 * time.Second)
	close(stop)
	restLat := <-rest
	rssRest, _ := s.Mem()
	s.ResetPeak()

	stop = make(chan struct{})
	during := make(chan []time.Duration)
	go func() { during <- pricesLatency(s.Base, stop) }()
	var mu sync.Mutex
	codes := map[int]int{}
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < 256; i++ {
		from := "127.0.0.1"
		if spread {
			from = fmt.Sprintf("127.0.%d.%d", 1+(i+1)/256, (i+1)%256)
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			code := signUp(s.Base, from, fmt.Sprintf("burst%d@example.com", i))
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	took := time.Since(t0)
	close(stop)
	lat := <-during
	_, hwm := s.Mem()
	senders := "one address"
	if spread {
		senders = "256 addresses"
	}
	var keys []int
	for k := range codes {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var answers []string
	for _, k := range keys {
		answers = append(answers, fmt.Sprintf("%d × %d", codes[k], k))
	}
	fmt.Printf("| %s | %s | %s | %s (+%s) | %s | %s / %s | %.1f s | %s |\n", name, senders, mib(rssRest), mib(hwm), mib(hwm-rssRest),
		ms(pct(restLat, 0.5)), ms(pct(lat, 0.5)), ms(pct(lat, 0.99)), took.Seconds(), strings.Join(answers, ", "))
}

func sessions(s *server) int {
	st, err := db.Open(context.Background(), "", filepath.Join(s.Dir, "ounce.db"))
	must(err)
	defer st.Close()
	n, err := st.CountSessions(context.Background())
	must(err)
	return n
}

var wrkRPS = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
var wrkLat = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s)`)

func wrk(target string, d time.Duration, header string) (rps float64, p50, p99 string) {
	args := []string{"-t2", "-c32", "-d" + strconv.Itoa(int(d.Seconds())) + "s", "--latency"}
	if header != "" {
		args = append(args, "-H", header)
	}
	out, err := exec.Command("wrk", append(args, target)...).CombinedOutput()
	must(err)
	if m := wrkRPS.FindSubmatch(out); m != nil {
		rps, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	for _, m := range wrkLat.FindAllSubmatch(out, -1) {
		v := string(m[2]) + string(m[3])
		if string(m[1]) == "50" {
			p50 = v
		} else {
			p99 = v
		}
	}
	return rps, p50, p99
}

func heldPosts(name, bin string) {
	s := start(bin)
	defer s.stop()
	rssRest, _ := s.Mem()
	s.ResetPeak()
	const size = 15 << 20
	host := strings.TrimPrefix(s.Base, "http://")
	var early, sent atomic.Int64
	var conns []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", host)
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
			// Watch for an early answer while sending.
			go func() {
				buf := make([]byte, 64)
				if n, _ := conn.Read(buf); n > 0 && strings.HasPrefix(string(buf[:n]), "HTTP/1.1 4") {
					early.Add(1)
				}
			}()
			_, _ = fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n", host, size)
			chunk := []byte(strings.Repeat("a", 64<<10))
			_ = conn.SetWriteDeadline(time.Now().Add(15 * time.Second))
			for left := size - 1; left > 0; {
				n := min(left, len(chunk))
				w, err := conn.Write(chunk[:n])
				sent.Add(int64(w))
				if err != nil {
					return
				}
				left -= n
			}
		}()
	}
	var peak int64
	for t := time.Now(); time.Since(t) < 15*time.Second; {
		if rss, _ := s.Mem(); rss > peak {
			peak = rss
		}
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	_, hwm := s.Mem()
	peak = max(peak, hwm)
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	fmt.Printf("| %s | %s | %s (+%s) | %d of 40 | %.0f MiB |\n", name, mib(rssRest), mib(peak), mib(peak-rssRest), early.Load(), float64(sent.Load())/(1<<20))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
