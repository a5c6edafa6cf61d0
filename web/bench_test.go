package web_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/prices"
)

// benchApp is the full app with an offline market, the production log level (info) into
// io.Discard, and no rate limits.
func benchApp(b *testing.B) fasthttp.RequestHandler {
	s := dbtest.SQLite(b)
	m, err := prices.NewService(context.Background(), s, prices.ServiceConfig{Offline: true})
	if err != nil {
		b.Fatal(err)
	}
	a, err := app.New(app.Options{Store: s, Market: m, Config: app.Config{Site: kit.Site{BaseURL: "http://127.0.0.1"}}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	srv := a.Server
	return srv.App.Handler()
}

// bareApp serves body at path with nothing else: the baseline.
func bareApp(path string, body []byte) fasthttp.RequestHandler {
	app := fiber.New()
	app.Get(path, func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		return c.Send(body)
	})
	return app.Handler()
}

func serveOnce(h fasthttp.RequestHandler, uri string) []byte {
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI(uri)
	ctx.Request.Header.SetMethod("GET")
	h(&ctx)
	return append([]byte(nil), ctx.Response.Body()...)
}

func runHandler(b *testing.B, h fasthttp.RequestHandler, uri string) {
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(uri)
		ctx.Request.Header.SetMethod("GET")
		h(&ctx)
	}
}

// BenchmarkPrices compares the whole request path of the price endpoints with a bare Fiber
// handler returning the same bytes, in one run: go test -bench Prices ./web/
func BenchmarkPrices(b *testing.B) {
	app := benchApp(b)
	for _, uri := range []string{"/v1/prices", "/v1/prices/history?metal=gold&range=5Y"} {
		body := serveOnce(app, uri)
		path := uri
		if i := len("/v1/prices/history"); len(uri) > i && uri[i] == '?' {
			path = uri[:i]
		}
		bare := bareApp(path, body)
		b.Run("ounce"+uri, func(b *testing.B) { runHandler(b, app, uri) })
		b.Run("baseline"+uri, func(b *testing.B) { runHandler(b, bare, uri) })
	}
}
