package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
)

// browserTools returns Chromium's path and the repository root, or fails with one line saying
// what to install (the browser tests are never skipped).
func browserTools(t *testing.T) (chromium, root string) {
	t.Helper()
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	root, _ = filepath.Abs("..")
	_, errNode := exec.LookPath("node")
	_, errChrome := os.Stat(chromium)
	_, errPW := os.Stat(filepath.Join(root, "node_modules", "playwright-core"))
	if errNode != nil || errChrome != nil || errPW != nil {
		t.Fatal("the browser test needs node, Chromium at " + chromium + " and the npm packages: run `bash .ci/tools` (or apt-get install chromium; npm ci)")
	}
	return chromium, root
}

// journeyApp is an app served on loopback for one browser journey.
type journeyApp struct {
	Base  string
	Store *db.Store
	Srv   *web.Server
	// App holds the services (seeding, direct use-case calls).
	App *app.App
}

// serveOffline serves the app over a fresh SQLite store on loopback until the test ends; with
// market, an offline price service over the embedded history.
func serveOffline(t *testing.T, cfg app.Config, market bool) journeyApp {
	t.Helper()
	store := dbtest.SQLite(t)
	opts := app.Options{Store: store, Config: cfg}
	if market {
		m, err := prices.NewService(context.Background(), store, prices.ServiceConfig{Offline: true})
		if err != nil {
			t.Fatal(err)
		}
		opts.Market = m
	}
	a, err := app.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := a.Server
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.App.Listener(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx) // ends the pages' event streams too
	})
	return journeyApp{Base: "http://" + ln.Addr().String(), Store: store, Srv: srv, App: a}
}

// runJourney runs the Playwright script e2e/<name>.mjs against base with Debian's Chromium,
// screenshots going to e2e/screenshots, and fails the test when the script fails.
func runJourney(t *testing.T, name, base string, timeout time.Duration, env ...string) {
	t.Helper()
	chromium, root := browserTools(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", name+".mjs"))
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "BASE_URL="+base, "CHROMIUM="+chromium,
		"SHOTS="+filepath.Join(root, "e2e", "screenshots")), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s journey:\n%s", name, out)
	if err != nil {
		t.Fatalf("%s journey failed: %v", name, err)
	}
}
