package alerts_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/alerts/alertstest"
)

// logBuf collects log lines for a test.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }

func (l *logBuf) lines(msg string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, `msg="`+msg+`"`) {
			out = append(out, line)
		}
	}
	return out
}

// TestWebPushEndpointsHeldToThePolicy: a registered endpoint on a non-public address is
// never connected to (loopback, "this network"); the delivery fails for good and says so in
// one WARN line; allowing the range (OUNCE_PUSH_ALLOW_PRIVATE) lets the same push through.
func TestWebPushEndpointsHeldToThePolicy(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		push := alertstest.NewPushService(t)
		logs := &logBuf{}
		cfg := alerts.Config{HTTPClient: push.Client()}
		fx := newFixture(t, s, cfg)
		fx.svc = alerts.New(alerts.Deps{Store: s, Market: fx.market, Now: fx.clock.now, Config: cfg,
			Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
		u := fx.user(t, "private@example.com", db.TierGold)
		sub := push.Subscribe("sub-1")
		port := sub.Endpoint[strings.LastIndex(sub.Endpoint[:strings.Index(sub.Endpoint, "/push/")], ":"):strings.Index(sub.Endpoint, "/push/")]
		for _, ep := range []string{sub.Endpoint, "https://0.0.0.1" + port + "/push/sub-1", "https://[::ffff:127.0.0.1]" + port + "/push/sub-1"} {
			if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "web", Endpoint: ep, P256dh: sub.P256dh, Auth: sub.Auth}); err != nil {
				t.Fatal(err)
			}
		}
		fx.market.set("silver", "39")
		if _, err := fx.svc.Create(ctx, u, alertIn("above", "40", "once")); err != nil {
			t.Fatal(err)
		}
		fx.tick(t, "40.30")
		if n := fx.drain(t); n != 3 {
			t.Fatalf("drained %d rows, want 3", n)
		}
		if push.Conns() != 0 {
			t.Fatalf("the push service on loopback got %d connections", push.Conns())
		}
		for _, r := range fx.rows(t, u) {
			if r.Status != db.OutboxFailed || !strings.Contains(r.LastError, "non-public address") || strings.Contains(r.LastError, "/push/") {
				t.Errorf("row %+v: want failed for good, naming the refusal and not the endpoint's path", r)
			}
		}
		warn := logs.lines("push delivery failed")
		if len(warn) != 3 {
			t.Fatalf("%d WARN lines for 3 failed deliveries:\n%s", len(warn), strings.Join(warn, "\n"))
		}
		for _, l := range warn {
			if !strings.Contains(l, "level=WARN") || !strings.Contains(l, "outcome=failed") || strings.Contains(l, "/push/") {
				t.Errorf("log line %q: want WARN with the outcome, no endpoint path", l)
			}
		}

		// The operator allows the range: the same kind of endpoint is delivered to.
		allowed := alerts.Config{HTTPClient: push.Client(), AllowPrivate: alertstest.Loopback}
		fx.svc = alerts.New(alerts.Deps{Store: s, Market: fx.market, Now: fx.clock.now, Config: allowed})
		u2 := fx.user(t, "selfhosted@example.com", db.TierGold)
		sub2 := push.Subscribe("sub-2")
		if _, err := fx.svc.Register(ctx, u2, alerts.DeviceInput{Platform: "web", Endpoint: sub2.Endpoint, P256dh: sub2.P256dh, Auth: sub2.Auth}); err != nil {
			t.Fatal(err)
		}
		fx.tick(t, "39")
		if _, err := fx.svc.Create(ctx, u2, alertIn("above", "40", "once")); err != nil {
			t.Fatal(err)
		}
		fx.tick(t, "40.40")
		fx.drain(t)
		if len(push.Payloads(sub2)) != 1 {
			t.Fatalf("allowed range: push service got %d pushes", len(push.Payloads(sub2)))
		}
	})
}

// TestExpoOnLoopbackIsTrusted: OUNCE_EXPO_API_URL is the operator's, so a relay on a
// loopback or private address receives the pushes with the default client; a device Expo
// reports gone is removed with a WARN line for the delivery and one for the device.
func TestExpoOnLoopbackIsTrusted(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		expo := alertstest.NewExpo(t)
		logs := &logBuf{}
		cfg := alerts.Config{ExpoAPIURL: expo.URL(), ReceiptDelay: 15 * time.Minute}
		fx := newFixture(t, s, cfg)
		fx.svc = alerts.New(alerts.Deps{Store: s, Market: fx.market, Now: fx.clock.now, Config: cfg,
			Logger: slog.New(slog.NewTextHandler(logs, nil))})
		u := fx.firedFor(t, "relay@example.com", expoTok)
		fx.drain(t)
		if expo.Sent() != 1 {
			t.Fatalf("Expo relay on loopback got %d messages, want 1", expo.Sent())
		}
		if w := logs.lines("push delivery failed"); len(w) != 0 {
			t.Fatalf("a delivery that went through logged: %v", w)
		}
		// The phone app was removed: Expo's ticket says DeviceNotRegistered.
		expo.TicketError = func(string) string { return alerts.ExpoDeviceNotRegistered }
		if _, err := fx.svc.Create(context.Background(), u, alertIn("above", "40", "once")); err != nil {
			t.Fatal(err)
		}
		fx.tick(t, "40.50")
		fx.drain(t)
		failed, removed := logs.lines("push delivery failed"), logs.lines("push device removed")
		if len(failed) != 1 || !strings.Contains(failed[0], "level=WARN") || !strings.Contains(failed[0], "outcome=device_gone") {
			t.Fatalf("delivery WARN lines: %v", failed)
		}
		if len(removed) != 1 || !strings.Contains(removed[0], "level=WARN") || strings.Contains(removed[0], expoTok) {
			t.Fatalf("device removal lines: %v", removed)
		}
		if devs, _ := fx.svc.Devices(context.Background(), u); len(devs) != 0 {
			t.Fatalf("device kept: %+v", devs)
		}
	})
}
