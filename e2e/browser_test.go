// Package e2e drives the real app in a real browser: a Go test serves Ounce on loopback and
// runs the playwright-core journey in browser.mjs against Debian's Chromium.
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
	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

func TestBrowserJourney(t *testing.T) {
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	root, _ := filepath.Abs("..")
	_, errNode := exec.LookPath("node")
	_, errChrome := os.Stat(chromium)
	_, errPW := os.Stat(filepath.Join(root, "node_modules", "playwright-core"))
	if errNode != nil || errChrome != nil || errPW != nil {
		// Never a skip: `make test` installs these (.ci/tools); without them this is a failure
		// that says what is missing.
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
		_ = srv.Shutdown(sctx) // ends the pages' event streams too
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", "browser.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BASE_URL=http://"+ln.Addr().String(), "CHROMIUM="+chromium, "SHOTS="+filepath.Join(root, "e2e", "screenshots"))
	out, err := cmd.CombinedOutput()
	t.Logf("browser journey:\n%s", out)
	if err != nil {
		t.Fatalf("browser journey failed: %v", err)
	}
}

// e2eConfig is an offline gold-by-default installation with generous limits.
func e2eConfig() web.Config {
	cfg := web.Config{Site: handlers.Site{BaseURL: "http://127.0.0.1", Version: "e2e"},
		HTTP: web.HTTPConfig{RateLimitPerKey: 1000, RateLimitPerIP: 1000}, Account: account.Config{NewUsersGold: true}}
	cfg.SetOffline(true)
	return cfg
}
