package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeShutsDownGracefully starts the real serve command, opens a long-lived price stream,
// then stops the process the way SIGTERM does: serve must end the stream, finish and return
// without error well before its shutdown deadline.
func TestServeShutsDownGracefully(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("OUNCE_ADDR", addr)
	t.Setenv("OUNCE_DATA_DIR", t.TempDir())
	t.Setenv("OUNCE_OFFLINE", "1")
	t.Setenv("DATABASE_URL", "")

	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- cmdServe(ctx, nil, &out, io.Discard) }()

	base := "http://" + addr
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := http.Get(base + "/readyz")
		if err == nil && res.StatusCode == 200 {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, err := http.Get(base + "/events/prices")
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 64)
	if _, err := res.Body.Read(first); err != nil {
		t.Fatal(err)
	}
	streamEnded := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, res.Body); close(streamEnded) }()

	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10 s")
	}
	select {
	case <-streamEnded:
	case <-time.After(2 * time.Second):
		t.Fatal("the event stream was left open")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("shutdown took %v", took)
	}
	if !strings.Contains(out.String(), "serving "+base) {
		t.Fatalf("serve did not print its URL: %q", out.String())
	}
}
