package handlers

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"
)

// APIRoutes is the table of every /v1 route. The web layer registers exactly these, and the
// OpenAPI document and llms.txt are generated from them, so they cannot drift apart.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	var out []kit.APIRoute
	out = append(out, h.pricesHTTP.APIRoutes()...)
	// Portfolio first: its fixed paths (/v1/holdings/export, /import) must match before
	// the /v1/holdings/:id pattern does.
	out = append(out, h.portfolioHTTP.APIRoutes()...)
	out = append(out, h.intelHTTP.APIRoutes()...)
	out = append(out, h.dealersHTTP.APIRoutes()...)
	out = append(out, h.billingHTTP.APIRoutes()...)
	out = append(out, h.socialHTTP.APIRoutes()...)
	out = append(out, h.receiptsHTTP.APIRoutes()...)
	out = append(out, h.advisorHTTP.APIRoutes()...)
	out = append(out, h.alertsHTTP.APIRoutes()...)
	return out
}

// PageRoutes is the table of every browser page and form endpoint, registered by web.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	out := []kit.PageRoute{
		{Method: "GET", Path: "/", Handler: h.Home, Auth: kit.AuthNone},
		{Method: "GET", Path: "/docs/api", Handler: h.APIDocsPage, Auth: kit.AuthNone},
		{Method: "GET", Path: "/legal", Handler: h.LegalPage, Auth: kit.AuthNone},
		{Method: "GET", Path: "/manifest.webmanifest", Handler: h.WebManifest, Auth: kit.AuthNone}, // install.go
		{Method: "GET", Path: "/sw.js", Handler: h.ServiceWorker, Auth: kit.AuthNone},
	}
	out = append(out, h.accountHTTP.PageRoutes()...)
	out = append(out, h.pricesHTTP.PageRoutes()...)
	out = append(out, h.portfolioHTTP.PageRoutes()...)
	out = append(out, h.intelHTTP.PageRoutes()...)
	out = append(out, h.dealersHTTP.PageRoutes()...)
	out = append(out, h.billingHTTP.PageRoutes()...)
	out = append(out, h.socialHTTP.PageRoutes()...)
	out = append(out, h.receiptsHTTP.PageRoutes()...)
	out = append(out, h.advisorHTTP.PageRoutes()...)
	out = append(out, h.alertsHTTP.PageRoutes()...)
	return out
}

// Jobs are the background loops of the services that the server runs until it stops (price
// feed, intelligence scheduler…).
func (h *Handlers) Jobs() []kit.Job {
	var out []kit.Job
	if h.market != nil {
		out = append(out, kit.Job{Name: "price feed", Run: h.market.Run})
	}
	out = append(out, kit.Job{Name: "intel scheduler", Run: h.intel.Scheduler})
	if h.dealers != nil {
		out = append(out, kit.Job{Name: "dealer prices", Run: h.dealers.Run})
	}
	if h.billing != nil {
		out = append(out, kit.Job{Name: "billing grace periods", Run: h.billing.Run})
	}
	if h.advisor != nil {
		out = append(out, kit.Job{Name: "morning briefs", Run: func(ctx context.Context) { h.advisor.RunBriefs(ctx, 5*time.Minute) }})
	}
	if h.portfolio != nil && h.portfolio.Live() {
		out = append(out, kit.Job{Name: "spot at purchase refresh", Run: func(ctx context.Context) { h.portfolio.RunSpotRefresh(ctx, time.Minute) }})
	}
	if h.social != nil {
		out = append(out, kit.Job{Name: "article viewer pruning", Run: func(ctx context.Context) { h.social.RunPruner(ctx, 10*time.Minute) }})
	}
	if h.alerts != nil {
		out = append(out, kit.Job{Name: "price alerts", Run: h.alerts.Run})
	}
	return out
}
