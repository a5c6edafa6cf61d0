package handlers

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/views/pages"
)

// signalPageSize is how many articles the feed shows per page (and per "load more").
const signalPageSize = 12

// wantsFragment is true for HTMX swaps, but not for HTMX restoring history, which needs the page.
func wantsFragment(c *fiber.Ctx) bool {
	return isHTMX(c) && c.Get("HX-History-Restore-Request") != "true"
}

// longDate renders a time as "22 Nov 2026" (UTC).
func longDate(t time.Time) string { return t.UTC().Format("2 Jan 2006") }

// groupDigits writes an integer string with thousands separators.
func digitsGrouped(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	if neg {
		return "−" + b.String()
	}
	return b.String()
}

// wholeOz renders ounces rounded to whole ounces with separators, as the page shows them.
func wholeOz(d decimal.Decimal) string { return digitsGrouped(d.Round(0).StringFixed(0)) }

// signedOz renders a change in whole ounces with an explicit sign.
func signedOz(d decimal.Decimal) string {
	s := wholeOz(d)
	if d.Round(0).IsPositive() {
		return "+" + s
	}
	return s
}

// tone is "down" for a fall, "up" for a rise.
func vaultTone(d decimal.Decimal) string {
	switch {
	case d.Round(0).IsNegative():
		return "down"
	case d.Round(0).IsPositive():
		return "up"
	}
	return ""
}

// categoryLabel names an article or headline category for people.
func categoryLabel(cat string) string {
	if cat == intel.CategorySynthesis {
		return "Daily synthesis"
	}
	return news.Category(cat).Label()
}

// writerLabel says who wrote an article.
func writerLabel(w string) string {
	if model, ok := strings.CutPrefix(w, "llm:"); ok {
		return "a language model (" + model + ")"
	}
	return "Ounce's built-in writer"
}

// linkable keeps links that lead somewhere: demo content points at the reserved .invalid
// domain, which must not be shown as a link.
func linkable(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || strings.HasSuffix(u.Hostname(), ".invalid") || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return raw
}

func signalCard(a ArticleJSON) pages.SignalCard {
	return pages.SignalCard{Slug: a.Slug, Title: a.Title, Summary: a.Summary, CategoryLabel: categoryLabel(a.Category),
		Date: longDate(a.PublishedAt), DateTime: a.PublishedAt.Format(time.RFC3339), Metals: a.Metals, Sources: len(a.Sources),
		Writer: a.Writer, Demo: a.Demo, Synthesis: a.IsSynthesis}
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
	p, err := h.StackSignal(h.ctx(c), strconv.Itoa(signalPageSize), c.Query("offset"), c.Query("category"))
	if err != nil {
		return err
	}
	cat, _ := parseSignalCategory(c.Query("category"))
	v := pages.SignalView{Total: p.Total, Heading: "All articles"}
	if cat != "" {
		v.Heading = categoryLabel(cat) + " articles"
	}
	if next := p.Offset + len(p.Articles); next < p.Total {
		v.MoreURL = signalHref(cat, next)
	}
	featuredSlug := ""
	if !wantsFragment(c) && p.Offset == 0 && cat == "" {
		if a, err := h.LatestSynthesis(h.ctx(c)); err == nil {
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
		return render(c, http.StatusOK, pages.SignalMore(v))
	}
	v.Chips = append(v.Chips, pages.Chip{Label: "All", Href: "/signal", Active: cat == ""})
	for _, name := range signalCategoryNames() {
		v.Chips = append(v.Chips, pages.Chip{Label: categoryLabel(name), Href: signalHref(name, 0), Active: cat == name})
	}
	return render(c, http.StatusOK, pages.Signal(h.meta(c, "Stack Signal", "signal"), v))
}

// SignalArticle is one article's page.
func (h *Handlers) SignalArticle(c *fiber.Ctx) error {
	a, err := h.StackSignalArticle(h.ctx(c), c.Params("slug"))
	if err != nil {
		return err
	}
	v := pages.ArticleView{Title: a.Title, Summary: a.Summary, CategoryLabel: categoryLabel(a.Category), Date: longDate(a.PublishedAt),
		DateTime: a.PublishedAt.Format(time.RFC3339), Writer: writerLabel(a.Writer), Metals: a.Metals, Demo: a.Demo, Synthesis: a.IsSynthesis}
	for _, p := range strings.Split(a.Commentary, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			v.Paragraphs = append(v.Paragraphs, p)
		}
	}
	prices := map[metals.Metal]*Num{metals.Gold: a.PricesAtPublish.Gold, metals.Silver: a.PricesAtPublish.Silver,
		metals.Platinum: a.PricesAtPublish.Platinum, metals.Palladium: a.PricesAtPublish.Palladium}
	for _, m := range metals.All {
		if p := prices[m]; p != nil {
			v.Prices = append(v.Prices, pages.ArticlePriceView{Metal: string(m), MetalTitle: m.Title(), Price: usd(p.D)})
		}
	}
	for _, s := range a.Sources {
		v.Sources = append(v.Sources, pages.ArticleSourceView{Name: s.Name, Title: s.Title, URL: linkable(s.URL)})
	}
	return render(c, http.StatusOK, pages.SignalArticle(h.meta(c, a.Title, "signal"), v))
}

// intelHref is the market-intel address for a category and metal.
func intelHref(category, metal string) string {
	q := url.Values{}
	if category != "" {
		q.Set("category", category)
	}
	if metal != "" {
		q.Set("metal", metal)
	}
	if len(q) == 0 {
		return "/intel"
	}
	return "/intel?" + q.Encode()
}

// IntelIndex is the market-intel page; an HTMX request (a chip) gets the results region only.
func (h *Handlers) IntelIndex(c *fiber.Ctx) error {
	p, err := h.MarketIntel(h.ctx(c), "50", c.Query("category"), c.Query("metal"))
	if err != nil {
		return err
	}
	cat := ""
	if cc, err := news.ParseCategory(c.Query("category")); err == nil {
		cat = string(cc)
	}
	metal, _ := parseMetalParam(c.Query("metal"), "")
	v := pages.IntelView{Total: p.Total}
	v.Chips = append(v.Chips, pages.Chip{Label: "All categories", Href: intelHref("", metal), Active: cat == ""})
	for _, nc := range news.Categories {
		v.Chips = append(v.Chips, pages.Chip{Label: nc.Label(), Href: intelHref(string(nc), metal), Active: cat == string(nc)})
	}
	v.MetalChips = append(v.MetalChips, pages.Chip{Label: "All metals", Href: intelHref(cat, ""), Active: metal == ""})
	for _, m := range metals.All {
		v.MetalChips = append(v.MetalChips, pages.Chip{Label: m.Title(), Href: intelHref(cat, string(m)), Active: metal == string(m)})
	}
	for _, it := range p.Items {
		v.AnyDemo = v.AnyDemo || it.Demo
		v.Rows = append(v.Rows, pages.IntelRow{Title: it.Title, URL: linkable(it.URL), Source: it.Source, Date: longDate(it.PublishedAt),
			DateTime: it.PublishedAt.Format(time.RFC3339), CategoryLabel: categoryLabel(it.Category), Analysis: it.Analysis,
			Metals: it.Metals, Relevance: it.Relevance, Demo: it.Demo})
	}
	if wantsFragment(c) {
		return render(c, http.StatusOK, pages.IntelResults(v))
	}
	return render(c, http.StatusOK, pages.Intel(h.meta(c, "Market intel", "intel"), v))
}
