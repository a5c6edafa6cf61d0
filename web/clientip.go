package web

import (
	"net"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
)

// trustedProxies are the addresses whose X-Forwarded-For is believed.
type trustedProxies []netip.Prefix

// parseTrustedProxies reads IPs and CIDRs (cmd has validated them; bad entries are skipped).
func parseTrustedProxies(list []string) trustedProxies {
	var out trustedProxies
	for _, p := range list {
		p = strings.TrimSpace(p)
		if pre, err := netip.ParsePrefix(p); err == nil {
			out = append(out, pre.Masked())
		} else if a, err := netip.ParseAddr(p); err == nil {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

func (t trustedProxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientAddr is the address a request comes from. Only a trusted proxy's X-Forwarded-For is
// read, and from the right: each proxy appends the address it received the request from, so
// the right-most entry that is not one of our proxies is the first hop nobody we trust vouches
// for — everything to its left is whatever the client chose to send. An entry that is not an IP
// address means the header cannot be believed, and the peer is used.
func (t trustedProxies) clientAddr(peer net.IP, xff [][]byte) string {
	pa, ok := netip.AddrFromSlice(peer)
	if !ok {
		return peer.String()
	}
	pa = pa.Unmap()
	if len(t) == 0 || !t.trusts(pa) || len(xff) == 0 {
		return pa.String()
	}
	// Several X-Forwarded-For lines are one list, in order.
	var entries []string
	for _, h := range xff {
		entries = append(entries, strings.Split(string(h), ",")...)
	}
	client := pa
	for i := len(entries) - 1; i >= 0; i-- {
		a, ok := parseForwardedAddr(entries[i])
		if !ok {
			return pa.String()
		}
		client = a
		if !t.trusts(a) {
			break
		}
	}
	return client.String()
}

// parseForwardedAddr reads one X-Forwarded-For entry: an IP, or an IP with a port as some
// proxies write it ("192.0.2.1:4711", "[2001:db8::1]:4711").
func parseForwardedAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// setClientIP records the request's client address for rate limits and sign-in counters.
// Without trusted proxies the peer address is the answer, which kit.ClientIP falls back
// to, so the hot path does no work here.
func (s *server) setClientIP(c *fiber.Ctx) {
	if len(s.proxies) > 0 {
		kit.SetClientIP(c, s.proxies.clientAddr(c.Context().RemoteIP(), c.Request().Header.PeekAll(fiber.HeaderXForwardedFor)))
	}
}
