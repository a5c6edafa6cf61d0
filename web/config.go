package web

import (
	"syscall"

	"github.com/ouncehq/ounce/handlers/kit"
)

// Config is what the transport needs of the settings: what pages publish about this
// installation, and the HTTP limits. The composition root (internal/app) holds the rest.
type Config struct {
	// Site is what pages and documents publish about this installation.
	Site kit.Site
	// HTTP configures the transport: limits, proxies, CORS, metrics.
	HTTP HTTPConfig
}

// HTTPConfig configures the transport layer.
type HTTPConfig struct {
	// RateLimitPerKey and RateLimitPerIP are /v1 requests per minute (0 = no limit).
	RateLimitPerKey int
	RateLimitPerIP  int
	// CostlyPerMember is page requests per minute per member on the routes marked Costly
	// (0 = no limit).
	CostlyPerMember int
	// TrustedProxies are the addresses whose X-Forwarded-For is believed.
	TrustedProxies []string
	// CORSOrigins may call /v1 from a browser.
	CORSOrigins []string
	// Metrics serves /metrics.
	Metrics bool
	// MaxConnections caps open connections (OUNCE_MAX_CONNECTIONS); 0 derives it from the
	// open-file limit (DefaultMaxConnections).
	MaxConnections int
	// MaxStreams caps live event streams in all (OUNCE_MAX_STREAMS); 0 is three quarters of
	// MaxConnections, so plain requests always have room.
	MaxStreams int
	// MaxStreamsPerClient caps one client address's live streams
	// (OUNCE_MAX_STREAMS_PER_CLIENT); 0 is a quarter of MaxStreams (at least 1).
	MaxStreamsPerClient int
}

// ConnLimits are the caps in force, defaults worked out.
type ConnLimits struct {
	MaxConnections, MaxStreams, MaxStreamsPerClient int
}

func (h HTTPConfig) connLimits() ConnLimits {
	l := ConnLimits{MaxConnections: h.MaxConnections, MaxStreams: h.MaxStreams, MaxStreamsPerClient: h.MaxStreamsPerClient}
	if l.MaxConnections <= 0 {
		l.MaxConnections = DefaultMaxConnections()
	}
	if l.MaxStreams <= 0 {
		l.MaxStreams = max(1, l.MaxConnections*3/4)
	}
	if l.MaxStreamsPerClient <= 0 {
		l.MaxStreamsPerClient = max(1, l.MaxStreams/4)
	}
	return l
}

// fdReserve is kept free of connections for the database, files and tools.
const fdReserve = 64

// DefaultMaxConnections is 80 % of the process's open-file limit less a reserve of 64 for
// the database, files and tools (at least 64).
func DefaultMaxConnections() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 || rl.Cur > 1<<30 {
		return 10000
	}
	return max(64, int(rl.Cur)*8/10-fdReserve)
}
