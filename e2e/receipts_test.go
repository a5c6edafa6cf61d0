package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/web"
)

// TestReceiptScanJourney serves the app on loopback and runs receipts.mjs in Chromium: a
// rendered receipt image and a text PDF become the right proposed lots, and confirming adds
// exactly those. SHOTS=dir also writes the page at 375 and 1280 px, light and dark.
func TestReceiptScanJourney(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	root, _ := filepath.Abs("..")
	_, errNode := exec.LookPath("node")
	_, errChrome := os.Stat(chromium)
	_, errPW := os.Stat(filepath.Join(root, "node_modules", "playwright-core"))
	_, errOCR := exec.LookPath("tesseract")
	if errNode != nil || errChrome != nil || errPW != nil || errOCR != nil {
		t.Fatal("the receipt journey needs node, Chromium at " + chromium + ", the npm packages and tesseract: run `bash .ci/tools`")
	}
	store := dbtest.SQLite(t)
	srv, err := web.New(web.Options{Store: store, Config: e2eConfig()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.App.Listener(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", "receipts.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BASE_URL=http://"+ln.Addr().String(), "CHROMIUM="+chromium,
		"FIXTURES="+filepath.Join(root, "internal", "receipts", "testdata", "rendered"))
	out, err := cmd.CombinedOutput()
	t.Logf("receipt journey:\n%s", out)
	if err != nil {
		t.Fatalf("receipt journey failed: %v", err)
	}
}
