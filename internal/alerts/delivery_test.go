package alerts_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
)

// expoFake speaks Expo's push API on loopback: POST /send answers one ticket per message,
// POST /getReceipts a receipt per known ticket. Hooks decide failures.
type expoFake struct {
	mu       sync.Mutex
	srv      *httptest.Server
	messages []alerts.ExpoMessage
	batches  []int
	auth     []string
	tickets  map[string]string // ticket id → token
	// sendStatus, when set, answers /send with this HTTP status (and no tickets).
	sendStatus func() int
	// ticketError names the details.error of the ticket for a token ("" = ok).
	ticketError func(token string) string
	// receiptError names the details.error of the receipt for a token ("" = ok).
	receiptError func(token string) string
	n            int
}

func newExpoFake(t *testing.T) *expoFake {
	f := &expoFake{tickets: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *expoFake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	switch r.URL.Path {
	case "/--/api/v2/push/send":
		var msgs []alerts.ExpoMessage
		if err := json.NewDecoder(r.Body).Decode(&msgs); err != nil || len(msgs) == 0 || len(msgs) > 100 {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"errors":[{"code":"VALIDATION_ERROR","message":"bad request"}]}`)
			return
		}
		if f.sendStatus != nil {
			if st := f.sendStatus(); st != 200 {
				if st == 429 {
					w.Header().Set("Retry-After", "1")
				}
				w.WriteHeader(st)
				fmt.Fprintf(w, `{"errors":[{"code":"%s","message":"try later"}]}`, map[bool]string{true: "TOO_MANY_REQUESTS", false: "INTERNAL_SERVER_ERROR"}[st == 429])
				return
			}
		}
		f.batches = append(f.batches, len(msgs))
		var data []map[string]any
		for _, m := range msgs {
			f.messages = append(f.messages, m)
			if e := f.hook(f.ticketError, m.To); e != "" {
				data = append(data, map[string]any{"status": "error", "message": m.To + " " + e, "details": map[string]any{"error": e}})
				continue
			}
			f.n++
			id := fmt.Sprintf("XXXX-%d", f.n)
			f.tickets[id] = m.To
			data = append(data, map[string]any{"status": "ok", "id": id})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	case "/--/api/v2/push/getReceipts":
		var body struct {
			IDs []string `json:"ids"`
		}
		_ = json.NewDecoder(r.Body).Decode(&body)
		data := map[string]any{}
		for _, id := range body.IDs {
			tok, ok := f.tickets[id]
			if !ok {
				continue
			}
			if e := f.hook(f.receiptError, tok); e != "" {
				data[id] = map[string]any{"status": "error", "message": "receipt error", "details": map[string]any{"error": e}}
			} else {
				data[id] = map[string]any{"status": "ok"}
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	default:
		http.NotFound(w, r)
	}
}

func (f *expoFake) hook(h func(string) string, tok string) string {
	if h == nil {
		return ""
	}
	return h(tok)
}

func (f *expoFake) sent() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.messages) }

func (f *expoFake) cfg() alerts.Config {
	return alerts.Config{ExpoAPIURL: f.srv.URL + "/--/api/v2/push", ExpoAccessToken: "expo-test-token", HTTPClient: f.srv.Client(), ReceiptDelay: 15 * time.Minute}
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
		expo := newExpoFake(t)
		fx := newFixture(t, s, expo.cfg())
		u := fx.firedFor(t, "crash@example.com", expoTok)
		// The instance "crashes" here: nothing was sent. A new one starts over the same database.
		restarted := alerts.New(alerts.Deps{Store: s, Market: fx.market, Now: fx.clock.now, Config: expo.cfg()})
		fx.svc = restarted
		if n := fx.drain(t); n != 1 {
			t.Fatalf("drained %d rows, want 1", n)
		}
		fx.drain(t)
		fx.clock.add(time.Minute)
		fx.drain(t)
		if expo.sent() != 1 {
			t.Fatalf("Expo got %d messages, want exactly 1", expo.sent())
		}
		m := expo.messages[0]
		if m.To != expoTok || !strings.Contains(m.Title, "Silver above $40.00") || !strings.Contains(m.Body, "$40.25") {
			t.Fatalf("message %+v", m)
		}
		if expo.auth[0] != "Bearer expo-test-token" {
			t.Fatalf("Authorization %q", expo.auth[0])
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
		expo := newExpoFake(t)
		fx := newFixture(t, s, expo.cfg())
		fx.firedFor(t, "lease@example.com", expoTok)
		items, err := s.ClaimOutbox(context.Background(), fx.clock.now().UnixMilli(), (2 * time.Minute).Milliseconds(), 100)
		if err != nil || len(items) != 1 {
			t.Fatal(items, err)
		}
		if fx.drain(t) != 0 {
			t.Fatal("a leased row was claimed again")
		}
		fx.clock.add(3 * time.Minute)
		if fx.drain(t) != 1 || expo.sent() != 1 {
			t.Fatal("the abandoned row was not sent after its lease")
		}
	})
}

func TestExpoErrors(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		t.Run("429 and 5xx are retried with backoff, then give up after 6 tries", func(t *testing.T) {
			expo := newExpoFake(t)
			fx := newFixture(t, s, expo.cfg())
			var calls int
			expo.sendStatus = func() int {
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
			expo := newExpoFake(t)
			fx := newFixture(t, s, expo.cfg())
			gone := "ExponentPushToken[gonedevice00000000001]"
			expo.ticketError = func(tok string) string {
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
			expo := newExpoFake(t)
			fx := newFixture(t, s, expo.cfg())
			expo.receiptError = func(string) string { return alerts.ExpoDeviceNotRegistered }
			u := fx.firedFor(t, "receipt@example.com", "ExponentPushToken[receiptgone000000001]")
			fx.drain(t)
			fx.clock.add(16 * time.Minute)
			fx.drain(t)
			if devs, _ := fx.svc.Devices(ctx, u); len(devs) != 0 {
				t.Fatalf("devices %+v", devs)
			}
		})
		t.Run("MessageRateExceeded is retried later", func(t *testing.T) {
			expo := newExpoFake(t)
			fx := newFixture(t, s, expo.cfg())
			limited := true
			expo.ticketError = func(string) string {
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
			if r := fx.rows(t, u)[0]; r.Status != db.OutboxTicketed || expo.sent() != 2 {
				t.Fatalf("after retry: %+v, %d sent", r, expo.sent())
			}
		})
		t.Run("batches of at most 100", func(t *testing.T) {
			expo := newExpoFake(t)
			fx := newFixture(t, s, expo.cfg())
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
			if expo.sent() != 160 {
				t.Fatalf("sent %d", expo.sent())
			}
			for _, b := range expo.batches {
				if b > 100 {
					t.Fatalf("batch of %d", b)
				}
			}
			_ = users
		})
	})
}

// Web Push: a push service on loopback over TLS with its own certificate authority decrypts
// what it receives with the subscription's private key (RFC 8291, aes128gcm).

var (
	testKey, _ = ecdh.P256().GenerateKey(rand.Reader)
	testSecret = func() []byte { b := make([]byte, 16); _, _ = rand.Read(b); return b }()
	testP256   = base64.RawURLEncoding.EncodeToString(testKey.PublicKey().Bytes())
	testAuth   = base64.RawURLEncoding.EncodeToString(testSecret)
)

// decryptWebPush undoes RFC 8291 encryption for the subscription (testKey, testSecret).
func decryptWebPush(body []byte) ([]byte, error) {
	if len(body) < 86 {
		return nil, fmt.Errorf("body of %d bytes", len(body))
	}
	salt, rs, idlen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	if idlen != 65 || rs < 18 {
		return nil, fmt.Errorf("header: idlen %d rs %d", idlen, rs)
	}
	asPublic := body[21 : 21+idlen]
	ciphertext := body[21+idlen:]
	as, err := ecdh.P256().NewPublicKey(asPublic)
	if err != nil {
		return nil, err
	}
	shared, err := testKey.ECDH(as)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), testKey.PublicKey().Bytes()...), asPublic...)
	ikm, err := hkdf.Key(sha256.New, shared, testSecret, string(info), 32)
	if err != nil {
		return nil, err
	}
	cek, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: aes128gcm\x00", 16)
	if err != nil {
		return nil, err
	}
	nonce, err := hkdf.Key(sha256.New, ikm, salt, "Content-Encoding: nonce\x00", 12)
	if err != nil {
		return nil, err
	}
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		return nil, err
	}
	// One record: the content, then the delimiter 2, then zero padding.
	i := len(plain) - 1
	for i >= 0 && plain[i] == 0 {
		i--
	}
	if i < 0 || plain[i] != 2 {
		return nil, fmt.Errorf("no last-record delimiter")
	}
	return plain[:i], nil
}

type pushService struct {
	mu       sync.Mutex
	srv      *httptest.Server
	payloads []alerts.WebPayload
	headers  []http.Header
	status   int
}

func newPushService(t *testing.T) *pushService {
	p := &pushService{status: 201}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		defer p.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		if r.Header.Get("Content-Encoding") != "aes128gcm" {
			w.WriteHeader(400)
			return
		}
		plain, err := decryptWebPush(body)
		if err != nil {
			t.Errorf("decrypting the push: %v", err)
			w.WriteHeader(400)
			return
		}
		var pl alerts.WebPayload
		if err := json.Unmarshal(plain, &pl); err != nil {
			t.Errorf("payload %q: %v", plain, err)
		}
		p.payloads = append(p.payloads, pl)
		p.headers = append(p.headers, r.Header.Clone())
		w.WriteHeader(p.status)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func TestWebPushDelivery(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		push := newPushService(t)
		cfg := alerts.Config{HTTPClient: push.srv.Client(), VAPIDSubject: "mailto:ops@ounce.example"}
		fx := newFixture(t, s, cfg)
		u := fx.user(t, "web@example.com", db.TierGold)
		endpoint := push.srv.URL + "/push/sub-1"
		if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "web", Endpoint: endpoint, P256dh: testP256, Auth: testAuth}); err != nil {
			t.Fatal(err)
		}
		fx.market.set("silver", "39")
		if _, err := fx.svc.Create(ctx, u, alertIn("above", "40", "rearm")); err != nil {
			t.Fatal(err)
		}
		fx.tick(t, "40.30")
		fx.drain(t)
		fx.drain(t)
		if len(push.payloads) != 1 {
			t.Fatalf("push service got %d pushes", len(push.payloads))
		}
		pl := push.payloads[0]
		if pl.Title != "Silver above $40.00" || !strings.Contains(pl.Body, "$40.30") || pl.URL != "/alerts" {
			t.Fatalf("payload %+v", pl)
		}
		auth := push.headers[0].Get("Authorization")
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
		push.status = 410
		fx.tick(t, "39.50")
		fx.tick(t, "40.50")
		fx.drain(t)
		if devs, _ := fx.svc.Devices(ctx, u); len(devs) != 0 {
			t.Fatalf("gone subscription kept: %+v", devs)
		}
	})
}
