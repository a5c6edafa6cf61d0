package web

import (
	"bytes"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ouncehq/ounce/handlers/kit"
)

// bodyLimits holds the routes whose MaxBody differs from kit.DefaultMaxBody. The server
// asks it as soon as a request's headers are in, so a body over the route's limit is refused
// (413) before it is read: one announced by Content-Length without reading any of it, a
// chunked one as soon as it passes the limit.
type bodyLimits struct {
	routes []routeLimit
}

type routeLimit struct {
	method string
	segs   []string // path segments; ":name" matches any one segment
	max    int
}

// add records a route's limit (0 or the default adds nothing).
func (b *bodyLimits) add(method, path string, max int) {
	if max <= 0 || max == kit.DefaultMaxBody {
		return
	}
	b.routes = append(b.routes, routeLimit{method: method, segs: splitPath(strings.ToLower(path)), max: max})
}

// largest is the greatest limit of any route.
func (b *bodyLimits) largest() int {
	m := kit.DefaultMaxBody
	for _, r := range b.routes {
		m = max(m, r.max)
	}
	return m
}

// lookup is the body limit of a request line. Matching is as loose as the router's (any case,
// an optional trailing slash); whatever it does not recognise gets the default.
func (b *bodyLimits) lookup(method, uri []byte) int {
	if len(b.routes) == 0 {
		return kit.DefaultMaxBody
	}
	if i := bytes.IndexByte(uri, '?'); i >= 0 {
		uri = uri[:i]
	}
	segs := splitPath(strings.ToLower(string(uri)))
	for _, r := range b.routes {
		if r.method == string(method) && matchSegs(r.segs, segs) {
			return r.max
		}
	}
	return kit.DefaultMaxBody
}

// headerReceived is the fasthttp hook that applies the limits.
func (b *bodyLimits) headerReceived(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	return fasthttp.RequestConfig{MaxRequestBodySize: b.lookup(h.Method(), h.RequestURI())}
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

func matchSegs(pattern, path []string) bool {
	if len(pattern) != len(path) {
		return false
	}
	for i, s := range pattern {
		if !strings.HasPrefix(s, ":") && s != path[i] {
			return false
		}
	}
	return true
}
