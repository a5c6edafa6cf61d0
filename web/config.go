package web

import (
	"strings"

	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
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
	Site handlers.Site
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
	// Alerts configures push delivery of price alerts (Expo endpoint and token).
	Alerts alerts.Config
}

// HTTPConfig configures the transport layer.
type HTTPConfig struct {
	// RateLimitPerKey and RateLimitPerIP are /v1 requests per minute (0 = no limit).
	RateLimitPerKey int
	RateLimitPerIP  int
	// TrustedProxies are the addresses whose X-Forwarded-For is believed.
	TrustedProxies []string
	// CORSOrigins may call /v1 from a browser.
	CORSOrigins []string
	// Metrics serves /metrics.
	Metrics bool
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
}

// services builds every service from its part of the configuration.
func (s *server) services(opts Options) handlers.Services {
	cfg, deps := opts.Config, opts
	vault := comex.New(comex.Deps{Store: deps.Store, Logger: deps.Logger, Now: deps.Now, Config: cfg.Vault})
	pf := portfolio.New(portfolio.Deps{Store: deps.Store, Prices: deps.Market, Now: deps.Now, Logger: deps.Logger})
	feeds := news.New(news.Deps{Store: deps.Store, Logger: deps.Logger, Now: deps.Now, Config: cfg.News})
	return handlers.Services{
		Account: account.New(account.Deps{Store: deps.Store, Limiter: s.limiter, Now: deps.Now, Logger: deps.Logger,
			OnKeyUsed: s.keyUse.Record, Config: cfg.Account}),
		Portfolio: pf,
		Market:    deps.Market,
		Intel: intel.New(intel.Deps{Store: deps.Store, Market: deps.Market, News: feeds, Vault: vault, Logger: deps.Logger, Now: deps.Now,
			Config: cfg.Intel}),
		Vault:   vault,
		Dealers: dealers.New(dealers.Deps{Store: deps.Store, Prices: deps.Market, Logger: deps.Logger, Now: deps.Now, Config: dealerConfig(cfg)}),
		Billing: billing.New(billing.Deps{Store: deps.Store, Logger: deps.Logger, Now: deps.Now, BaseURL: cfg.Site.BaseURL,
			Config: cfg.Billing}),
		Social:   social.New(social.Deps{Store: deps.Store, Config: cfg.Social, Now: deps.Now, Logger: deps.Logger}),
		Receipts: receipts.New(receipts.Deps{Store: deps.Store, Portfolio: pf, Config: cfg.Receipts, Now: deps.Now, Logger: deps.Logger}),
		Alerts:   alerts.New(alertDeps(opts)),
	}
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
