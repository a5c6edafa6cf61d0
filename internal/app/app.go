// Package app is the one composition root. It holds the parsed configuration, builds every
// service over the store with the adapters between areas, lists each area's HTTP adapters
// (handlers/<area>http) once, collects every background job once, and hands the web layer
// the assembled handlers and the jobs. cmd/ounce, the tests and the benchmarks build the
// server here and use the services from App.
//
// Adding an area is one constructor in buildServices (its jobs come with it) and one entry in
// areas; see CONTRIBUTING.md, "Adding an area".
package app

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/handlers"
	"github.com/ouncehq/ounce/handlers/accounthttp"
	"github.com/ouncehq/ounce/handlers/advisorhttp"
	"github.com/ouncehq/ounce/handlers/alertshttp"
	"github.com/ouncehq/ounce/handlers/billinghttp"
	"github.com/ouncehq/ounce/handlers/custodyhttp"
	"github.com/ouncehq/ounce/handlers/dealershttp"
	"github.com/ouncehq/ounce/handlers/fxhttp"
	"github.com/ouncehq/ounce/handlers/intelhttp"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/handlers/performancehttp"
	"github.com/ouncehq/ounce/handlers/portfoliohttp"
	"github.com/ouncehq/ounce/handlers/priceshttp"
	"github.com/ouncehq/ounce/handlers/receiptshttp"
	"github.com/ouncehq/ounce/handlers/socialhttp"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/billing"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/job"
	"github.com/ouncehq/ounce/internal/mail"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/internal/performance"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/quote"
	"github.com/ouncehq/ounce/internal/receipts"
	"github.com/ouncehq/ounce/internal/social"
	"github.com/ouncehq/ounce/web"
)

// Options are what the application is built from: storage, the clock and logger, the price
// service, and the configuration.
type Options struct {
	Store  *db.Store
	Logger *slog.Logger
	Now    func() time.Time
	// Market is the price service (NewMarket builds it); nil serves no prices.
	Market *prices.Service
	Config Config
}

// App is the running application: its configuration, every service, and the server that
// serves them.
type App struct {
	Config Config
	Store  *db.Store

	Account   *account.Service
	Portfolio *portfolio.Service
	// Performance is returns for any period, over the portfolio's position ledger.
	Performance *performance.Service
	// Market is the price service; nil only in tests that need no prices.
	Market *prices.Service
	News   *news.Service
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
	// Mail is password reset, address confirmation and alerts and briefs by email.
	Mail *mail.Service
	// Custody is storage locations, documents and the inventory statement.
	Custody *custody.Service
	// FX is exchange rates: lookups, the daily ECB refresh and imports.
	FX *fx.Service

	// Server serves the handlers and runs the jobs (Start, Shutdown).
	Server *web.Server

	log *slog.Logger
	now func() time.Time
	// jobs are the background loops of the services built so far (see service).
	jobs []job.Job
}

// service records the background loops of svc, if it has any (a Jobs() []job.Job method),
// and returns it: building a service with it is all it takes for its jobs to run.
func service[S any](a *App, svc S) S {
	if j, ok := any(svc).(interface{ Jobs() []job.Job }); ok {
		a.jobs = append(a.jobs, j.Jobs()...)
	}
	return svc
}

// NewMarket builds the price service: providers from the configuration unless offline, and
// the stored history loaded (which needs a context and may take a moment).
func NewMarket(ctx context.Context, cfg Config, s *db.Store, log *slog.Logger) (*prices.Service, error) {
	start := time.Now()
	svc, err := prices.Open(ctx, s, cfg.Prices, log)
	if err != nil {
		return nil, fmt.Errorf("price service: %w", err)
	}
	log.Info("price service ready", "offline", cfg.Prices.Offline, "providers", cfg.Prices.Providers, "startup_ms", time.Since(start).Milliseconds())
	return svc, nil
}

// New builds every service and the server.
func New(opts Options) (*App, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	opts.Config.Site.BaseURL = strings.TrimRight(opts.Config.Site.BaseURL, "/")
	a := &App{Config: opts.Config, Store: opts.Store, Market: opts.Market, log: opts.Logger, now: opts.Now}
	srv, err := web.New(web.Options{Store: opts.Store, Logger: opts.Logger, Now: opts.Now,
		Config: web.Config{Site: opts.Config.Site, HTTP: opts.Config.HTTP}, Wire: a.wire})
	if err != nil {
		return nil, err
	}
	a.Server = srv
	return a, nil
}

// wire is called by web.New with the parts the server owns: it builds the services, their
// adapters, and lists the jobs.
func (a *App) wire(p web.Parts) (*handlers.Handlers, []kit.Job) {
	a.buildServices(p)
	prices := priceshttp.New(p.Base, a.Market, a.Portfolio).WithQuotes(quote.New(a.FX, a.now))
	adv := advisorhttp.New(p.Base, a.Advisor)
	// The dashboard draws the daily-brief card in its own response, not after it.
	pf := portfoliohttp.New(p.Base, a.Portfolio, prices.TickerView).WithBriefCard(adv.BriefCardIn).WithArchive(a.Custody)
	home := handlers.Home{Dashboard: pf.DashboardPage, Markets: prices.MarketsView}
	return handlers.New(p.Base, home, a.areas(p.Base, prices, pf, adv)), a.Jobs()
}

// buildServices builds every service from its part of the configuration, and the adapters
// between areas.
func (a *App) buildServices(p web.Parts) {
	cfg, store, now, log := a.Config, a.Store, a.now, a.log
	if a.Market != nil { // built by NewMarket before the server; nil serves no prices
		service(a, a.Market)
	}
	a.Vault = service(a, comex.New(comex.Deps{Store: store, Logger: log, Now: now, Config: cfg.Vault}))
	// The portfolio values stacks in any currency with the exchange rates, so they come first.
	a.FX = service(a, fx.New(fx.Deps{Store: store, Config: cfg.FX, Now: now, Logger: log}))
	a.Portfolio = service(a, portfolio.New(portfolio.Deps{Store: store, Prices: a.Market, Rates: a.FX, Now: now, Logger: log}))
	a.Performance = service(a, performance.New(performance.Deps{Store: store, Prices: a.Market, Rates: a.FX, Now: now, Logger: log}))
	a.News = service(a, news.New(news.Deps{Store: store, Logger: log, Now: now, Config: cfg.News}))
	a.Account = service(a, account.New(account.Deps{Store: store, Limiter: p.Limiter, Now: now, Logger: log,
		OnKeyUsed: p.OnKeyUsed, Config: cfg.Account}))
	a.Intel = service(a, intel.New(intel.Deps{Store: store, Market: a.Market, News: a.News, Vault: a.Vault, Logger: log, Now: now,
		Config: cfg.Intel}))
	a.Dealers = service(a, dealers.New(dealers.Deps{Store: store, Prices: a.Market, Logger: log, Now: now, Config: DealerConfig(cfg)}))
	a.Billing = service(a, billing.New(billing.Deps{Store: store, Logger: log, Now: now, BaseURL: cfg.Site.BaseURL,
		Config: cfg.Billing, Limiter: p.Limiter}))
	a.Social = service(a, social.New(social.Deps{Store: store, Config: cfg.Social, Now: now, Logger: log}))
	ad := alerts.Deps{Store: store, FX: a.FX, Config: alertsConfig(cfg), Now: now, Logger: log}
	if a.Market != nil { // a nil *prices.Service must not become a non-nil interface
		ad.Market = a.Market
	}
	a.Alerts = service(a, alerts.New(ad))
	a.Custody = service(a, custody.New(custody.Deps{Store: store, Portfolio: a.Portfolio, Dealers: a.Dealers, Now: now, Logger: log}))
	a.Receipts = service(a, receipts.New(receipts.Deps{Store: store, Portfolio: a.Portfolio, Documents: a.Custody, Config: cfg.Receipts, Now: now, Logger: log}))
	a.Mail = service(a, mail.New(mail.Deps{Store: store, Config: cfg.Mail.WithBaseURL(cfg.Site.BaseURL), Now: now, Logger: log,
		Limiter: p.Limiter}))
	a.Advisor = service(a, advisor.New(advisor.Deps{Store: store, Portfolio: a.Portfolio, Performance: a.Performance, Market: a.Market, Intel: a.Intel, Vault: a.Vault,
		Dealers: a.Dealers, Alerts: firedAlerts{a.Alerts}, FX: a.FX, Config: advisorConfig(cfg), Now: now, Logger: log}))
}

// areas is the one list of HTTP adapters, in match order. The price, portfolio and advisor
// adapters are built first by wire, as the home page and the portfolio pages use the price
// ticker and the dashboard the daily-brief card.
func (a *App) areas(base *kit.Base, prices *priceshttp.Handlers, pf *portfoliohttp.Handlers, adv *advisorhttp.Handlers) []kit.Area {
	return []kit.Area{
		accounthttp.New(base, a.Account).WithMail(a.Mail),
		prices,
		// Portfolio before intel and the rest: its fixed paths (/v1/holdings/export, /import)
		// must match before the /v1/holdings/:id pattern does.
		pf,
		// Before any /v1/portfolio pattern: its summary is a fixed path.
		performancehttp.New(base, a.Performance),
		intelhttp.New(base, a.Intel, a.Vault),
		dealershttp.New(base, a.Dealers).WithQuotes(quote.New(a.FX, a.now)),
		billinghttp.New(base, a.Billing),
		socialhttp.New(base, a.Social, a.Intel),
		receiptshttp.New(base, a.Receipts),
		adv,
		alertshttp.New(base, a.Alerts, a.Market),
		fxhttp.New(base, a.FX),
		custodyhttp.New(base, a.Custody),
	}
}

// Jobs is the one list of background loops: each service's own, as service recorded them
// (the server adds its housekeeping: key use, sessions, rate-limit windows).
func (a *App) Jobs() []job.Job { return a.jobs }

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
			Price: a.FiredPrice.StringFixed(2), Currency: a.Currency, Unit: string(a.Unit), FiredAt: a.FiredAt}
	}
	return out, nil
}
