package web_test

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"time"
)

// serveInProcess runs one request through the app's own fasthttp server over an in-memory
// connection, like fiber's App.Test, but keeps the response the server wrote even when it
// ends the connection with an error: a body over the route's limit is answered 413 while it is
// read, which App.Test reports as a bare error and drops the answer.
func (e *env) serveInProcess(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody && req.Header.Get("Content-Length") == "" {
		req.Header.Set("Content-Length", strconv.FormatInt(req.ContentLength, 10))
	}
	dump, err := httputil.DumpRequest(req, true)
	if err != nil {
		return nil, err
	}
	e.srv.App.Handler() // builds the route tree once, as App.Test does
	conn := &memConn{}
	conn.r.Write(dump)
	_ = e.srv.App.Server().ServeConn(conn)
	return http.ReadResponse(bufio.NewReader(&conn.w), req)
}

type memConn struct{ r, w bytes.Buffer }

func (c *memConn) Read(b []byte) (int, error)     { return c.r.Read(b) }
func (c *memConn) Write(b []byte) (int, error)    { return c.w.Write(b) }
func (*memConn) Close() error                     { return nil }
func (*memConn) LocalAddr() net.Addr              { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80} }
func (*memConn) RemoteAddr() net.Addr             { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5555} }
func (*memConn) SetDeadline(time.Time) error      { return nil }
func (*memConn) SetReadDeadline(time.Time) error  { return nil }
func (*memConn) SetWriteDeadline(time.Time) error { return nil }
