package news

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serve answers every request with the fixture and records the request headers.
func serve(t *testing.T, body []byte, contentType string) (*httptest.Server, *http.Header) {
	t.Helper()
	var last http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last = r.Header.Clone()
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &last
}

func TestFetchParsesFeeds(t *testing.T) {
	type want struct {
		title, url, source, summary string
		published                   time.Time
	}
	tests := []struct {
		name    string
		fixture string
		ctype   string
		feed    string
		want    []want
	}{
		{
			name: "rss", fixture: "rss.xml", ctype: "application/rss+xml", feed: "Sample Wire",
			want: []want{
				{
					title: "Silver plunges 6% as stop orders cascade",
					// host lowercased, default port and tracking params and fragment dropped, https preferred
					url:       "https://wire.example.com/markets/silver-plunge?id=42",
					source:    "Sample Wire",
					summary:   "Silver fell sharply in early trade & recovered part of the loss.",
					published: time.Date(2025, 3, 4, 9, 15, 0, 0, time.UTC),
				},
				{
					title:     "Central bank adds gold to reserves for a sixth month",
					url:       "{server}/policy/central-bank-gold",
					source:    "Sample Wire",
					summary:   "Official buyers keep adding to their holdings.",
					published: time.Date(2025, 3, 3, 18, 0, 0, 0, time.UTC),
				},
				{
					title:   "Mint sales of platinum coins rise & premiums ease",
					url:     "https://wire.example.com/supply/platinum-coins",
					source:  "Sample Wire",
					summary: "Coin demand picked up over the month.",
				},
			},
		},
		{
			name: "atom", fixture: "atom.xml", ctype: "application/atom+xml", feed: "",
			want: []want{
				{
					title:     "Gold forecast: strategists see range trade",
					url:       "https://notebook.example.org/analysis/gold-range",
					source:    "Metals Notebook Sample Atom",
					summary:   "Chart levels to watch this week.",
					published: time.Date(2025, 3, 4, 11, 30, 0, 0, time.UTC),
				},
				{
					title:     "Palladium ETF holdings fall as investors take profits",
					url:       "https://notebook.example.org/investment/palladium-etf",
					source:    "Metals Notebook Sample Atom",
					summary:   "Fund outflows continued.",
					published: time.Date(2025, 3, 3, 8, 0, 0, 0, time.UTC),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, hdr := serve(t, readFixture(t, tt.fixture), tt.ctype)
			before := time.Now().UTC()
			items, st, err := Fetcher{Client: srv.Client(), UserAgent: "ounce-test/1"}.
				Fetch(context.Background(), Feed{Name: tt.feed, URL: srv.URL + "/feed"}, FeedState{})
			if err != nil {
				t.Fatal(err)
			}
			if got := hdr.Get("User-Agent"); got != "ounce-test/1" {
				t.Errorf("User-Agent = %q", got)
			}
			if len(items) != len(tt.want) {
				t.Fatalf("got %d items, want %d: %+v", len(items), len(tt.want), items)
			}
			serverURL := CanonicalURL(srv.URL)
			for i, w := range tt.want {
				got := items[i]
				wantURL := strings.Replace(w.url, "{server}", serverURL, 1)
				if got.Title != w.title || got.URL != wantURL || got.Source != w.source || got.Summary != w.summary {
					t.Errorf("item %d = %q %q %q %q\nwant      %q %q %q %q", i, got.Title, got.URL, got.Source, got.Summary,
						w.title, wantURL, w.source, w.summary)
				}
				if w.published.IsZero() {
					// No date in the feed: the fetch time stands in.
					if got.PublishedAt.Before(before.Add(-time.Second)) || got.PublishedAt.After(time.Now().Add(time.Second)) {
						t.Errorf("item %d undated PublishedAt = %v, want about now", i, got.PublishedAt)
					}
				} else if !got.PublishedAt.Equal(w.published) || got.PublishedAt.Location() != time.UTC {
					t.Errorf("item %d PublishedAt = %v, want %v UTC", i, got.PublishedAt, w.published)
				}
				if got.Demo {
					t.Errorf("item %d marked demo", i)
				}
			}
			if st.LastError != "" || st.LastOK.IsZero() || !st.Healthy() || st.URL != srv.URL+"/feed" {
				t.Errorf("state after success = %+v", st)
			}
		})
	}
}

func TestFetchConditional304(t *testing.T) {
	const etag = `"v1"`
	const lastMod = "Tue, 04 Mar 2025 10:00:00 GMT"
	body := readFixture(t, "rss.xml")
	var hits, notModified atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("If-None-Match") == etag && r.Header.Get("If-Modified-Since") == lastMod {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastMod)
		_, _ = w.Write(body)
	}))
	defer srv.Close()

	f := Fetcher{Client: srv.Client()}
	feed := Feed{Name: "wire", URL: srv.URL}
	items, st, err := f.Fetch(context.Background(), feed, FeedState{})
	if err != nil || len(items) == 0 {
		t.Fatalf("first fetch: %d items, %v", len(items), err)
	}
	if st.ETag != etag || st.LastModified != lastMod {
		t.Fatalf("validators not stored: %+v", st)
	}

	// A failure in between must not lose the validators.
	st.LastError, st.LastOK = "earlier failure", st.LastOK.Add(-time.Hour)
	firstOK := st.LastOK
	items, st2, err := f.Fetch(context.Background(), feed, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 0 {
		t.Errorf("304 returned %d items", len(items))
	}
	if notModified.Load() != 1 {
		t.Errorf("server saw %d conditional hits, want 1", notModified.Load())
	}
	if !st2.LastOK.After(firstOK) || st2.LastError != "" || st2.ETag != etag || st2.LastModified != lastMod {
		t.Errorf("state after 304 = %+v", st2)
	}

	// Validators belong to one URL: a different feed address starts clean.
	moved := Feed{Name: "wire", URL: srv.URL + "/moved"}
	items, st3, err := f.Fetch(context.Background(), moved, st2)
	if err != nil || len(items) == 0 {
		t.Fatalf("fetch after move: %d items, %v", len(items), err)
	}
	if notModified.Load() != 1 || st3.URL != moved.URL {
		t.Errorf("moved feed reused old validators: %+v", st3)
	}
}

func TestFetchFailures(t *testing.T) {
	big := strings.Repeat("x", MaxFeedBytes+10)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		ctxWait time.Duration
		check   func(error) bool
		errText string
	}{
		{
			name:    "server error",
			handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusInternalServerError) },
			check: func(err error) bool {
				var se *StatusError
				return errors.As(err, &se) && se.Code == 500
			},
			errText: "500",
		},
		{
			name:    "not found",
			handler: func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
			check: func(err error) bool {
				var se *StatusError
				return errors.As(err, &se) && se.Code == 404
			},
			errText: "404",
		},
		{
			name: "garbage",
			handler: func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write(readFixture(t, "garbage.txt"))
			},
			check:   func(err error) bool { return err != nil && strings.Contains(err.Error(), "parse feed") },
			errText: "parse feed",
		},
		{
			name: "too large",
			handler: func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte("<?xml version=\"1.0\"?><rss><channel><title>" + big))
			},
			check:   func(err error) bool { return errors.Is(err, ErrTooLarge) },
			errText: "5 MiB",
		},
		{
			name: "slow server",
			handler: func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-time.After(3 * time.Second):
				}
			},
			ctxWait: 150 * time.Millisecond,
			check:   func(err error) bool { return errors.Is(err, context.DeadlineExceeded) },
			errText: "deadline",
		},
		{
			name: "slow body",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/rss+xml")
				_, _ = w.Write([]byte(`<?xml version="1.0"?><rss version="2.0"><channel>`))
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
				case <-time.After(3 * time.Second):
				}
			},
			ctxWait: 150 * time.Millisecond,
			check:   func(err error) bool { return errors.Is(err, context.DeadlineExceeded) },
			errText: "deadline",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ctx := context.Background()
			if tt.ctxWait > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.ctxWait)
				defer cancel()
			}
			okBefore := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			prev := FeedState{URL: srv.URL, ETag: `"old"`, LastOK: okBefore}
			start := time.Now()
			items, st, err := Fetcher{Client: srv.Client()}.Fetch(ctx, Feed{URL: srv.URL}, prev)
			if time.Since(start) > 2*time.Second {
				t.Errorf("fetch took %v; the context deadline was not honoured", time.Since(start))
			}
			if err == nil || !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			if items != nil {
				t.Errorf("items on failure: %v", items)
			}
			if !strings.Contains(st.LastError, tt.errText) {
				t.Errorf("LastError = %q, want it to mention %q", st.LastError, tt.errText)
			}
			if !st.LastOK.Equal(okBefore) || st.LastAttempt.Before(start.Add(-time.Second)) || st.Healthy() {
				t.Errorf("health after failure = %+v", st)
			}
			if st.ETag != `"old"` {
				t.Errorf("failure dropped validators: %+v", st)
			}
		})
	}
}

func TestFetchRejectsBadURL(t *testing.T) {
	tests := []string{"", "ftp://example.com/feed", "not a url", "https://"}
	for _, raw := range tests {
		_, st, err := Fetcher{}.Fetch(context.Background(), Feed{URL: raw}, FeedState{})
		if err == nil || st.LastError == "" || st.LastAttempt.IsZero() {
			t.Errorf("Fetch(%q) = %v, state %+v; want an error recorded", raw, err, st)
		}
	}
}

func TestStripHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"<p>Gold <b>rose</b></p><p>again</p>", "Gold rose again"},
		{"a &amp; b &lt;c&gt;", "a & b"}, // escaped tag unwrapped and dropped on the second pass
		{"&lt;p&gt;escaped twice&lt;/p&gt;", "escaped twice"},
		{"<script>alert(1)</script>visible<style>p{}</style>", "visible"},
		{"  lots\n\tof   space\u00a0here ", "lots of space here"},
		{"bad\x00control\x07chars", "badcontrolchars"},
		{"broken <b>markup", "broken markup"},
		{"line<br/>break", "line break"},
		{"\xff\xfeinvalid utf8", "invalid utf8"},
	}
	for _, tt := range tests {
		if got := StripHTML(tt.in); got != tt.want {
			t.Errorf("StripHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"one two three four five", 9, "one two…"},      // a space close to the limit: cut there
		{"one two three four five", 12, "one two thr…"}, // none close: cut mid-word
		{"ααααααααααα", 5, "αααα…"},
	}
	for _, tt := range tests {
		if got := truncateRunes(tt.in, tt.n); got != tt.want {
			t.Errorf("truncateRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func FuzzStripHTML(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "&lt;b&gt;x", "<script>x", "\xff", "a\u00a0b", "<<>>&&;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := StripHTML(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
		if out != strings.TrimSpace(out) || strings.Contains(out, "  ") {
			t.Fatalf("whitespace not folded: %q", out)
		}
		if strings.ContainsAny(out, "\x00\x07") {
			t.Fatalf("control characters kept: %q", out)
		}
	})
}

func FuzzParseFeed(f *testing.F) {
	f.Add(readFixture(f, "rss.xml"))
	f.Add(readFixture(f, "atom.xml"))
	f.Add(readFixture(f, "garbage.txt"))
	f.Add([]byte(`<rss><channel><item><title>t</title><link>javascript:alert(1)</link></item></channel></rss>`))
	base, _ := url.Parse("https://feeds.example.com/x")
	now := time.Date(2025, 3, 5, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		items, err := parseFeed(body, Feed{Name: "fuzz"}, base, now)
		if err != nil {
			return
		}
		for _, it := range items {
			if it.Title == "" || !utf8.ValidString(it.Title) || !utf8.ValidString(it.Summary) {
				t.Fatalf("bad text in %+v", it)
			}
			if !strings.HasPrefix(it.URL, "https://") && !strings.HasPrefix(it.URL, "http://") {
				t.Fatalf("non-http link kept: %q", it.URL)
			}
			if it.PublishedAt.After(now.Add(futureSlack)) {
				t.Fatalf("future date kept: %v", it.PublishedAt)
			}
		}
	})
}
