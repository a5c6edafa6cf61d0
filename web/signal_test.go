package web_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/intel"
)

func TestStackSignalValidationAndPaging(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.seed()
		for q, field := range map[string]string{
			"limit=0": "limit", "limit=51": "limit", "limit=x": "limit", "offset=-1": "offset", "offset=1.5": "offset",
			"offset=99999999999": "offset", "category=GOSSIP": "category",
		} {
			if got := problemField(t, e.api("GET", "/v1/stack-signal?"+q, "", nil)); got != field {
				t.Errorf("%s: field %q, want %q", q, got, field)
			}
		}
		var all struct {
			Articles             []articleOut
			Limit, Offset, Total int
		}
		decodeInto(t, e.api("GET", "/v1/stack-signal?limit=50", "", nil), &all)
		if all.Total < 3 || len(all.Articles) != all.Total {
			t.Fatalf("all: %d of %d", len(all.Articles), all.Total)
		}
		var page struct {
			Articles             []articleOut
			Limit, Offset, Total int
		}
		decodeInto(t, e.api("GET", "/v1/stack-signal?limit=2&offset=1", "", nil), &page)
		if page.Limit != 2 || page.Offset != 1 || page.Total != all.Total || len(page.Articles) != 2 || page.Articles[0].ID != all.Articles[1].ID {
			t.Fatalf("paging: %+v", page)
		}
		decodeInto(t, e.api("GET", "/v1/stack-signal?offset=1000", "", nil), &page)
		if len(page.Articles) != 0 || page.Total != all.Total {
			t.Fatalf("past the end: %+v", page)
		}
		decodeInto(t, e.api("GET", "/v1/stack-signal?category=SYNTHESIS", "", nil), &page)
		if page.Total != 1 || !page.Articles[0].IsSynthesis {
			t.Fatalf("synthesis filter: %+v", page)
		}
		cat := all.Articles[len(all.Articles)-1].Category
		decodeInto(t, e.api("GET", "/v1/stack-signal?category="+cat, "", nil), &page)
		for _, a := range page.Articles {
			if a.Category != cat {
				t.Fatalf("category %s let through %s", cat, a.Category)
			}
		}
		// Case-insensitive through the use case.
		p, err := e.app.Intel.StackSignal(t.Context(), intel.SignalQuery{Category: "synthesis"})
		if err != nil || p.Total != 1 {
			t.Fatalf("lower-case category: %+v %v", p, err)
		}
		if r := e.api("GET", "/v1/stack-signal/no-such-article", "", nil); r.Status != 404 || r.JSON(t)["type"] != "/problems/not-found" {
			t.Fatalf("unknown slug: %d %s", r.Status, r.Body)
		}
	})
}

func TestStackSignalPages(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.seed()
		b := e.browser()
		r := b.get("/signal")
		if r.Status != 200 {
			t.Fatalf("/signal: %d", r.Status)
		}
		d := doc(t, r)
		if d.Find("#featured-heading").Length() != 1 || !strings.Contains(d.Find("section[aria-labelledby=featured-heading]").Text(), "Daily synthesis") {
			t.Fatal("latest synthesis not featured")
		}
		if d.Find("#signal-list article").Length() == 0 || d.Find("[role=note]").Length() != 1 || !strings.Contains(d.Find("#signal-list").Text(), "Demo") {
			t.Fatal("cards or demo labelling missing")
		}
		if d.Find(`nav[aria-label="Article categories"] a`).Length() != 10 || d.Find(`nav[aria-label="Article categories"] a[aria-current=true]`).Text() != "All" {
			t.Fatal("category chips")
		}
		// The desktop nav and the phone menu each mark the page once.
		current := d.Find(`header a[aria-current=page]`)
		if current.Length() == 0 || current.FilterFunction(func(_ int, a *goquery.Selection) bool { return strings.TrimSpace(a.Text()) != "Stack Signal" }).Length() != 0 {
			t.Fatalf("nav does not mark Stack Signal: %d marked, %q", current.Length(), current.Text())
		}
		// A category chip filters the page.
		if f := doc(t, b.get("/signal?category=SYNTHESIS")); f.Find("#signal-list article").Length() != 1 {
			t.Fatalf("synthesis page: %d cards", f.Find("#signal-list article").Length())
		}
		if r := b.get("/signal?category=NOPE"); r.Status != 400 {
			t.Fatalf("bad category page: %d", r.Status)
		}

		// Article page: paragraphs, prices at publication, sources; demo links lead nowhere.
		slug, _ := d.Find("#signal-list article h3 a").First().Attr("href")
		a := doc(t, b.get(slug))
		if a.Find("h1").Text() == "" || a.Find("article p").Length() < 5 || a.Find("#sources-heading").Length() != 1 {
			t.Fatalf("article page: %s", a.Text())
		}
		if a.Find("article li").Length() == 0 || a.Find(`article li a[href*="ounce.invalid"]`).Length() != 0 {
			t.Fatal("demo sources must be listed but not linked")
		}
		if a.Find("table caption").Length() != 1 || a.Find(`table th[scope=row]`).Length() == 0 {
			t.Fatal("prices at publication table")
		}
		if r := b.get("/signal/no-such-article"); r.Status != 404 {
			t.Fatalf("unknown article page: %d", r.Status)
		}
	})
}

// TestStackSignalLoadMore walks the feed with the HTMX "load more" item.
func TestStackSignalLoadMore(t *testing.T) {
	e := newEnv(t, sqliteStore(t), offline(t))
	// More articles than one page holds.
	for i := 0; i < 30; i++ {
		a := db.Article{Slug: fmt.Sprintf("2026-11-01-note-%02d", i), Title: "Note", Summary: "s", Commentary: "c",
			Category: "ANALYSIS", PublishedAt: time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Minute), Writer: "built-in"}
		if _, _, err := e.store.InsertArticle(t.Context(), a); err != nil {
			t.Fatal(err)
		}
	}
	d := doc(t, e.do(httptest.NewRequest("GET", "/signal", nil)))
	cards := d.Find("#signal-list article").Length()
	more, _ := d.Find("#signal-more a").Attr("hx-get")
	if cards != 12 || more != "/signal?offset=12" {
		t.Fatalf("first page: %d cards, more %q", cards, more)
	}
	seen := cards
	for more != "" {
		req := httptest.NewRequest("GET", more, nil)
		req.Header.Set("HX-Request", "true")
		r := e.do(req)
		f := doc(t, r)
		if r.Status != 200 || f.Find("header").Length() != 0 || r.Header.Get("Vary") == "" {
			t.Fatalf("fragment: %d %v", r.Status, r.Header)
		}
		seen += f.Find("article").Length()
		more, _ = f.Find("#signal-more a").Attr("hx-get")
	}
	if seen != 30 {
		t.Fatalf("walked %d articles, want 30", seen)
	}
}

func TestMarketIntelPage(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.seed()
		r := e.do(httptest.NewRequest("GET", "/intel", nil))
		d := doc(t, r)
		if r.Status != 200 || d.Find("#intel-results ol > li").Length() < 10 || d.Find("#intel-results meter").Length() == 0 {
			t.Fatalf("intel page: %d", r.Status)
		}
		if d.Find(`#intel-results a[href*="ounce.invalid"]`).Length() != 0 || !strings.Contains(d.Find("[role=note]").Text(), "sample headlines") {
			t.Fatal("demo headlines must be labelled and not linked")
		}
		chip, _ := d.Find(`#intel-results nav a:contains("Central banks")`).Attr("href")
		if chip != "/intel?category=CENTRAL_BANK" {
			t.Fatalf("chip href %q", chip)
		}
		// The chip through HTMX swaps the results region only.
		req := httptest.NewRequest("GET", chip, nil)
		req.Header.Set("HX-Request", "true")
		fr := e.do(req)
		f := doc(t, fr)
		if fr.Status != 200 || f.Find("header").Length() != 0 || f.Find("#intel-results").Length() != 1 {
			t.Fatalf("fragment: %d", fr.Status)
		}
		f.Find("#intel-results ol > li").Each(func(_ int, s *goquery.Selection) {
			if !strings.Contains(s.Text(), "Central banks") {
				t.Fatalf("filtered row: %s", s.Text())
			}
		})
		if act := f.Find(`a[aria-current=true]`).First().Text(); act != "Central banks" {
			t.Fatalf("active chip %q", act)
		}
		// History restoration asks for the whole page.
		req = httptest.NewRequest("GET", chip, nil)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-History-Restore-Request", "true")
		if h := doc(t, e.do(req)); h.Find("header").Length() != 1 {
			t.Fatal("history restore got a fragment")
		}
		if r := e.do(httptest.NewRequest("GET", "/intel?metal=copper", nil)); r.Status != 400 {
			t.Fatalf("bad metal: %d", r.Status)
		}
	})
}
