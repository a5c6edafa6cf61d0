package dealers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock stands in for time: sleeping records the wait and moves the clock on.
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	waits []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 8, 10, 14, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	if d > 0 {
		c.t = c.t.Add(d)
	}
	return ctx.Err()
}

func (c *fakeClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// site is a loopback dealer site that records what it was asked.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	requests []*http.Request
	robots   string
	pages    map[string]string // path → body
	etag     string
}

func newSite(t *testing.T, robots string, pages map[string]string) *site {
	s := &site{robots: robots, pages: pages, etag: `"v1"`}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(context.Background()))
		etag := s.etag
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			if s.robots == "" {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(s.robots))
			return
		}
		body, ok := s.pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", "Mon, 10 Aug 2026 13:00:00 GMT")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, r := range s.requests {
		out = append(out, r.URL.Path)
	}
	return out
}

func testFetcher(c *fakeClock) *Fetcher {
	f := NewFetcher(nil, UserAgent("https://ounce.example", "ops@ounce.example"))
	f.SetClock(c.now, c.sleep)
	return f
}

// TestFetcherWaitsFiveSecondsPerHost: requests to one host are at least five seconds apart
// (robots.txt included), another host is not held up by the first, and no configuration can
// make the gap shorter.
func TestFetcherWaitsFiveSecondsPerHost(t *testing.T) {
	a := newSite(t, "", map[string]string{"/1": "one", "/2": "two", "/3": "three"})
	b := newSite(t, "", map[string]string{"/x": "x"})
	clock := newFakeClock()
	f := testFetcher(clock)
	f.Gap = time.Millisecond // below the floor: ignored
	ctx := context.Background()
	for _, u := range []string{a.URL + "/1", b.URL + "/x", a.URL + "/2", a.URL + "/3"} {
		if _, err := f.Get(ctx, u, ""); err != nil {
			t.Fatal(err)
		}
	}
	// Host a: robots.txt at once, /1 a gap later. Host b is not held up by a (its robots.txt
	// goes at once), then /x a gap after it. /2 on a is already a gap after /1 by then; /3
	// waits a full gap after /2.
	want := []time.Duration{0, 5 * time.Second, 0, 5 * time.Second, 0, 5 * time.Second}
	if len(clock.waits) != len(want) {
		t.Fatalf("waits %v, want %v", clock.waits, want)
	}
	for i, w := range want {
		if clock.waits[i] != w {
			t.Errorf("wait %d = %v, want %v (all %v)", i, clock.waits[i], w, clock.waits)
		}
	}
	// Callers that arrive together queue a gap apart instead of all going at once.
	still := newFakeClock()
	f2 := NewFetcher(nil, "test")
	var mu sync.Mutex
	var got []time.Duration
	f2.SetClock(still.now, func(_ context.Context, d time.Duration) error {
		mu.Lock()
		got = append(got, d)
		mu.Unlock()
		return nil
	})
	var wg sync.WaitGroup
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); _ = f2.wait(ctx, "h") }()
	}
	wg.Wait()
	seen := map[time.Duration]bool{}
	for _, w := range got {
		seen[w] = true
	}
	for i := 0; i < 5; i++ {
		if !seen[time.Duration(i)*MinHostGap] {
			t.Errorf("concurrent waits %v: missing %v", got, time.Duration(i)*MinHostGap)
		}
	}
}

// TestFetcherIsPolite: a User-Agent naming Ounce and the contact, a conditional GET on the
// second fetch (304 gives back the kept body), and robots.txt obeyed before anything else.
func TestFetcherIsPolite(t *testing.T) {
	s := newSite(t, "User-agent: *\nDisallow: /private\n\nUser-agent: Ounce\nDisallow: /members/\nAllow: /members/open\n",
		map[string]string{"/p": "<html>price</html>", "/private": "secret", "/members/x": "m", "/members/open": "open"})
	clock := newFakeClock()
	f := testFetcher(clock)
	ctx := context.Background()
	first, err := f.Get(ctx, s.URL+"/p", "text/html")
	if err != nil || string(first.Body) != "<html>price</html>" || first.NotModified {
		t.Fatalf("first: %+v %v", first, err)
	}
	second, err := f.Get(ctx, s.URL+"/p", "text/html")
	if err != nil || !second.NotModified || string(second.Body) != "<html>price</html>" {
		t.Fatalf("second: %+v %v", second, err)
	}
	if _, err := f.Get(ctx, s.URL+"/members/x", ""); !errors.Is(err, ErrDisallowed) {
		t.Errorf("members page: %v", err)
	}
	if _, err := f.Get(ctx, s.URL+"/members/open", ""); err != nil {
		t.Errorf("allowed members page: %v", err)
	}
	// The Ounce group replaces the * group: /private is not disallowed for Ounce.
	if _, err := f.Get(ctx, s.URL+"/private", ""); err != nil {
		t.Errorf("private: %v", err)
	}
	if got := strings.Join(s.paths(), " "); got != "/robots.txt /p /p /members/open /private" {
		t.Errorf("requests %s", got)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		ua := r.Header.Get("User-Agent")
		if !strings.HasPrefix(ua, "Ounce/") || !strings.Contains(ua, "ops@ounce.example") {
			t.Errorf("User-Agent %q", ua)
		}
	}
	if s.requests[1].Header.Get("If-None-Match") != "" || s.requests[2].Header.Get("If-None-Match") != `"v1"` ||
		s.requests[2].Header.Get("If-Modified-Since") != "Mon, 10 Aug 2026 13:00:00 GMT" {
		t.Errorf("conditional headers: %v / %v", s.requests[1].Header, s.requests[2].Header)
	}
}

func TestFetcherRobotsFailureAndTimeouts(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		t.Errorf("fetched %s although robots.txt was unreadable", r.URL.Path)
	}))
	defer down.Close()
	f := testFetcher(newFakeClock())
	if _, err := f.Get(context.Background(), down.URL+"/p", ""); err == nil || !strings.Contains(err.Error(), "robots.txt") {
		t.Errorf("unreadable robots: %v", err)
	}
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}))
	defer slow.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := testFetcher(newFakeClock()).Get(ctx, slow.URL+"/p", ""); err == nil {
		t.Error("a stalled site must time out")
	}
	for _, bad := range []string{"//evil.example/x", "javascript:alert(1)", "ftp://x/y", "/relative"} {
		if _, err := f.Get(context.Background(), bad, ""); err == nil {
			t.Errorf("%q fetched", bad)
		}
	}
}

func TestRobotsRules(t *testing.T) {
	r := parseRobots("# comment\nUser-agent: Googlebot\nDisallow: /\n\nUser-agent: *\nUser-agent: other\nDisallow: /cart\nDisallow: /*.pdf$\nAllow: /cart/public\nDisallow:\n", robotsToken)
	for path, want := range map[string]bool{"/": true, "/cart": false, "/cart/x": false, "/cart/public/1": true, "/a.pdf": false, "/a.pdf?x": true, "/robots.txt": true} {
		if got := r.Allowed(path); got != want {
			t.Errorf("%s allowed=%v, want %v", path, got, want)
		}
	}
	own := parseRobots("User-agent: *\nDisallow: /\n\nUser-agent: ounce/1.0\nDisallow: /x\n", robotsToken)
	if !own.Allowed("/y") || own.Allowed("/x/1") {
		t.Error("the Ounce group must apply instead of *")
	}
	if !parseRobots("", robotsToken).Allowed("/anything") {
		t.Error("empty robots.txt allows all")
	}
}

func FuzzRobots(f *testing.F) {
	f.Add("User-agent: *\nDisallow: /a*b$\n", "/axxb")
	f.Fuzz(func(t *testing.T, body, path string) {
		_ = parseRobots(body, robotsToken).Allowed(path)
	})
}

func TestParseFeedMapping(t *testing.T) {
	cfg := FeedConfig{Dealer: "hero-bullion", ItemsPath: "data.products", SKUField: "sku", PriceField: "pricing.unit", InStockField: "stock.available",
		SKUs: map[string]string{"JUNK90-1": "silver-junk-90-face", "ASE-RY": "silver-american-eagle-1oz", "BAR10": "silver-bar-10oz"}}
	items, err := ParseFeed(readFixture(t, "feeds/aggregator.json"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, it := range items {
		got += it.Product + "=" + it.Price.String() + map[bool]string{true: "+", false: "-"}[it.InStock] + " "
	}
	if got != "silver-junk-90-face=49.8+ silver-american-eagle-1oz=77.35- silver-bar-10oz=684.1+ " {
		t.Errorf("items %s", got)
	}
	cfg.PriceField = "title"
	if _, err := ParseFeed(readFixture(t, "feeds/aggregator.json"), cfg); err == nil || !strings.Contains(err.Error(), "JUNK90-1") {
		t.Errorf("unreadable mapped price: %v", err)
	}
	cfg.ItemsPath = "data"
	if _, err := ParseFeed(readFixture(t, "feeds/aggregator.json"), cfg); err == nil {
		t.Error("items_path to an object must fail")
	}
	if _, err := ParseFeed([]byte("<html>"), cfg); err == nil {
		t.Error("HTML is not a feed")
	}
}

func FuzzParseFeed(f *testing.F) {
	f.Add([]byte(`{"data":{"products":[{"sku":"A","pricing":{"unit":"1.5"},"stock":{"available":true}}]}}`))
	cfg := FeedConfig{ItemsPath: "data.products", SKUField: "sku", PriceField: "pricing.unit", InStockField: "stock.available", SKUs: map[string]string{"A": "silver-bar-1oz"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		items, err := ParseFeed(b, cfg)
		for _, it := range items {
			if err == nil && !it.Price.IsPositive() {
				t.Fatalf("price %s", it.Price)
			}
		}
	})
}
