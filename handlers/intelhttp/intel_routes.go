package intelhttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/intel"
)

// intelRoutes are the /v1 market-intel, Stack Signal and generation routes.
func (h *Handlers) intelRoutes() []kit.APIRoute {
	limit := kit.LimitParam(intel.MaxLimit, intel.DefaultLimit, "10")
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/market-intel", Auth: kit.AuthNone, Handler: h.APIMarketIntel, OperationID: "getMarketIntel", Tag: "Market intelligence",
			Summary:     "News headlines with analysis and category tags, newest first",
			Description: "Headlines from precious-metals news feeds, each tagged with one category, the metals it concerns, a relevance score and a short analysis. Before any feed has been fetched the list holds sample items marked demo; once real news exists, demo items are left out.",
			Params: []kit.Param{
				limit,
				{Name: "category", In: "query", Description: "Only this category (any letter case).", Schema: kit.Schema{"type": "string", "enum": intel.NewsCategoryNames()}, Example: "CENTRAL_BANK"},
				{Name: "metal", In: "query", Description: "Only items about this metal.", Schema: kit.MetalSchema(), Example: "silver"},
			},
			Responses: []kit.Response{
				{Status: 200, Description: "A page of headlines.", Schema: intelSchema(MarketIntelPage{})},
				kit.BadQuery(),
			},
			Example: "GET /v1/market-intel?limit=10&category=CENTRAL_BANK"},
		{Method: "GET", Path: "/v1/stack-signal", Auth: kit.AuthNone, Handler: h.APIStackSignal, OperationID: "getStackSignal", Tag: "Market intelligence",
			Summary:     "Stack Signal editorial articles with commentary and sources, newest first",
			Description: "Articles written from clusters of related recent headlines, plus one daily synthesis (category SYNTHESIS) tying together price moves, COMEX warehouse changes and the top stories. Articles written from sample stories are marked demo.",
			Params: []kit.Param{
				limit,
				kit.OffsetParam("Articles", intel.MaxOffset, "20"),
				{Name: "category", In: "query", Description: "Only this category (any letter case); SYNTHESIS selects the daily syntheses.", Schema: kit.Schema{"type": "string", "enum": intel.ArticleCategories()}, Example: "SYNTHESIS"},
			},
			Responses: []kit.Response{
				{Status: 200, Description: "A page of articles.", Schema: intelSchema(StackSignalPage{})},
				kit.BadQuery(),
			},
			Example: "GET /v1/stack-signal?limit=5"},
		// Registered before /{slug} so "latest" is never taken for a slug.
		{Method: "GET", Path: "/v1/stack-signal/latest", Auth: kit.AuthNone, Handler: h.APIStackSignalLatest, OperationID: "getLatestSynthesis", Tag: "Market intelligence",
			Summary: "The most recent daily synthesis article",
			Responses: []kit.Response{
				{Status: 200, Description: "The newest synthesis (a real one whenever one exists).", Schema: intelSchema(ArticleEnvelopeJSON{})},
				{Status: 404, Description: "No synthesis has been written yet."},
			},
			Example: "GET /v1/stack-signal/latest"},
		{Method: "GET", Path: "/v1/stack-signal/:slug", Auth: kit.AuthNone, Handler: h.APIStackSignalArticle, OperationID: "getStackSignalArticle", Tag: "Market intelligence",
			Summary: "One Stack Signal article by its slug",
			Params:  []kit.Param{kit.PathParam("slug", "The article's slug, as listed.", 200, "2026-11-22-daily-synthesis")},
			Responses: []kit.Response{
				{Status: 200, Description: "The article.", Schema: intelSchema(ArticleEnvelopeJSON{})},
				{Status: 404, Description: "No article with that slug."},
			},
			Example: "GET /v1/stack-signal/2026-11-22-daily-synthesis"},
		{Method: "POST", Path: "/v1/intelligence/generate", Auth: kit.AuthAdmin, Handler: h.APIIntelGenerate, OperationID: "generateIntelligence", Tag: "Market intelligence",
			Summary:     "Run news ingestion, classification and article writing now (administrators)",
			Description: "Polls the news feeds and the CME warehouse reports (unless the server is offline), stores new headlines, writes articles for new story clusters and the day's synthesis if it is missing, and returns what this run produced. Running it again the same day writes no duplicates. Needs the API key of an administrator.",
			Responses: []kit.Response{
				{Status: 200, Description: "What the run did.", Schema: intelSchema(IntelRunJSON{})},
				{Status: 503, Description: "The configured news feed list is unusable."},
			},
			Example: "POST /v1/intelligence/generate"},
	}
}

// PageRoutes are the Stack Signal, market-intel and Vault Watch pages.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthNone, []kit.PageRoute{
		{Method: "GET", Path: "/signal", Handler: h.SignalIndex},
		{Method: "GET", Path: "/intel", Handler: h.IntelIndex},
		{Method: "GET", Path: "/vault", Handler: h.VaultPage},
	})
}
