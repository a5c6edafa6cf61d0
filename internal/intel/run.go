package intel

import (
	"context"
	"errors"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
)

// Limits of one writing run.
const (
	// maxArticlesPerRun caps the clusters written up in one run, most relevant first.
	maxArticlesPerRun = 8
	// GenerateLLMBudget is how long a run someone waits for (the generate endpoint) may
	// spend waiting on a model in all; articles past it are written by the built-in writer.
	GenerateLLMBudget = 40 * time.Second
	// scheduledLLMBudget is the same budget for a scheduled run, which keeps no one waiting.
	scheduledLLMBudget = 10 * time.Minute
	// vaultLineMaxAge keeps old warehouse figures out of the daily synthesis.
	vaultLineMaxAge = 10 * 24 * time.Hour
)

// RunResult is what one ingestion-and-writing run did. Articles are only those this run
// stored; a rerun on the same day stores nothing it already has.
type RunResult struct {
	Offline    bool
	DemoSeeded bool
	// Ingested counts the new headlines stored.
	Ingested  int
	Articles  []db.Article
	Synthesis *db.Article
	// Skipped counts articles already stored, left as they were.
	Skipped int
	// Writer is BuiltinName or "llm:<model>".
	Writer string
	Feeds  []db.FeedHealth
	Vault  []comex.FetchResult
}

// EnsureSeed makes a first start show something at once, without touching the network: when
// no news is stored it stores the demo items (classified against the current prices) and
// writes demo-labelled articles and a synthesis from them with the built-in writer; when no
// vault data is stored it stores the bundled COMEX history. It is cheap when there is nothing
// to do, so it may run at every start.
func (s *Service) EnsureSeed(ctx context.Context) error {
	_, err := s.ensureSeed(ctx)
	return err
}

func (s *Service) ensureSeed(ctx context.Context) (bool, error) {
	if _, err := s.vault.Seed(ctx); err != nil {
		return false, err
	}
	seeded, err := s.news.SeedDemo(ctx, s.priceContext())
	if err != nil {
		return false, err
	}
	if n, err := s.store.CountArticles(ctx); err != nil || n > 0 {
		return seeded, err
	}
	if _, err := s.writeArticles(ctx, nil, 0); err != nil {
		return seeded, err
	}
	return seeded, nil
}

// Run is one ingestion-and-writing run, shared by the generate endpoint and the scheduler:
// seed on first use, poll feeds and CME (unless offline), then write articles for new
// clusters and the day's synthesis if it is not written yet. llmBudget bounds the time spent
// waiting on a language model; the built-in writer covers whatever is left.
func (s *Service) Run(ctx context.Context, llmBudget time.Duration) (RunResult, error) {
	out := RunResult{Offline: s.cfg.Offline, Writer: BuiltinName}
	seeded, err := s.ensureSeed(ctx)
	if err != nil {
		return out, err
	}
	out.DemoSeeded = seeded
	if !s.cfg.Offline {
		n, feeds, err := s.news.Ingest(ctx, s.priceContext())
		if err != nil {
			return out, err
		}
		out.Ingested, out.Feeds = n, feeds
		out.Vault = s.vault.FetchLatest(ctx)
	}
	if s.writer != nil {
		out.Writer = s.writer.Name()
	}
	res, err := s.writeArticles(ctx, s.writer, llmBudget)
	if err != nil {
		return out, err
	}
	out.Articles, out.Synthesis, out.Skipped = res.articles, res.synthesis, res.skipped
	return out, nil
}

// writeResult is what writeArticles stored.
type writeResult struct {
	articles  []db.Article
	synthesis *db.Article
	skipped   int
}

// storyOf maps a stored headline to the writers' input.
func storyOf(it db.NewsItem) Story {
	ms := make([]metals.Metal, len(it.Metals))
	for i, m := range it.Metals {
		ms[i] = metals.Metal(m)
	}
	return Story{ID: it.ID, Title: it.Title, URL: it.URL, Source: it.Source, Summary: it.Summary, Analysis: it.Analysis,
		Category: it.Category, Metals: ms, Relevance: it.Relevance, PublishedAt: it.PublishedAt, Demo: it.Demo}
}

// articleRow turns a written article into its stored row.
func articleRow(a Article) db.Article {
	ms := make(db.MetalList, len(a.Metals))
	for i, m := range a.Metals {
		ms[i] = string(m)
	}
	src := make(db.ArticleSources, len(a.Sources))
	for i, x := range a.Sources {
		src[i] = db.ArticleSource{Name: x.Name, Title: x.Title, URL: x.URL}
	}
	price := func(m metals.Metal) decimal.NullDecimal {
		if p, ok := a.PricesAtPublish[m]; ok {
			return decimal.NewNullDecimal(p)
		}
		return decimal.NullDecimal{}
	}
	return db.Article{
		Slug: a.Slug, Title: a.Title, Summary: a.Summary, Commentary: a.Commentary, Category: a.Category, Metals: ms, Sources: src,
		PriceGold: price(metals.Gold), PriceSilver: price(metals.Silver), PricePlatinum: price(metals.Platinum), PricePalladium: price(metals.Palladium),
		PublishedAt: a.PublishedAt, IsSynthesis: a.IsSynthesis, Demo: a.Demo, Writer: a.Writer, FallbackReason: a.FallbackReason,
	}
}

// writeContext is the market data writers may cite: the live board, and warehouse figures
// recent enough to be news.
func (s *Service) writeContext(ctx context.Context, now time.Time) (Context, error) {
	pc := s.priceContext()
	c := Context{Now: now, Prices: map[metals.Metal]PricePoint{}, Stale: pc.Stale}
	if s.market != nil {
		// With the dates of each price and its change, so old moves are never the day's.
		for m, sp := range s.market.Snapshot().Prices {
			if sp.Price.IsPositive() {
				c.Prices[m] = PricePoint{Price: sp.Price, ChangePct: sp.ChangePct, Day: sp.Session, From: sp.PrevDate, Today: sp.ChangeIsToday()}
			}
		}
	}
	for _, m := range metals.All {
		w, found, err := s.vault.Current(ctx, m)
		if err != nil {
			return c, err
		}
		if !found || now.Sub(w.AsOf) > vaultLineMaxAge {
			continue
		}
		c.Vault = append(c.Vault, VaultLine{Metal: m, Registered: w.Registered, RegisteredChange: w.RegisteredChange,
			Combined: w.Combined, CombinedChange: w.CombinedChange, AsOf: w.AsOf})
	}
	return c, nil
}

// writeArticles writes up the clusters of the last two days that have no article yet, and the
// day's synthesis when it is missing. Drafts come from the built-in writer, which is pure and
// fast, so the slugs (and with them idempotency) never depend on a model; a configured model
// then rewrites the prose of the new ones only, within llmBudget.
func (s *Service) writeArticles(ctx context.Context, w Writer, llmBudget time.Duration) (writeResult, error) {
	var res writeResult
	now := s.now().UTC().Truncate(time.Second)
	items, err := s.store.RecentNews(ctx, now.Add(-ClusterWindow), 2000)
	if err != nil {
		return res, err
	}
	stories := make([]Story, len(items))
	for i, it := range items {
		stories[i] = storyOf(it)
	}
	c, err := s.writeContext(ctx, now)
	if err != nil {
		return res, err
	}
	llmCtx, cancel := context.WithTimeout(ctx, max(llmBudget, 0))
	defer cancel()
	if w == nil {
		cancel()
	}
	useLLM := func() bool { return w != nil && llmCtx.Err() == nil }

	drafts, genErr := Generate(ctx, nil, stories, c, maxArticlesPerRun)
	if genErr != nil {
		s.log.Warn("writing articles", "err", genErr)
	}
	clusters := Cluster(stories, now)
	if len(clusters) > maxArticlesPerRun {
		clusters = clusters[:maxArticlesPerRun]
	}
	// Drafts follow the clusters one to one unless the built-in writer skipped one.
	aligned := len(drafts) == len(clusters)
	for i, d := range drafts {
		exists, err := s.store.ArticleExists(ctx, d.Slug)
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
				s.log.Warn("language model article failed; keeping the built-in text", "slug", d.Slug, "err", err)
			}
		}
		if a.FallbackReason != "" {
			s.log.Warn("article written by the fallback writer", "slug", a.Slug, "reason", a.FallbackReason)
		}
		stored, ok, err := s.store.InsertArticle(ctx, articleRow(a))
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
	top := TopStories(stories, now)
	if len(top) == 0 && (len(c.Prices) == 0 || c.Stale) {
		return res, nil
	}
	draft, err := GenerateSynthesis(ctx, nil, stories, c)
	if errors.Is(err, ErrNothingToWrite) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	if draft.Demo {
		// A demo synthesis keeps out of the way of the real one the same day.
		draft.Slug += "-demo"
	}
	exists, err := s.store.SynthesisExists(ctx, db.NewDate(now), draft.Demo)
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
			s.log.Warn("language model synthesis failed; keeping the built-in text", "err", err)
		}
	}
	if a.FallbackReason != "" {
		s.log.Warn("synthesis written by the fallback writer", "reason", a.FallbackReason)
	}
	stored, ok, err := s.store.InsertArticle(ctx, articleRow(a))
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

// schedulerLockKey is the advisory lock of the ingestion leader among instances sharing
// PostgreSQL.
const schedulerLockKey = 7302003

// schedulerFollowerRetry is how often an instance without the lock asks for it again, so a
// new leader takes over soon after the old one stops.
const schedulerFollowerRetry = 5 * time.Second

// defaultInterval applies when Config.Interval is zero.
const defaultInterval = time.Hour

// SchedulerName names the scheduler among the server's background jobs (in logs).
const SchedulerName = "market intelligence"

// Scheduler is the background job of market intelligence: it runs ingestion and writing at
// start and then every interval until ctx ends, with PostgreSQL only on the instance holding
// the advisory lock.
func (s *Service) Scheduler(ctx context.Context) {
	s.store.RunAsLeader(ctx, schedulerLockKey, schedulerFollowerRetry, func(ctx context.Context) {
		s.log.Info("market intelligence: this instance runs ingestion")
		s.runEvery(ctx)
	})
}

// runEvery runs once at once and then every interval until ctx ends.
func (s *Service) runEvery(ctx context.Context) {
	every := s.cfg.Interval
	if every <= 0 {
		every = defaultInterval
	}
	for {
		s.scheduledRun(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// scheduledRun is one scheduled run, bounded so a stuck source cannot hold the loop.
func (s *Service) scheduledRun(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, scheduledLLMBudget+5*time.Minute)
	defer cancel()
	start := time.Now()
	res, err := s.Run(rctx, scheduledLLMBudget)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("market intelligence run failed", "err", err)
		}
		return
	}
	synth := ""
	if res.Synthesis != nil {
		synth = res.Synthesis.Slug
	}
	s.log.Info("market intelligence run", "ingested", res.Ingested, "articles", len(res.Articles), "synthesis", synth,
		"skipped", res.Skipped, "writer", res.Writer, "offline", res.Offline, "duration_ms", time.Since(start).Milliseconds())
}
