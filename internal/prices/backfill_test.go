package prices_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestBackfillFillsTheGapFromAHistoryProvider starts a service whose stored history ends
// before "today": on start it asks metals.dev (a loopback replay of its timeseries payload)
// for the missing days and stores them, without touching older embedded closes.
func TestBackfillFillsTheGapFromAHistoryProvider(t *testing.T) {
	series, err := os.ReadFile("testdata/metals-dev/timeseries_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	latest, err := os.ReadFile("testdata/metals-dev/latest_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/timeseries":
			asked.Add(1)
			start, end := r.URL.Query().Get("start_date"), r.URL.Query().Get("end_date")
			if start <= "2026-06-29" && end >= "2026-07-03" {
				_, _ = w.Write(series)
				return
			}
			_, _ = w.Write([]byte(`{"status":"success","currency":"USD","unit":"toz","rates":{}}`))
		case "/v1/latest":
			_, _ = w.Write(latest)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()

	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		asked.Store(0)
		md := prices.NewMetalsDev(srv.URL, "test-key", srv.Client())
		now := func() time.Time { return time.Date(2026, 7, 6, 14, 0, 0, 0, time.UTC) }
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Providers: []prices.Provider{md}, History: md, Interval: time.Hour, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		go svc.Run(ctx)
		deadline := time.Now().Add(10 * time.Second)
		for {
			c, ok := svc.CloseOn(metals.Palladium, time.Date(2026, 6, 30, 0, 0, 0, 0, time.UTC))
			if ok && c.String() == "1691.75" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("palladium 2026-06-30 not backfilled (got %s, %d timeseries calls)", c, asked.Load())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if asked.Load() == 0 {
			t.Fatal("no timeseries request")
		}
		// Embedded closes are untouched.
		if c, _ := svc.CloseOn(metals.Gold, time.Date(1980, 1, 21, 0, 0, 0, 0, time.UTC)); c.String() != "850" {
			t.Fatalf("embedded close changed: %s", c)
		}
		cancel()
	})
}
