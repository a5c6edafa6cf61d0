package web_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawExchange sends one request over a fresh loopback connection and returns the parsed
// response plus whatever bytes the server sent after its headers (for HEAD: nothing).
func rawExchange(t *testing.T, base, method, path string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, method+" "+path+" HTTP/1.1\r\nHost: ounce.test\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(conn) // the server closes after answering
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	br := bufio.NewReader(bytes.NewReader(all))
	res, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v in %q", method, path, err, all)
	}
	body, _ := io.ReadAll(res.Body)
	rest, _ := io.ReadAll(br)
	return res, append(body, rest...)
}

// TestHeadAnsweredLikeGet: HEAD of a page or a /v1 route gets GET's status and headers with no
// body; HEAD of a path nobody serves is a 404, and a members' page redirects as GET does.
func TestHeadAnsweredLikeGet(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	base := e.live()
	for _, c := range []struct {
		path   string
		status int
	}{{"/", 200}, {"/markets", 200}, {"/v1/prices", 200}, {"/holdings", 303}, {"/no/such/page", 404}, {"/v1/no/such/route", 404}} {
		get, getBody := rawExchange(t, base, "GET", c.path)
		head, headBody := rawExchange(t, base, "HEAD", c.path)
		if get.StatusCode != c.status || head.StatusCode != c.status {
			t.Errorf("%s: GET %d, HEAD %d, want %d", c.path, get.StatusCode, head.StatusCode, c.status)
		}
		if len(headBody) != 0 {
			t.Errorf("HEAD %s sent a body of %d bytes", c.path, len(headBody))
		}
		if c.status == 200 && len(getBody) == 0 {
			t.Errorf("GET %s sent no body", c.path)
		}
		for _, h := range []string{"Content-Type", "Cache-Control", "Location", "X-Content-Type-Options"} {
			if get.Header.Get(h) != head.Header.Get(h) {
				t.Errorf("%s: %s is %q for GET, %q for HEAD", c.path, h, get.Header.Get(h), head.Header.Get(h))
			}
		}
		if c.status == 200 && head.Header.Get("Content-Type") == "" {
			t.Errorf("HEAD %s has no Content-Type", c.path)
		}
	}
}

// TestHeadOfAStreamIsHeadersOnly: HEAD of the live price stream answers the stream's headers
// and ends, instead of holding the connection open as a stream.
func TestHeadOfAStreamIsHeadersOnly(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	res, body := rawExchange(t, e.live(), "HEAD", "/events/prices")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") || len(body) != 0 {
		t.Fatalf("HEAD /events/prices: %d %q, %d body bytes", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
}
