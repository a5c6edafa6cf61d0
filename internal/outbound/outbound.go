// Package outbound is the one policy for HTTP requests to addresses the operator did not
// choose: a Web Push endpoint a member registered, or the target of a redirect a remote
// server answered. Such a request may only reach public unicast addresses: every range of
// the IANA IPv4 and IPv6 special-purpose registries that is not globally reachable is
// refused, and so is a transition address (IPv4-mapped, NAT64, 6to4) whose embedded IPv4
// address is refused. The check runs on the address each connection is about to be made
// to, after name resolution, so a name that resolves to a public address once and to a
// private one later (DNS rebinding) is caught at the dial that matters; it also runs on each
// redirect.
//
// The operator's own configured URLs (price providers, news feeds, dealer listings, the CME
// site, the Expo API, the model server) are trusted: an operator may run any of them on a
// private network. Operator clients trust the host of the first request and apply the
// policy only when a redirect leads to another host.
package outbound

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// maxRedirects is how many redirects a client follows, as net/http does by default.
const maxRedirects = 10

// ErrForbidden is wrapped by every refusal of the policy.
var ErrForbidden = errors.New("outbound policy: refusing a non-public address")

// special is one range of the special-purpose registries that is refused.
type special struct {
	prefix netip.Prefix
	name   string
}

func mustPrefix(s, name string) special { return special{netip.MustParsePrefix(s), name} }

// forbidden4 are the IPv4 special-purpose ranges (RFC 6890 and the IANA registry) that are
// not globally reachable, plus multicast and the reserved class E space.
var forbidden4 = []special{
	mustPrefix("0.0.0.0/8", "this network"),
	mustPrefix("10.0.0.0/8", "private"),
	mustPrefix("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
	mustPrefix("127.0.0.0/8", "loopback"),
	mustPrefix("169.254.0.0/16", "link-local"),
	mustPrefix("172.16.0.0/12", "private"),
	mustPrefix("192.0.0.0/24", "IETF protocol assignments"),
	mustPrefix("192.0.2.0/24", "documentation (TEST-NET-1)"),
	mustPrefix("192.88.99.0/24", "6to4 relay anycast (deprecated)"),
	mustPrefix("192.168.0.0/16", "private"),
	mustPrefix("198.18.0.0/15", "benchmarking"),
	mustPrefix("198.51.100.0/24", "documentation (TEST-NET-2)"),
	mustPrefix("203.0.113.0/24", "documentation (TEST-NET-3)"),
	mustPrefix("224.0.0.0/4", "multicast"),
	mustPrefix("240.0.0.0/4", "reserved"),
	mustPrefix("255.255.255.255/32", "limited broadcast"),
}

// forbidden6 are the IPv6 special-purpose ranges that are not globally reachable. The
// transition ranges that embed an IPv4 address (::ffff:0:0/96, 64:ff9b::/96, 2002::/16) are
// judged by that address instead, in Check.
var forbidden6 = []special{
	mustPrefix("::/128", "unspecified"),
	mustPrefix("::1/128", "loopback"),
	mustPrefix("::/96", "IPv4-compatible (deprecated)"),
	mustPrefix("64:ff9b:1::/48", "local-use NAT64"),
	mustPrefix("100::/64", "discard-only"),
	mustPrefix("2001::/23", "IETF protocol assignments (Teredo, ORCHID, benchmarking …)"),
	mustPrefix("2001:db8::/32", "documentation"),
	mustPrefix("3fff::/20", "documentation"),
	mustPrefix("5f00::/16", "segment routing SIDs"),
	mustPrefix("fc00::/7", "unique local"),
	mustPrefix("fe80::/10", "link-local"),
	mustPrefix("fec0::/10", "site-local (deprecated)"),
	mustPrefix("ff00::/8", "multicast"),
}

var (
	mapped4 = netip.MustParsePrefix("::ffff:0:0/96")
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4  = netip.MustParsePrefix("2002::/16")
	global6 = netip.MustParsePrefix("2000::/3")
)

// Reason says why addr may not be reached, or "" when it is a public unicast address.
func Reason(addr netip.Addr) string {
	addr = addr.WithZone("")
	if !addr.IsValid() {
		return "not an IP address"
	}
	if addr.Is4() {
		for _, s := range forbidden4 {
			if s.prefix.Contains(addr) {
				return s.name + " " + s.prefix.String()
			}
		}
		return ""
	}
	b := addr.As16()
	switch {
	case mapped4.Contains(addr):
		if r := Reason(addr.Unmap()); r != "" {
			return "IPv4-mapped " + r
		}
		return ""
	case nat64.Contains(addr):
		if r := Reason(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); r != "" {
			return "NAT64 of " + r
		}
		return ""
	case sixTo4.Contains(addr):
		if r := Reason(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); r != "" {
			return "6to4 of " + r
		}
		return ""
	}
	for _, s := range forbidden6 {
		if s.prefix.Contains(addr) {
			return s.name + " " + s.prefix.String()
		}
	}
	if !global6.Contains(addr) {
		return "not global unicast (outside 2000::/3)"
	}
	return ""
}

// Policy decides which addresses a request may reach. The zero value refuses every
// non-public address; Allow lists private ranges an operator opened on purpose (a self-hosted
// push service, OUNCE_PUSH_ALLOW_PRIVATE).
type Policy struct {
	Allow []netip.Prefix
}

// Check returns nil when addr may be reached, else an error wrapping ErrForbidden.
func (p Policy) Check(addr netip.Addr) error {
	addr = addr.WithZone("")
	for _, a := range p.Allow {
		if a.Contains(addr) || addr.Is4In6() && a.Contains(addr.Unmap()) {
			return nil
		}
	}
	if r := Reason(addr); r != "" {
		return fmt.Errorf("%w %s (%s)", ErrForbidden, addr, r)
	}
	return nil
}

// checkHost refuses a literal address before any connection is tried; names are checked
// when they are resolved, at the dial.
func (p Policy) checkHost(host string) error {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return p.Check(a)
	}
	return nil
}

// ParseAllow reads a comma-separated list of CIDRs (or single addresses).
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not a CIDR or an IP address", part)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR: %v", part, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Options shape a client.
type Options struct {
	// Timeout bounds a whole request (http.Client.Timeout); zero means none.
	Timeout time.Duration
	// Base is the transport cloned for the client's connections (its TLS settings are kept,
	// its dialer and proxy replaced); nil means http.DefaultTransport.
	Base *http.Transport
}

// transport clones the base with a dialer that runs check on every address it connects to.
// Proxies are never used: through one, the address checked would be the proxy's.
func transport(o Options, check func(netip.Addr) error) *http.Transport {
	base := o.Base
	if base == nil {
		base = http.DefaultTransport.(*http.Transport)
	}
	tr := base.Clone()
	tr.Proxy = nil
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if check != nil {
		// Control runs after name resolution, on the very address connect(2) will be given,
		// for every address tried.
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: unreadable address %q", ErrForbidden, address)
			}
			return check(ap.Addr())
		}
	}
	tr.DialContext = d.DialContext
	return tr
}

// MemberClient is a client for URLs a member supplied: every connection it makes and every
// redirect it follows is checked against p.
func (p Policy) MemberClient(o Options) *http.Client {
	tr := transport(o, p.Check)
	return &http.Client{Timeout: o.Timeout, Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		return p.checkRedirect(req, via)
	}}
}

func (p Policy) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: redirect to a %q URL", ErrForbidden, req.URL.Scheme)
	}
	return p.checkHost(req.URL.Hostname())
}

// OperatorClient is a client for the operator's configured URLs: the host of each request it
// is given is trusted (any address), and a redirect to another host is held to p at the
// redirect and at every dial. Connections to trusted and to checked hosts are kept in
// separate pools, so a connection opened for a trusted host is never reused for a redirect.
func (p Policy) OperatorClient(o Options) *http.Client {
	rt := &operatorTransport{trusted: transport(o, nil), checked: transport(o, p.Check)}
	return &http.Client{Timeout: o.Timeout, Transport: rt, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if sameHost(req.URL.Scheme, req.URL.Host, via[0].URL.Scheme, via[0].URL.Host) {
			return nil
		}
		return p.checkRedirect(req, via)
	}}
}

// OperatorClient is Policy{}.OperatorClient: the default for the operator's fetchers.
func OperatorClient(o Options) *http.Client { return Policy{}.OperatorClient(o) }

// operatorTransport sends the first request of a chain, and redirects to that request's own
// host, through the trusted transport; every other redirect through the checked one.
type operatorTransport struct {
	trusted, checked *http.Transport
}

func (t *operatorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	first := req
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request
	}
	if first == req || sameHost(req.URL.Scheme, req.URL.Host, first.URL.Scheme, first.URL.Host) {
		return t.trusted.RoundTrip(req)
	}
	return t.checked.RoundTrip(req)
}

// CloseIdleConnections closes both pools' idle connections.
func (t *operatorTransport) CloseIdleConnections() {
	t.trusted.CloseIdleConnections()
	t.checked.CloseIdleConnections()
}

// sameHost compares scheme and host:port, with default ports filled in.
func sameHost(s1, h1, s2, h2 string) bool {
	return strings.EqualFold(withPort(s1, h1), withPort(s2, h2))
}

func withPort(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}
