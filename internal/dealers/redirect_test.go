package dealers

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/ouncehq/ounce/internal/outbound"
)

// TestFetcherRefusesRedirectToForbiddenHost: a listed dealer page (here on loopback) is the
// operator's, but its redirect to another host on a loopback address is refused without a
// connection to it; a redirect within the dealer's own host is followed.
func TestFetcherRefusesRedirectToForbiddenHost(t *testing.T) {
	var conns atomic.Int64
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("{}")) }))
	inner.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	inner.Start()
	defer inner.Close()
	var dealer *httptest.Server
	dealer = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			http.NotFound(w, r)
		case "/moved":
			http.Redirect(w, r, dealer.URL+"/here", http.StatusMovedPermanently)
		case "/here":
			_, _ = w.Write([]byte("[]"))
		default:
			http.Redirect(w, r, inner.URL+"/latest/meta-data/", http.StatusFound)
		}
	}))
	defer dealer.Close()
	f := testFetcher(newFakeClock())
	if _, err := f.Get(context.Background(), dealer.URL+"/feed.json", "application/json"); !errors.Is(err, outbound.ErrForbidden) {
		t.Fatalf("error %v, want the outbound policy's refusal", err)
	}
	if conns.Load() != 0 {
		t.Fatalf("the redirect target got %d connections", conns.Load())
	}
	res, err := f.Get(context.Background(), dealer.URL+"/moved", "application/json")
	if err != nil || string(res.Body) != "[]" {
		t.Fatalf("same-host redirect: %q, %v", res.Body, err)
	}
}
