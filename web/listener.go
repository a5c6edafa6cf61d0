package web

import (
	"net"
	"sync"
	"time"
)

// When the server answers before reading all a client sent — a 413 for a body over the limit,
// a 431 for headers over the read buffer — and then closes the connection, the kernel answers
// the unread bytes with a TCP reset, and the client usually loses the response with it. So
// connections close the way RFC 9112 §9.6 asks: shut down our side first (the response is
// complete and the client sees the end of it), then read and discard what is still arriving,
// for a moment, before letting go. It happens off the request goroutine.
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 32 << 20
)

// lingerListener hands out connections that close gracefully.
type lingerListener struct{ net.Listener }

// Accept implements net.Listener.
func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return &lingerConn{TCPConn: tc}, nil
	}
	return c, nil
}

type lingerConn struct {
	*net.TCPConn
	once sync.Once
}

var lingerBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Close implements net.Conn: it returns at once and lingers in the background.
func (c *lingerConn) Close() error {
	c.once.Do(func() { go c.linger() })
	return nil
}

func (c *lingerConn) linger() {
	defer c.TCPConn.Close()
	if c.TCPConn.CloseWrite() != nil {
		return
	}
	_ = c.TCPConn.SetReadDeadline(time.Now().Add(lingerTime))
	bp := lingerBufs.Get().(*[]byte)
	defer lingerBufs.Put(bp)
	for read := 0; read < lingerBytes; {
		n, err := c.TCPConn.Read(*bp)
		read += n
		if err != nil {
			return
		}
	}
}
