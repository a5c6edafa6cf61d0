package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestReceiptScanJourney serves the app on loopback and runs receipts.mjs in Chromium: a
// rendered receipt image and a text PDF become the right proposed lots, and confirming adds
// exactly those. SHOTS=dir also writes the page at 375 and 1280 px, light and dark.
func TestReceiptScanJourney(t *testing.T) {
	_, root := browserTools(t)
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Fatal("the receipt journey needs tesseract: run `bash .ci/tools` (or apt-get install tesseract-ocr)")
	}
	app := serveOffline(t, e2eConfig(), false)
	runJourney(t, "receipts", app.Base, 4*time.Minute, "FIXTURES="+filepath.Join(root, "internal", "receipts", "testdata", "rendered"))
}
