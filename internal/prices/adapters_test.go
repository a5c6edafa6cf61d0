package prices

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// reply is one canned answer of the loopback server.
type reply struct {
	status int
	file   string // under testdata/
	body   string // used when file is empty
	delay  time.Duration
}

// replay serves canned answers by URL path; unknown paths get 404. check, when
// set, inspects every request (query, headers) and fails the test on mismatch.
func replay(t *testing.T, routes map[string]reply, check func(t *testing.T, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if check != nil {
			check(t, r)
		}
		rp, ok := routes[r.URL.Path]
		if !ok {
			http.Error(w, `{"error":"no such route"}`, http.StatusNotFound)
			return
		}
		if rp.delay > 0 {
			select {
			case <-time.After(rp.delay):
			case <-r.Context().Done():
				return
			}
		}
		body := []byte(rp.body)
		if rp.file != "" {
			b, err := os.ReadFile(filepath.Join("testdata", rp.file))
			if err != nil {
				t.Errorf("fixture: %v", err)
			}
			body = b
		}
		w.Header().Set("Content-Type", "application/json")
		status := rp.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// wantPrices compares quotes with expected prices (as strings, exact to the cent).
func wantPrices(t *testing.T, got map[metals.Metal]Quote, want map[metals.Metal]string, source string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d quotes %v, want %d", len(got), got, len(want))
	}
	for m, w := range want {
		q, ok := got[m]
		if !ok {
			t.Errorf("%s missing", m)
			continue
		}
		// Wants are written to the cent; the quote keeps the provider's own precision
		// (at most 4 places), which must round to the want.
		if !metals.Money(q.Price).Equal(dec(w)) || !q.Price.Equal(metals.Price(q.Price)) {
			t.Errorf("%s price = %s, want %s (to the cent; at most 4 places kept)", m, q.Price, w)
		}
		if q.Metal != m || q.Source != source {
			t.Errorf("%s quote = %+v, want metal %s source %s", m, q, m, source)
		}
		if q.AsOf.IsZero() || q.AsOf.Location() != time.UTC {
			t.Errorf("%s AsOf = %v, want a UTC time", m, q.AsOf)
		}
	}
}

func checkErr(t *testing.T, err, want error, text string) {
	t.Helper()
	switch {
	case want == nil && text == "":
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
	case err == nil:
		t.Fatalf("no error, want %v %q", want, text)
	default:
		if want != nil && !errors.Is(err, want) {
			t.Errorf("error %q is not %v", err, want)
		}
		if text != "" && !strings.Contains(err.Error(), text) {
			t.Errorf("error %q does not mention %q", err, text)
		}
	}
}

var allOK = map[metals.Metal]string{metals.Gold: "4165.20", metals.Silver: "58.41", metals.Platinum: "1987.50", metals.Palladium: "1702.30"}

func without(m map[metals.Metal]string, drop ...metals.Metal) map[metals.Metal]string {
	out := map[metals.Metal]string{}
	for k, v := range m {
		if !slices.Contains(drop, k) {
			out[k] = v
		}
	}
	return out
}

func goldAPIComRoutes(over map[string]reply) map[string]reply {
	r := map[string]reply{}
	for _, s := range []string{"XAU", "XAG", "XPT", "XPD"} {
		r["/price/"+s] = reply{file: "gold-api/" + s + "_ok.json"}
	}
	for k, v := range over {
		r[k] = v
	}
	return r
}

func TestGoldAPICom(t *testing.T) {
	tests := []struct {
		name    string
		over    map[string]reply
		timeout time.Duration
		want    map[metals.Metal]string
		wantErr error
		errText string
	}{
		{name: "all four", want: allOK},
		{name: "wrong currency", over: map[string]reply{"/price/XAU": {file: "gold-api/XAU_eur.json"}}, want: without(allOK, metals.Gold), wantErr: ErrBadResponse, errText: "currency"},
		{name: "zero price", over: map[string]reply{"/price/XAU": {file: "gold-api/XAU_zero.json"}}, want: without(allOK, metals.Gold), wantErr: ErrBadResponse, errText: "not positive"},
		{name: "per-kilogram price", over: map[string]reply{"/price/XAU": {file: "gold-api/XAU_perkg.json"}}, want: without(allOK, metals.Gold), wantErr: ErrBadResponse, errText: "plausible"},
		{name: "wrong symbol", over: map[string]reply{"/price/XPT": {file: "gold-api/XPD_ok.json"}}, want: without(allOK, metals.Platinum), wantErr: ErrBadResponse, errText: "XPD"},
		{name: "404 with error body", over: map[string]reply{"/price/XAG": {status: 404, file: "gold-api/XAU_error.json"}}, want: without(allOK, metals.Silver), wantErr: ErrProvider, errText: "symbol not found"},
		{name: "error body with 200", over: map[string]reply{"/price/XAG": {file: "gold-api/XAU_error.json"}}, want: without(allOK, metals.Silver), wantErr: ErrProvider, errText: "symbol not found"},
		{name: "garbage", over: map[string]reply{"/price/XPD": {body: "<html>busy</html>"}}, want: without(allOK, metals.Palladium), wantErr: ErrBadResponse, errText: "malformed"},
		{name: "string price", over: map[string]reply{"/price/XPD": {body: `{"currency":"USD","price":"lots","symbol":"XPD"}`}}, want: without(allOK, metals.Palladium), wantErr: ErrBadResponse},
		{name: "missing price", over: map[string]reply{"/price/XPD": {body: `{"currency":"USD","symbol":"XPD"}`}}, want: without(allOK, metals.Palladium), wantErr: ErrBadResponse, errText: "missing"},
		{name: "bad timestamp", over: map[string]reply{"/price/XPD": {body: `{"currency":"USD","price":1702.3,"symbol":"XPD","updatedAt":"yesterday"}`}}, want: without(allOK, metals.Palladium), wantErr: ErrBadResponse, errText: "updatedAt"},
		{name: "500 for all", over: map[string]reply{"/price/XAU": {status: 500}, "/price/XAG": {status: 500}, "/price/XPT": {status: 500}, "/price/XPD": {status: 500}}, want: map[metals.Metal]string{}, wantErr: ErrProvider, errText: "HTTP 500"},
		{name: "slow", over: map[string]reply{"/price/XAU": {file: "gold-api/XAU_ok.json", delay: 5 * time.Second}}, timeout: 200 * time.Millisecond, want: without(allOK, metals.Gold), wantErr: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay(t, goldAPIComRoutes(tt.over), func(t *testing.T, r *http.Request) {
				if r.URL.RawQuery != "" {
					t.Errorf("unexpected query %q", r.URL.RawQuery)
				}
			})
			p := NewGoldAPICom(srv.URL, srv.Client())
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			got, err := p.Latest(ctx)
			checkErr(t, err, tt.wantErr, tt.errText)
			wantPrices(t, got, tt.want, GoldAPIComName)
			if q, ok := got[metals.Gold]; ok && !q.AsOf.Equal(time.Date(2026, 7, 3, 16, 8, 54, 0, time.UTC)) {
				t.Errorf("AsOf = %v, want the provider's updatedAt", q.AsOf)
			}
		})
	}
}

func TestMetalsDevLatest(t *testing.T) {
	tests := []struct {
		name    string
		reply   reply
		timeout time.Duration
		want    map[metals.Metal]string
		wantErr error
		errText string
	}{
		{name: "ok", reply: reply{file: "metals-dev/latest_ok.json"}, want: allOK},
		{name: "failure with 200", reply: reply{file: "metals-dev/latest_error200.json"}, wantErr: ErrProvider, errText: "not valid"},
		{name: "failure with 401", reply: reply{status: 401, file: "metals-dev/latest_error200.json"}, wantErr: ErrProvider, errText: "HTTP 401"},
		{name: "grams", reply: reply{file: "metals-dev/latest_grams.json"}, wantErr: ErrBadResponse, errText: "unit"},
		{name: "partial", reply: reply{file: "metals-dev/latest_gold_only.json"}, want: map[metals.Metal]string{metals.Gold: "4165.20"}},
		{name: "wrong currency", reply: reply{body: `{"status":"success","currency":"EUR","unit":"toz","metals":{"gold":3587.1}}`}, wantErr: ErrBadResponse, errText: "currency"},
		{name: "absurd gold rejects all", reply: reply{body: `{"status":"success","currency":"USD","unit":"toz","metals":{"gold":41652000,"silver":58.41}}`}, wantErr: ErrBadResponse, errText: "plausible"},
		{name: "negative", reply: reply{body: `{"status":"success","currency":"USD","unit":"toz","metals":{"silver":-58.41}}`}, wantErr: ErrBadResponse, errText: "not positive"},
		{name: "null price", reply: reply{body: `{"status":"success","currency":"USD","unit":"toz","metals":{"silver":null}}`}, wantErr: ErrBadResponse},
		{name: "none of ours", reply: reply{body: `{"status":"success","currency":"USD","unit":"toz","metals":{"copper":0.31}}`}, wantErr: ErrBadResponse, errText: "no gold"},
		{name: "garbage", reply: reply{body: `{"status":"success",`}, wantErr: ErrBadResponse, errText: "malformed"},
		{name: "trailing junk", reply: reply{body: `{"status":"success","currency":"USD","metals":{"gold":4165.2}} {}`}, wantErr: ErrBadResponse, errText: "trailing"},
		{name: "no status", reply: reply{body: `{"currency":"USD","metals":{"gold":4165.2}}`}, wantErr: ErrBadResponse, errText: "status"},
		{name: "html 502", reply: reply{status: 502, body: `<html>bad gateway</html>`}, wantErr: ErrProvider, errText: "HTTP 502"},
		{name: "slow", reply: reply{file: "metals-dev/latest_ok.json", delay: 5 * time.Second}, timeout: 200 * time.Millisecond, wantErr: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay(t, map[string]reply{"/v1/latest": tt.reply}, func(t *testing.T, r *http.Request) {
				q := r.URL.Query()
				if q.Get("api_key") != "K-md" || q.Get("currency") != "USD" || q.Get("unit") != "toz" {
					t.Errorf("query = %q", r.URL.RawQuery)
				}
			})
			p := NewMetalsDev(srv.URL+"/", "K-md", srv.Client())
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			got, err := p.Latest(ctx)
			checkErr(t, err, tt.wantErr, tt.errText)
			if err != nil {
				if got != nil {
					t.Errorf("quotes %v returned with error", got)
				}
				if strings.Contains(err.Error(), "K-md") {
					t.Errorf("error leaks the key: %v", err)
				}
				return
			}
			wantPrices(t, got, tt.want, MetalsDevName)
			if q := got[metals.Gold]; !q.AsOf.Equal(time.Date(2026, 7, 3, 16, 8, 12, 0, time.UTC)) {
				t.Errorf("AsOf = %v, want timestamps.metal", q.AsOf)
			}
		})
	}
}

func TestMetalsDevTimeseriesFixture(t *testing.T) {
	srv := replay(t, map[string]reply{"/v1/timeseries": {file: "metals-dev/timeseries_ok.json"}}, nil)
	p := NewMetalsDev(srv.URL, "K", srv.Client())
	from, to := time.Date(2026, 6, 29, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		metal metals.Metal
		want  []string // prices by date from 06-29; "" = absent
	}{
		{metals.Gold, []string{"4101.35", "4120.80", "4139.955", "4152.10", ""}},
		{metals.Palladium, []string{"1688.10", "1691.75", "1695.00", "1699.90", "1702.30"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.metal), func(t *testing.T) {
			got, err := p.Timeseries(context.Background(), tt.metal, from, to)
			if err != nil {
				t.Fatal(err)
			}
			var want []Close
			for i, s := range tt.want {
				if s != "" {
					want = append(want, Close{Date: from.AddDate(0, 0, i), Price: dec(s)})
				}
			}
			assertCloses(t, got, want)
		})
	}
}

func assertCloses(t *testing.T, got, want []Close) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d closes, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if !got[i].Date.Equal(want[i].Date) || !got[i].Price.Equal(want[i].Price) {
			t.Errorf("close %d = %s %s, want %s %s", i, got[i].Date.Format(time.DateOnly), got[i].Price, want[i].Date.Format(time.DateOnly), want[i].Price)
		}
	}
}

// TestMetalsDevTimeseriesChunks checks the 30-day chunking against a server that
// prices every day it is asked for.
func TestMetalsDevTimeseriesChunks(t *testing.T) {
	tests := []struct {
		name       string
		from, to   string
		wantCalls  [][2]string
		failOnCall int // 1-based; 0 = never
	}{
		{name: "one day", from: "2026-01-05", to: "2026-01-05", wantCalls: [][2]string{{"2026-01-05", "2026-01-05"}}},
		{name: "exactly 30 days", from: "2026-01-01", to: "2026-01-30", wantCalls: [][2]string{{"2026-01-01", "2026-01-30"}}},
		{name: "74 days", from: "2026-01-01", to: "2026-03-15", wantCalls: [][2]string{{"2026-01-01", "2026-01-30"}, {"2026-01-31", "2026-03-01"}, {"2026-03-02", "2026-03-15"}}},
		{name: "second chunk fails", from: "2026-01-01", to: "2026-03-15", wantCalls: [][2]string{{"2026-01-01", "2026-01-30"}, {"2026-01-31", "2026-03-01"}}, failOnCall: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var calls [][2]string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				mu.Lock()
				calls = append(calls, [2]string{q.Get("start_date"), q.Get("end_date")})
				n := len(calls)
				mu.Unlock()
				if n == tt.failOnCall {
					_, _ = w.Write([]byte(`{"status":"failure","error_code":1203,"error_message":"quota used up"}`))
					return
				}
				start, _ := time.Parse(time.DateOnly, q.Get("start_date"))
				end, _ := time.Parse(time.DateOnly, q.Get("end_date"))
				var b strings.Builder
				b.WriteString(`{"status":"success","currency":"USD","unit":"toz","rates":{`)
				// One day outside the range, which must be ignored.
				b.WriteString(`"1999-01-01":{"metals":{"gold":300}}`)
				for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
					b.WriteString(`,"` + d.Format(time.DateOnly) + `":{"metals":{"gold":` + decimal.NewFromInt(int64(3000+d.YearDay())).String() + `.5}}`)
				}
				b.WriteString(`}}`)
				_, _ = w.Write([]byte(b.String()))
			}))
			defer srv.Close()
			from, _ := time.Parse(time.DateOnly, tt.from)
			to, _ := time.Parse(time.DateOnly, tt.to)
			p := NewMetalsDev(srv.URL, "K", srv.Client())
			got, err := p.Timeseries(context.Background(), metals.Gold, from.Add(15*time.Hour), to.Add(time.Hour))
			if !slices.Equal(calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", calls, tt.wantCalls)
			}
			if tt.failOnCall > 0 {
				checkErr(t, err, ErrProvider, "quota used up")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			days := int(to.Sub(from).Hours()/24) + 1
			if len(got) != days {
				t.Fatalf("got %d closes, want %d", len(got), days)
			}
			for i, c := range got {
				d := from.AddDate(0, 0, i)
				if !c.Date.Equal(d) || !c.Price.Equal(decimal.NewFromInt(int64(3000+d.YearDay())).Add(dec("0.5"))) {
					t.Errorf("close %d = %v %s", i, c.Date, c.Price)
				}
			}
		})
	}
}

func TestMetalsDevTimeseriesRejects(t *testing.T) {
	p := NewMetalsDev("http://127.0.0.1:1", "K", nil)
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	if _, err := p.Timeseries(context.Background(), metals.Gold, day, day.AddDate(0, 0, -1)); err == nil {
		t.Error("end before start accepted")
	}
	if _, err := p.Timeseries(context.Background(), "copper", day, day); err == nil {
		t.Error("unknown metal accepted")
	}
}

func TestMetalpriceAPI(t *testing.T) {
	tests := []struct {
		name    string
		reply   reply
		want    map[metals.Metal]string
		wantErr error
		errText string
	}{
		{name: "USDXAU keys preferred", reply: reply{file: "metalpriceapi/latest_ok.json"}, want: allOK},
		{name: "rates inverted", reply: reply{file: "metalpriceapi/latest_rates_only.json"}, want: allOK},
		{name: "partial", reply: reply{body: `{"success":true,"base":"USD","timestamp":1783094934,"rates":{"XAG":0.0171203561,"EUR":0.8612}}`}, want: map[metals.Metal]string{metals.Silver: "58.41"}},
		{name: "error with 200", reply: reply{file: "metalpriceapi/latest_error200.json"}, wantErr: ErrProvider, errText: "invalid"},
		{name: "error with 401", reply: reply{status: 401, file: "metalpriceapi/latest_error200.json"}, wantErr: ErrProvider, errText: "HTTP 401"},
		{name: "wrong base", reply: reply{file: "metalpriceapi/latest_eur.json"}, wantErr: ErrBadResponse, errText: "base"},
		{name: "values not inverted", reply: reply{file: "metalpriceapi/latest_inverted_wrong.json"}, wantErr: ErrBadResponse},
		{name: "zero rate", reply: reply{body: `{"success":true,"base":"USD","rates":{"XAU":0}}`}, wantErr: ErrBadResponse, errText: "not positive"},
		{name: "absurd USDXAU", reply: reply{body: `{"success":true,"base":"USD","rates":{"USDXAU":0.00024}}`}, wantErr: ErrBadResponse},
		{name: "huge exponent", reply: reply{body: `{"success":true,"base":"USD","rates":{"XAU":1e-99999999}}`}, wantErr: ErrBadResponse, errText: "not a number"},
		{name: "no success flag", reply: reply{body: `{"base":"USD","rates":{"USDXAU":4165.2}}`}, wantErr: ErrBadResponse, errText: "success"},
		{name: "garbage", reply: reply{body: `rates: many`}, wantErr: ErrBadResponse, errText: "malformed"},
		{name: "empty 200", reply: reply{body: ``}, wantErr: ErrBadResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay(t, map[string]reply{"/v1/latest": tt.reply}, func(t *testing.T, r *http.Request) {
				q := r.URL.Query()
				if q.Get("api_key") != "K-mp" || q.Get("base") != "USD" || q.Get("currencies") != "XAU,XAG,XPT,XPD" {
					t.Errorf("query = %q", r.URL.RawQuery)
				}
			})
			p := NewMetalpriceAPI(srv.URL, "K-mp", srv.Client())
			got, err := p.Latest(context.Background())
			checkErr(t, err, tt.wantErr, tt.errText)
			if err != nil {
				return
			}
			wantPrices(t, got, tt.want, MetalpriceAPIName)
			for _, q := range got {
				if !q.AsOf.Equal(time.Unix(1783094934, 0)) {
					t.Errorf("AsOf = %v, want the body's timestamp", q.AsOf)
				}
			}
		})
	}
}

func TestGoldAPIIO(t *testing.T) {
	okRoutes := func(over map[string]reply) map[string]reply {
		r := map[string]reply{}
		for _, s := range []string{"XAU", "XAG", "XPT", "XPD"} {
			r["/api/"+s+"/USD"] = reply{file: "goldapi/" + s + "_ok.json"}
		}
		for k, v := range over {
			r[k] = v
		}
		return r
	}
	all403 := map[string]reply{}
	for _, s := range []string{"XAU", "XAG", "XPT", "XPD"} {
		all403["/api/"+s+"/USD"] = reply{status: 403, file: "goldapi/error403.json"}
	}
	tests := []struct {
		name    string
		over    map[string]reply
		timeout time.Duration
		want    map[metals.Metal]string
		wantErr error
		errText string
	}{
		{name: "all four", want: allOK},
		{name: "bad key", over: all403, want: map[metals.Metal]string{}, wantErr: ErrProvider, errText: "Invalid API Key"},
		{name: "quota error with 200", over: map[string]reply{"/api/XAU/USD": {file: "goldapi/XAU_error200.json"}}, want: without(allOK, metals.Gold), wantErr: ErrProvider, errText: "quota"},
		{name: "negative", over: map[string]reply{"/api/XAU/USD": {file: "goldapi/XAU_negative.json"}}, want: without(allOK, metals.Gold), wantErr: ErrBadResponse, errText: "not positive"},
		{name: "wrong metal", over: map[string]reply{"/api/XAU/USD": {file: "goldapi/XAG_ok.json"}}, want: without(allOK, metals.Gold), wantErr: ErrBadResponse, errText: "XAG"},
		{name: "wrong currency", over: map[string]reply{"/api/XAG/USD": {body: `{"timestamp":1783094934,"metal":"XAG","currency":"GBP","price":43.2}`}}, want: without(allOK, metals.Silver), wantErr: ErrBadResponse, errText: "currency"},
		{name: "silver priced like gold", over: map[string]reply{"/api/XAG/USD": {body: `{"timestamp":1783094934,"metal":"XAG","currency":"USD","price":41652}`}}, want: without(allOK, metals.Silver), wantErr: ErrBadResponse, errText: "plausible"},
		{name: "garbage", over: map[string]reply{"/api/XPT/USD": {body: `{"metal":`}}, want: without(allOK, metals.Platinum), wantErr: ErrBadResponse},
		{name: "slow", over: map[string]reply{"/api/XPD/USD": {file: "goldapi/XPD_ok.json", delay: 5 * time.Second}}, timeout: 200 * time.Millisecond, want: without(allOK, metals.Palladium), wantErr: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := replay(t, okRoutes(tt.over), func(t *testing.T, r *http.Request) {
				if got := r.Header.Get("x-access-token"); got != "K-ga" {
					t.Errorf("x-access-token = %q", got)
				}
				if r.URL.RawQuery != "" {
					t.Errorf("key or other query leaked into URL: %q", r.URL.RawQuery)
				}
			})
			p := NewGoldAPIIO(srv.URL, "K-ga", srv.Client())
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			got, err := p.Latest(ctx)
			checkErr(t, err, tt.wantErr, tt.errText)
			wantPrices(t, got, tt.want, GoldAPIIOName)
			if q, ok := got[metals.Silver]; ok && !q.AsOf.Equal(time.Unix(1783094934, 0)) {
				t.Errorf("AsOf = %v", q.AsOf)
			}
		})
	}
}

func TestClientTimeout(t *testing.T) {
	// The client's own timeout must bound a call even with a background context.
	srv := replay(t, map[string]reply{"/v1/latest": {file: "metals-dev/latest_ok.json", delay: 5 * time.Second}}, nil)
	client := srv.Client()
	client.Timeout = 150 * time.Millisecond
	start := time.Now()
	_, err := NewMetalsDev(srv.URL, "K", client).Latest(context.Background())
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("err = %v after %v, want a timeout", err, time.Since(start))
	}
}

func TestTransportErrorsHideKeys(t *testing.T) {
	// Port 1 on loopback refuses connections: a transport error that would
	// normally quote the full URL, query and all.
	tests := []struct {
		name string
		p    Provider
	}{
		{"metals-dev", NewMetalsDev("http://127.0.0.1:1", "SECRET-KEY-1", nil)},
		{"metalpriceapi", NewMetalpriceAPI("http://127.0.0.1:1", "SECRET-KEY-1", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.p.Latest(context.Background())
			if err == nil {
				t.Fatal("no error from a refused connection")
			}
			if strings.Contains(err.Error(), "SECRET-KEY-1") {
				t.Errorf("error leaks the key: %v", err)
			}
			if !strings.Contains(err.Error(), "127.0.0.1:1") {
				t.Errorf("error lost the host: %v", err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	srv := replay(t, goldAPIComRoutes(nil), nil)
	keys := Keys{MetalsDev: "a", MetalpriceAPI: "b", GoldAPI: "c", BaseURLs: map[string]string{GoldAPIComName: srv.URL}}
	tests := []struct {
		name    string
		keys    Keys
		wantErr string
	}{
		{name: "gold-api", keys: Keys{}},
		{name: "metals-dev", keys: keys},
		{name: "metalpriceapi", keys: keys},
		{name: "goldapi", keys: keys},
		{name: "metals-dev", keys: Keys{}, wantErr: "OUNCE_METALSDEV_KEY"},
		{name: "metalpriceapi", keys: Keys{}, wantErr: "OUNCE_METALPRICEAPI_KEY"},
		{name: "goldapi", keys: Keys{}, wantErr: "OUNCE_GOLDAPI_KEY"},
		{name: "kitco", keys: keys, wantErr: "unknown price provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.wantErr, func(t *testing.T) {
			p, err := New(tt.name, tt.keys, nil)
			if tt.wantErr != "" {
				checkErr(t, err, nil, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tt.name {
				t.Errorf("Name() = %q", p.Name())
			}
		})
	}
	// BaseURLs reach the adapter.
	p, err := New(GoldAPIComName, keys, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Latest(context.Background())
	if err != nil || len(got) != 4 {
		t.Fatalf("Latest via BaseURLs override: %v, %v", got, err)
	}
	if _, ok := p.(HistoryProvider); ok {
		t.Error("gold-api claims history support")
	}
	if md, _ := New(MetalsDevName, keys, nil); md != nil {
		if _, ok := md.(HistoryProvider); !ok {
			t.Error("metals-dev should implement HistoryProvider")
		}
	}
}

// TestAdaptersKeepSourcePrecision pins the exact prices of the fixtures: a quote is no
// longer rounded to the cent before any arithmetic (issue 10, case 2).
func TestAdaptersKeepSourcePrecision(t *testing.T) {
	for _, c := range []struct {
		m    metals.Metal
		raw  string
		want string
	}{{metals.Silver, "58.409", "58.409"}, {metals.Silver, "58.40871", "58.4087"}, {metals.Gold, "4165.20123", "4165.2012"}, {metals.Gold, "4165.2", "4165.2"}} {
		got, err := priceFrom(c.m, json.Number(c.raw))
		if err != nil || !got.Equal(dec(c.want)) {
			t.Errorf("%s %s → %s %v, want %s", c.m, c.raw, got, err, c.want)
		}
	}
}

func TestCheckPrice(t *testing.T) {
	tests := []struct {
		m     metals.Metal
		price string
		ok    bool
	}{
		{metals.Gold, "4165.20", true},
		{metals.Gold, "100", true},
		{metals.Gold, "99.99", false},
		{metals.Gold, "100000.01", false},
		{metals.Silver, "0.99", false},
		{metals.Silver, "1", true},
		{metals.Silver, "58.41", true},
		{metals.Platinum, "49.99", false},
		{metals.Platinum, "50000", true},
		{metals.Palladium, "1702.30", true},
		{metals.Palladium, "0", false},
		{metals.Palladium, "-1702.30", false},
		{"copper", "4.50", false},
	}
	for _, tt := range tests {
		err := CheckPrice(tt.m, dec(tt.price))
		if (err == nil) != tt.ok {
			t.Errorf("CheckPrice(%s, %s) = %v, want ok=%t", tt.m, tt.price, err, tt.ok)
		}
	}
}

func TestParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = error
	}{
		{"4165.200195", "4165.200195"},
		{"2.400845e-4", "0.0002400845"},
		{"1E+3", "1000"},
		{"-0.5", "-0.5"},
		{"0", "0"},
		{"0.5", "0.5"},
		{"00", ""},
		{"012.5", ""},
		{"", ""},
		{"1e31", ""},
		{"1e-99999999", ""},
		{"1.", ""},
		{".5", ""},
		{"0x10", ""},
		{"NaN", ""},
		{"1,5", ""},
		{"+1", ""},
		{" 1", ""},
	}
	for _, tt := range tests {
		got, err := parseNumber(jsonNumber(tt.in))
		if tt.want == "" {
			if err == nil {
				t.Errorf("parseNumber(%q) = %s, want error", tt.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(dec(tt.want)) {
			t.Errorf("parseNumber(%q) = %s, %v, want %s", tt.in, got, err, tt.want)
		}
	}
}
