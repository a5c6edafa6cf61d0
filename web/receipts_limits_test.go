package web_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/receipts"
)

// fakeStuckPDFInfo puts a pdfinfo first on PATH that reports its pid on a FIFO and never
// ends, and returns the channel of started pids.
func fakeStuckPDFInfo(t *testing.T) <-chan int {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdfinfo"), []byte("#!/bin/sh\necho $$ > "+fifo+"\nexec sleep 600\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	f, err := os.OpenFile(fifo, os.O_RDWR, 0) // read-write: no end of file between writers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pids := make(chan int, 8)
	go func() {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if pid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
				pids <- pid
			}
		}
	}()
	return pids
}

func waitPid(t *testing.T, pids <-chan int) int {
	t.Helper()
	select {
	case pid := <-pids:
		return pid
	case <-time.After(15 * time.Second):
		t.Fatal("the scanning tool never started")
		return 0
	}
}

// TestScanReceiptBusyAndClientGone (issue 22 item 4), over loopback: while every scan slot is
// taken another scan waits briefly and gets 503 with Retry-After, and a client that hangs up
// mid-scan has its tool killed and its slot freed for the next scan.
func TestScanReceiptBusyAndClientGone(t *testing.T) {
	pids := fakeStuckPDFInfo(t)
	mod := func(o *app.Options) {
		o.Config.Receipts = receipts.Config{ScanSlots: 1, QueueWait: 100 * time.Millisecond, ToolTimeout: time.Hour, ScanTimeout: time.Hour}
	}
	eachEngine(t, mod, func(t *testing.T, e *env) {
		base := e.live()
		_, key := e.user("scanner@example.com", db.TierGold)
		pdf := receiptFixture(t, "apmex.pdf")
		post := func(ctx context.Context) (*http.Response, error) {
			body, ct := scanMultipart(t, "/v1/scan-receipt", "r.pdf", pdf)
			req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/scan-receipt", body)
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+key)
			return (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
		}

		ctx, hangUp := context.WithCancel(t.Context())
		defer hangUp()
		firstDone := make(chan error, 1)
		go func() {
			res, err := post(ctx)
			if err == nil {
				res.Body.Close()
			}
			firstDone <- err
		}()
		pid := waitPid(t, pids)

		res, err := post(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
			res.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("scan while the only slot is busy: %d, Retry-After %q, %s", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"))
		}

		hangUp()
		if err := <-firstDone; !errors.Is(err, context.Canceled) {
			t.Fatalf("first client: %v", err)
		}
		// The server notices the closed connection and kills the tool: wait for that event.
		deadline := time.Now().Add(10 * time.Second)
		for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			if time.Now().After(deadline) {
				t.Fatalf("tool process %d still runs after its client hung up", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// Its slot is free: the next scan starts its tool (and hangs up in turn).
		ctx2, hangUp2 := context.WithCancel(t.Context())
		defer hangUp2()
		go func() {
			if res, err := post(ctx2); err == nil {
				res.Body.Close()
			}
		}()
		waitPid(t, pids)
		hangUp2()
	})
}
