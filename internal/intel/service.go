package intel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/enum"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// llmArticleTimeout bounds one model call; the writer falls back to the built-in text past it.
const llmArticleTimeout = 45 * time.Second

// Config is market intelligence's view of the outside world.
type Config struct {
	// Offline never polls feeds or CME and never asks a language model.
	Offline bool
	// Interval is how often the scheduler runs (OUNCE_INTEL_INTERVAL); zero means hourly.
	Interval time.Duration
	// LLMBaseURL, LLMModel and LLMAPIKey configure an OpenAI-compatible writer; without a
	// base URL and a model every article comes from the built-in writer.
	LLMBaseURL, LLMModel, LLMAPIKey string
}

// Deps are what the market-intelligence service is built from.
type Deps struct {
	Store *db.Store
	// Market is the live price board articles and classification quote; nil means no prices.
	Market *prices.Service
	// News ingests the feeds; Vault serves and fetches the COMEX figures.
	News   *news.Service
	Vault  *comex.Service
	Config Config
	Logger *slog.Logger
	Now    func() time.Time
}

// Service holds the market-intelligence use cases: the headline list, Stack Signal articles,
// the ingestion-and-writing run, first-start seeding and the scheduler that repeats the run.
// The writers in this package know nothing of storage or news feeds; the Service is the
// caller that maps stored headlines to Stories and stores what the writers produce.
type Service struct {
	store  Store
	market *prices.Service
	news   *news.Service
	vault  *comex.Service
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	writer Writer
}

// New builds the service. The language-model client is made here from Config; offline or
// unconfigured, there is none.
func New(d Deps) *Service {
	d.Logger = cmp.Or(d.Logger, slog.Default())
	d.Now = wallclock.Or(d.Now)
	s := &Service{store: d.Store, market: d.Market, news: d.News, vault: d.Vault, cfg: d.Config, log: d.Logger, now: d.Now}
	if s.news == nil {
		s.news = news.New(news.Deps{Store: d.Store, Config: news.Config{Offline: d.Config.Offline}, Logger: d.Logger, Now: d.Now})
	}
	if s.vault == nil {
		s.vault = comex.New(comex.Deps{Store: d.Store, Config: comex.Config{Offline: d.Config.Offline}, Logger: d.Logger, Now: d.Now})
	}
	c := d.Config
	if !c.Offline && c.LLMBaseURL != "" && c.LLMModel != "" {
		s.writer = LLMWriter{BaseURL: c.LLMBaseURL, Model: c.LLMModel, APIKey: c.LLMAPIKey,
			Client: &http.Client{Timeout: llmArticleTimeout + 5*time.Second}, Timeout: llmArticleTimeout, Fallback: BuiltinWriter{}}
	}
	return s
}

// Headline list and Stack Signal limits.
const (
	DefaultLimit = 20
	MaxLimit     = 50
	// MaxOffset bounds offsets so a huge number is refused, not an overflow.
	MaxOffset = 1_000_000
	// MaxSlugQuery is the longest slug worth looking up.
	MaxSlugQuery = 200
)

// NewsQuery selects headlines. Zero values take the defaults: DefaultLimit items of every
// category and metal. Category is matched in any letter case ('-' or ' ' for '_').
type NewsQuery struct {
	Limit    int
	Category string
	Metal    metals.Metal
}

// NewsPage is one page of headlines, newest first, and how many match in all.
type NewsPage struct {
	Items []db.NewsItem
	Limit int
	Total int
}

func checkLimit(n int) (int, error) {
	if n == 0 {
		return DefaultLimit, nil
	}
	if n < 1 || n > MaxLimit {
		return 0, apperr.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", MaxLimit))
	}
	return n, nil
}

// NewsCategoryNames lists the eight headline categories, for enums and messages.
func NewsCategoryNames() []string { return enum.Strings(news.Categories) }

// MarketIntel is the headline list: demo items are left out once real news exists.
func (s *Service) MarketIntel(ctx context.Context, q NewsQuery) (NewsPage, error) {
	n, err := checkLimit(q.Limit)
	if err != nil {
		return NewsPage{}, err
	}
	var cat string
	if strings.TrimSpace(q.Category) != "" {
		c, err := news.ParseCategory(q.Category)
		if err != nil {
			return NewsPage{}, apperr.InvalidField("category", "must be one of "+strings.Join(NewsCategoryNames(), ", "))
		}
		cat = string(c)
	}
	if q.Metal != "" && !q.Metal.Valid() {
		return NewsPage{}, apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
	}
	items, total, err := s.store.NewsItems(ctx, db.NewsFilter{Category: cat, Metal: string(q.Metal), Limit: n})
	if err != nil {
		return NewsPage{}, err
	}
	return NewsPage{Items: items, Limit: n, Total: total}, nil
}

// ArticleCategories lists the article categories: the eight news categories and SYNTHESIS.
func ArticleCategories() []string { return append(NewsCategoryNames(), CategorySynthesis) }

// ParseArticleCategory accepts an article category in any letter case ('-' or ' ' for '_');
// empty means every category.
func ParseArticleCategory(raw string) (string, error) {
	v := strings.ToUpper(strings.TrimSpace(raw))
	if v == "" {
		return "", nil
	}
	v = strings.NewReplacer("-", "_", " ", "_").Replace(v)
	for _, c := range ArticleCategories() {
		if v == c {
			return c, nil
		}
	}
	return "", apperr.InvalidField("category", "must be one of "+strings.Join(ArticleCategories(), ", "))
}

// SignalQuery selects Stack Signal articles. Zero values take the defaults: DefaultLimit
// articles from the newest, of every category.
type SignalQuery struct {
	Limit    int
	Offset   int
	Category string
}

// ArticlePage is one page of articles, newest first, and how many match in all.
type ArticlePage struct {
	Articles []db.Article
	Limit    int
	Offset   int
	Total    int
}

// StackSignal is the article feed.
func (s *Service) StackSignal(ctx context.Context, q SignalQuery) (ArticlePage, error) {
	n, err := checkLimit(q.Limit)
	if err != nil {
		return ArticlePage{}, err
	}
	if q.Offset < 0 || q.Offset > MaxOffset {
		return ArticlePage{}, apperr.InvalidField("offset", fmt.Sprintf("must be between 0 and %d", MaxOffset))
	}
	cat, err := ParseArticleCategory(q.Category)
	if err != nil {
		return ArticlePage{}, err
	}
	list, total, err := s.store.Articles(ctx, db.ArticleFilter{Category: cat, Limit: n, Offset: q.Offset})
	if err != nil {
		return ArticlePage{}, err
	}
	return ArticlePage{Articles: list, Limit: n, Offset: q.Offset, Total: total}, nil
}

// LatestSynthesis is the newest daily synthesis (a real one whenever one exists).
func (s *Service) LatestSynthesis(ctx context.Context) (db.Article, error) {
	a, err := s.store.LatestSynthesis(ctx)
	if errors.Is(err, db.ErrNotFound) {
		return db.Article{}, apperr.New(apperr.NotFound, "no daily synthesis has been written yet")
	}
	return a, err
}

// Article is one article by its slug.
func (s *Service) Article(ctx context.Context, slug string) (db.Article, error) {
	if slug == "" || len(slug) > MaxSlugQuery {
		return db.Article{}, apperr.NotFoundf("article")
	}
	a, err := s.store.ArticleBySlug(ctx, slug)
	if errors.Is(err, db.ErrNotFound) {
		return db.Article{}, apperr.NotFoundf("article")
	}
	return a, err
}

// priceContext is what the classifier and the writers may quote: the live board, flagged
// stale when any price did not refresh on time. No price service means no prices at all.
func (s *Service) priceContext() news.PriceContext {
	pc := news.PriceContext{Prices: map[metals.Metal]news.PricePoint{}}
	if s.market == nil {
		return pc
	}
	for m, sp := range s.market.Snapshot().Prices {
		if sp.Price.IsPositive() {
			pc.Prices[m] = news.PricePoint{Price: sp.Price, ChangePct: sp.ChangePct, Day: sp.Session}
			pc.Stale = pc.Stale || sp.Stale
		}
	}
	return pc
}
