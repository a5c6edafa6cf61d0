package intelhttp

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// intelPageSize is how many headlines the market-intel page lists.
const intelPageSize = 50

// wantsFragment is true for HTMX swaps, but not for HTMX restoring history, which needs the page.
func wantsFragment(c *fiber.Ctx) bool {
	return kit.IsHTMX(c) && c.Get("HX-History-Restore-Request") != "true"
}

// CategoryLabel names an article or headline category for people.
func CategoryLabel(cat string) string {
	if cat == intel.CategorySynthesis {
		return "Daily synthesis"
	}
	return news.Category(cat).Label()
}

// Linkable keeps links that lead somewhere: demo content points at the reserved .invalid
// domain, which must not be shown as a link.
func Linkable(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || strings.HasSuffix(u.Hostname(), ".invalid") || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return raw
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
	q, err := newsQuery("", c.Query("category"), c.Query("metal"))
	if err != nil {
		return err
	}
	q.Limit = intelPageSize
	p, err := h.intel.MarketIntel(h.Ctx(c), q)
	if err != nil {
		return err
	}
	cat := ""
	if cc, err := news.ParseCategory(q.Category); err == nil {
		cat = string(cc)
	}
	metal := string(q.Metal)
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
		v.Rows = append(v.Rows, pages.IntelRow{Title: it.Title, URL: Linkable(it.URL), Source: it.Source, Date: format.Date(it.PublishedAt),
			DateTime: it.PublishedAt.UTC().Format(time.RFC3339), CategoryLabel: CategoryLabel(it.Category), Analysis: it.Analysis,
			Metals: it.Metals, Relevance: it.Relevance, Demo: it.Demo})
		if it.Demo {
			// A sample has no publication time: it carries when Ounce created it, and says so.
			v.Rows[len(v.Rows)-1].Date = "created by Ounce " + format.DateTime(it.PublishedAt)
		}
	}
	if wantsFragment(c) {
		return kit.Render(c, http.StatusOK, pages.IntelResults(v))
	}
	return kit.Render(c, http.StatusOK, pages.Intel(h.Meta(c, "Market intel", "intel").Describe("Precious-metals headlines from public news feeds, tagged and scored for what they mean to someone holding physical metal."), v))
}
