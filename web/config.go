package web

import (
	"context"
	"strings"
	"syscall"
	"time"

	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/receipts"
	"github.com/ouncehq/ounce/internal/social"
)

// Config is every setting of the running service. cmd/ounce parses the environment into it
// once; New hands each part, whole, to the service it configures.
type Config struct {
	// Site is what pages and documents publish about this installation.
	Site kit.Site
	// HTTP configures the transport: limits, proxies, CORS, metrics.
	HTTP HTTPConfig
	// Prices configures the price providers; cmd builds the price service from it (it loads
	// history at start, which needs a context and may take a moment).
	Prices  prices.Config
	Account account.Config
	News    news.Config
	Intel   intel.Config
	Vault   comex.Config
	Dealers dealers.Config
	// Billing configures Stripe; it is not a market-data source, so OUNCE_OFFLINE leaves it on.
	Billing billing.Config
	Social  social.Config
	// Receipts configures receipt scanning (limits, tool timeout and memory cap).
	Receipts receipts.Config
	// Advisor configures the daily brief and the advisor chat; its model is the Stack Signal
	// writer's (OUNCE_LLM_*) unless set here.
	Advisor advisor.Config
	// Alerts configures push delivery of price alerts (Expo endpoint and token).
	Alerts alerts.Config
	// FX configures the daily ECB exchange-rate refresh (OUNCE_FX_URL).
	FX fx.Config
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

// SetOffline switches every market-data source off (OUNCE_OFFLINE): prices, news, CME. It is
// the one setting several services share, so it is set in one place.
func (c *Config) SetOffline(offline bool) {
	c.Site.Offline = offline
	c.Prices.Offline = offline
	c.News.Offline = offline
	c.Intel.Offline = offline
	c.Vault.Offline = offline
	c.Dealers.Offline = offline
	c.FX.Offline = offline
}

// services builds every service from its part of the configuration.
func (s *server) services(opts Options) handlers.Services {
	cfg, deps := opts.Config, opts
	vault := comex.New(comex.Deps{Store: deps.Store, Logger: deps.Logger, Now: deps.Now, Config: cfg.Vault})
	pf := portfolio.New(portfolio.Deps{Store: deps.Store, Prices: deps.Market, Now: deps.Now, Logger: deps.Logger})
	feeds := news.New(news.Deps{Store: deps.Store, Logger: deps.Logger, Now: deps.Now, Config: cfg.News})
	sv := handlers.Services{
		Account: account.New(account.Deps{Store: deps.Store, Limiter: s.limiter, Now: deps.Now, Logger: deps.Logger,
			OnKeyUsed: s.keyUse.Record, Config: cfg.Account}),
		Portfolio: pf,
		Market:    deps.Market,
		Intel: intel.New(intel.Deps{Store: deps.Store, Market: deps.Market, News: feeds, Vault: vault, Logger: deps.Logger, Now: deps.Now,
			Config: cfg.Intel}),
		Vault:   vault,
		Dealers: dealers.New(dealers.Deps{Store: deps.Store, Prices: deps.Market, Logger: deps.Logger, Now: deps.Now, Config: dealerConfig(cfg)}),
		Billing: billing.New(billing.Deps{Store: deps.Store, Logger: deps.Logger, Now: deps.Now, BaseURL: cfg.Site.BaseURL,
			Config: cfg.Billing, Limiter: s.limiter}),
		Social:   social.New(social.Deps{Store: deps.Store, Config: cfg.Social, Now: deps.Now, Logger: deps.Logger}),
		Receipts: receipts.New(receipts.Deps{Store: deps.Store, Portfolio: pf, Config: cfg.Receipts, Now: deps.Now, Logger: deps.Logger}),
		Alerts:   alerts.New(alertDeps(opts)),
		FX:       fx.New(fx.Deps{Store: deps.Store, Config: cfg.FX, Now: deps.Now, Logger: deps.Logger}),
	}
	sv.Advisor = advisor.New(advisor.Deps{Store: deps.Store, Portfolio: pf, Market: deps.Market, Intel: sv.Intel, Vault: vault,
		Dealers: sv.Dealers, Alerts: firedAlerts{sv.Alerts}, Config: advisorConfig(cfg), Now: deps.Now, Logger: deps.Logger})
	return sv
}

// firedAlerts lets the daily brief read alert firings without the advisor importing alerts.
type firedAlerts struct{ svc *alerts.Service }

func (f firedAlerts) FiredSince(ctx context.Context, userID int64, since time.Time) ([]advisor.FiredAlert, error) {
	fired, err := f.svc.FiredSince(ctx, userID, since)
	if err != nil {
		return nil, err
	}
	out := make([]advisor.FiredAlert, len(fired))
	for i, a := range fired {
		out[i] = advisor.FiredAlert{Metal: a.Metal, Direction: a.Direction, Target: a.TargetPrice.String(),
			Price: a.FiredPrice.StringFixed(2), FiredAt: a.FiredAt}
	}
	return out, nil
}

// advisorConfig is the advisor's settings: the Stack Signal writer's model unless the
// advisor names its own, and none offline (OUNCE_OFFLINE contacts no outside service).
func advisorConfig(cfg Config) advisor.Config {
	ac := cfg.Advisor
	if ac.LLMBaseURL == "" && ac.LLMModel == "" {
		ac.LLMBaseURL, ac.LLMModel, ac.LLMAPIKey = cfg.Intel.LLMBaseURL, cfg.Intel.LLMModel, cfg.Intel.LLMAPIKey
		if cfg.Intel.Offline {
			ac.LLMBaseURL, ac.LLMModel, ac.LLMAPIKey = "", "", ""
		}
	}
	return ac
}

// alertDeps builds the alerts service's dependencies; VAPID claims name this installation.
func alertDeps(opts Options) alerts.Deps {
	d := alerts.Deps{Store: opts.Store, Config: opts.Config.Alerts, Now: opts.Now, Logger: opts.Logger}
	if opts.Market != nil { // a nil *prices.Service must not become a non-nil interface
		d.Market = opts.Market
	}
	if d.Config.VAPIDSubject == "" {
		d.Config.VAPIDSubject = opts.Config.Site.BaseURL
		if !strings.HasPrefix(d.Config.VAPIDSubject, "https://") && opts.Config.Site.ContactEmail != "" {
			d.Config.VAPIDSubject = "mailto:" + opts.Config.Site.ContactEmail
		}
	}
	return d
}

// dealerConfig is the dealer settings, naming this installation in the fetcher's User-Agent.
func dealerConfig(cfg Config) dealers.Config {
	dc := cfg.Dealers
	if dc.SiteURL == "" {
		dc.SiteURL = cfg.Site.BaseURL
	}
	return dc
}
