package web

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"
)

// fakeListener hands out what its script says, one Accept at a time.
type fakeListener struct {
	script []any // error or net.Conn
}

func (f *fakeListener) Accept() (net.Conn, error) {
	if len(f.script) == 0 {
		return nil, net.ErrClosed
	}
	next := f.script[0]
	f.script = f.script[1:]
	if err, ok := next.(error); ok {
		return nil, err
	}
	return next.(net.Conn), nil
}
func (f *fakeListener) Close() error   { return nil }
func (f *fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

func acceptErr(errno syscall.Errno) error {
	return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
}

// TestAcceptRetriesTemporaryErrors (issue 22, item 3): out of descriptors, Accept waits and
// tries again (5 ms, doubling, at most 1 s) instead of failing, which would end Serve and the
// process; a closed listener still ends it.
func TestAcceptRetriesTemporaryErrors(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	script := []any{}
	for i := 0; i < 9; i++ {
		script = append(script, acceptErr(syscall.EMFILE))
	}
	script = append(script, acceptErr(syscall.ENFILE), acceptErr(syscall.ECONNABORTED), server)
	l := newGuardListener(&fakeListener{script: script}, 0, nil)
	var pauses []time.Duration
	l.sleep = func(d time.Duration) { pauses = append(pauses, d) }
	c, err := l.Accept()
	if err != nil || c == nil {
		t.Fatalf("Accept after EMFILE: %v", err)
	}
	want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond,
		160 * time.Millisecond, 320 * time.Millisecond, 640 * time.Millisecond, time.Second, time.Second, time.Second}
	if !slices.Equal(pauses, want) {
		t.Errorf("pauses %v, want %v", pauses, want)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a closed listener: %v, want net.ErrClosed", err)
	}
}

// TestConnectionCap: past max open connections a new one reads a 503 problem with
// Retry-After; a slot frees when a connection closes.
func TestConnectionCap(t *testing.T) {
	s1, c1 := net.Pipe()
	s2, c2 := net.Pipe()
	s3, c3 := net.Pipe()
	defer c2.Close()
	defer c3.Close()
	l := newGuardListener(&fakeListener{script: []any{s1, s2}}, 1, nil)
	first, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := l.Accept(); done <- err }() // refuses s2, then finds the script empty
	res, err := http.ReadResponse(bufio.NewReader(c2), nil)
	if err != nil {
		t.Fatalf("reading the refusal: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("over the cap: %d %v %s", res.StatusCode, res.Header, body)
	}
	if err := <-done; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Accept: %v", err)
	}
	c1.Close()
	first.Close()
	if n := l.open.Load(); n != 0 {
		t.Fatalf("%d open after closing the only connection", n)
	}
	l.Listener = &fakeListener{script: []any{s3}}
	if c, err := l.Accept(); err != nil || c == nil {
		t.Fatalf("after a slot freed: %v", err)
	}
}
