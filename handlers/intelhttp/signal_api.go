package intelhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/intel"
)

// ArticleSourceJSON is one outlet an article links to.
type ArticleSourceJSON struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	URL   string `json:"url" doc:"Link to the original; empty when the outlet gave none."`
}

// PricesAtPublishJSON holds the prices an article quoted when it was written; null for a
// metal it did not quote.
type PricesAtPublishJSON struct {
	Gold      *kit.Num `json:"gold"`
	Silver    *kit.Num `json:"silver"`
	Platinum  *kit.Num `json:"platinum"`
	Palladium *kit.Num `json:"palladium"`
}

// ArticleJSON is the wire form of a Stack Signal article.
type ArticleJSON struct {
	ID              string              `json:"id"`
	Slug            string              `json:"slug"`
	Title           string              `json:"title"`
	Summary         string              `json:"summary"`
	Commentary      string              `json:"commentary" doc:"Plain text; paragraphs are separated by a blank line."`
	Category        string              `json:"category" schema:"enum=ArticleCategories"`
	Metals          []string            `json:"metals" schema:"items.enum=metals"`
	Sources         []ArticleSourceJSON `json:"sources"`
	PricesAtPublish PricesAtPublishJSON `json:"prices_at_publish"`
	PublishedAt     time.Time           `json:"published_at"`
	IsSynthesis     bool                `json:"is_synthesis"`
	ViewCount       int64               `json:"view_count" schema:"min=0"`
	LikeCount       int64               `json:"like_count" schema:"min=0"`
	CommentCount    int64               `json:"comment_count" schema:"min=0"`
	// Demo marks articles written from the bundled sample stories.
	Demo bool `json:"demo" doc:"True when written from bundled sample stories."`
	// Writer is "built-in" or "llm:<model>".
	Writer string `json:"writer" doc:"\"built-in\" or \"llm:<model>\"."`
}

func optNullMoney(d decimal.NullDecimal) *kit.Num {
	if !d.Valid {
		return nil
	}
	return kit.OptMoney(&d.Decimal)
}

// ArticleEnvelopeJSON is the body of the routes that answer one article.
type ArticleEnvelopeJSON struct {
	Article ArticleJSON `json:"article" schema:"ref=StackSignalArticle"`
}

// articleJSON renders a stored article.
func articleJSON(a intel.Published) ArticleJSON {
	src := make([]ArticleSourceJSON, len(a.Sources))
	for i, s := range a.Sources {
		src[i] = ArticleSourceJSON{Name: s.Name, Title: s.Title, URL: s.URL}
	}
	return ArticleJSON{
		ID: a.ID, Slug: a.Slug, Title: a.Title, Summary: a.Summary, Commentary: a.Commentary, Category: a.Category,
		Metals: kit.MetalList(a.Metals), Sources: src,
		PricesAtPublish: PricesAtPublishJSON{Gold: optNullMoney(a.PriceGold), Silver: optNullMoney(a.PriceSilver),
			Platinum: optNullMoney(a.PricePlatinum), Palladium: optNullMoney(a.PricePalladium)},
		PublishedAt: a.PublishedAt.UTC(), IsSynthesis: a.IsSynthesis, ViewCount: a.ViewCount, LikeCount: a.LikeCount,
		CommentCount: a.CommentCount, Demo: a.Demo, Writer: a.Writer,
	}
}

// StackSignalPage is one page of Stack Signal articles, newest first.
type StackSignalPage struct {
	Articles []ArticleJSON `json:"articles" schema:"items.ref=StackSignalArticle"`
	Limit    int           `json:"limit"`
	Offset   int           `json:"offset"`
	Total    int           `json:"total"`
}

// signalQuery reads the article-feed parameters; the category is matched by the service.
func signalQuery(limit, offset, category string) (intel.SignalQuery, error) {
	n, err := kit.ParseIntParam("limit", limit, intel.DefaultLimit, 1, intel.MaxLimit)
	if err != nil {
		return intel.SignalQuery{}, err
	}
	off, err := kit.ParseIntParam("offset", offset, 0, 0, intel.MaxOffset)
	if err != nil {
		return intel.SignalQuery{}, err
	}
	return intel.SignalQuery{Limit: n, Offset: off, Category: category}, nil
}

// stackSignal parses, asks the service and renders: GET /v1/stack-signal and get_stack_signal.
func (h *Handlers) stackSignal(ctx context.Context, limit, offset, category string) (StackSignalPage, error) {
	q, err := signalQuery(limit, offset, category)
	if err != nil {
		return StackSignalPage{}, err
	}
	p, err := h.intel.StackSignal(ctx, q)
	if err != nil {
		return StackSignalPage{}, err
	}
	return StackSignalPage{Articles: kit.MapSlice(p.Articles, articleJSON), Limit: p.Limit, Offset: p.Offset, Total: p.Total}, nil
}

// APIStackSignal answers GET /v1/stack-signal.
func (h *Handlers) APIStackSignal(c *fiber.Ctx) error {
	p, err := h.stackSignal(h.Ctx(c), c.Query("limit"), c.Query("offset"), c.Query("category"))
	return kit.JSONResult(c, p, err)
}

// APIStackSignalLatest answers GET /v1/stack-signal/latest.
func (h *Handlers) APIStackSignalLatest(c *fiber.Ctx) error {
	a, err := h.intel.LatestSynthesis(h.Ctx(c))
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, ArticleEnvelopeJSON{Article: articleJSON(a)})
}

// APIStackSignalArticle answers GET /v1/stack-signal/{slug}.
func (h *Handlers) APIStackSignalArticle(c *fiber.Ctx) error {
	a, err := h.intel.Article(h.Ctx(c), c.Params("slug"))
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, ArticleEnvelopeJSON{Article: articleJSON(a)})
}
