package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
)

// ArticleSourceJSON is one outlet an article links to.
type ArticleSourceJSON struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	URL   string `json:"url"`
}

// PricesAtPublishJSON holds the prices an article quoted when it was written; null for a
// metal it did not quote.
type PricesAtPublishJSON struct {
	Gold      *Num `json:"gold"`
	Silver    *Num `json:"silver"`
	Platinum  *Num `json:"platinum"`
	Palladium *Num `json:"palladium"`
}

// ArticleJSON is the wire form of a Stack Signal article.
type ArticleJSON struct {
	ID              string              `json:"id"`
	Slug            string              `json:"slug"`
	Title           string              `json:"title"`
	Summary         string              `json:"summary"`
	Commentary      string              `json:"commentary"`
	Category        string              `json:"category"`
	Metals          []string            `json:"metals"`
	Sources         []ArticleSourceJSON `json:"sources"`
	PricesAtPublish PricesAtPublishJSON `json:"prices_at_publish"`
	PublishedAt     time.Time           `json:"published_at"`
	IsSynthesis     bool                `json:"is_synthesis"`
	ViewCount       int64               `json:"view_count"`
	LikeCount       int64               `json:"like_count"`
	CommentCount    int64               `json:"comment_count"`
	// Demo marks articles written from the bundled sample stories.
	Demo bool `json:"demo"`
	// Writer is "built-in" or "llm:<model>".
	Writer string `json:"writer"`
}

func optNullMoney(d decimal.NullDecimal) *Num {
	if !d.Valid {
		return nil
	}
	return optMoney(&d.Decimal)
}

// ArticleToJSON renders a stored article.
func ArticleToJSON(a db.Article) ArticleJSON {
	ms := []string(a.Metals)
	if ms == nil {
		ms = []string{}
	}
	src := make([]ArticleSourceJSON, len(a.Sources))
	for i, s := range a.Sources {
		src[i] = ArticleSourceJSON{Name: s.Name, Title: s.Title, URL: s.URL}
	}
	return ArticleJSON{
		ID: a.ID, Slug: a.Slug, Title: a.Title, Summary: a.Summary, Commentary: a.Commentary, Category: a.Category,
		Metals: ms, Sources: src,
		PricesAtPublish: PricesAtPublishJSON{Gold: optNullMoney(a.PriceGold), Silver: optNullMoney(a.PriceSilver),
			Platinum: optNullMoney(a.PricePlatinum), Palladium: optNullMoney(a.PricePalladium)},
		PublishedAt: a.PublishedAt.UTC(), IsSynthesis: a.IsSynthesis, ViewCount: a.ViewCount, LikeCount: a.LikeCount,
		CommentCount: a.CommentCount, Demo: a.Demo, Writer: a.Writer,
	}
}

// articleRow turns a written article into its stored row.
func articleRow(a intel.Article) db.Article {
	ms := make(db.MetalList, len(a.Metals))
	for i, m := range a.Metals {
		ms[i] = string(m)
	}
	src := make(db.ArticleSources, len(a.Sources))
	for i, s := range a.Sources {
		src[i] = db.ArticleSource{Name: s.Name, Title: s.Title, URL: s.URL}
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

// StackSignalPage is one page of Stack Signal articles, newest first.
type StackSignalPage struct {
	Articles []ArticleJSON `json:"articles"`
	Limit    int           `json:"limit"`
	Offset   int           `json:"offset"`
	Total    int           `json:"total"`
}

// signalCategoryNames lists the article categories: the eight news categories and SYNTHESIS.
func signalCategoryNames() []string { return append(newsCategoryNames(), intel.CategorySynthesis) }

// parseSignalCategory accepts an article category in any letter case ('-' or ' ' for '_').
func parseSignalCategory(raw string) (string, error) {
	v := strings.ToUpper(strings.TrimSpace(raw))
	if v == "" {
		return "", nil
	}
	v = strings.NewReplacer("-", "_", " ", "_").Replace(v)
	for _, c := range signalCategoryNames() {
		if v == c {
			return c, nil
		}
	}
	return "", Invalid("category", "must be one of "+strings.Join(signalCategoryNames(), ", "))
}

// maxOffset bounds offsets so a huge number is a 400, not an overflow.
const maxOffset = 1_000_000

// StackSignal is the use case behind the article feed: limit 1…50 (default 20), offset ≥ 0
// (default 0), category one of the eight or SYNTHESIS. Parameters arrive as raw query strings.
func (h *Handlers) StackSignal(ctx context.Context, limit, offset, category string) (StackSignalPage, error) {
	n, err := parseIntParam("limit", limit, 20, 1, 50)
	if err != nil {
		return StackSignalPage{}, err
	}
	off, err := parseIntParam("offset", offset, 0, 0, maxOffset)
	if err != nil {
		return StackSignalPage{}, err
	}
	cat, err := parseSignalCategory(category)
	if err != nil {
		return StackSignalPage{}, err
	}
	list, total, err := h.store.Articles(ctx, db.ArticleFilter{Category: cat, Limit: n, Offset: off})
	if err != nil {
		return StackSignalPage{}, err
	}
	out := StackSignalPage{Articles: make([]ArticleJSON, len(list)), Limit: n, Offset: off, Total: total}
	for i, a := range list {
		out.Articles[i] = ArticleToJSON(a)
	}
	return out, nil
}

// LatestSynthesis returns the newest daily synthesis (a real one whenever one exists).
func (h *Handlers) LatestSynthesis(ctx context.Context) (ArticleJSON, error) {
	a, err := h.store.LatestSynthesis(ctx)
	if err != nil {
		if AsProblem(err).Status == http.StatusNotFound {
			return ArticleJSON{}, NewProblem(http.StatusNotFound, ProbNotFound, "no daily synthesis has been written yet")
		}
		return ArticleJSON{}, err
	}
	return ArticleToJSON(a), nil
}

// StackSignalArticle returns one article by its slug.
func (h *Handlers) StackSignalArticle(ctx context.Context, slug string) (ArticleJSON, error) {
	if slug == "" || len(slug) > 200 {
		return ArticleJSON{}, NotFound("article")
	}
	a, err := h.store.ArticleBySlug(ctx, slug)
	if err != nil {
		if AsProblem(err).Status == http.StatusNotFound {
			return ArticleJSON{}, NotFound("article")
		}
		return ArticleJSON{}, err
	}
	return ArticleToJSON(a), nil
}
