package news_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
)

// wire serves testdata/rss.xml at /rss.xml on loopback, answering a matching If-None-Match
// with 304, and counts what it answered.
type wire struct {
	srv              *httptest.Server
	mu               sync.Mutex
	hits, notChanged int
}

func newWire(t *testing.T) *wire {
	doc, err := os.ReadFile("testdata/rss.xml")
	if err != nil {
		t.Fatal(err)
	}
	w := &wire{}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.hits++
		if r.URL.Path != "/rss.xml" {
			http.NotFound(rw, r)
			return
		}
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.notChanged++
			rw.WriteHeader(http.StatusNotModified)
			return
		}
		rw.Header().Set("ETag", `"v1"`)
		rw.Header().Set("Content-Type", "application/rss+xml")
		_, _ = rw.Write(doc)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *wire) counts() (int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hits, w.notChanged
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestIngestStoresClassifiedItemsAndFeedHealth(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		w := newWire(t)
		feeds := "Sample Wire=" + w.srv.URL + "/rss.xml\n" + w.srv.URL + "/gone.xml"
		svc := news.New(news.Deps{Store: s, Logger: quiet, Config: news.Config{Feeds: feeds}})
		pc := news.PriceContext{Prices: map[metals.Metal]news.PricePoint{}}

		n, health, err := svc.Ingest(ctx, pc)
		if err != nil {
			t.Fatal(err)
		}
		// Five items in the sample; the one without a title and the one without a link are skipped.
		if n != 3 || len(health) != 2 {
			t.Fatalf("stored %d items, %d feed healths", n, len(health))
		}
		good, gone := health[0], health[1]
		if good.Name != "Sample Wire" || good.LastOK == nil || good.LastError != "" || good.ETag != `"v1"` {
			t.Fatalf("healthy feed: %+v", good)
		}
		if gone.LastOK != nil || gone.LastAttempt == nil || !strings.Contains(gone.LastError, "404") {
			t.Fatalf("broken feed: %+v", gone)
		}
		items, total, err := s.NewsItems(ctx, db.NewsFilter{Limit: 50})
		if err != nil || total != 3 {
			t.Fatalf("stored: %d %v", total, err)
		}
		for _, it := range items {
			if !news.Category(it.Category).Valid() || it.Analysis == "" || it.Demo || it.FeedURL != w.srv.URL+"/rss.xml" {
				t.Fatalf("item not classified or attributed: %+v", it)
			}
		}
		if st, err := s.FeedHealthByURL(ctx, w.srv.URL+"/gone.xml"); err != nil || st.LastError == "" {
			t.Fatalf("health not stored: %+v %v", st, err)
		}

		// The next run asks conditionally and stores nothing twice.
		n, _, err = svc.Ingest(ctx, pc)
		if _, notChanged := w.counts(); err != nil || n != 0 || notChanged != 1 {
			t.Fatalf("second run: stored %d, 304s %d, %v", n, notChanged, err)
		}

		// Offline nothing is fetched.
		hits, _ := w.counts()
		off := news.New(news.Deps{Store: s, Logger: quiet, Config: news.Config{Feeds: feeds, Offline: true}})
		if n, h, err := off.Ingest(ctx, pc); n != 0 || h != nil || err != nil {
			t.Fatalf("offline: %d %v %v", n, h, err)
		}
		if now, _ := w.counts(); now != hits {
			t.Fatal("offline ingestion touched the network")
		}
	})
}

func TestIngestRefusesAnUnusableFeedList(t *testing.T) {
	svc := news.New(news.Deps{Store: dbtest.SQLite(t), Logger: quiet, Config: news.Config{Feeds: "ftp://example.com/feed"}})
	if _, _, err := svc.Ingest(context.Background(), news.PriceContext{}); apperr.KindOf(err) != apperr.Unavailable ||
		!strings.Contains(err.Error(), "OUNCE_NEWS_FEEDS is not usable") {
		t.Fatalf("bad list: %v", err)
	}
	if feeds, err := news.New(news.Deps{}).Feeds(); err != nil || len(feeds) != len(news.DefaultFeeds()) {
		t.Fatalf("no list configured: %d feeds, %v", len(feeds), err)
	}
}

func TestSeedDemoOnlyOnAnEmptyStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
		svc := news.New(news.Deps{Store: s, Now: func() time.Time { return now }})
		if seeded, err := svc.SeedDemo(ctx, news.PriceContext{}); err != nil || !seeded {
			t.Fatalf("first start: %v %v", seeded, err)
		}
		items, total, err := s.NewsItems(ctx, db.NewsFilter{Limit: 50})
		if err != nil || total != len(news.DemoItems(now)) {
			t.Fatalf("demo items: %d %v", total, err)
		}
		for _, it := range items {
			if !it.Demo || it.PublishedAt.After(now) {
				t.Fatalf("demo item not labelled or from the future: %+v", it)
			}
		}
		if seeded, err := svc.SeedDemo(ctx, news.PriceContext{}); err != nil || seeded {
			t.Fatalf("second start seeded again: %v %v", seeded, err)
		}
	})
}
