package receiptshttp

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
)

// fasthttp does not end a request's context when its client goes away, and a scan runs OCR
// for up to a minute. clientContext returns the request's context, cancelled as soon as the
// client closes its connection: a goroutine waits until the socket is readable and peeks
// (MSG_PEEK, never consuming a byte the server may still read) — zero bytes is the client's
// FIN. Bytes of a next request mean the client is still there, and watching stops. Call stop
// when the handler is done. On connections with no socket under them (in-memory test
// connections) the context is the request's, unchanged.
func clientContext(c *fiber.Ctx, parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	raw := rawConn(c.Context().Conn())
	if raw == nil {
		return ctx, func() { cancel(nil) }
	}
	conn := c.Context().Conn()
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1)
		gone := false
		_ = raw.Read(func(fd uintptr) bool {
			n, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			switch {
			case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR):
				return false // nothing yet: wait until readable
			case err == nil && n == 0:
				gone = true
			case err != nil && !errors.Is(err, syscall.EBADF):
				gone = true // reset by the peer
			}
			return true
		})
		if gone {
			cancel(errClientGone)
		}
	}()
	return ctx, func() {
		select {
		case <-done:
		default:
			// Wake the waiting read with a past deadline, then clear it: the server sets its
			// own before it reads the next request.
			_ = conn.SetReadDeadline(time.Unix(1, 0))
			<-done
			_ = conn.SetReadDeadline(time.Time{})
		}
		cancel(nil)
	}
}

// errClientGone is the cause of a context cancelled because the client closed its connection.
var errClientGone = errors.New("client closed the connection")

// clientGone reports whether ctx ended because the client left.
func clientGone(ctx context.Context) bool { return errors.Is(context.Cause(ctx), errClientGone) }

// rawConn finds the socket under conn (through wrappers that expose NetConn), or nil.
func rawConn(conn net.Conn) syscall.RawConn {
	for range 4 {
		if sc, ok := conn.(syscall.Conn); ok {
			if rc, err := sc.SyscallConn(); err == nil {
				return rc
			}
			return nil
		}
		u, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			return nil
		}
		conn = u.NetConn()
	}
	return nil
}
