package alerts_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/alerts/alertstest"
)

func expoCfg(f *alertstest.Expo) alerts.Config {
	return alerts.Config{ExpoAPIURL: f.URL(), ExpoAccessToken: "expo-test-token", HTTPClient: f.Srv.Client(), ReceiptDelay: 15 * time.Minute}
}

const expoTok = "ExponentPushToken[crossingdevice00000001]"

// firedFor sets up a member with an Expo device and an armed alert, then fires it.
func (fx *fixture) firedFor(t *testing.T, email string, tokens ...string) db.User {
	t.Helper()
	ctx := context.Background()
	u := fx.user(t, email, db.TierGold)
	for _, tok := range tokens {
		if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "ios", Token: tok}); err != nil {
			t.Fatal(err)
		}
	}
	fx.market.set("silver", "39")
	if _, err := fx.svc.Create(ctx, u, alertIn("above", "40", "once")); err != nil {
		t.Fatal(err)
	}
	if r := fx.tick(t, "40.25"); r.Fired < 1 {
		t.Fatalf("no firing: %+v", r)
	}
	fx.tick(t, "39") // away again, so later fixtures start armed
	return u
}

func (fx *fixture) drain(t *testing.T) int {
	t.Helper()
	n, err := fx.svc.DrainOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (fx *fixture) rows(t *testing.T, u db.User) []db.OutboxRow {
	t.Helper()
	rows, err := fx.store.OutboxRows(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCrashBetweenFiringAndSending: the firing's outbox row is written with it, so an
// instance that stops before sending loses nothing: the next one sends it, once.
func TestCrashBetweenFiringAndSending(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		expo := alertstest.NewExpo(t)
		fx := newFixture(t, s, expoCfg(expo))
		u := fx.firedFor(t, "crash@example.com", expoTok)
		// The instance "crashes" here: nothing was sent. A new one starts over the same database.
		restarted := alerts.New(alerts.Deps{Store: s, Market: fx.market, Now: fx.clock.now, Config: expoCfg(expo)})
		fx.svc = restarted
		if n := fx.drain(t); n != 1 {
			t.Fatalf("drained %d rows, want 1", n)
		}
		fx.drain(t)
		fx.clock.add(time.Minute)
		fx.drain(t)
		if expo.Sent() != 1 {
			t.Fatalf("Expo got %d messages, want exactly 1", expo.Sent())
		}
		m := expo.Messages()[0]
		if m.To != expoTok || !strings.Contains(m.Title, "Silver above $40.00") || !strings.Contains(m.Body, "$40.25") {
			t.Fatalf("message %+v", m)
		}
		if expo.Auth()[0] != "Bearer expo-test-token" {
			t.Fatalf("Authorization %q", expo.Auth()[0])
		}
		// The receipt is asked once it is due, and the row ends sent.
		fx.clock.add(16 * time.Minute)
		fx.drain(t)
		rows := fx.rows(t, u)
		if len(rows) != 1 || rows[0].Status != db.OutboxSent {
			t.Fatalf("rows %+v", rows)
		}
		ds, _ := s.Deliveries(context.Background(), rows[0].NotificationID)
		if len(ds) != 2 || ds[0].Outcome != alerts.OutcomeTicket || ds[1].Outcome != alerts.OutcomeSent {
			t.Fatalf("deliveries %+v", ds)
		}
	})
}

// TestClaimedButUnfinishedIsRetried: a worker that claimed a row and died leaves it to the
// next claim once its lease ends.
func TestClaimedButUnfinishedIsRetried(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		expo := alertstest.NewExpo(t)
		fx := newFixture(t, s, expoCfg(expo))
		fx.firedFor(t, "lease@example.com", expoTok)
		items, err := s.ClaimOutbox(context.Background(), fx.clock.now().UnixMilli(), (2 * time.Minute).Milliseconds(), 100)
		if err != nil || len(items) != 1 {
			t.Fatal(items, err)
		}
		if fx.drain(t) != 0 {
			t.Fatal("a leased row was claimed again")
		}
		fx.clock.add(3 * time.Minute)
		if fx.drain(t) != 1 || expo.Sent() != 1 {
			t.Fatal("the abandoned row was not sent after its lease")
		}
	})
}

func TestExpoErrors(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		t.Run("429 and 5xx are retried with backoff, then give up after 6 tries", func(t *testing.T) {
			expo := alertstest.NewExpo(t)
			fx := newFixture(t, s, expoCfg(expo))
			var calls int
			expo.SendStatus = func() int {
				calls++
				if calls == 1 {
					return 429
				}
				return 503
			}
			u := fx.firedFor(t, "retry@example.com", "ExponentPushToken[retrydevice0000000001]")
			start := fx.clock.now()
			fx.drain(t)
			r := fx.rows(t, u)[0]
			if r.Status != db.OutboxPending || r.Attempts != 1 || time.UnixMilli(r.NextAt).Sub(fx.clock.now()) > time.Minute {
				t.Fatalf("after 429: %+v", r)
			}
			for i := 0; i < 10; i++ {
				fx.clock.add(alerts.Backoff(i + 1))
				fx.drain(t)
			}
			r = fx.rows(t, u)[0]
			if r.Status != db.OutboxFailed || r.Attempts != alerts.MaxAttempts || calls != alerts.MaxAttempts {
				t.Fatalf("after retries: %+v, %d calls", r, calls)
			}
			var total time.Duration
			for i := 1; i < alerts.MaxAttempts; i++ {
				total += alerts.Backoff(i)
			}
			if total < 50*time.Minute || total > 70*time.Minute {
				t.Fatalf("retries span %s, want about an hour", total)
			}
			ds, _ := s.Deliveries(ctx, r.NotificationID)
			if len(ds) != alerts.MaxAttempts || ds[len(ds)-1].Outcome != alerts.OutcomeGaveUp {
				t.Fatalf("deliveries %+v", ds)
			}
			_ = start
		})
		t.Run("DeviceNotRegistered in a ticket removes the token", func(t *testing.T) {
			expo := alertstest.NewExpo(t)
			fx := newFixture(t, s, expoCfg(expo))
			gone := "ExponentPushToken[gonedevice00000000001]"
			expo.TicketError = func(tok string) string {
				if tok == gone {
					return alerts.ExpoDeviceNotRegistered
				}
				return ""
			}
			u := fx.firedFor(t, "gone@example.com", gone, "ExponentPushToken[keptdevice00000000001]")
			fx.drain(t)
			devs, _ := fx.svc.Devices(ctx, u)
			if len(devs) != 1 || devs[0].Token == gone {
				t.Fatalf("devices %+v", devs)
			}
			rows := fx.rows(t, u)
			if len(rows) != 1 || rows[0].Status != db.OutboxTicketed {
				t.Fatalf("rows %+v", rows)
			}
			ds, _ := s.Deliveries(ctx, rows[0].NotificationID)
			var goneSeen bool
			for _, d := range ds {
				goneSeen = goneSeen || d.Outcome == alerts.OutcomeDeviceGone
			}
			if !goneSeen {
				t.Fatalf("the removal is not recorded: %+v", ds)
			}
		})
		t.Run("DeviceNotRegistered in a receipt removes the token", func(t *testing.T) {
			expo := alertstest.NewExpo(t)
			fx := newFixture(t, s, expoCfg(expo))
			expo.ReceiptError = func(string) string { return alerts.ExpoDeviceNotRegistered }
			u := fx.firedFor(t, "receipt@example.com", "ExponentPushToken[receiptgone000000001]")
			fx.drain(t)
			fx.clock.add(16 * time.Minute)
			fx.drain(t)
			if devs, _ := fx.svc.Devices(ctx, u); len(devs) != 0 {
				t.Fatalf("devices %+v", devs)
			}
		})
		t.Run("MessageRateExceeded is retried later", func(t *testing.T) {
			expo := alertstest.NewExpo(t)
			fx := newFixture(t, s, expoCfg(expo))
			limited := true
			expo.TicketError = func(string) string {
				if limited {
					return alerts.ExpoMessageRateExceeded
				}
				return ""
			}
			u := fx.firedFor(t, "rate@example.com", "ExponentPushToken[ratelimited00000000001]")
			fx.drain(t)
			if r := fx.rows(t, u)[0]; r.Status != db.OutboxPending || r.Attempts != 1 {
				t.Fatalf("after MessageRateExceeded: %+v", r)
			}
			limited = false
			fx.clock.add(alerts.Backoff(1))
			fx.drain(t)
			if r := fx.rows(t, u)[0]; r.Status != db.OutboxTicketed || expo.Sent() != 2 {
				t.Fatalf("after retry: %+v, %d sent", r, expo.Sent())
			}
		})
		t.Run("batches of at most 100", func(t *testing.T) {
			expo := alertstest.NewExpo(t)
			fx := newFixture(t, s, expoCfg(expo))
			ctx := context.Background()
			var users []db.User
			for i := 0; i < 8; i++ {
				u := fx.user(t, fmt.Sprintf("batch%d@example.com", i), db.TierGold)
				users = append(users, u)
				for j := 0; j < alerts.MaxDevices; j++ {
					if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "android", Token: fmt.Sprintf("ExpoPushToken[batch%02ddevice%04d]", i, j)}); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := fx.svc.Create(ctx, u, alertIn("above", "40", "once")); err != nil {
					t.Fatal(err)
				}
			}
			if r := fx.tick(t, "41"); r.Fired != 8 || r.Outbox != 160 {
				t.Fatalf("tick %+v", r)
			}
			for fx.drain(t) > 0 {
			}
			if expo.Sent() != 160 {
				t.Fatalf("sent %d", expo.Sent())
			}
			for _, b := range expo.Batches() {
				if b > 100 {
					t.Fatalf("batch of %d", b)
				}
			}
			_ = users
		})
	})
}

// Web Push: a push service on loopback over TLS with its own certificate decrypts what it
// receives with the subscription's keys (RFC 8291, aes128gcm).
func TestWebPushDelivery(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		push := alertstest.NewPushService(t)
		cfg := alerts.Config{HTTPClient: push.Client(), AllowPrivate: alertstest.Loopback, VAPIDSubject: "mailto:ops@ounce.example"}
		fx := newFixture(t, s, cfg)
		u := fx.user(t, "web@example.com", db.TierGold)
		sub := push.Subscribe("sub-1")
		if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "web", Endpoint: sub.Endpoint, P256dh: sub.P256dh, Auth: sub.Auth}); err != nil {
			t.Fatal(err)
		}
		fx.market.set("silver", "39")
		if _, err := fx.svc.Create(ctx, u, alertIn("above", "40", "rearm")); err != nil {
			t.Fatal(err)
		}
		fx.tick(t, "40.30")
		fx.drain(t)
		fx.drain(t)
		if len(push.Payloads(sub)) != 1 {
			t.Fatalf("push service got %d pushes", len(push.Payloads(sub)))
		}
		pl := push.Payloads(sub)[0]
		if pl.Title != "Silver above $40.00" || !strings.Contains(pl.Body, "$40.30") || pl.URL != "/alerts" {
			t.Fatalf("payload %+v", pl)
		}
		auth := push.Headers()[0].Get("Authorization")
		pub, _ := fx.svc.VAPIDPublicKey(ctx)
		if !strings.HasPrefix(auth, "vapid t=") || !strings.HasSuffix(auth, "k="+pub) {
			t.Fatalf("Authorization %q (key %s)", auth, pub)
		}
		// The keys are stored: a restarted instance signs with the same pair.
		again := alerts.New(alerts.Deps{Store: s, Now: fx.clock.now})
		if pub2, _ := again.VAPIDPublicKey(ctx); pub2 != pub || pub == "" {
			t.Fatalf("VAPID key changed across instances: %q vs %q", pub, pub2)
		}
		// 410 from the push service: the subscription is removed.
		push.SetStatus(410)
		fx.tick(t, "39.50")
		fx.tick(t, "40.50")
		fx.drain(t)
		if devs, _ := fx.svc.Devices(ctx, u); len(devs) != 0 {
			t.Fatalf("gone subscription kept: %+v", devs)
		}
	})
}
