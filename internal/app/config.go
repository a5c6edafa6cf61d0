package app

import (
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/mail"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/receipts"
	"github.com/ouncehq/ounce/internal/social"
	"github.com/ouncehq/ounce/web"
)

// Config is every setting of the running service. cmd/ounce parses the environment into it
// once; New hands each part, whole, to the service (or the transport) it configures.
type Config struct {
	// Site is what pages and documents publish about this installation.
	Site kit.Site
	// HTTP configures the transport: limits, proxies, CORS, metrics.
	HTTP web.HTTPConfig
	// Prices configures the price providers (NewMarket builds the price service from it).
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
	// Mail configures SMTP (OUNCE_SMTP_URL, OUNCE_MAIL_FROM); unset, mail is off.
	Mail mail.Config
	// FX configures the daily ECB exchange-rate refresh (OUNCE_FX_URL).
	FX fx.Config
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

// alertsConfig is the alert settings; VAPID claims name this installation.
func alertsConfig(cfg Config) alerts.Config {
	ac := cfg.Alerts
	if ac.VAPIDSubject == "" {
		ac.VAPIDSubject = cfg.Site.BaseURL
		if !strings.HasPrefix(ac.VAPIDSubject, "https://") && cfg.Site.ContactEmail != "" {
			ac.VAPIDSubject = "mailto:" + cfg.Site.ContactEmail
		}
	}
	return ac
}

// DealerConfig is the dealer settings, naming this installation in the fetcher's User-Agent.
func DealerConfig(cfg Config) dealers.Config {
	dc := cfg.Dealers
	if dc.SiteURL == "" {
		dc.SiteURL = cfg.Site.BaseURL
	}
	return dc
}
