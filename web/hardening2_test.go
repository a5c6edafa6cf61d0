package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"runtime"
	"strings"
	"testing"
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
