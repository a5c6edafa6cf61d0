package intelhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
)

// NewsItemJSON is the wire form of one market-intel headline.
type NewsItemJSON struct {
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	URL         string    `json:"url"`
	Source      string    `json:"source"`
	PublishedAt time.Time `json:"published_at"`
	Category    string    `json:"category" schema:"enum=NewsCategories"`
	Metals      []string  `json:"metals" schema:"items.enum=metals"`
	Relevance   int       `json:"relevance" schema:"min=0,max=100" doc:"How much the item matters to a holder of physical metal, 0–100."`
	Analysis    string    `json:"analysis" doc:"A short note on what the headline means for a stacker."`
	// Demo marks bundled sample content, never real news.
	Demo bool `json:"demo" doc:"True for bundled sample content shown before any real news was fetched."`
}

// newsItemJSON renders a stored headline.
func newsItemJSON(it intel.NewsItem) NewsItemJSON {
	return NewsItemJSON{ID: it.ID, Title: it.Title, URL: it.URL, Source: it.Source, PublishedAt: it.PublishedAt.UTC(),
		Category: it.Category, Metals: kit.MetalList(it.Metals), Relevance: it.Relevance, Analysis: it.Analysis, Demo: it.Demo}
}

// MarketIntelPage is one page of the market-intel list, newest first.
type MarketIntelPage struct {
	Items []NewsItemJSON `json:"items" schema:"items.ref=MarketIntelItem"`
	Limit int            `json:"limit"`
	Total int            `json:"total"`
}

// newsQuery reads the market-intel parameters; the category is matched by the service.
func newsQuery(limit, category, metal string) (intel.NewsQuery, error) {
	n, err := kit.ParseIntParam("limit", limit, intel.DefaultLimit, 1, intel.MaxLimit)
	if err != nil {
		return intel.NewsQuery{}, err
	}
	m, err := kit.ParseMetalParam(metal, "")
	if err != nil {
		return intel.NewsQuery{}, err
	}
	return intel.NewsQuery{Limit: n, Category: category, Metal: metals.Metal(m)}, nil
}

// marketIntel parses, asks the service and renders: GET /v1/market-intel.
func (h *Handlers) marketIntel(ctx context.Context, limit, category, metal string) (MarketIntelPage, error) {
	q, err := newsQuery(limit, category, metal)
	if err != nil {
		return MarketIntelPage{}, err
	}
	p, err := h.intel.MarketIntel(ctx, q)
	if err != nil {
		return MarketIntelPage{}, err
	}
	return MarketIntelPage{Items: kit.MapSlice(p.Items, newsItemJSON), Limit: p.Limit, Total: p.Total}, nil
}

// APIMarketIntel answers GET /v1/market-intel.
func (h *Handlers) APIMarketIntel(c *fiber.Ctx) error {
	p, err := h.marketIntel(h.Ctx(c), c.Query("limit"), c.Query("category"), c.Query("metal"))
	return kit.JSONResult(c, p, err)
}

// FeedHealthJSON is the wire form of one feed's health.
type FeedHealthJSON struct {
	URL         string     `json:"url"`
	Name        string     `json:"name"`
	LastOK      *time.Time `json:"last_ok"`
	LastAttempt *time.Time `json:"last_attempt"`
	LastError   *string    `json:"last_error"`
}

func feedHealthJSON(f intel.FeedHealth) FeedHealthJSON {
	out := FeedHealthJSON{URL: f.URL, Name: f.Name}
	if f.LastOK != nil {
		t := f.LastOK.UTC()
		out.LastOK = &t
	}
	if f.LastAttempt != nil {
		t := f.LastAttempt.UTC()
		out.LastAttempt = &t
	}
	if f.LastError != "" {
		e := f.LastError
		out.LastError = &e
	}
	return out
}

// IntelRunJSON is what one ingestion-and-writing run did. Articles are only those this run
// stored; a rerun on the same day stores nothing it already has.
type IntelRunJSON struct {
	Offline    bool             `json:"offline"`
	DemoSeeded bool             `json:"demo_seeded" doc:"True when this run stored the sample items of a first start."`
	Ingested   int              `json:"ingested" schema:"min=0" doc:"New headlines stored."`
	Articles   []ArticleJSON    `json:"articles" schema:"items.ref=StackSignalArticle" doc:"Articles stored by this run."`
	Synthesis  *ArticleJSON     `json:"synthesis" schema:"ref=StackSignalArticle" doc:"The synthesis stored by this run; null when the day's was already written or there was nothing to write."`
	Skipped    int              `json:"skipped" schema:"min=0" doc:"Articles already stored, left as they were."`
	Writer     string           `json:"writer"`
	Feeds      []FeedHealthJSON `json:"feeds" schema:"items.ref=FeedHealth"`
	Vault      []VaultFetchJSON `json:"vault" schema:"items.ref=VaultFetch"`
}

// intelRunJSON renders a run.
func intelRunJSON(r intel.RunResult) IntelRunJSON {
	out := IntelRunJSON{Offline: r.Offline, DemoSeeded: r.DemoSeeded, Ingested: r.Ingested, Skipped: r.Skipped, Writer: r.Writer,
		Articles: kit.MapSlice(r.Articles, articleJSON), Feeds: kit.MapSlice(r.Feeds, feedHealthJSON), Vault: kit.MapSlice(r.Vault, vaultFetchJSON)}
	if r.Synthesis != nil {
		s := articleJSON(*r.Synthesis)
		out.Synthesis = &s
	}
	return out
}

// APIIntelGenerate answers POST /v1/intelligence/generate (administrators only).
func (h *Handlers) APIIntelGenerate(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(account.User) (intel.RunResult, error) {
		return h.intel.Run(h.Ctx(c), intel.GenerateLLMBudget)
	}, intelRunJSON)
}
