// Package alertstest holds loopback fakes of the push services alerts talk to, for tests: an
// Expo push API speaking Expo's request and response shapes, and a Web Push service over TLS
// that decrypts what it receives (RFC 8291) with the subscriber's own keys.
package alertstest

import (
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
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/ouncehq/ounce/internal/alerts"
)

// Expo fakes Expo's push API: POST /--/api/v2/push/send answers one ticket per message, POST
// /--/api/v2/push/getReceipts a receipt per ticket it issued. Hooks decide failures.
type Expo struct {
	Srv *httptest.Server

	mu       sync.Mutex
	messages []alerts.ExpoMessage
	batches  []int
	auth     []string
	tickets  map[string]string // ticket id → token
	n        int

	// SendStatus, when set, may answer /send with another HTTP status (and no tickets).
	SendStatus func() int
	// TicketError names the details.error of the ticket for a token ("" = ok).
	TicketError func(token string) string
	// ReceiptError names the details.error of the receipt for a token ("" = ok).
	ReceiptError func(token string) string
}

// NewExpo starts the fake, stopped when the test ends.
func NewExpo(t testing.TB) *Expo {
	f := &Expo{tickets: map[string]string{}}
	f.Srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Srv.Close)
	return f
}

// URL is the base to configure as OUNCE_EXPO_API_URL.
func (f *Expo) URL() string { return f.Srv.URL + "/--/api/v2/push" }

func (f *Expo) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	switch r.URL.Path {
	case "/--/api/v2/push/send":
		var msgs []alerts.ExpoMessage
		if err := json.NewDecoder(r.Body).Decode(&msgs); err != nil || len(msgs) == 0 || len(msgs) > 100 {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"errors":[{"code":"VALIDATION_ERROR","message":"send 1 to 100 messages"}]}`)
			return
		}
		if f.SendStatus != nil {
			if st := f.SendStatus(); st != 200 {
				code := "INTERNAL_SERVER_ERROR"
				if st == 429 {
					w.Header().Set("Retry-After", "1")
					code = "TOO_MANY_REQUESTS"
				}
				w.WriteHeader(st)
				fmt.Fprintf(w, `{"errors":[{"code":%q,"message":"try again later"}]}`, code)
				return
			}
		}
		f.batches = append(f.batches, len(msgs))
		data := []map[string]any{}
		for _, m := range msgs {
			f.messages = append(f.messages, m)
			if e := hook(f.TicketError, m.To); e != "" {
				data = append(data, map[string]any{"status": "error", "message": fmt.Sprintf("%q: %s", m.To, e), "details": map[string]any{"error": e}})
				continue
			}
			f.n++
			id := fmt.Sprintf("0f%06d-expo-ticket", f.n)
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
			if e := hook(f.ReceiptError, tok); e != "" {
				data[id] = map[string]any{"status": "error", "message": "the device could not be reached", "details": map[string]any{"error": e}}
			} else {
				data[id] = map[string]any{"status": "ok"}
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"data": data})
	default:
		http.NotFound(w, r)
	}
}

func hook(h func(string) string, tok string) string {
	if h == nil {
		return ""
	}
	return h(tok)
}

// Messages are the messages /send accepted so far.
func (f *Expo) Messages() []alerts.ExpoMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]alerts.ExpoMessage(nil), f.messages...)
}

// Sent counts the messages /send received.
func (f *Expo) Sent() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.messages) }

// Batches are the sizes of the /send requests.
func (f *Expo) Batches() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.batches...)
}

// Auth are the Authorization headers of every request.
func (f *Expo) Auth() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.auth...)
}

// Subscriber is a browser's push subscription: its keys stay here so the push service can
// decrypt.
type Subscriber struct {
	Endpoint string
	P256dh   string
	Auth     string
	key      *ecdh.PrivateKey
	secret   []byte
}

// PushService fakes a Web Push service over TLS on loopback with its own certificate. Every
// push is decrypted with its subscriber's keys and kept.
type PushService struct {
	Srv *httptest.Server

	mu       sync.Mutex
	subs     map[string]*Subscriber
	payloads map[string][]alerts.WebPayload
	headers  []http.Header
	status   int
	errs     []error
	conns    int
}

// Loopback is the range the fakes listen in: a test that delivers to them allows it
// (alerts.Config.AllowPrivate), as an operator with a push service on a private network would.
var Loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

// NewPushService starts the fake, stopped when the test ends.
func NewPushService(t testing.TB) *PushService {
	p := &PushService{status: http.StatusCreated, subs: map[string]*Subscriber{}, payloads: map[string][]alerts.WebPayload{}}
	p.Srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.Srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			p.mu.Lock()
			p.conns++
			p.mu.Unlock()
		}
	}
	p.Srv.StartTLS()
	t.Cleanup(func() {
		p.Srv.Close()
		for _, err := range p.Errors() {
			t.Error(err)
		}
	})
	return p
}

// Client trusts the fake's certificate (and reaches plain-http fakes too).
func (p *PushService) Client() *http.Client { return p.Srv.Client() }

// Subscribe makes a subscription at this service, as a browser's pushManager.subscribe would.
func (p *PushService) Subscribe(name string) *Subscriber {
	key, _ := ecdh.P256().GenerateKey(rand.Reader)
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	s := &Subscriber{Endpoint: p.Srv.URL + "/push/" + name, P256dh: base64.RawURLEncoding.EncodeToString(key.PublicKey().Bytes()),
		Auth: base64.RawURLEncoding.EncodeToString(secret), key: key, secret: secret}
	p.mu.Lock()
	p.subs["/push/"+name] = s
	p.mu.Unlock()
	return s
}

// Conns is how many connections the service has accepted.
func (p *PushService) Conns() int { p.mu.Lock(); defer p.mu.Unlock(); return p.conns }

// SetStatus makes the service answer every push with code (201 by default).
func (p *PushService) SetStatus(code int) { p.mu.Lock(); p.status = code; p.mu.Unlock() }

// Payloads are the decrypted pushes received for the subscriber.
func (p *PushService) Payloads(s *Subscriber) []alerts.WebPayload {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]alerts.WebPayload(nil), p.payloads[strings.TrimPrefix(s.Endpoint, p.Srv.URL)]...)
}

// Headers are the request headers of every push received.
func (p *PushService) Headers() []http.Header {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]http.Header(nil), p.headers...)
}

// Errors are pushes that could not be decrypted or read.
func (p *PushService) Errors() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.errs...)
}

func (p *PushService) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	sub, ok := p.subs[r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if r.Header.Get("Content-Encoding") != "aes128gcm" || !strings.HasPrefix(r.Header.Get("Authorization"), "vapid t=") {
		p.errs = append(p.errs, fmt.Errorf("push without aes128gcm or VAPID: %v", r.Header))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	plain, err := Decrypt(sub.key, sub.secret, body)
	if err != nil {
		p.errs = append(p.errs, fmt.Errorf("decrypting a push: %w", err))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var pl alerts.WebPayload
	if err := json.Unmarshal(plain, &pl); err != nil {
		p.errs = append(p.errs, fmt.Errorf("payload %q: %w", plain, err))
	}
	p.headers = append(p.headers, r.Header.Clone())
	if p.status >= 200 && p.status < 300 {
		p.payloads[r.URL.Path] = append(p.payloads[r.URL.Path], pl)
	}
	w.WriteHeader(p.status)
}

// Decrypt undoes RFC 8291 message encryption (one aes128gcm record, RFC 8188) for the
// subscriber with private key ua and auth secret.
func Decrypt(ua *ecdh.PrivateKey, secret, body []byte) ([]byte, error) {
	if len(body) < 21+65+17 {
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
	shared, err := ua.ECDH(as)
	if err != nil {
		return nil, err
	}
	info := append(append([]byte("WebPush: info\x00"), ua.PublicKey().Bytes()...), asPublic...)
	ikm, err := hkdf.Key(sha256.New, shared, secret, string(info), 32)
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
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		return nil, err
	}
	i := len(plain) - 1
	for i >= 0 && plain[i] == 0 {
		i--
	}
	if i < 0 || plain[i] != 2 {
		return nil, fmt.Errorf("no last-record delimiter")
	}
	return plain[:i], nil
}
