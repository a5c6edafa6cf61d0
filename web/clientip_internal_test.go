package web

import (
	"net"
	"testing"
)

func TestClientAddr(t *testing.T) {
	proxies := parseTrustedProxies([]string{"127.0.0.1", "10.0.0.0/8", "2001:db8::/32", "bad entry"})
	peer := func(s string) net.IP { return net.ParseIP(s) }
	for _, c := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"192.0.2.7", nil, "192.0.2.7"},
		{"192.0.2.7", []string{"198.51.100.1"}, "192.0.2.7"},                          // untrusted peer: header ignored
		{"127.0.0.1", nil, "127.0.0.1"},                                               // the proxy itself
		{"127.0.0.1", []string{"198.51.100.1"}, "198.51.100.1"},                       // one hop
		{"127.0.0.1", []string{"198.51.100.9, 203.0.113.5"}, "203.0.113.5"},           // the client's own left part is ignored
		{"127.0.0.1", []string{"198.51.100.9, 203.0.113.5, 10.1.2.3"}, "203.0.113.5"}, // skip trusted hops from the right
		{"127.0.0.1", []string{"198.51.100.9", "203.0.113.5"}, "203.0.113.5"},         // several header lines are one list
		{"127.0.0.1", []string{"10.1.1.1, 10.2.2.2"}, "10.1.1.1"},                     // all trusted: the left-most
		{"127.0.0.1", []string{"198.51.100.9, not-an-ip"}, "127.0.0.1"},               // unparsable: the peer
		{"127.0.0.1", []string{"203.0.113.5:4711"}, "203.0.113.5"},                    // with a port
		{"127.0.0.1", []string{"[2001:db9::1]:4711"}, "2001:db9::1"},
		{"127.0.0.1", []string{"2001:db9::1, 2001:db8::5"}, "2001:db9::1"},
		{"::ffff:127.0.0.1", []string{"198.51.100.1"}, "198.51.100.1"}, // v4-mapped peer
		{"127.0.0.1", []string{""}, "127.0.0.1"},
	} {
		var xff [][]byte
		for _, h := range c.xff {
			xff = append(xff, []byte(h))
		}
		if got := proxies.clientAddr(peer(c.peer), xff); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", c.peer, c.xff, got, c.want)
		}
	}
	if got := trustedProxies(nil).clientAddr(peer("127.0.0.1"), [][]byte{[]byte("198.51.100.1")}); got != "127.0.0.1" {
		t.Errorf("no trusted proxies: %s", got)
	}
}

func TestBodyLimitLookup(t *testing.T) {
	b := &bodyLimits{}
	b.add("POST", "/v1/holdings/import", 5<<20)
	b.add("POST", "/receipts/:id/scan", 10<<20)
	b.add("POST", "/v1/holdings", 0)
	for _, c := range []struct {
		method, uri string
		want        int
	}{
		{"POST", "/v1/holdings/import", 5 << 20},
		{"POST", "/v1/holdings/import?x=1", 5 << 20},
		{"POST", "/V1/Holdings/Import/", 5 << 20},
		{"POST", "/receipts/r_1/scan", 10 << 20},
		{"GET", "/v1/holdings/import", 64 << 10},
		{"POST", "/v1/holdings", 64 << 10},
		{"POST", "/login", 64 << 10},
		{"POST", "/receipts/r_1/scan/more", 64 << 10},
	} {
		if got := b.lookup([]byte(c.method), []byte(c.uri)); got != c.want {
			t.Errorf("%s %s: %d, want %d", c.method, c.uri, got, c.want)
		}
	}
	if b.largest() != 10<<20 {
		t.Errorf("largest %d", b.largest())
	}
}
