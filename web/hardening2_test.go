package web_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
)

// Hardening II, black-box over loopback.

// gzipBytes compresses b once.
func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	z, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if _, err := z.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// gzipBomb is a JSON-looking body of n zero bytes (well, spaces), gzipped twice: a few KB on
// the wire.
func gzipBomb(t *testing.T, n int) []byte {
	t.Helper()
	var inner bytes.Buffer
	z, _ := gzip.NewWriterLevel(&inner, gzip.BestCompression)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	_, _ = z.Write([]byte("{"))
	for w := 0; w < n; w += len(chunk) {
		_, _ = z.Write(chunk)
	}
	_, _ = z.Write([]byte("}"))
	_ = z.Close()
	return gzipBytes(t, inner.Bytes())
}

// TestHardeningCompressedBodiesAreRefused (item 1): a body naming a Content-Encoding is
// refused with 415 naming the header before anything inflates it, on the JSON routes a
// stranger reaches, the Stripe webhook, and page forms (URL-encoded and multipart); the server
// allocates next to nothing for it and keeps answering; an uncompressed body still works.
func TestHardeningCompressedBodiesAreRefused(t *testing.T) {
	e := newEnv(t, sqliteStore(t), offline(t))
	base := e.live()
	bomb := gzipBomb(t, 64<<20) // 64 MiB inflated
	if len(bomb) > 64<<10 {
		t.Fatalf("the bomb is %d bytes on the wire, over the 64 KiB body limit", len(bomb))
	}
	single := gzipBytes(t, []byte(`{"dealer":"apmex","product_id":"silver-bar-10oz"}`))
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	_ = mw.WriteField("email", "x@example.com")
	_ = mw.Close()
	cases := []struct {
		path, ctype, encoding string
		body                  []byte
	}{
		{"/v1/dealer-prices/click", "application/json", "gzip, gzip", bomb},
		{"/v1/dealer-prices/click", "application/json", "gzip", single},
		{"/v1/dealer-prices/click", "application/json", "deflate", single},
		{"/v1/dealer-prices/click", "application/json", "br", single},
		{"/v1/dealer-prices/click", "application/json", "identity, gzip", single},
		{"/v1/webhooks/payment", "application/json", "gzip, gzip", bomb},
		{"/login", "application/x-www-form-urlencoded", "gzip, gzip", bomb},
		{"/signup", mw.FormDataContentType(), "gzip", gzipBytes(t, mp.Bytes())},
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, c := range cases {
		req, _ := http.NewRequest("POST", base+c.path, bytes.NewReader(c.body))
		req.Header.Set("Content-Type", c.ctype)
		req.Header.Set("Content-Encoding", c.encoding)
		req.Header.Set("Accept", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s (%s): %v", c.path, c.encoding, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var p struct {
			Type   string `json:"type"`
			Errors []struct{ Field string }
		}
		_ = json.Unmarshal(b, &p)
		if res.StatusCode != http.StatusUnsupportedMediaType || p.Type != "/problems/unsupported-media-type" ||
			len(p.Errors) != 1 || p.Errors[0].Field != "Content-Encoding" {
			t.Errorf("POST %s with Content-Encoding %q: %d %s", c.path, c.encoding, res.StatusCode, b)
		}
	}
	runtime.ReadMemStats(&after)
	// Inflating even one bomb allocates its 64 MiB (and Fiber's copies of it).
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("the server allocated %d MiB while refusing compressed bodies", grew>>20)
	}
	// Still alive, and a plain body (or an explicit identity coding) is served.
	for _, enc := range []string{"", "identity"} {
		req, _ := http.NewRequest("POST", base+"/v1/dealer-prices/click", strings.NewReader(`{"dealer":"apmex","product_id":"silver-bar-10oz"}`))
		req.Header.Set("Content-Type", "application/json")
		if enc != "" {
			req.Header.Set("Content-Encoding", enc)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated || !strings.Contains(string(b), `"url"`) {
			t.Errorf("plain click (Content-Encoding %q): %d %s", enc, res.StatusCode, b)
		}
	}
	if r := newLiveClient(t, base, "").get("/healthz"); r.Status != 200 {
		t.Errorf("healthz after the bombs: %d", r.Status)
	}
}

// TestHardeningHeldQuestionsOutliveTheirRequest (item 2): a question the chat page holds for
// its stream is read back exactly as asked, after more questions on the same keep-alive
// connection and other people's form posts (a sign-in with a password of the same length) on
// other connections have reused the server's request buffers.
func TestHardeningHeldQuestionsOutliveTheirRequest(t *testing.T) {
	var mu sync.Mutex
	var asked []string // the last user message of each model call
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				mu.Lock()
				asked = append(asked, req.Messages[i].Content)
				mu.Unlock()
				break
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Noted.\"}}]}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer model.Close()
	e := newEnv(t, sqliteStore(t), func(o *app.Options) {
		offline(t)(o)
		o.Config.Advisor.LLMBaseURL, o.Config.Advisor.LLMModel = model.URL, "fake-model"
	})
	e.user("victim@example.com", db.TierGold)
	base := e.live()
	ann := newLiveClient(t, base, "")
	ann.get("/signup")
	if r := ann.post("/signup", url.Values{"email": {"asker@example.com"}, "password": {"correct horse battery"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("sign-up: %d %s", r.Status, r.Body)
	}
	ann.get("/advisor")
	streamRe := regexp.MustCompile(`sse-connect="(/advisor/stream/q_[0-9a-f]+)"`)
	questions := []string{"what is gold doing today, first?", "what is silver doing today, two?", "how is platinum doing now, three", "how is palladium doing now, four", "and my whole stack overall, five"}
	var streams []string
	for i, q := range questions {
		r := ann.post("/advisor", url.Values{"message": {q}}, "HX-Request", "true", "X-CSRF-Token", ann.csrf)
		m := streamRe.FindStringSubmatch(r.Body)
		if m == nil {
			t.Fatalf("question %d is not held for a stream: %d %s", i, r.Status, r.Body)
		}
		streams = append(streams, m[1])
		// Another client's form on another connection, the same length as the question.
		other := newLiveClient(t, base, "127.0.0.2")
		other.get("/login")
		other.post("/login", url.Values{"email": {"victim@example.com"}, "password": {strings.Repeat("x", len(q))}, "message": {strings.Repeat("y", len(q))}})
	}
	for _, s := range streams {
		if r := ann.get(s); r.Status != http.StatusOK || !strings.Contains(r.Body, "event: done") {
			t.Fatalf("stream %s: %d %s", s, r.Status, r.Body)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(asked, questions) {
		t.Errorf("the model was asked\n%q\nwant\n%q", asked, questions)
	}
}

// TestHardeningControlCharacters (item 7): NUL and the other C0 controls but tab and line
// breaks are a 422 naming the field wherever text arrives — JSON strings and keys, the query,
// path parameters, page forms — on both engines, before the handler runs: a refused advisor
// question costs no message of the quota.
func TestHardeningControlCharacters(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		advisorLive(e)
		_, free := e.user("ctl-free@example.test", db.TierFree)
		_, gold := e.user("ctl-gold@example.test", db.TierGold)
		for _, c := range []struct {
			method, path, key string
			body              any
			field             string
		}{
			{"POST", "/v1/advisor/chat", free, `{"message":"gold\u0000price"}`, "message"},
			{"POST", "/v1/advisor/chat", free, `{"message":"gold\u001bprice"}`, "message"},
			{"POST", "/v1/advisor/chat", free, `{"mes\u0000sage":"gold price"}`, "field name"},
			{"DELETE", "/v1/push/delete", free, `{"token":"ExponentPushToken[\u0000]","platform":"expo"}`, "token"},
			{"GET", "/v1/sales?holding_id=%00", gold, nil, "holding_id"},
			{"GET", "/v1/holdings?limit=1%0b", gold, nil, "limit"},
			{"GET", "/v1/advisor/conversations/cv_%00", free, nil, "id"},
			{"POST", "/v1/holdings", gold, `{"metal":"gold","product_name":"Eagle\u0007","quantity":1,"weight_oz":1,"purchase_price":2000,"purchase_date":"2026-05-01"}`, "product_name"},
		} {
			r := e.api(c.method, c.path, c.key, c.body)
			var p struct {
				Type   string
				Errors []struct{ Field, Message string }
			}
			_ = json.Unmarshal(r.Body, &p)
			if r.Status != http.StatusUnprocessableEntity || p.Type != "/problems/unprocessable" || len(p.Errors) != 1 || p.Errors[0].Field != c.field {
				t.Errorf("%s %s %v: %d %s", c.method, c.path, c.body, r.Status, r.Body)
			}
		}
		// Tab and line breaks are text; the refused questions cost nothing: all five of the
		// free member's daily messages are still there.
		for i := 0; i < 5; i++ {
			r := e.api("POST", "/v1/advisor/chat", free, map[string]any{"message": "gold\tprice\r\nplease"})
			wantStatus(t, fmt.Sprintf("free message %d after refused ones", i+1), r, 200, "")
		}
		wantStatus(t, "sixth free message", e.api("POST", "/v1/advisor/chat", free, map[string]any{"message": "gold price"}), 429, "rate-limited")

		// Pages: the display-name form and the advisor form answer 422 in the page's voice.
		b := e.browser()
		b.signUp("ctl-page@example.test")
		b.get("/settings/account")
		r := b.post("/settings/account/profile", url.Values{"display_name": {"Ann\x00"}, "time_zone": {"UTC"}}, false)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "Display name must not contain control characters") {
			t.Errorf("display name with NUL: %d %.600s", r.Status, r.Body)
		}
		b.get("/advisor")
		r = b.post("/advisor", url.Values{"message": {"gold\x00price"}}, true)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "Message must not contain control characters") {
			t.Errorf("advisor form with NUL: %d %.600s", r.Status, r.Body)
		}
		if r := b.post("/settings/account/profile", url.Values{"display_name": {"Ann Example"}, "time_zone": {"UTC"}}, false); r.Status >= 400 {
			t.Errorf("plain display name: %d %.300s", r.Status, r.Body)
		}
	})
}

// TestHardeningReadOnlyPagesSetNoCookie (item 13): a visitor's read-only pages carry no
// cookie at all; the sign-in and sign-up pages, which have forms, set the CSRF cookie, and
// their posts still work with it.
func TestHardeningReadOnlyPagesSetNoCookie(t *testing.T) {
	e := newEnv(t, sqliteStore(t), offline(t))
	e.user("reader@example.com", db.TierGold)
	base := e.live()
	for _, p := range []string{"/markets", "/vault", "/docs/api", "/legal", "/markets/chart?metal=gold&range=1Y"} {
		r := newLiveClient(t, base, "").get(p)
		if r.Status != http.StatusOK || len(r.Header.Values("Set-Cookie")) != 0 {
			t.Errorf("GET %s: %d, Set-Cookie %q", p, r.Status, r.Header.Values("Set-Cookie"))
		}
	}
	for _, p := range []string{"/login", "/signup"} {
		r := newLiveClient(t, base, "").get(p)
		if got := fmt.Sprint(setCookies(r.Header)); r.Status != http.StatusOK || got != "[ounce_csrf]" {
			t.Errorf("GET %s: %d, sets %s", p, r.Status, got)
		}
	}
	v := newLiveClient(t, base, "")
	v.get("/markets")
	v.get("/login")
	if r := v.post("/login", url.Values{"email": {"reader@example.com"}, "password": {"correct horse battery"}}); r.Status != http.StatusSeeOther {
		t.Errorf("sign-in after a read-only page: %d %.300s", r.Status, r.Body)
	}
	s := newLiveClient(t, base, "")
	s.get("/signup")
	if r := s.post("/signup", url.Values{"email": {"fresh@example.com"}, "password": {"correct horse battery"}}); r.Status != http.StatusSeeOther {
		t.Errorf("sign-up: %d %.300s", r.Status, r.Body)
	}
}

// openStream starts GET path from a loopback address and returns the response once its
// headers are in; the body stays open until the test ends.
func openStream(t *testing.T, base, from, path string) *http.Response {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}, Timeout: 0}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	req.Header.Set("Accept", "text/event-stream")
	res, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s from %s: %v", path, from, err)
	}
	t.Cleanup(func() { cancel(); res.Body.Close() })
	return res
}

// refusalBody reads a refused stream's problem; a stream that was let in is never read (it
// would not end) but fails the test.
func refusalBody(t *testing.T, r *http.Response) []byte {
	t.Helper()
	if r.StatusCode == http.StatusOK {
		t.Fatalf("a stream past the cap was let in")
	}
	b, _ := io.ReadAll(r.Body)
	return b
}

// TestHardeningStreamCaps (item 3): live streams are capped per client address (a quarter of
// the total) and in total; past either cap the answer is a problem with Retry-After (429 for
// the address, 503 for the server), and /healthz and /v1/prices keep answering at the cap.
func TestHardeningStreamCaps(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) {
		offline(t)(o)
		o.Config.HTTP.MaxStreams = 4
	})
	if l := e.srv.Limits(); l.MaxStreams != 4 || l.MaxStreamsPerClient != 1 || l.MaxConnections <= 4 {
		t.Fatalf("limits %+v", l)
	}
	base := e.live()
	if r := openStream(t, base, "127.0.0.1", "/events/prices"); r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("first stream: %d %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
	// The same address again: its quarter is taken.
	r := openStream(t, base, "127.0.0.1", "/events/prices")
	b := refusalBody(t, r)
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "/problems/rate-limited") {
		t.Errorf("second stream from one address: %d %v %s", r.StatusCode, r.Header, b)
	}
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"} {
		if r := openStream(t, base, ip, "/events/prices"); r.StatusCode != 200 {
			t.Fatalf("stream from %s: %d", ip, r.StatusCode)
		}
	}
	r = openStream(t, base, "127.0.0.5", "/events/prices")
	b = refusalBody(t, r)
	if r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "/problems/unavailable") {
		t.Errorf("a fifth stream: %d %v %s", r.StatusCode, r.Header, b)
	}
	// At the cap, plain requests are served, from a streaming address too.
	for _, ip := range []string{"127.0.0.1", "127.0.0.5"} {
		c := newLiveClient(t, base, ip)
		if r := c.get("/healthz"); r.Status != 200 {
			t.Errorf("healthz from %s at the stream cap: %d", ip, r.Status)
		}
		if r := c.get("/v1/prices"); r.Status != 200 {
			t.Errorf("/v1/prices from %s at the stream cap: %d", ip, r.Status)
		}
	}
}

// TestHardeningConnectionCap (item 3): past OUNCE_MAX_CONNECTIONS a connection reads a 503
// problem with Retry-After, the server keeps serving the ones it holds, and a closed
// connection frees its slot.
func TestHardeningConnectionCap(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.HTTP.MaxConnections = 2 })
	base := e.live()
	addr := strings.TrimPrefix(base, "http://")
	var held []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		held = append(held, c)
	}
	// The held connections are served (which also proves both were accepted).
	for _, c := range held {
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("held connection: %v %v", res, err)
		}
		res.Body.Close()
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("third connection: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || !strings.Contains(string(b), "connection limit") {
		t.Errorf("over the cap: %d %v %s", res.StatusCode, res.Header, b)
	}
	held[0].Close()
	// The slot frees once the server has closed its side; poll until a request gets through.
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Get(base + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no slot freed after a connection closed: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
