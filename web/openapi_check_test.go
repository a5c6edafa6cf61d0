package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Every /v1 exchange any web test makes goes through checkContract (wired once, in env.do):
// the response must match what /openapi.json documents for that route and status, and a
// request the server accepted must be one the document allows. So the document cannot
// promise fields the code does not produce, or refuse input the code takes.

var decodersOnce sync.Once

func registerDecoders() {
	decodersOnce.Do(func() {
		plain := func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
			b, err := io.ReadAll(body)
			return string(b), err
		}
		for _, ct := range []string{"text/csv", "text/plain", "text/event-stream", "image/jpeg", "image/png", "application/pdf", "application/zip"} {
			if openapi3filter.RegisteredBodyDecoder(ct) == nil {
				openapi3filter.RegisterBodyDecoder(ct, plain)
			}
		}
	})
}

type contract struct {
	once   sync.Once
	router routers.Router
	err    error
}

func (e *env) contractRouter() (routers.Router, error) {
	e.contract.once.Do(func() {
		registerDecoders()
		b, err := json.Marshal(e.srv.Handlers().OpenAPI())
		if err != nil {
			e.contract.err = err
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(b)
		if err != nil {
			e.contract.err = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			e.contract.err = err
			return
		}
		// Requests in tests go to httptest's default host.
		doc.Servers = openapi3.Servers{{URL: "http://example.com"}}
		e.contract.router, e.contract.err = legacy.NewRouter(doc)
	})
	return e.contract.router, e.contract.err
}

// checkContract validates one exchange against the OpenAPI document.
func (e *env) checkContract(req *http.Request, reqBody []byte, r resp) {
	// CORS preflights are the browser's, not API operations.
	if !strings.HasPrefix(req.URL.Path, "/v1/") || r.Status == http.StatusNotModified || req.Method == http.MethodOptions {
		return
	}
	router, err := e.contractRouter()
	if err != nil {
		e.t.Errorf("openapi.json does not load: %v", err)
		return
	}
	vreq := req.Clone(context.Background())
	vreq.URL.Scheme, vreq.URL.Host = "http", "example.com"
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := router.FindRoute(vreq)
	if err != nil {
		if r.Status != http.StatusNotFound && r.Status != http.StatusTooManyRequests && r.Status != http.StatusMethodNotAllowed {
			e.t.Errorf("contract: %s %s answered %d but is not in openapi.json", req.Method, req.URL.Path, r.Status)
		}
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: opts}
	if r.Status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			e.t.Errorf("contract: the server accepted %s %s (%d) but openapi.json rejects the request: %v", req.Method, req.URL.RequestURI(), r.Status, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.Status, Header: r.Header, Body: io.NopCloser(bytes.NewReader(r.Body)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		e.t.Errorf("contract: %s %s → %d does not match openapi.json: %v\nbody: %.400s", req.Method, req.URL.RequestURI(), r.Status, err, r.Body)
	}
}

func TestOpenAPIDocumentLoadsAndValidates(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	if _, err := e.contractRouter(); err != nil {
		t.Fatal(err)
	}
	r := e.do(mustReq("GET", "/openapi.json"))
	doc := r.JSON(t)
	if doc["openapi"] != "3.0.3" || doc["info"].(map[string]any)["version"] != "1.0.0" || doc["servers"].([]any)[0].(map[string]any)["url"] != "http://ounce.test" {
		t.Fatalf("header fields: %v %v %v", doc["openapi"], doc["info"], doc["servers"])
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	if schemes["bearerAuth"].(map[string]any)["scheme"] != "bearer" {
		t.Fatal("bearer scheme missing")
	}
	get := doc["paths"].(map[string]any)["/v1/holdings"].(map[string]any)["get"].(map[string]any)
	if _, ok := get["responses"].(map[string]any)["403"]; !ok || get["security"] == nil {
		t.Fatal("gold route lacks 403 or security")
	}
}

// TestEveryRouteIsDocumented walks Fiber's route table: each /v1 route is in the document
// and each documented path is a registered route.
func TestEveryRouteIsDocumented(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	doc := e.srv.Handlers().OpenAPI()
	paths := doc["paths"].(map[string]any)
	registered := map[string]bool{}
	for _, r := range e.srv.App.GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/v1/") || r.Method == "HEAD" || r.Method == "OPTIONS" || r.Method == "CONNECT" || r.Method == "TRACE" {
			continue
		}
		key := r.Method + " " + openAPIPath(r.Path)
		registered[key] = true
		item, ok := paths[openAPIPath(r.Path)].(map[string]any)
		if !ok || item[strings.ToLower(r.Method)] == nil {
			t.Errorf("route %s is registered but not documented", key)
		}
	}
	for p, item := range paths {
		for m := range item.(map[string]any) {
			if !registered[strings.ToUpper(m)+" "+p] {
				t.Errorf("documented %s %s is not a registered route", strings.ToUpper(m), p)
			}
		}
	}
	if len(registered) < 8 {
		t.Fatalf("only %d /v1 routes found: the walk is broken", len(registered))
	}
}

func openAPIPath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "{" + strings.TrimSuffix(s[1:], "?") + "}"
		}
	}
	return strings.Join(parts, "/")
}

func mustReq(method, path string) *http.Request {
	req, _ := http.NewRequest(method, "http://example.com"+path, nil)
	return req
}
