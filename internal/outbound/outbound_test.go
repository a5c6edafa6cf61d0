package outbound_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ouncehq/ounce/internal/outbound"
)

// TestRanges: every special-purpose range is refused at its edges, transition addresses are
// judged by the IPv4 address they carry, and public addresses pass.
func TestRanges(t *testing.T) {
	refused := []string{
		"0.0.0.0", "0.0.0.1", "0.255.255.255",
		"10.0.0.1", "10.255.255.255",
		"100.64.0.0", "100.127.255.255",
		"127.0.0.1", "127.255.255.254",
		"169.254.169.254",
		"172.16.0.1", "172.31.255.255",
		"192.0.0.8", "192.0.2.1", "192.88.99.1",
		"192.168.0.1", "192.168.255.255",
		"198.18.0.1", "198.19.255.255",
		"198.51.100.7", "203.0.113.9",
		"224.0.0.1", "239.255.255.255",
		"240.0.0.1", "255.255.255.254", "255.255.255.255",
		"::", "::1", "::127.0.0.1",
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "::ffff:0.0.0.1",
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::c0a8:101",
		"64:ff9b:1::1",
		"100::1",
		"2001::1", "2001:1ff:ffff::1",
		"2001:db8::1",
		"2002:7f00:1::1", "2002:a00:1::1", "2002:c0a8:101::",
		"3fff::1", "5f00::1",
		"fc00::1", "fd12:3456::1",
		"fe80::1", "fe80::1%eth0",
		"fec0::1",
		"ff02::1", "ff0e::1",
		"4000::1", "::2",
	}
	for _, s := range refused {
		a := netip.MustParseAddr(s)
		if outbound.Reason(a) == "" {
			t.Errorf("%s passed, want refused", s)
		}
		if err := (outbound.Policy{}).Check(a); !errors.Is(err, outbound.ErrForbidden) {
			t.Errorf("Check(%s) = %v, want ErrForbidden", s, err)
		}
	}
	public := []string{
		"1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
		"126.255.255.255", "128.0.0.1", "169.253.255.255", "172.15.255.255", "172.32.0.0",
		"192.0.1.1", "192.167.255.255", "192.169.0.0", "198.17.255.255", "198.20.0.0",
		"203.0.114.1", "223.255.255.255",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
		"2001:200::1", "2001:4860:4860::8888", "2606:4700:4700::1111", "2a00:1450:4001::1",
	}
	for _, s := range public {
		a := netip.MustParseAddr(s)
		if r := outbound.Reason(a); r != "" {
			t.Errorf("%s refused (%s), want public", s, r)
		}
	}
}

func TestAllowOpensOnlyItsRange(t *testing.T) {
	allow, err := outbound.ParseAllow(" 10.8.0.0/16, 192.168.1.5 ,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	p := outbound.Policy{Allow: allow}
	for _, s := range []string{"10.8.3.4", "192.168.1.5", "::ffff:10.8.0.1", "fd00::5"} {
		if err := p.Check(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s refused although allowed: %v", s, err)
		}
	}
	for _, s := range []string{"10.9.0.1", "192.168.1.6", "127.0.0.1", "fc00::1"} {
		if err := p.Check(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s passed, want refused", s)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0/8"} {
		if _, err := outbound.ParseAllow(bad); err == nil {
			t.Errorf("ParseAllow(%q) accepted", bad)
		}
	}
}

// target is a loopback server that counts the connections it accepts.
func target(t *testing.T, network, addr string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("secret metadata"))
	}))
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatalf("cannot listen on %s: %v", addr, err)
	}
	srv.Listener = ln
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// TestOperatorClientRefusesRedirectToAnotherHost: the operator's feed on loopback is
// trusted, but its redirect to another host on a forbidden address is refused before any
// connection is made, whether the address is literal or a name that resolves to it.
func TestOperatorClientRefusesRedirectToAnotherHost(t *testing.T) {
	inner, innerConns := target(t, "tcp4", "127.0.0.1:0")
	innerPort := inner.Listener.Addr().(*net.TCPAddr).Port
	v6, v6Conns := target(t, "tcp6", "[::1]:0")

	for _, to := range []string{
		inner.URL + "/latest/meta-data/",                             // the same address, another port: another host
		"http://localhost:" + strconv.Itoa(innerPort) + "/x",         // a name resolving to loopback: refused at the dial
		v6.URL + "/latest/meta-data/",                                // [::1]
		"http://0.0.0.1:" + strconv.Itoa(innerPort) + "/",            // "this network"
		"http://[::ffff:127.0.0.1]:" + strconv.Itoa(innerPort) + "/", // mapped loopback
	} {
		feed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusFound)
		}))
		c := outbound.OperatorClient(outbound.Options{})
		resp, err := c.Get(feed.URL + "/feed.xml")
		if err == nil {
			resp.Body.Close()
			t.Errorf("redirect to %s followed (HTTP %d)", to, resp.StatusCode)
		} else if !errors.Is(err, outbound.ErrForbidden) {
			t.Errorf("redirect to %s: %v, want the policy's refusal", to, err)
		}
		feed.Close()
	}
	if n := innerConns.Load() + v6Conns.Load(); n != 0 {
		t.Fatalf("the forbidden targets accepted %d connections", n)
	}
}

// TestOperatorClientTrustsItsOwnHost: the configured URL itself may be on loopback, and a
// redirect within that host is followed.
func TestOperatorClientTrustsItsOwnHost(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, srv.URL+"/new", http.StatusMovedPermanently)
			return
		}
		_, _ = w.Write([]byte("feed at " + r.URL.Path))
	}))
	defer srv.Close()
	resp, err := outbound.OperatorClient(outbound.Options{}).Get(srv.URL + "/old")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.Path != "/new" {
		t.Fatalf("HTTP %d at %s", resp.StatusCode, resp.Request.URL)
	}
}

// TestMemberClientChecksEveryDial: a member-supplied URL on loopback is refused with no
// connection made, by literal address and by name; an allowed range opens it.
func TestMemberClientChecksEveryDial(t *testing.T) {
	srv, conns := target(t, "tcp4", "127.0.0.1:0")
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	for _, u := range []string{srv.URL + "/push", "http://localhost:" + port + "/push"} {
		_, err := (outbound.Policy{}).MemberClient(outbound.Options{}).Get(u)
		if !errors.Is(err, outbound.ErrForbidden) {
			t.Errorf("GET %s: %v, want refused", u, err)
		}
	}
	if conns.Load() != 0 {
		t.Fatalf("%d connections reached the refused server", conns.Load())
	}
	allow, _ := outbound.ParseAllow("127.0.0.1/32")
	resp, err := outbound.Policy{Allow: allow}.MemberClient(outbound.Options{}).Get(srv.URL + "/push")
	if err != nil {
		t.Fatalf("allowed range refused: %v", err)
	}
	resp.Body.Close()
	if !strings.HasPrefix(resp.Status, "200") {
		t.Fatal(resp.Status)
	}
}
