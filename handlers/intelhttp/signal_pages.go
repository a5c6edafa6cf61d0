package intelhttp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// signalPageSize is how many articles the feed shows per page (and per "load more").
const signalPageSize = 12

// WriterLabel says who wrote an article.
func WriterLabel(w string) string {
	if model, ok := strings.CutPrefix(w, "llm:"); ok {
		return "a language model (" + model + ")"
	}
	return "Ounce's built-in writer"
}

func signalCard(a intel.Published) pages.SignalCard {
	return pages.SignalCard{Slug: a.Slug, Title: a.Title, Summary: a.Summary, CategoryLabel: CategoryLabel(a.Category),
		Date: format.Date(a.PublishedAt), DateTime: a.PublishedAt.UTC().Format(time.RFC3339), Metals: a.Metals, Sources: len(a.Sources),
		Writer: a.Writer, Demo: a.Demo, Synthesis: a.IsSynthesis, Views: a.ViewCount, Likes: a.LikeCount, Comments: a.CommentCount}
}

// signalHref is the feed address for a category and offset.
func signalHref(category string, offset int) string {
	q := url.Values{}
	if category != "" {
		q.Set("category", category)
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(q) == 0 {
		return "/signal"
	}
	return "/signal?" + q.Encode()
}

// SignalIndex is the Stack Signal feed; an HTMX request gets the next page of cards only.
func (h *Handlers) SignalIndex(c *fiber.Ctx) error {
	q, err := signalQuery(strconv.Itoa(signalPageSize), c.Query("offset"), c.Query("category"))
	if err != nil {
		return err
	}
	p, err := h.intel.StackSignal(h.Ctx(c), q)
	if err != nil {
		return err
	}
	cat, _ := intel.ParseArticleCategory(q.Category)
	v := pages.SignalView{Total: p.Total, Heading: "All articles"}
	if cat != "" {
		v.Heading = CategoryLabel(cat) + " articles"
	}
	if next := p.Offset + len(p.Articles); next < p.Total {
		v.MoreURL = signalHref(cat, next)
	}
	featuredSlug := ""
	if !wantsFragment(c) && p.Offset == 0 && cat == "" {
		if a, err := h.intel.LatestSynthesis(h.Ctx(c)); err == nil {
			fc := signalCard(a)
			v.Featured, featuredSlug = &fc, a.Slug
			v.AnyDemo = a.Demo
		}
	}
	for _, a := range p.Articles {
		v.AnyDemo = v.AnyDemo || a.Demo
		if a.Slug != featuredSlug {
			v.Cards = append(v.Cards, signalCard(a))
		}
	}
	if wantsFragment(c) {
		return kit.Render(c, http.StatusOK, pages.SignalMore(v))
	}
	v.Chips = append(v.Chips, pages.Chip{Label: "All", Href: "/signal", Active: cat == ""})
	for _, name := range intel.ArticleCategories() {
		v.Chips = append(v.Chips, pages.Chip{Label: CategoryLabel(name), Href: signalHref(name, 0), Active: cat == name})
	}
	return kit.Render(c, http.StatusOK, pages.Signal(h.Meta(c, "Stack Signal", "signal").Describe("Commentary on the stories that move precious metals, with every source linked, and a daily synthesis of prices, vaults and news."), v))
}
