package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/alerts/alertstest"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestAlertsJourney: in Chromium a member sets an alert from a metal card and enables browser
// notifications (permission granted); the service worker registers at /sw.js with scope /,
// the browser's subscription is stored for that member, a crossing is pushed to it (decrypted
// at a loopback push service), and the service worker shows a pushed alert. Chromium's own
// push service is Google's, out of reach offline, so the page's pushManager hands over a
// subscription at the loopback push service (see alerts.mjs).
func TestAlertsJourney(t *testing.T) {
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
	push := alertstest.NewPushService(t)
	sub := push.Subscribe("chromium")
	cfg := e2eConfig()
	cfg.Alerts = alerts.Config{HTTPClient: push.Client(), AllowPrivate: alertstest.Loopback}
	a, err := app.New(app.Options{Store: store, Market: market, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	srv := a.Server
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

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	shots := filepath.Join(root, "e2e", "screenshots")
	email := "alerts-e2e@example.com"
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", "alerts.mjs"))
	cmd.Dir = root
	subJSON, _ := json.Marshal(map[string]any{"endpoint": sub.Endpoint, "expirationTime": nil, "keys": map[string]string{"p256dh": sub.P256dh, "auth": sub.Auth}})
	cmd.Env = append(os.Environ(), "BASE_URL=http://"+ln.Addr().String(), "CHROMIUM="+chromium, "SHOTS="+shots, "EMAIL="+email, "SUBSCRIPTION="+string(subJSON))
	out, err := cmd.CombinedOutput()
	t.Logf("alerts journey:\n%s", out)
	if err != nil {
		t.Fatalf("alerts journey failed: %v", err)
	}

	u, err := store.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	devs, err := store.Devices(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 || devs[0].Platform != "web" || devs[0].Token != sub.Endpoint || devs[0].P256dh != sub.P256dh || devs[0].Auth != sub.Auth {
		t.Fatalf("stored devices %+v, browser subscription %+v", devs, sub)
	}
	list, err := store.Alerts(context.Background(), u.ID)
	if err != nil || len(list) != 1 || list[0].Metal != "silver" || list[0].TargetUnits != 400000 {
		t.Fatalf("alerts %+v %v", list, err)
	}
	// The stored subscription is the one a crossing is pushed to: silver below, then across $40.
	svc := a.Alerts
	for _, p := range []string{"1.00", "40.25"} {
		if _, err := svc.Evaluate(context.Background(), alerts.Tick{Metal: metals.Silver, Price: decimal.RequireFromString(p), AsOf: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.DrainOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := push.Payloads(sub)
	if len(got) != 1 || got[0].Title != "Silver above $40.00" {
		t.Fatalf("pushes to the browser's subscription: %+v", got)
	}
}
