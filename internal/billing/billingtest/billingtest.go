// Package billingtest runs stripe-mock for tests and signs webhook events the way Stripe does.
//
// Start launches the stripe-mock binary (v0.203.0, installed by `bash .ci/tools`) on free
// loopback ports, HTTP and HTTPS both bound to 127.0.0.1, and stops it when the test ends.
// Every Stripe call a test makes reaches stripe-mock, which checks it against Stripe's OpenAPI
// description and answers with Stripe's fixtures. stripe-mock keeps no state, so a retrieved
// session is always "open" and never the caller's: a scenario overlays the fields it needs
// (status, client_reference_id…) on stripe-mock's answer through a small loopback proxy, whose
// address is what the service is pointed at. The overlay changes answers, never requests.
package billingtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/build"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76/webhook"
)

// Mock is a running stripe-mock behind an overlaying proxy.
type Mock struct {
	// URL is the proxy's address: give it to the service as its Stripe API base.
	URL string
	// Direct is stripe-mock's own HTTP address.
	Direct string

	mu        sync.Mutex
	overrides []override
	calls     []Call
}

// Call is one request the service made to Stripe.
type Call struct {
	Method, Path string
	Form         url.Values
	// IdempotencyKey is the Idempotency-Key header, if any.
	IdempotencyKey string
}

type override struct {
	method, path string
	status       int
	code         string
	edit         func(req Call, obj map[string]any)
}

// Binary finds stripe-mock: on PATH, or where `go install` puts it ($(go env GOPATH)/bin).
func Binary() (string, bool) {
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p, true
	}
	for _, dir := range filepath.SplitList(build.Default.GOPATH) {
		p := filepath.Join(dir, "bin", "stripe-mock")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// Start runs stripe-mock for the rest of the test. A missing binary fails the test: billing
// tests never skip.
func Start(t testing.TB) *Mock {
	t.Helper()
	bin, ok := Binary()
	if !ok {
		t.Fatal("stripe-mock is not installed: `bash .ci/tools` installs v0.203.0 into $(go env GOPATH)/bin")
	}
	var direct string
	var lastErr error
	for attempt := 0; attempt < 3 && direct == ""; attempt++ {
		direct, lastErr = launch(t, bin)
	}
	if direct == "" {
		t.Fatalf("stripe-mock did not start: %v", lastErr)
	}
	m := &Mock{Direct: direct}
	proxy := httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(proxy.Close)
	m.URL = proxy.URL
	return m
}

// launch starts one stripe-mock on two free loopback ports and waits until it answers.
func launch(t testing.TB, bin string) (string, error) {
	httpPort, err := freePort()
	if err != nil {
		return "", err
	}
	httpsPort, err := freePort()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:"+httpPort, "-https-addr", "127.0.0.1:"+httpsPort)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	addr := "http://127.0.0.1:" + httpPort
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return "", fmt.Errorf("stripe-mock exited (%v): %s", err, out.String())
		default:
		}
		req, _ := http.NewRequest("GET", addr+"/v1/customers/cus_ping", nil)
		req.SetBasicAuth("sk_test_ping", "")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return addr, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", fmt.Errorf("stripe-mock did not answer within 30 s: %s", out.String())
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}

// Override makes stripe-mock's answers to method and path carry fields (merged into the
// object, nested objects merged too). A path ending in * matches any rest.
func (m *Mock) Override(method, path string, fields map[string]any) {
	m.Edit(method, path, func(_ Call, obj map[string]any) { merge(obj, fields) })
}

// Edit lets fn change stripe-mock's answers to method and path, seeing the request.
func (m *Mock) Edit(method, path string, fn func(req Call, obj map[string]any)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.overrides = append(m.overrides, override{method: method, path: path, edit: fn})
}

// Fail makes requests to method and path answer a Stripe error (status, and code such as
// resource_missing) instead of stripe-mock's object; the request still reaches stripe-mock.
func (m *Mock) Fail(method, path string, status int, code string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.overrides = append(m.overrides, override{method: method, path: path, status: status, code: code})
}

// Reset forgets every override and recorded call.
func (m *Mock) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.overrides, m.calls = nil, nil
}

// Calls returns the requests seen so far, in order.
func (m *Mock) Calls() []Call {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Call(nil), m.calls...)
}

// CallsTo returns the requests to method and path (a trailing * matches any rest).
func (m *Mock) CallsTo(method, path string) []Call {
	var out []Call
	for _, c := range m.Calls() {
		if c.Method == method && match(path, c.Path) {
			out = append(out, c)
		}
	}
	return out
}

func match(pattern, path string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(path, p)
	}
	return pattern == path
}

func (m *Mock) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	call := Call{Method: r.Method, Path: r.URL.Path, IdempotencyKey: r.Header.Get("Idempotency-Key")}
	call.Form, _ = url.ParseQuery(string(body))
	if r.Method == http.MethodGet {
		call.Form = r.URL.Query()
	}
	m.mu.Lock()
	m.calls = append(m.calls, call)
	var mine []override
	for _, o := range m.overrides {
		if o.method == r.Method && match(o.path, r.URL.Path) {
			mine = append(mine, o)
		}
	}
	m.mu.Unlock()

	req, err := http.NewRequestWithContext(context.Background(), r.Method, m.Direct+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	status := res.StatusCode
	for _, o := range mine {
		if o.status != 0 && status < 300 {
			status = o.status
			out, _ = json.Marshal(map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": o.code, "message": "stripe-mock overlay: " + o.code}})
		}
	}
	if status < 300 {
		var obj map[string]any
		if json.Unmarshal(out, &obj) == nil {
			for _, o := range mine {
				if o.edit != nil {
					o.edit(call, obj)
				}
			}
			out, _ = json.Marshal(obj)
		}
	}
	for k, vs := range res.Header {
		if k == "Content-Length" {
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// merge copies src into dst, merging nested objects.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				merge(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}

// Event builds a Stripe event of typ around object, created at created.
func Event(id, typ string, created time.Time, object map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": "2023-10-16", "created": created.Unix(), "type": typ,
		"livemode": false, "pending_webhooks": 1, "request": map[string]any{"id": nil, "idempotency_key": nil},
		"data": map[string]any{"object": object},
	})
	return b
}

// Sign returns the Stripe-Signature header of payload under secret at time at, made by the
// SDK's own test signer.
func Sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

// Subscription builds a subscription object in the shape of Stripe's API version 2023-10-16.
func Subscription(id, customer, status string, periodEnd time.Time, metadata map[string]string) map[string]any {
	if metadata == nil {
		metadata = map[string]string{}
	}
	return map[string]any{
		"id": id, "object": "subscription", "customer": customer, "status": status,
		"current_period_end": periodEnd.Unix(), "current_period_start": periodEnd.AddDate(0, -1, 0).Unix(),
		"cancel_at_period_end": false, "ended_at": nil, "metadata": metadata,
		"items": map[string]any{"object": "list", "data": []any{}},
	}
}

// CheckoutSession builds a completed subscription checkout session object for user uid.
func CheckoutSession(id, uid, customer, subscription string, created time.Time) map[string]any {
	return map[string]any{
		"id": id, "object": "checkout.session", "mode": "subscription", "status": "complete", "payment_status": "paid",
		"client_reference_id": uid, "customer": customer, "subscription": subscription, "created": created.Unix(),
		"metadata": map[string]string{"user_id": uid},
	}
}

// Invoice builds an invoice object of a subscription.
func Invoice(id, customer, subscription string) map[string]any {
	return map[string]any{"id": id, "object": "invoice", "customer": customer, "subscription": subscription}
}
