package kit

import (
	"bufio"
	"net"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Event streams live for as long as the page is open, far longer than the server's write
// timeout, which bounds a whole response. So a stream sets its own deadline before each write:
// a reader that stops reading is dropped after sseWriteTimeout, and an open page is never cut
// off mid-stream. A comment line every sseHeartbeat keeps proxies (which often close idle
// connections after 30–60 s) from ending it.
const (
	SSEHeartbeat    = 25 * time.Second
	sseWriteTimeout = 30 * time.Second
)

// SSEStream writes server-sent events to one connection.
type SSEStream struct {
	conn net.Conn
	w    *bufio.Writer
}

// StartSSE sets the event-stream headers and runs fn with the stream once the response
// starts; fn returns when the stream should end, and the response then ends cleanly (the
// final empty chunk), including when done closes for shutdown.
//
// The web layer's StreamGate (SetStreamGate) may refuse a stream past its caps: the response
// is then its problem (503 or 429 with Retry-After) and fn never runs.
func StartSSE(c *fiber.Ctx, fn func(s *SSEStream)) {
	release := func() {}
	if g, ok := c.Locals(localStreamGate).(StreamGate); ok && g != nil {
		r, p := g.Admit(ClientIP(c))
		if p != nil {
			if p.RetryAfter > 0 {
				c.Set(fiber.HeaderRetryAfter, strconv.Itoa(p.RetryAfter))
			}
			_ = WriteProblem(c, p)
			return
		}
		release = r
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	conn := c.Context().Conn()
	// The writer runs on its own goroutine from now on and returns when the stream ends
	// (the reader gone, shutdown), which frees the slot.
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer release()
		fn(&SSEStream{conn: conn, w: w})
	})
}

// StreamGate admits live event streams: Admit returns the function that frees the slot when
// the stream ends, or the problem to answer instead.
type StreamGate interface {
	Admit(client string) (release func(), refused *Problem)
}

const localStreamGate = "ounce.streams"

// SetStreamGate records the gate StartSSE asks before a stream starts.
func SetStreamGate(c *fiber.Ctx, g StreamGate) { c.Locals(localStreamGate, g) }

// Send writes raw event text and flushes it to the client, reporting success.
func (s *SSEStream) Send(text string) bool {
	if s.conn != nil {
		// The server set one deadline for the whole response; each write gets its own instead.
		_ = s.conn.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	}
	if _, err := s.w.WriteString(text); err != nil {
		return false
	}
	return s.w.Flush() == nil
}

// Heartbeat writes a comment line, which clients ignore.
func (s *SSEStream) Heartbeat() bool { return s.Send(": keep-alive\n\n") }
