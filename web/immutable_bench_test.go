package web_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/web"
)

// immutableApp is the full app (no market, no rate limits, logs discarded) built with Fiber's
// Immutable on or off.
func immutableApp(b *testing.B, on bool) fasthttp.RequestHandler {
	web.SetImmutable(on)
	defer web.SetImmutable(true)
	s := dbtest.SQLite(b)
	a, err := app.New(app.Options{Store: s, Config: app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	srv := a.Server
	return srv.App.Handler()
}

// BenchmarkImmutable measures what copying every request string costs (Fiber's Immutable,
// on in production) against the same app reading them in place, in one run, over requests
// that read a query, a form and a JSON body:
//
//	go test -run '^$' -bench Immutable -benchtime 20000x -count 5 ./web/
func BenchmarkImmutable(b *testing.B) {
	type reqSpec struct{ name, method, uri, ctype, body string }
	reqs := []reqSpec{
		{"query", "GET", "/v1/dealer-prices?metal=rhodium&limit=5", "", ""},
		{"form", "POST", "/login", "application/x-www-form-urlencoded", "email=ann%40example.com&password=correct+horse+battery&next=%2Fholdings&_csrf=abc"},
		{"json", "POST", "/v1/dealer-prices/click", "application/json", `{"dealer":"nobody","product_id":"silver-bar-10oz"}`},
	}
	apps := []struct {
		name string
		h    fasthttp.RequestHandler
	}{{"mutable", immutableApp(b, false)}, {"immutable", immutableApp(b, true)}}
	for _, r := range reqs {
		for _, a := range apps {
			b.Run(r.name+"/"+a.name, func(b *testing.B) {
				var ctx fasthttp.RequestCtx
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ctx.Request.Reset()
					ctx.Response.Reset()
					ctx.Request.SetRequestURI(r.uri)
					ctx.Request.Header.SetMethod(r.method)
					if r.body != "" {
						ctx.Request.Header.SetContentType(r.ctype)
						ctx.Request.SetBodyString(r.body)
					}
					a.h(&ctx)
				}
			})
		}
	}
}
