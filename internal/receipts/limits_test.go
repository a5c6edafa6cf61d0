package receipts

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// stuckTool is a fake pdfinfo that reports its process id on a FIFO and then never ends, so a
// test knows when a scan holds its slot and can check its process was killed. It returns a
// LookPath that finds it, and the channel of started pids.
func stuckTool(t *testing.T) (func(string) (string, error), <-chan int) {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, toolPDFInfo)
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ > "+fifo+"\nexec sleep 600\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 8)
	go func() {
		// Opened read-write so the FIFO never reports end of file between writers.
		f, err := os.OpenFile(fifo, os.O_RDWR, 0)
		if err != nil {
			return
		}
		t.Cleanup(func() { f.Close() })
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if pid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
				pids <- pid
			}
		}
	}()
	look := func(tool string) (string, error) {
		if tool == toolPDFInfo {
			return script, nil
		}
		return exec.LookPath(tool)
	}
	return look, pids
}

// gone reports whether the process has ended (and been reaped).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

func startedPid(t *testing.T, pids <-chan int) int {
	t.Helper()
	select {
	case pid := <-pids:
		return pid
	case <-time.After(10 * time.Second):
		t.Fatal("the tool never started")
		return 0
	}
}

// TestScanSlotsAndDeadline (issue 22 item 4): a scan waits for one of ScanSlots and is refused with
// Unavailable + RetryAfter when none frees up, the whole scan ends at ScanTimeout however long
// each tool may run, and a cancelled context (the client left) kills the running tool.
func TestScanSlotsAndDeadline(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, st *db.Store) {
		look, pids := stuckTool(t)
		svc := newTestService(t, st, Config{ScanSlots: 1, QueueWait: 50 * time.Millisecond, ScanTimeout: time.Hour,
			ToolTimeout: time.Hour}, look)
		u := member(t, st, "gold@example.com", db.TierGold)
		pdf := fixture(t, "apmex.pdf")

		ctx, cancel := context.WithCancel(t.Context())
		first := make(chan error, 1)
		go func() { _, err := svc.Scan(ctx, u, pdf); first <- err }()
		pid := startedPid(t, pids)

		_, err := svc.Scan(t.Context(), u, pdf)
		e, ok := apperr.As(err)
		if !ok || e.Kind != apperr.Unavailable || e.RetryAfter <= 0 {
			t.Fatalf("second scan while the only slot is busy: %v, want Unavailable with RetryAfter", err)
		}
		if a, _ := svc.AllowanceFor(t.Context(), u); a.Left != a.Limit-1 {
			t.Errorf("the refused scan was counted: %d of %d left", a.Left, a.Limit)
		}

		cancel()
		select {
		case err := <-first:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled scan: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the cancelled scan did not return")
		}
		if !gone(pid) {
			t.Errorf("tool process %d still runs after the scan was cancelled", pid)
		}
		if a, _ := svc.AllowanceFor(t.Context(), u); a.Left != a.Limit {
			t.Errorf("a scan ended by the client still counts: %d of %d left", a.Left, a.Limit)
		}

		// The slot is free again; a scan past its overall deadline ends with the tool killed.
		svc.cfg.ScanTimeout, svc.tools.scanTimeout = 300*time.Millisecond, 300*time.Millisecond
		done := make(chan error, 1)
		go func() { _, err := svc.Scan(t.Context(), u, pdf); done <- err }()
		pid = startedPid(t, pids)
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the scan outlived its deadline")
		}
		if apperr.KindOf(err) != apperr.Unprocessable || !strings.Contains(err.Error(), "in all") {
			t.Errorf("scan past its deadline: %v", err)
		}
		if !gone(pid) {
			t.Errorf("tool process %d still runs after the scan's deadline", pid)
		}
	})
}
