package web

import (
	"errors"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
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

// guardListener is the server's listener. It keeps serving when the process runs short of
// file descriptors: a temporary accept error (EMFILE, ENFILE, ENOBUFS, ENOMEM, ECONNABORTED,
// a timeout) is retried with a growing pause (5 ms doubling to 1 s) instead of ending Serve.
// It caps open connections at max (0 = no cap): past it, a connection gets a short 503
// problem with Retry-After and is closed, so descriptors remain for the database, files and
// the connections already served. Connections it hands out close gracefully (lingerConn).
type guardListener struct {
	net.Listener
	max  int64
	open atomic.Int64
	log  *slog.Logger
	// sleep pauses between retries (a test records the pauses instead).
	sleep func(time.Duration)
	// refusing counts refusals still being written, which hold a descriptor each.
	refusing atomic.Int64
	lastLog  atomic.Int64
}

const (
	acceptRetryMin = 5 * time.Millisecond
	acceptRetryMax = time.Second
	// maxRefusing bounds refusals in flight; past it a connection is closed unanswered.
	maxRefusing = 32
)

func newGuardListener(ln net.Listener, max int, log *slog.Logger) *guardListener {
	if log == nil {
		log = slog.Default()
	}
	return &guardListener{Listener: ln, max: int64(max), log: log, sleep: time.Sleep}
}

// temporaryAcceptError reports whether an accept error passes on its own (by descriptors
// closing, memory freeing, or a client giving up) rather than meaning the listener is gone.
func temporaryAcceptError(err error) bool {
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// Accept implements net.Listener.
func (l *guardListener) Accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !temporaryAcceptError(err) {
				return nil, err
			}
			if pause == 0 {
				pause = acceptRetryMin
			} else {
				pause = min(2*pause, acceptRetryMax)
			}
			l.logOnce("accept failed; retrying", "err", err.Error(), "retry_in", pause.String(), "open_connections", l.open.Load())
			l.sleep(pause)
			continue
		}
		pause = 0
		if l.max > 0 && l.open.Load() >= l.max {
			l.logOnce("connection limit reached; refusing new connections", "max_connections", l.max)
			l.refuse(c)
			continue
		}
		l.open.Add(1)
		release := func() { l.open.Add(-1) }
		if tc, ok := c.(*net.TCPConn); ok {
			return &lingerConn{TCPConn: tc, release: release}, nil
		}
		return &countedConn{Conn: c, release: release}, nil
	}
}

// logOnce logs a warning at most once a minute, so a flood does not flood the log too.
func (l *guardListener) logOnce(msg string, args ...any) {
	now := time.Now().Unix()
	if last := l.lastLog.Load(); now-last >= 60 && l.lastLog.CompareAndSwap(last, now) {
		l.log.Warn(msg, args...)
	}
}

// refusedResponse is what a connection over the cap reads.
var refusedResponse = func() []byte {
	body := `{"type":"/problems/unavailable","title":"Service unavailable","status":503,"detail":"the server is at its connection limit; try again shortly"}`
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

// refuse answers a connection over the cap with the 503 and closes it.
func (l *guardListener) refuse(c net.Conn) {
	if l.refusing.Add(1) > maxRefusing {
		l.refusing.Add(-1)
		_ = c.Close()
		return
	}
	go func() {
		defer l.refusing.Add(-1)
		_ = c.SetDeadline(time.Now().Add(time.Second))
		_, _ = c.Write(refusedResponse)
		if tc, ok := c.(*net.TCPConn); ok {
			// As lingerConn does: our side ends first, then what the client sent is drained
			// briefly so the answer is not lost to a reset.
			_ = tc.CloseWrite()
			bp := lingerBufs.Get().(*[]byte)
			for {
				if _, err := tc.Read(*bp); err != nil {
					break
				}
			}
			lingerBufs.Put(bp)
		}
		_ = c.Close()
	}()
}

// countedConn releases its slot when closed (connections that are not TCP).
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close implements net.Conn.
func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

type lingerConn struct {
	*net.TCPConn
	once sync.Once
	// release frees the connection's slot once its descriptor is closed.
	release func()
}

var lingerBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Close implements net.Conn: it returns at once and lingers in the background.
func (c *lingerConn) Close() error {
	c.once.Do(func() { go c.linger() })
	return nil
}

func (c *lingerConn) linger() {
	defer func() {
		_ = c.TCPConn.Close()
		if c.release != nil {
			c.release()
		}
	}()
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
