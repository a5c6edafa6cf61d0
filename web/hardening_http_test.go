package web_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
)

// Issue 11, items 1, 2, 6, 7 and 8: black-box over loopback.

// TestLoginNextIsSameOriginOnly (item 1): whatever `next` a sign-in carries, the redirect is a
// path on this site and no header can be injected through it, in the form, the 303 and HTMX's
// HX-Redirect.
func TestLoginNextIsSameOriginOnly(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	e.user("ann@example.com", db.TierGold)
	base := e.live()
	for _, c := range []struct{ next, want string }{
		{"/holdings?saved=1", "/holdings?saved=1"},
		{"/markets?metal=gold&range=1Y", "/markets?metal=gold&range=1Y"},
		{"/signal/a-b-c", "/signal/a-b-c"},
		{"", "/"},
		{"/\r\nSet-Cookie: ounce_session=attacker; Path=/", "/"},
		{"/\nSet-Cookie: ounce_session=attacker", "/"},
		{"/\rX-Injected: yes", "/"},
		{"/\t/evil.example", "/"},
		{"/\x00/evil.example", ""}, // a control character: refused with 422 (issue 22), no redirect
		{"/%0D%0ASet-Cookie:%20ounce_session=attacker;%20Path=/", "/"},
		{"/%250D%250ASet-Cookie:%2520ounce_session=attacker", "/"},
		{"/%25250D%25250AX-Injected:%252520yes", "/"},
		{"/%09/evil.example", "/"},
		{"/%00/evil.example", "/"},
		{"//evil.example", "/"},
		{"///evil.example", "/"},
		{"/\\evil.example", "/"},
		{"/%5Cevil.example", "/"},
		{"/%2F/evil.example", "/"},
		{"https://evil.example/", "/"},
		{"https:/evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"JavaScript:alert(1)", "/"},
		{"evil.example", "/"},
		{"/caf\u00e9", "/"},
	} {
		for _, htmx := range []bool{false, true} {
			b := newLiveClient(t, base, "")
			if c.want == "" {
				b.get("/login")
				page := b.get("/login?next=" + url.QueryEscape(c.next))
				r := b.post("/login", url.Values{"email": {"ann@example.com"}, "password": {"correct horse battery"}, "next": {c.next}})
				if page.Status != http.StatusUnprocessableEntity || r.Status != http.StatusUnprocessableEntity || r.Header.Get("Location") != "" || r.Header.Get("Set-Cookie") != "" {
					t.Errorf("next=%q: GET %d, POST %d %q", c.next, page.Status, r.Status, r.Header.Get("Location"))
				}
				continue
			}
			page := b.get("/login?next=" + url.QueryEscape(c.next))
			d, err := goquery.NewDocumentFromReader(strings.NewReader(page.Body))
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := d.Find(`input[name="next"]`).Attr("value"); v != c.want {
				t.Errorf("GET /login?next=%q puts %q in the form, want %q", c.next, v, c.want)
			}
			var r liveResp
			form := url.Values{"email": {"ann@example.com"}, "password": {"correct horse battery"}, "next": {c.next}}
			if htmx {
				r = b.post("/login", form, "HX-Request", "true", "X-CSRF-Token", b.csrf)
			} else {
				r = b.post("/login", form)
			}
			got := r.Header.Get("Location")
			if htmx {
				got = r.Header.Get("HX-Redirect")
			}
			if (!htmx && r.Status != http.StatusSeeOther) || (htmx && r.Status != http.StatusNoContent) || got != c.want {
				t.Errorf("next=%q (htmx %v): %d, redirect %q, want %q", c.next, htmx, r.Status, got, c.want)
			}
			for _, v := range r.Header.Values("Set-Cookie") {
				if strings.Contains(v, "attacker") {
					t.Errorf("next=%q (htmx %v) injected a cookie: %q", c.next, htmx, v)
				}
			}
			if r.Header.Get("X-Injected") != "" {
				t.Errorf("next=%q (htmx %v) injected a header", c.next, htmx)
			}
		}
	}
}

// TestForwardedForRightmostUntrusted (item 2): behind a trusted proxy, the client is the
// right-most X-Forwarded-For address that is not a proxy; varying what the client itself puts
// on the left changes nothing.
func TestForwardedForRightmostUntrusted(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) {
		withMarket(t)(o)
		o.Config.HTTP.TrustedProxies = []string{"127.0.0.1"}
		o.Config.HTTP.RateLimitPerIP = 5
	})
	base := e.live()
	get := func(from, xff string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", base+"/v1/prices", nil)
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		res, err := clientFrom(from).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	var statuses []int
	for i := 1; i <= 8; i++ {
		statuses = append(statuses, get("127.0.0.1", fmt.Sprintf("198.51.100.%d, 10.9.9.9", i)))
	}
	if fmt.Sprint(statuses) != "[200 200 200 200 200 429 429 429]" {
		t.Fatalf("one client varying the left of X-Forwarded-For: %v", statuses)
	}
	// Another client behind the same proxy has its own budget; so has one whose proxy chain
	// ends in a second trusted hop, and a request with no header (the proxy itself).
	for _, xff := range []string{"10.9.9.10", "10.9.9.11, 127.0.0.1", ""} {
		if s := get("127.0.0.1", xff); s != 200 {
			t.Fatalf("X-Forwarded-For %q: %d", xff, s)
		}
	}
	// A right-most entry that is not an address, or a peer that is not a trusted proxy: the
	// header is not believed and the peer's own address counts.
	for i := 0; i < 5; i++ {
		get("127.0.0.2", fmt.Sprintf("10.9.9.%d", 50+i))
	}
	if s := get("127.0.0.2", "10.9.9.99"); s != 429 {
		t.Fatalf("an untrusted peer chose its address through X-Forwarded-For: %d", s)
	}
	for i := 0; i < 4; i++ {
		get("127.0.0.1", fmt.Sprintf("10.9.9.20, not-an-ip-%d", i))
	}
	if s := get("127.0.0.1", "10.9.9.21, garbage"); s != 429 {
		t.Fatalf("an unparsable entry: %d (the proxy's own budget should be spent)", s)
	}

	// Sign-in failures are counted the same way: 36 guesses, each from a "different" address
	// on the left, are one client, refused from the 31st.
	e.user("ann@example.com", db.TierGold)
	var codes []int
	for i := 1; i <= 36; i++ {
		b := newLiveClient(t, base, "")
		b.get("/login")
		r := b.post("/login", url.Values{"email": {fmt.Sprintf("u%d@example.com", i)}, "password": {"a wrong guess"}},
			"X-Forwarded-For", fmt.Sprintf("203.0.113.%d, 10.8.8.8", i))
		codes = append(codes, r.Status)
	}
	if codes[29] != 401 || codes[30] != 429 || codes[35] != 429 {
		t.Fatalf("sign-in guesses behind a proxy: %v", codes)
	}
}

// rawRequest writes head (and body) on a fresh loopback connection and reads the answer, with
// a deadline: a server that waits, or resets the connection, fails the caller.
func rawRequest(t *testing.T, base, head string, body io.Reader, wait time.Duration) (*http.Response, string, error) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(wait))
	if _, err := io.WriteString(conn, head); err != nil {
		return nil, "", err
	}
	if body != nil {
		go func() { _, _ = io.Copy(conn, body) }()
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, "", err
	}
	b, err := io.ReadAll(res.Body)
	return res, string(b), err
}

// TestBodyLimits (item 6): forms and JSON are refused past 64 KiB as the body arrives — one
// announced larger is refused before a byte of it is read — and only the import routes take
// more.
func TestBodyLimits(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pfMarket(t, pfQuotes))
	_, key := e.user("big@example.com", db.TierGold)
	base := e.live()
	host := strings.TrimPrefix(base, "http://")

	// 15 MiB announced to the sign-in form, and nothing sent: answered at once.
	start := time.Now()
	res, body, err := rawRequest(t, base, "POST /login HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 15728640\r\n\r\n", nil, 3*time.Second)
	if err != nil || res.StatusCode != 413 {
		t.Fatalf("15 MiB announced to /login: %v %v %s", res, err, body)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the 413 took %v", d)
	}

	// A chunked body has no length to announce: refused once it passes 64 KiB.
	chunk := strings.Repeat("a", 16<<10)
	var chunked strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", len(chunk), chunk)
	}
	chunked.WriteString("0\r\n\r\n")
	res, body, err = rawRequest(t, base, "POST /signup HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n", strings.NewReader(chunked.String()), 5*time.Second)
	if err != nil || res.StatusCode != 413 {
		t.Fatalf("96 KiB chunked to /signup: %v %v %.200s", res, err, body)
	}

	// JSON past 64 KiB is a 413 problem, with the whole body sent by an ordinary client.
	big := fmt.Sprintf(`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"notes":"%s"}`, strings.Repeat("x", 100<<10))
	req, _ := http.NewRequest("POST", base+"/v1/holdings", strings.NewReader(big))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	hres, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("100 KiB JSON: %v", err)
	}
	var p map[string]any
	_ = json.NewDecoder(hres.Body).Decode(&p)
	hres.Body.Close()
	if hres.StatusCode != 413 || p["type"] != "/problems/payload-too-large" {
		t.Fatalf("100 KiB JSON: %d %v", hres.StatusCode, p)
	}
	// 64 KiB exactly is still read (and judged by the handler).
	edge := `{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"notes":"` + strings.Repeat("n", 1000) + `"}`
	edge += strings.Repeat(" ", (64<<10)-len(edge))
	req, _ = http.NewRequest("POST", base+"/v1/holdings", strings.NewReader(edge))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if hres, err = http.DefaultClient.Do(req); err != nil || hres.StatusCode != 201 {
		t.Fatalf("64 KiB JSON: %v %v", hres, err)
	}
	hres.Body.Close()

	// The import route takes its 5 MiB: a 1 MiB CSV is imported.
	var csv strings.Builder
	csv.WriteString("metal,product_name,quantity,weight_oz,purchase_price,notes\n")
	for i := 0; csv.Len() < 1<<20; i++ {
		fmt.Fprintf(&csv, "silver,coin %d,1,1,30,%s\n", i, strings.Repeat("n", 200))
	}
	req, _ = http.NewRequest("POST", base+"/v1/holdings/import", strings.NewReader(csv.String()))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "text/csv")
	if hres, err = http.DefaultClient.Do(req); err != nil || hres.StatusCode != 200 {
		t.Fatalf("1 MiB import: %v %v", hres, err)
	}
	hres.Body.Close()
}

// TestLongRequestLines (item 8): a 5 KB query string is read and answered like any other; at
// 20 KB the request line and headers are over the 16 KiB buffer and get a 431 problem — an
// answer the client reads, not a reset connection.
func TestLongRequestLines(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pfMarket(t, pfQuotes))
	_, key := e.user("long@example.com", db.TierGold)
	base := e.live()
	get := func(path string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			t.Fatalf("GET %.60s…: %v", path, err)
		}
		defer res.Body.Close()
		var p map[string]any
		if err := json.NewDecoder(res.Body).Decode(&p); err != nil {
			t.Fatalf("GET %.60s…: body is not JSON: %v", path, err)
		}
		return res.StatusCode, p
	}
	for _, path := range []string{"/v1/market-intel?metal=", "/v1/holdings/export?format="} {
		if s, p := get(path + strings.Repeat("A", 5000)); s != 400 || p["type"] != "/problems/invalid-parameter" {
			t.Errorf("5 KB %s…: %d %v", path, s, p)
		}
		s, p := get(path + strings.Repeat("A", 20000))
		if s != 431 || p["status"] != float64(431) || !strings.Contains(fmt.Sprint(p["detail"]), "16 KiB") {
			t.Errorf("20 KB %s…: %d %v", path, s, p)
		}
	}
	// The connection is still usable for the next request after a long one.
	if s, _ := get("/v1/prices"); s != 200 {
		t.Fatalf("after long requests: %d", s)
	}
}

// TestPriceStreamOutlivesWriteTimeout (item 7): an open /events/prices stream is not cut by
// the server's 60 s write timeout: it stays open three minutes with a heartbeat comment every
// 25 s, then ends cleanly (a complete chunked body) when the server shuts down. This is the one
// long test; it runs beside the others.
func TestPriceStreamOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, sqliteStore(t), withMarket(t))
	base := e.live()
	res, err := http.Get(base + "/events/prices")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", res.Header.Get("Content-Type"))
	}
	type line struct {
		at   time.Time
		text string
	}
	lines := make(chan line, 100)
	ended := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- line{time.Now(), sc.Text()}
		}
		ended <- sc.Err()
	}()
	start := time.Now()
	hold := 3 * time.Minute
	var beats []time.Time
	events := 0
	deadline := time.After(hold)
loop:
	for {
		select {
		case l := <-lines:
			switch {
			case l.text == ": keep-alive":
				beats = append(beats, l.at)
			case l.text == "event: prices":
				events++
			}
		case err := <-ended:
			t.Fatalf("the stream ended after %v: %v", time.Since(start).Round(time.Second), err)
		case <-deadline:
			break loop
		}
	}
	if events < 1 || len(beats) < 6 {
		t.Fatalf("in %v: %d events, %d heartbeats", hold, events, len(beats))
	}
	for i := 1; i < len(beats); i++ {
		if gap := beats[i].Sub(beats[i-1]); gap < 20*time.Second || gap > 30*time.Second {
			t.Fatalf("heartbeats %v apart, want about 25 s", gap)
		}
	}
	// Shutdown ends the stream with a proper end of body, not a cut connection.
	go func() { _ = e.srv.Shutdown(t.Context()) }()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the stream did not end cleanly on shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was not ended by shutdown")
	}
}
