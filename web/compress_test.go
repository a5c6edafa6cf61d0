package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestCompressTextResponses: pages, stylesheets and scripts go out brotli- or gzip-compressed
// when the browser accepts it, decode to what an uncompressed request gets, and say Vary:
// Accept-Encoding; a browser that accepts neither gets plain text.
func TestCompressTextResponses(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	base := e.live()
	get := func(path, accept string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Accept-Encoding", accept) // set by hand, so net/http does not decode
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	for _, path := range []string{"/markets", "/static/css/app.css", "/static/js/htmx.min.js", "/sw.js"} {
		plainRes, plain := get(path, "identity")
		if plainRes.StatusCode != 200 || plainRes.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%s uncompressed: %d, Content-Encoding %q", path, plainRes.StatusCode, plainRes.Header.Get("Content-Encoding"))
		}
		for _, enc := range []string{"br", "gzip"} {
			res, body := get(path, enc)
			if got := res.Header.Get("Content-Encoding"); got != enc {
				t.Fatalf("%s with Accept-Encoding %s: Content-Encoding %q", path, enc, got)
			}
			if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("%s %s: Vary %q lacks Accept-Encoding", path, enc, res.Header.Get("Vary"))
			}
			var r io.Reader = brotli.NewReader(bytes.NewReader(body))
			if enc == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				r = zr
			}
			decoded, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("%s %s: %v", path, enc, err)
			}
			if len(body) >= len(decoded) {
				t.Errorf("%s %s: %d bytes compressed from %d", path, enc, len(body), len(decoded))
			}
			if path != "/markets" && !bytes.Equal(decoded, plain) { // pages carry a fresh nonce each time
				t.Errorf("%s %s: decoded body differs from the plain one", path, enc)
			}
			if path == "/markets" && !bytes.Contains(decoded, []byte("</html>")) {
				t.Errorf("/markets %s: decoded body is not the page", enc)
			}
		}
	}
}
