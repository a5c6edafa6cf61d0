package comex

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

// cmeStub serves recorded CME workbooks at CME's paths and remembers the
// User-Agent of each request.
type cmeStub struct {
	mu     sync.Mutex
	agents []string
	files  map[string][]byte
}

func (s *cmeStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.agents = append(s.agents, r.Header.Get("User-Agent"))
	s.mu.Unlock()
	b, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/vnd.ms-excel")
	_, _ = w.Write(b)
}

func TestFetch(t *testing.T) {
	stub := &cmeStub{files: map[string][]byte{
		"/delivery_reports/Gold_Stocks.xls":     readFixture(t, "Gold_2026-04-27.xls"),
		"/delivery_reports/Silver_stocks.xls":   readFixture(t, "Silver_2026-04-27.xls"),
		"/delivery_reports/PA-PL_Stck_Rprt.xls": readFixture(t, "PA-PL_2026-04-27.xls"),
	}}
	srv := httptest.NewServer(stub)
	defer srv.Close()

	tests := []struct {
		metal metals.Metal
		reg   string
	}{
		{metals.Gold, "15604254.174"},
		{metals.Silver, "75715217.373"},
		{metals.Platinum, "271575.662"},
		{metals.Palladium, "203694.625"},
	}
	f := NewFetcher(srv.URL+"/", srv.Client())
	for _, tt := range tests {
		t.Run(string(tt.metal), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			rs, err := f.Fetch(ctx, tt.metal)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || rs[0].Metal != tt.metal || !rs[0].Registered.Equal(dec(tt.reg)) || !rs[0].ActivityDate.Equal(date("2026-04-27")) {
				t.Fatalf("got %d reports, first %+v", len(rs), rs[0])
			}
		})
	}
	for _, ua := range stub.agents {
		if !strings.HasPrefix(ua, "Mozilla/5.0") {
			t.Errorf("User-Agent %q does not look like a browser", ua)
		}
	}
	if len(stub.agents) != len(tests) {
		t.Errorf("%d requests, want %d", len(stub.agents), len(tests))
	}
}

func TestFetchFailures(t *testing.T) {
	gold := readFixture(t, "Gold_2026-04-27.xls")
	tests := []struct {
		name    string
		metal   metals.Metal
		handler http.HandlerFunc
		want    string
		notXLS  bool
	}{
		{"HTML error page", metals.Gold, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!DOCTYPE html><html><body>Access Denied</body></html>"))
		}, "HTML page", true},
		{"HTML page labelled as a spreadsheet", metals.Gold, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.ms-excel")
			_, _ = w.Write([]byte("\n<html><head><title>Just a moment...</title></head></html>"))
		}, "HTML page", true},
		{"not found", metals.Silver, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "HTTP 404", false},
		{"wrong file at the address", metals.Silver, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(gold)
		}, "no SILVER section", false},
		{"body over the cap", metals.Gold, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(bytes.Repeat([]byte{0}, MaxReportBytes+1))
		}, "larger than", false},
		{"truncated download", metals.Gold, func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(gold[:len(gold)/2])
		}, "comex", true},
		{"unknown metal", "copper", func(w http.ResponseWriter, r *http.Request) {
			t.Error("no request expected for an unknown metal")
		}, "no CME stocks report", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			_, err := NewFetcher(srv.URL, srv.Client()).Fetch(context.Background(), tt.metal)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.notXLS && !errors.Is(err, ErrNotXLS) {
				t.Errorf("error %v does not wrap ErrNotXLS", err)
			}
		})
	}
}

func TestFetchHonoursContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := NewFetcher(srv.URL, srv.Client()).Fetch(ctx, metals.Gold)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("fetch took %v after a 100ms deadline", d)
	}
}

func TestNewFetcherDefaults(t *testing.T) {
	f := NewFetcher("", nil)
	if f.base != DefaultBaseURL || f.client == nil || f.client == http.DefaultClient {
		t.Errorf("defaults: base %q client %p", f.base, f.client)
	}
	tests := []struct {
		m    metals.Metal
		path string
	}{
		{metals.Gold, "/delivery_reports/Gold_Stocks.xls"},
		{metals.Silver, "/delivery_reports/Silver_stocks.xls"},
		{metals.Platinum, "/delivery_reports/PA-PL_Stck_Rprt.xls"},
		{metals.Palladium, "/delivery_reports/PA-PL_Stck_Rprt.xls"},
	}
	for _, tt := range tests {
		if p, err := ReportPath(tt.m); err != nil || p != tt.path {
			t.Errorf("ReportPath(%s) = %q, %v; want %q", tt.m, p, err, tt.path)
		}
	}
}
