package news

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

// TestFetchRefusesRedirectToForbiddenHost: a configured feed (here on loopback) is trusted,
// but its redirect to another host, [::1] or another loopback port, is refused without a
// connection to it.
func TestFetchRefusesRedirectToForbiddenHost(t *testing.T) {
	var conns atomic.Int64
	count := func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	inner := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(readFixture(t, "rss.xml"))
	}))
	inner.Config.ConnState = count
	inner.Start()
	defer inner.Close()
	targets := []string{inner.URL + "/latest/meta-data/"}
	if ln, err := net.Listen("tcp6", "[::1]:0"); err == nil {
		v6 := httptest.NewUnstartedServer(inner.Config.Handler)
		v6.Listener = ln
		v6.Config.ConnState = count
		v6.Start()
		defer v6.Close()
		targets = append(targets, v6.URL+"/latest/meta-data/")
	}
	for _, to := range targets {
		feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		}))
		items, _, err := Fetcher{}.Fetch(context.Background(), Feed{URL: feed.URL + "/feed.xml"}, FeedState{})
		feed.Close()
		if !errors.Is(err, outbound.ErrForbidden) || len(items) != 0 {
			t.Errorf("redirect to %s: %d items, error %v; want the outbound policy's refusal", to, len(items), err)
		}
	}
	if conns.Load() != 0 {
		t.Fatalf("the redirect targets got %d connections", conns.Load())
	}
}
