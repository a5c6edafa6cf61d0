package socialhttp

import (
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/handlers/intelhttp"
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// SignalArticle is one article's page; it records the reader's view.
func (h *Handlers) SignalArticle(c *fiber.Ctx) error {
	return h.signalArticle(c, commentDraft{}, http.StatusOK)
}

// signalArticle renders the article page with the comment form in the given state.
func (h *Handlers) signalArticle(c *fiber.Ctx, draft commentDraft, status int) error {
	a, err := h.intel.Article(h.Ctx(c), c.Params("slug"))
	if err != nil {
		return err
	}
	v := pages.ArticleView{Title: a.Title, Summary: a.Summary, CategoryLabel: intelhttp.CategoryLabel(a.Category), Date: format.Date(a.PublishedAt),
		DateTime: a.PublishedAt.UTC().Format(time.RFC3339), Writer: intelhttp.WriterLabel(a.Writer), Metals: a.Metals, Demo: a.Demo, Synthesis: a.IsSynthesis}
	for _, p := range strings.Split(a.Commentary, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			v.Paragraphs = append(v.Paragraphs, p)
		}
	}
	quoted := map[metals.Metal]decimal.NullDecimal{metals.Gold: a.PriceGold, metals.Silver: a.PriceSilver,
		metals.Platinum: a.PricePlatinum, metals.Palladium: a.PricePalladium}
	for _, m := range metals.All {
		if p := quoted[m]; p.Valid {
			v.Prices = append(v.Prices, pages.ArticlePriceView{Metal: string(m), MetalTitle: m.Title(), Price: format.PriceUSD(p.Decimal)})
		}
	}
	for _, s := range a.Sources {
		v.Sources = append(v.Sources, pages.ArticleSourceView{Name: s.Name, Title: s.Title, URL: intelhttp.Linkable(s.URL)})
	}
	if v.Social, err = h.articleSocial(c, a, draft); err != nil {
		return err
	}
	return kit.Render(c, status, pages.SignalArticle(h.Meta(c, a.Title, "signal").Describe(a.Summary), v))
}
