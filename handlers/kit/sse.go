package kit

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	if c.Method() == fiber.MethodHead {
		// HEAD is answered like GET (web registers GET routes for both): the headers, no stream.
		c.Set(fiber.HeaderContentType, "text/event-stream")
		c.Set(fiber.HeaderCacheControl, "no-cache")
		return
	}
	release, ok := admitStream(c)
	if !ok {
		return
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

// admitStream asks the web layer's StreamGate for a slot. When the gate refuses, the
// response is already its problem and ok is false; otherwise release frees the slot.
func admitStream(c *fiber.Ctx) (release func(), ok bool) {
	g, has := c.Locals(localStreamGate).(StreamGate)
	if !has || g == nil {
		return func() {}, true
	}
	r, p := g.Admit(ClientIP(c))
	if p != nil {
		if p.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(p.RetryAfter))
		}
		_ = WriteProblem(c, p)
		return nil, false
	}
	return r, true
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

// Broadcast is an event stream every client receives alike (the live price ticker). Each
// event is rendered once, by whoever publishes it, and the very same bytes are written to
// every connection: a stream keeps no buffer, renderer or timer of its own. Its connection
// is taken over from the HTTP server once the headers are known (fasthttp's hijack), so the
// server's per-connection request state and worker are given back; what remains per stream
// is the socket and one small goroutine parked on a channel shared by all.
type Broadcast struct {
	mu sync.Mutex // serialises writers of state
	// state is read without a lock: all streams wake at once on a tick, and a mutex they all
	// took would serialise them.
	state   atomic.Pointer[broadcastState]
	done    <-chan struct{}
	streams atomic.Int64
}

type broadcastState struct {
	frame frame
	beats uint64
	// changed is closed when this state is replaced (a new event or a heartbeat).
	changed chan struct{}
}

// frame is one published event: its text and the same as one HTTP/1.1 chunk.
type frame struct {
	seq   uint64
	raw   []byte
	chunk []byte
	// key names the content (PublishKeyed): a stream whose page already shows it skips it.
	key string
}

var (
	heartbeatText  = []byte(": keep-alive\n\n")
	heartbeatChunk = chunkOf(heartbeatText)
	lastChunk      = []byte("0\r\n\r\n")
)

func chunkOf(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	out = strconv.AppendInt(out, int64(len(b)), 16)
	out = append(out, "\r\n"...)
	out = append(out, b...)
	return append(out, "\r\n"...)
}

// NewBroadcast starts a broadcast whose streams end cleanly when done closes; a comment goes
// to every stream each SSEHeartbeat.
func NewBroadcast(done <-chan struct{}) *Broadcast {
	b := &Broadcast{done: done}
	b.state.Store(&broadcastState{changed: make(chan struct{})})
	go func() {
		t := time.NewTicker(SSEHeartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b.replace(func(st *broadcastState) { st.beats++ })
			}
		}
	}()
	return b
}

// Publish makes event (complete SSE text, ending in a blank line) the one every stream sends
// next; a stream that has not sent the previous one yet skips to this.
func (b *Broadcast) Publish(event []byte) {
	raw := append([]byte(nil), event...)
	b.replace(func(st *broadcastState) { st.frame = frame{seq: st.frame.seq + 1, raw: raw, chunk: chunkOf(raw)} })
}

// PublishKeyed is Publish with a key naming what the event shows. A stream opened with that
// key in its "have" query parameter — the page was rendered with the same content — does not
// send it: the browser would swap in what it already shows (a long task on a phone for
// nothing). Any later event is sent as usual.
func (b *Broadcast) PublishKeyed(event []byte, key string) {
	raw := append([]byte(nil), event...)
	b.replace(func(st *broadcastState) {
		st.frame = frame{seq: st.frame.seq + 1, raw: raw, chunk: chunkOf(raw), key: key}
	})
}

// replace installs a changed copy of the state and wakes every stream.
func (b *Broadcast) replace(change func(*broadcastState)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	old := b.state.Load()
	next := &broadcastState{frame: old.frame, beats: old.beats, changed: make(chan struct{})}
	change(next)
	b.state.Store(next)
	close(old.changed)
}

func (b *Broadcast) current() (frame, uint64, <-chan struct{}) {
	st := b.state.Load()
	return st.frame, st.beats, st.changed
}

// Streams is how many streams are open.
func (b *Broadcast) Streams() int64 { return b.streams.Load() }

// Serve answers the request with the broadcast: the newest event at once (when there is
// one), then each new event and heartbeat, until the client goes or the server shuts down,
// when the chunked body is ended properly.
func (b *Broadcast) Serve(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	fctx := c.Context()
	if c.Method() == fiber.MethodHead {
		return
	}
	have := strings.Clone(c.Query("have"))
	if !fctx.Request.Header.IsHTTP11() {
		// HTTP/1.0 has no chunks: the server's own streaming, ended by closing.
		StartSSE(c, func(s *SSEStream) { b.serveRaw(s, have) })
		return
	}
	// A hijacked stream is counted by the same gate as every other stream.
	release, ok := admitStream(c)
	if !ok {
		return
	}
	// The server writes nothing; the hijack handler writes the headers the middleware left
	// on the response (they are complete by then) and streams the chunks itself.
	fctx.HijackSetNoResponse(true)
	fctx.Hijack(func(conn net.Conn) {
		defer release()
		b.streams.Add(1)
		defer b.streams.Add(-1)
		h := &fctx.Response.Header
		h.SetContentLength(-1) // Transfer-Encoding: chunked
		if !write(conn, h.Header()) {
			return
		}
		b.pump(have, func(f frame) bool { return write(conn, f.chunk) }, func() bool { return write(conn, heartbeatChunk) },
			func() { write(conn, lastChunk) })
	})
}

// serveRaw is Serve over the server's own body stream (HTTP/1.0).
func (b *Broadcast) serveRaw(s *SSEStream, have string) {
	b.streams.Add(1)
	defer b.streams.Add(-1)
	b.pump(have, func(f frame) bool { return s.Send(string(f.raw)) }, func() bool { return s.Send(string(heartbeatText)) }, func() {})
}

// pump feeds one stream until the broadcast ends (then last runs) or the stream breaks (send
// or beat answers false): every new frame once, except the first when it is the one the page
// already shows (have), and a heartbeat when the beat moves on with no new frame.
func (b *Broadcast) pump(have string, send func(frame) bool, beat func() bool, last func()) {
	var sent, beats uint64
	first := true
	for {
		f, n, changed := b.current()
		switch {
		case f.seq != sent && sent == 0 && have != "" && f.key == have:
			sent = f.seq // the page shows this already
		case f.seq != sent:
			if !send(f) {
				return
			}
			sent = f.seq
		case n != beats && !first:
			if !beat() {
				return
			}
		}
		beats, first = n, false
		select {
		case <-b.done:
			last()
			return
		case <-changed:
		}
	}
}

// write sends p with its own deadline: a reader that stops reading is dropped after
// sseWriteTimeout.
func write(conn net.Conn, p []byte) bool {
	_ = conn.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	_, err := conn.Write(p)
	return err == nil
}

// SSEEvent formats one named event; every line of data gets its own data field.
func SSEEvent(name, data string) string {
	var b strings.Builder
	b.WriteString("event: " + name + "\n")
	for _, line := range strings.Split(data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
	return b.String()
}
