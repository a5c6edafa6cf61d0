package kit

import (
	"bufio"
	"net"
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
func StartSSE(c *fiber.Ctx, fn func(s *SSEStream)) {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	conn := c.Context().Conn()
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) { fn(&SSEStream{conn: conn, w: w}) })
}

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
