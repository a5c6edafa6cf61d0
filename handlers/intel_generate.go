package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
)

// Limits of one writing run.
const (
	// maxArticlesPerRun caps the clusters written up in one run, most relevant first.
	maxArticlesPerRun = 8
	// llmArticleTimeout bounds one model call; the writer falls back to the built-in text past it.
	llmArticleTimeout = 45 * time.Second
	// generateLLMBudget is how long a request to the generate endpoint may spend waiting on a
	// model in all; articles past it are written by the built-in writer.
	generateLLMBudget = 40 * time.Second
	// scheduledLLMBudget is the same budget for a scheduled run, which keeps no one waiting.
	scheduledLLMBudget = 10 * time.Minute
	// vaultLineMaxAge keeps old warehouse figures out of the daily synthesis.
	vaultLineMaxAge = 10 * 24 * time.Hour
)

// IntelRunJSON is what one ingestion-and-writing run did. Articles are only those this run
// stored; a rerun on the same day stores nothing it already has.
type IntelRunJSON struct {
	Offline    bool             `json:"offline"`
	DemoSeeded bool             `json:"demo_seeded"`
	Ingested   int              `json:"ingested"`
	Articles   []ArticleJSON    `json:"articles"`
	Synthesis  *ArticleJSON     `json:"synthesis"`
	Skipped    int              `json:"skipped"`
	Writer     string           `json:"writer"`
	Feeds      []FeedHealthJSON `json:"feeds"`
	Vault      []VaultFetchJSON `json:"vault"`
}

// llmWriter is the configured language model writer, or nil when none is configured or the
// service is offline.
func (h *Handlers) llmWriter() intel.Writer {
	if h.cfg.Offline || h.cfg.LLMBaseURL == "" || h.cfg.LLMModel == "" {
		return nil
	}
	return intel.LLMWriter{BaseURL: h.cfg.LLMBaseURL, Model: h.cfg.LLMModel, APIKey: h.cfg.LLMAPIKey,
		Client: &http.Client{Timeout: llmArticleTimeout + 5*time.Second}, Timeout: llmArticleTimeout, Fallback: intel.BuiltinWriter{}}
}

// EnsureIntelSeed makes a first start show something at once, without touching the network:
// when no news is stored it stores the demo items (classified against the current prices)
// and writes demo-labelled articles and a synthesis from them with the built-in writer; when
// no vault data is stored it stores the bundled COMEX history. It is cheap when there is
// nothing to do, so it may run at every start.
func (h *Handlers) EnsureIntelSeed(ctx context.Context) error {
	_, err := h.ensureIntelSeed(ctx)
	return err
}

func (h *Handlers) ensureIntelSeed(ctx context.Context) (bool, error) {
	if _, err := h.seedVault(ctx); err != nil {
		return false, err
	}
	all, _, err := h.store.CountNews(ctx)
	if err != nil {
		return false, err
	}
	seeded := false
	if all == 0 {
		now := h.now().UTC()
		pc := h.priceContext()
		demo := news.DemoItems(now)
		rows := make([]db.NewsItem, len(demo))
		for i, it := range demo {
			rows[i] = newsItemRow(news.Classify(it, pc), "")
		}
		if _, err := h.store.InsertNewsItems(ctx, rows); err != nil {
			return false, err
		}
		seeded = true
	}
	if n, err := h.store.CountArticles(ctx); err != nil || n > 0 {
		return seeded, err
	}
	if _, err := h.writeArticles(ctx, nil, 0); err != nil {
		return seeded, err
	}
	return seeded, nil
}

// RunIntel is one ingestion-and-writing run, shared by the generate endpoint and the
// scheduler: seed on first use, poll feeds and CME (unless offline), then write articles for
// new clusters and the day's synthesis if it is not written yet. llmBudget bounds the time
// spent waiting on a language model; the built-in writer covers whatever is left.
func (h *Handlers) RunIntel(ctx context.Context, llmBudget time.Duration) (IntelRunJSON, error) {
	out := IntelRunJSON{Offline: h.cfg.Offline, Articles: []ArticleJSON{}, Feeds: []FeedHealthJSON{}, Vault: []VaultFetchJSON{}, Writer: intel.BuiltinName}
	seeded, err := h.ensureIntelSeed(ctx)
	if err != nil {
		return out, err
	}
	out.DemoSeeded = seeded
	if !h.cfg.Offline {
		n, feeds, err := h.ingestNews(ctx)
		if err != nil {
			return out, err
		}
		out.Ingested, out.Feeds = n, feeds
		out.Vault = h.fetchVault(ctx)
	}
	w := h.llmWriter()
	if w != nil {
		out.Writer = w.Name()
	}
	res, err := h.writeArticles(ctx, w, llmBudget)
	if err != nil {
		return out, err
	}
	for _, a := range res.articles {
		out.Articles = append(out.Articles, ArticleToJSON(a))
	}
	if res.synthesis != nil {
		s := ArticleToJSON(*res.synthesis)
		out.Synthesis = &s
	}
	out.Skipped = res.skipped
	return out, nil
}

// writeResult is what writeArticles stored.
type writeResult struct {
	articles  []db.Article
	synthesis *db.Article
	skipped   int
}

// storyOf maps a stored item to the writer's input.
func storyOf(it db.NewsItem) intel.Story {
	ms := make([]metals.Metal, len(it.Metals))
	for i, m := range it.Metals {
		ms[i] = metals.Metal(m)
	}
	return intel.Story{ID: it.ID, Title: it.Title, URL: it.URL, Source: it.Source, Summary: it.Summary, Analysis: it.Analysis,
		Category: it.Category, Metals: ms, Relevance: it.Relevance, PublishedAt: it.PublishedAt, Demo: it.Demo}
}

// writeContext is the market data writers may cite: the live board, and warehouse figures
// recent enough to be news.
func (h *Handlers) writeContext(ctx context.Context, now time.Time) (intel.Context, error) {
	pc := h.priceContext()
	c := intel.Context{Now: now, Prices: map[metals.Metal]intel.PricePoint{}, Stale: pc.Stale}
	for m, p := range pc.Prices {
		c.Prices[m] = intel.PricePoint{Price: p.Price, ChangePct: p.ChangePct}
	}
	for _, m := range metals.All {
		d, found, err := h.loadVault(ctx, m)
		if err != nil {
			return c, err
		}
		if !found || now.Sub(d.metrics.AsOf) > vaultLineMaxAge {
			continue
		}
		mt := d.metrics
		c.Vault = append(c.Vault, intel.VaultLine{Metal: m, Registered: mt.Registered, RegisteredChange: mt.RegisteredChange,
			Combined: mt.Combined, CombinedChange: mt.CombinedChange, AsOf: mt.AsOf})
	}
	return c, nil
}

// writeArticles writes up the clusters of the last two days that have no article yet, and the
// day's synthesis when it is missing. Drafts come from the built-in writer, which is pure and
// fast, so the slugs (and with them idempotency) never depend on a model; a configured model
// then rewrites the prose of the new ones only, within llmBudget.
func (h *Handlers) writeArticles(ctx context.Context, w intel.Writer, llmBudget time.Duration) (writeResult, error) {
	var res writeResult
	now := h.now().UTC().Truncate(time.Second)
	items, err := h.store.RecentNews(ctx, now.Add(-intel.ClusterWindow), 2000)
	if err != nil {
		return res, err
	}
	stories := make([]intel.Story, len(items))
	for i, it := range items {
		stories[i] = storyOf(it)
	}
	c, err := h.writeContext(ctx, now)
	if err != nil {
		return res, err
	}
	llmCtx, cancel := context.WithTimeout(ctx, max(llmBudget, 0))
	defer cancel()
	if w == nil {
		cancel()
	}
	useLLM := func() bool { return w != nil && llmCtx.Err() == nil }

	drafts, genErr := intel.Generate(ctx, nil, stories, c, maxArticlesPerRun)
	if genErr != nil {
		h.log.Warn("writing articles", "err", genErr)
	}
	clusters := intel.Cluster(stories, now)
	if len(clusters) > maxArticlesPerRun {
		clusters = clusters[:maxArticlesPerRun]
	}
	// Drafts follow the clusters one to one unless the built-in writer skipped one.
	aligned := len(drafts) == len(clusters)
	for i, d := range drafts {
		exists, err := h.store.ArticleExists(ctx, d.Slug)
		if err != nil {
			return res, err
		}
		if exists {
			res.skipped++
			continue
		}
		a := d
		if aligned && useLLM() {
			if la, err := w.Article(llmCtx, clusters[i], c); err == nil {
				la.Slug = d.Slug
				a = la
			} else {
				h.log.Warn("language model article failed; keeping the built-in text", "slug", d.Slug, "err", err)
			}
		}
		if a.FallbackReason != "" {
			h.log.Warn("article written by the fallback writer", "slug", a.Slug, "reason", a.FallbackReason)
		}
		stored, ok, err := h.store.InsertArticle(ctx, articleRow(a))
		if err != nil {
			return res, err
		}
		if ok {
			res.articles = append(res.articles, stored)
		} else {
			res.skipped++
		}
	}

	// The synthesis: one a day. A price-only synthesis needs current prices to say anything.
	top := intel.TopStories(stories, now)
	if len(top) == 0 && (len(c.Prices) == 0 || c.Stale) {
		return res, nil
	}
	draft, err := intel.GenerateSynthesis(ctx, nil, stories, c)
	if errors.Is(err, intel.ErrNothingToWrite) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	if draft.Demo {
		// A demo synthesis keeps out of the way of the real one the same day.
		draft.Slug += "-demo"
	}
	exists, err := h.store.SynthesisExists(ctx, db.NewDate(now), draft.Demo)
	if err != nil {
		return res, err
	}
	if exists {
		res.skipped++
		return res, nil
	}
	a := draft
	if useLLM() {
		if la, err := w.Synthesis(llmCtx, top, c); err == nil {
			la.Slug = draft.Slug
			a = la
		} else {
			h.log.Warn("language model synthesis failed; keeping the built-in text", "err", err)
		}
	}
	if a.FallbackReason != "" {
		h.log.Warn("synthesis written by the fallback writer", "reason", a.FallbackReason)
	}
	stored, ok, err := h.store.InsertArticle(ctx, articleRow(a))
	if err != nil {
		return res, err
	}
	if ok {
		res.synthesis = &stored
	} else {
		res.skipped++
	}
	return res, nil
}

// intelLockKey is the advisory lock of the ingestion leader among instances sharing PostgreSQL.
const intelLockKey = 7302003

// intelFollowerRetry is how often an instance without the lock asks for it again, so a new
// leader takes over soon after the old one stops.
const intelFollowerRetry = 5 * time.Second

// defaultIntelInterval applies when OUNCE_INTEL_INTERVAL is unset.
const defaultIntelInterval = time.Hour

// intelLoop runs ingestion and writing at start and then every interval until ctx ends; with
// PostgreSQL only on the instance holding the advisory lock.
func (h *Handlers) intelLoop(ctx context.Context) {
	h.store.RunAsLeader(ctx, intelLockKey, intelFollowerRetry, func(ctx context.Context) {
		h.log.Info("market intelligence: this instance runs ingestion")
		h.runIntelEvery(ctx)
	})
}

// runIntelEvery runs once at once and then every interval until ctx ends.
func (h *Handlers) runIntelEvery(ctx context.Context) {
	every := h.cfg.IntelInterval
	if every <= 0 {
		every = defaultIntelInterval
	}
	for {
		h.scheduledRun(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// scheduledRun is one scheduled run, bounded so a stuck source cannot hold the loop.
func (h *Handlers) scheduledRun(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, scheduledLLMBudget+5*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := h.RunIntel(rctx, scheduledLLMBudget)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Error("market intelligence run failed", "err", err)
		}
		return
	}
	synth := ""
	if res.Synthesis != nil {
		synth = res.Synthesis.Slug
	}
	h.log.Info("market intelligence run", "ingested", res.Ingested, "articles", len(res.Articles), "synthesis", synth,
		"skipped", res.Skipped, "writer", res.Writer, "offline", res.Offline, "duration_ms", time.Since(start).Milliseconds())
}
