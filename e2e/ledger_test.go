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
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

// TestLedgerJourney drives the ledger in Chromium on an offline installation: the product
// picker fills the fine weight, selling part of a lot leaves the rest on /holdings, no
// signed-in page scrolls sideways at 375 px, and the account is deleted from
// /settings/account. Screenshots of /, /holdings and /calculators/what-if at 375 and 1280 px
// go to e2e/screenshots.
func TestLedgerJourney(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	root, _ := filepath.Abs("..")
	_, errNode := exec.LookPath("node")
	_, errChrome := os.Stat(chromium)
	_, errPW := os.Stat(filepath.Join(root, "node_modules", "playwright-core"))
	if errNode != nil || errChrome != nil || errPW != nil {
		t.Fatal("the browser test needs node, Chromium at " + chromium + " and the npm packages: run `bash .ci/tools` (or apt-get install chromium; npm ci)")
	}
	store := dbtest.SQLite(t)
	market, err := prices.NewService(context.Background(), store, prices.ServiceConfig{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := web.New(web.Options{Store: store, Market: market, Config: e2eConfig()})
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
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", "ledger.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BASE_URL=http://"+ln.Addr().String(), "CHROMIUM="+chromium, "SHOTS="+filepath.Join(root, "e2e", "screenshots"))
	out, err := cmd.CombinedOutput()
	t.Logf("ledger journey:\n%s", out)
	if err != nil {
		t.Fatalf("ledger journey failed: %v", err)
	}
	if _, err := store.UserByEmail(context.Background(), "ledger-e2e@example.com"); err == nil {
		t.Fatal("the account deleted in the browser still exists")
	}
}
