package comex

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/outbound"
)

// TestFetchRefusesRedirectToForbiddenHost: the configured CME site (here on loopback) is
// trusted, but its redirect to another host on a loopback address is refused without a
// connection to it.
func TestFetchRefusesRedirectToForbiddenHost(t *testing.T) {
	var conns atomic.Int64
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(readFixture(t, "Gold_2026-04-27.xls")) }))
	inner.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	inner.Start()
	defer inner.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+r.URL.Path, http.StatusFound)
	}))
	defer site.Close()
	_, err := NewFetcher(site.URL, nil).Fetch(context.Background(), metals.Gold)
	if !errors.Is(err, outbound.ErrForbidden) {
		t.Fatalf("error %v, want the outbound policy's refusal", err)
	}
	if conns.Load() != 0 {
		t.Fatalf("the redirect target got %d connections", conns.Load())
	}
}
