// Package handlers assembles the adapters of every area (handlers/<area>http, each over its
// service in internal/<area>) into the two route tables the web layer serves, pages and /v1,
// and the background jobs it runs; it generates the OpenAPI document, llms.txt, the plugin
// and MCP manifests and serves MCP, all from the same route tables.
package handlers

import (
	"log/slog"
	"time"

	"github.com/ouncehq/ounce/handlers/accounthttp"
	"github.com/ouncehq/ounce/handlers/advisorhttp"
	"github.com/ouncehq/ounce/handlers/alertshttp"
	"github.com/ouncehq/ounce/handlers/billinghttp"
	"github.com/ouncehq/ounce/handlers/dealershttp"
	"github.com/ouncehq/ounce/handlers/fxhttp"
	"github.com/ouncehq/ounce/handlers/intelhttp"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/handlers/portfoliohttp"
	"github.com/ouncehq/ounce/handlers/priceshttp"
	"github.com/ouncehq/ounce/handlers/receiptshttp"
	"github.com/ouncehq/ounce/handlers/socialhttp"

	"github.com/alexedwards/scs/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/receipts"
	"github.com/ouncehq/ounce/internal/social"
)

// Services are the use cases the adapters call, one per area, built by the web layer.
type Services struct {
	Account   *account.Service
	Portfolio *portfolio.Service
	// Market is the price service; nil only in tests that need no prices.
	Market *prices.Service
	Intel  *intel.Service
	Vault  *comex.Service
	// Dealers is dealer price comparison.
	Dealers *dealers.Service
	// Billing is Stripe checkout, the webhook and the membership page.
	Billing *billing.Service
	// Social is article views, likes and comments.
	Social *social.Service
	// Receipts reads dealer receipts into proposed holdings.
	Receipts *receipts.Service
	// Advisor is the daily brief and the advisor chat.
	Advisor *advisor.Service
	// Alerts is price alerts, push devices and the notification centre.
	Alerts *alerts.Service
	// FX is exchange rates: lookups, the daily ECB refresh and imports.
	FX *fx.Service
}

// Deps are everything the handlers are built from.
type Deps struct {
	Sessions *scs.SessionManager
	Site     kit.Site
	Services Services
	Logger   *slog.Logger
	Now      func() time.Time
	// Done closes when the server shuts down, ending long-lived streams.
	Done <-chan struct{}
}

// Handlers is the one value every route hangs off: adapters over the services.
type Handlers struct {
	*kit.Base
	account   *account.Service
	portfolio *portfolio.Service
	market    *prices.Service
	intel     *intel.Service
	vault     *comex.Service
	dealers   *dealers.Service
	billing   *billing.Service
	social    *social.Service
	receipts  *receipts.Service
	advisor   *advisor.Service
	alerts    *alerts.Service

	// Each area's adapters (handlers/<area>http).
	billingHTTP   *billinghttp.Handlers
	dealersHTTP   *dealershttp.Handlers
	alertsHTTP    *alertshttp.Handlers
	advisorHTTP   *advisorhttp.Handlers
	pricesHTTP    *priceshttp.Handlers
	portfolioHTTP *portfoliohttp.Handlers
	receiptsHTTP  *receiptshttp.Handlers
	accountHTTP   *accounthttp.Handlers
	intelHTTP     *intelhttp.Handlers
	socialHTTP    *socialhttp.Handlers
	fx            *fx.Service
	fxHTTP        *fxhttp.Handlers
	//areas-end
}

// New builds the handlers.
func New(d Deps) *Handlers {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	sv := d.Services
	base := &kit.Base{Sessions: d.Sessions, Site: d.Site, Log: d.Logger, Now: d.Now, Done: d.Done}
	h := &Handlers{Base: base,
		account: sv.Account, portfolio: sv.Portfolio, market: sv.Market, intel: sv.Intel, vault: sv.Vault,
		dealers: sv.Dealers, billing: sv.Billing, social: sv.Social, receipts: sv.Receipts,
		advisor: sv.Advisor,
		alerts:  sv.Alerts}
	h.billingHTTP = billinghttp.New(base, sv.Billing)
	h.dealersHTTP = dealershttp.New(base, sv.Dealers)
	h.alertsHTTP = alertshttp.New(base, sv.Alerts, sv.Market)
	h.advisorHTTP = advisorhttp.New(base, sv.Advisor)
	h.pricesHTTP = priceshttp.New(base, sv.Market, sv.Portfolio)
	h.portfolioHTTP = portfoliohttp.New(base, sv.Portfolio, h.pricesHTTP.TickerView)
	h.receiptsHTTP = receiptshttp.New(base, sv.Receipts)
	h.accountHTTP = accounthttp.New(base, sv.Account)
	h.intelHTTP = intelhttp.New(base, sv.Intel, sv.Vault)
	h.socialHTTP = socialhttp.New(base, sv.Social, sv.Intel)
	h.fx, h.fxHTTP = sv.FX, fxhttp.New(base, sv.FX)
	//new-end
	return h
}
