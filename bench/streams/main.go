// Command streams measures the live price stream at scale, on two builds of ounce side by
// side: each is started as a real server process (embedded SQLite) whose only price provider
// is a fake gold-api on loopback; N clients open GET /events/prices, the fake's gold price
// moves, and the harness times how long after the server fetched the new price every client
// has read it, and reads the server's resident memory (VmRSS, VmHWM in /proc/PID/status).
//
//	git archive <commit before> | tar -x -C /tmp/before && (cd /tmp/before && go build -o /tmp/ounce-before ./cmd/ounce)
//	go build -o /tmp/ounce-after ./cmd/ounce
//	go run ./bench/streams -before /tmp/ounce-before -after /tmp/ounce-after -n 10000
//
// The harness raises its own open-file limit to the hard limit (the server inherits it);
// 10,000 streams need about 10,100 descriptors on each side. Clients connect from 16
// loopback source addresses (127.0.1.1 …) so a per-address stream cap does not stop them, and
// every cap setting the server may know is set high through the environment.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ouncehq/ounce/bench/benchkit"
)

func main() {
	readBuilds := benchkit.BuildFlags("the change")
	n := flag.Int("n", 10000, "streams to open")
	sources := flag.Int("sources", 16, "loopback source addresses the clients spread over")
	flag.Parse()
	bins := readBuilds("streams -before BIN -after BIN [-n 10000]")
	var lim syscall.Rlimit
	must(syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim))
	lim.Cur = lim.Max
	must(syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim))
	if int(lim.Cur) < *n+500 {
		fmt.Fprintf(os.Stderr, "open-file limit %d is too low for %d streams\n", lim.Cur, *n)
		os.Exit(1)
	}

	fmt.Printf("Measured %s with `go run ./bench/streams -n %d` on %d CPUs (%s/%s), %s; open-file limit %d. Each row is a fresh server process (SQLite) polling a fake gold-api on loopback every 10 s; clients hold raw HTTP/1.1 connections from %d loopback addresses.\n\n",
		time.Now().Format("2006-01-02"), *n, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), lim.Cur, *sources)
	fmt.Println("| build | streams open | RSS idle | RSS with the streams | per stream | peak RSS | tick to the first / median / last stream | streams that saw it | load average at the tick |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, b := range bins {
		run(b.Name, b.Bin, *n, *sources)
	}
}

// provider is a fake gold-api: GET /price/{XAU,XAG,XPT,XPD}.
type provider struct {
	srv  *http.Server
	addr string
	mu   sync.Mutex
	gold string
	// servedNew is when the new gold price was first served.
	servedNew time.Time
	newGold   string
}

func newProvider() *provider {
	p := &provider{gold: "4165.20"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	p.addr = ln.Addr().String()
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve)}
	go func() { _ = p.srv.Serve(ln) }()
	return p
}

func (p *provider) serve(w http.ResponseWriter, r *http.Request) {
	sym := strings.TrimPrefix(r.URL.Path, "/price/")
	names := map[string]string{"XAU": "Gold", "XAG": "Silver", "XPT": "Platinum", "XPD": "Palladium"}
	price := map[string]string{"XAG": "52.10", "XPT": "1512.40", "XPD": "1180.75"}[sym]
	if sym == "XAU" {
		p.mu.Lock()
		price = p.gold
		if price == p.newGold && p.servedNew.IsZero() {
			p.servedNew = time.Now()
		}
		p.mu.Unlock()
	}
	if names[sym] == "" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"currency":"USD","currencySymbol":"$","exchangeRate":1,"name":%q,"price":%s,"symbol":%q,"updatedAt":%q,"updatedAtReadable":"a few seconds ago"}`,
		names[sym], price, sym, time.Now().UTC().Format(time.RFC3339))
}

func (p *provider) move(to string) {
	p.mu.Lock()
	p.gold, p.newGold, p.servedNew = to, to, time.Time{}
	p.mu.Unlock()
}

func (p *provider) served() time.Time { p.mu.Lock(); defer p.mu.Unlock(); return p.servedNew }

type server struct{ *benchkit.Server }

func start(bin string, prov *provider) *server {
	started, err := benchkit.StartServer(bin, "ounce-streams", os.Stderr, "OUNCE_LOG_LEVEL=error", "DATABASE_URL=",
		"OUNCE_PRICE_PROVIDERS=gold-api", "OUNCE_PRICE_BASE_URLS=gold-api=http://"+prov.addr, "OUNCE_PRICE_INTERVAL=10s",
		// Nothing else leaves the machine: feeds and the CME site point at the fake (404s).
		"OUNCE_NEWS_FEEDS=http://"+prov.addr+"/feed.xml", "OUNCE_CME_BASE_URL=http://"+prov.addr, "OUNCE_CONTACT_EMAIL=",
		// Caps on connections and streams, under whichever names the build knows, set high.
		"OUNCE_MAX_CONNECTIONS=19500", "OUNCE_MAX_STREAMS=19000", "OUNCE_MAX_STREAMS_PER_IP=19000", "OUNCE_MAX_STREAMS_PER_ADDRESS=19000",
		"OUNCE_RATE_LIMIT_PER_IP=0", "OUNCE_RATE_LIMIT_PER_KEY=0")
	must(err)
	s := &server{started}
	for i := 0; i < 600; i++ {
		if res, err := http.Get(s.Base + "/v1/prices"); err == nil {
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 200 && bytes.Contains(b, []byte("4165.2")) && bytes.Contains(b, []byte(`"stale":false`)) {
				time.Sleep(time.Second)
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	panic("server did not start with the fake provider's prices")
}

func (s *server) stop() { s.Stop(15 * time.Second) }

// client is one open stream. It reads until marker appears (the moved price), then records
// when, and keeps reading until closed.
type client struct {
	conn net.Conn
	saw  atomic.Int64 // unix nanoseconds the marker was read; 0 before
}

func open(addr string, src net.IP) (*client, error) {
	d := net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: src}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Write([]byte("GET /events/prices HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
		conn.Close()
		return nil, err
	}
	// Wait for the first event (the current board) so "open" means streaming.
	_ = conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	br := bufio.NewReaderSize(conn, 1024)
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 200 ") {
		conn.Close()
		return nil, fmt.Errorf("status %q: %v", strings.TrimSpace(status), err)
	}
	seen := 0
	for seen < 1 {
		line, err := br.ReadString('\n')
		if err != nil {
			conn.Close()
			return nil, err
		}
		if strings.HasPrefix(line, "event: prices") {
			seen++
		}
	}
	_ = conn.SetReadDeadline(time.Time{})
	return &client{conn: readerConn{conn, br}}, nil
}

type readerConn struct {
	net.Conn
	r *bufio.Reader
}

func (c readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *client) watch(marker []byte, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, 2048)
	var tail []byte
	for {
		n, err := c.conn.Read(buf)
		if n > 0 {
			chunk := append(tail, buf[:n]...)
			if c.saw.Load() == 0 && bytes.Contains(chunk, marker) {
				c.saw.Store(time.Now().UnixNano())
			}
			if len(chunk) > len(marker) {
				tail = append(tail[:0], chunk[len(chunk)-len(marker):]...)
			} else {
				tail = append(tail[:0], chunk...)
			}
		}
		if err != nil {
			return
		}
	}
}

func run(name, bin string, n, sources int) {
	prov := newProvider()
	defer prov.srv.Close()
	s := start(bin, prov)
	defer s.stop()
	runtime.GC()
	idle, _ := s.Mem()
	s.ResetPeak()

	clients := make([]*client, n)
	var failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			src := net.IPv4(127, 0, 1, byte(1+i%sources))
			c, err := open(s.Addr, src)
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			clients[i] = c
		}(i)
	}
	wg.Wait()
	var streams []*client
	for _, c := range clients {
		if c != nil {
			streams = append(streams, c)
		}
	}
	if failed.Load() > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d streams failed to open (first: %v)\n", name, failed.Load(), firstErr.Load())
	}
	var readers sync.WaitGroup
	// The marker is the moved gold price as the ticker prints it.
	marker := []byte("4,166.37")
	for _, c := range streams {
		readers.Add(1)
		go c.watch(marker, &readers)
	}
	time.Sleep(2 * time.Second)
	runtime.GC()
	withStreams, _ := s.Mem()

	prov.move("4166.37")
	load := benchkit.LoadAvg()
	deadline := time.Now().Add(40 * time.Second) // the server polls every 10 s
	for time.Now().Before(deadline) {
		all := true
		for _, c := range streams {
			if c.saw.Load() == 0 {
				all = false
				break
			}
		}
		if all {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t0 := prov.served()
	var lat []time.Duration
	for _, c := range streams {
		if at := c.saw.Load(); at != 0 {
			lat = append(lat, time.Unix(0, at).Sub(t0))
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	_, peak := s.Mem()
	for _, c := range streams {
		c.conn.Close()
	}
	readers.Wait()

	tick := "never"
	if len(lat) > 0 && !t0.IsZero() {
		tick = fmt.Sprintf("%s / %s / %s", ms(lat[0]), ms(lat[len(lat)/2]), ms(lat[len(lat)-1]))
	}
	per := "–"
	if len(streams) > 0 {
		per = fmt.Sprintf("%.1f KiB", float64(withStreams-idle)/float64(len(streams))/1024)
	}
	fmt.Printf("| %s | %d of %d | %s | %s | %s | %s | %s | %d of %d | %s |\n", name, len(streams), n, mib(idle), mib(withStreams), per, mib(peak), tick, len(lat), len(streams), load)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

func must(err error) {
	if err != nil {
		panic(err)
	}
}
