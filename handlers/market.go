package handlers

import (
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/news"
)

// newMarketServices builds the market-intelligence and Vault Watch services from the
// handlers' dependencies; each builds its own HTTP clients (feeds, CME, language model) from
// its part of the configuration.
func newMarketServices(d Deps) (*intel.Service, *comex.Service) {
	c := d.Config
	vault := comex.New(comex.Deps{Store: d.Store, Logger: d.Logger, Now: d.Now,
		Config: comex.Config{BaseURL: c.CMEBaseURL, Offline: c.Offline}})
	feeds := news.New(news.Deps{Store: d.Store, Logger: d.Logger, Now: d.Now,
		Config: news.Config{Feeds: c.NewsFeeds, Offline: c.Offline}})
	in := intel.New(intel.Deps{Store: d.Store, Market: d.Market, News: feeds, Vault: vault, Logger: d.Logger, Now: d.Now,
		Config: intel.Config{Offline: c.Offline, Interval: c.IntelInterval, LLMBaseURL: c.LLMBaseURL, LLMModel: c.LLMModel, LLMAPIKey: c.LLMAPIKey}})
	return in, vault
}

// Intel returns the market-intelligence service (first-start seeding, runs, articles).
func (h *Handlers) Intel() *intel.Service { return h.intel }

// Vault returns the Vault Watch service (workbook imports, open interest).
func (h *Handlers) Vault() *comex.Service { return h.vault }
