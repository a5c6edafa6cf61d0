package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

// env is one assembled app over one store.
type env struct {
	t        *testing.T
	app      *app.App
	srv      *web.Server
	store    *db.Store
	contract contract
}

func newEnv(t *testing.T, s *db.Store, mod func(*app.Options)) *env {
	t.Helper()
	opts := app.Options{Store: s, Config: app.Config{Site: kit.Site{BaseURL: "http://ounce.test", Version: "test"},
		HTTP: web.HTTPConfig{RateLimitPerKey: 1000, RateLimitPerIP: 1000}, Account: account.Config{NewUsersGold: true}}}
	if mod != nil {
		mod(&opts)
	}
	a, err := app.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, app: a, srv: a.Server, store: s}
}

// eachEngine runs fn against an app on every available database engine.
func eachEngine(t *testing.T, mod func(*app.Options), fn func(t *testing.T, e *env)) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) { fn(t, newEnv(t, s, mod)) })
}

type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r resp) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not JSON (%d): %s", r.Status, r.Body)
	}
	return m
}

func (e *env) do(req *http.Request) resp {
	e.t.Helper()
	if req.RemoteAddr == "" {
		req.RemoteAddr = "127.0.0.1:5555"
	}
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := e.serveInProcess(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := resp{Status: res.StatusCode, Header: res.Header, Body: b}
	e.checkContract(req, reqBody, r)
	return r
}

// api calls /v1 with an optional bearer key and JSON body.
func (e *env) api(method, path, key string, body any) resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.do(req)
}

// user creates an account and returns it with a fresh API key.
func (e *env) user(email, tier string) (db.User, string) {
	e.t.Helper()
	ctx := context.Background()
	hash, _ := account.HashPassword("correct horse battery")
	u, err := e.store.InsertUser(ctx, email, hash, tier, false)
	if err != nil {
		e.t.Fatal(err)
	}
	secret, _, err := e.app.Account.CreateAPIKey(ctx, u, "test")
	if err != nil {
		e.t.Fatal(err)
	}
	return u, secret
}

// browser is a cookie-keeping client for page flows.
type browser struct {
	e       *env
	cookies map[string]string
	csrf    string
}

func (e *env) browser() *browser { return &browser{e: e, cookies: map[string]string{}} }

var csrfRe = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func (b *browser) send(req *http.Request) resp {
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	r := b.e.do(req)
	for _, sc := range (&http.Response{Header: r.Header}).Cookies() {
		if sc.MaxAge < 0 || sc.Value == "" {
			delete(b.cookies, sc.Name)
		} else {
			b.cookies[sc.Name] = sc.Value
		}
	}
	if m := csrfRe.FindSubmatch(r.Body); m != nil {
		b.csrf = string(m[1])
	}
	return r
}

func (b *browser) get(path string) resp { return b.send(httptest.NewRequest("GET", path, nil)) }

// post submits a form; the CSRF token of the last page is added unless noCSRF.
func (b *browser) post(path string, form url.Values, htmx bool) resp {
	if form == nil {
		form = url.Values{}
	}
	if form.Get("_csrf") == "" && b.csrf != "" {
		form.Set("_csrf", b.csrf)
	}
	req := httptest.NewRequest("POST", path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	return b.send(req)
}

func (b *browser) signUp(email string) resp {
	b.get("/signup")
	return b.post("/signup", url.Values{"email": {email}, "password": {"correct horse battery"}}, false)
}

// live serves the app on a loopback listener, for tests where the peer address matters.
func (e *env) live() string {
	e.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.t.Fatal(err)
	}
	go func() { _ = e.srv.Serve(ln) }()
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.srv.Shutdown(ctx) // also ends event streams
	})
	return "http://" + ln.Addr().String()
}

// clientFrom returns an HTTP client whose connections come from the given loopback address.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// withMarket gives the app a real price service over its store: offline, seeded from the
// embedded history, so tests see genuine closes and stale last-known prices.
func withMarket(t *testing.T) func(*app.Options) {
	return func(o *app.Options) {
		svc, err := prices.NewService(context.Background(), o.Store, prices.ServiceConfig{Offline: true, Now: o.Now})
		if err != nil {
			t.Fatal(err)
		}
		o.Market = svc
	}
}

// setPrices publishes live prices through the feed, the way a follower applies the leader's tick.
func setPrices(svc *prices.Service, at time.Time, quotes map[metals.Metal][2]string) {
	snap := prices.Snapshot{AsOf: at, MarketsOpen: prices.MarketsOpen(at), Prices: map[metals.Metal]prices.Spot{}}
	// The previous close is the preceding session's: the change is today's.
	sess := prices.SessionDate(at)
	for m, q := range quotes {
		p, prev := decimal.RequireFromString(q[0]), decimal.RequireFromString(q[1])
		snap.Prices[m] = prices.Spot{Metal: m, Symbol: m.Symbol(), Price: p, PrevClose: prev, Change: p.Sub(prev),
			ChangePct: metals.Percent(metals.PctChange(prev, p)), AsOf: at, Source: "test-feed", Sources: []string{"test-feed"},
			Session: sess, PrevDate: prices.TradingDayBefore(sess)}
	}
	svc.Feed().Apply(snap)
}
