package portfoliohttp

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// The ledger's table view (issue 28): /holdings?view=table sorts by sort (date, metal, form,
// location, cost, value) in dir (asc, desc), filters by metal, form, location_id, tag and the
// purchase dates from and to, and pages by page and per_page, all as query parameters so it
// works without JavaScript. The portfolio service sorts, filters and pages every lot (the
// rules are there); this only reads the parameters and draws the page.

// ledgerColumns are the table's sortable columns' headings, by portfolio.LotSorts key.
var ledgerColumns = map[string]struct {
	Label   string
	Numeric bool
}{"date": {"Bought", false}, "metal": {"Metal", false}, "form": {"Form", false}, "location": {"Location", false},
	"cost": {"Cost basis left", true}, "value": {"Value", true}}

// ledgerPageSizes are the page sizes the table offers (per_page takes any from 1 to 200).
var ledgerPageSizes = []int{25, 50, 100, 200}

// ledgerForms are the product forms the table filters by.
var ledgerForms = []pages.Option{{Value: "coin", Label: "Coins"}, {Value: "bar", Label: "Bars"}, {Value: "round", Label: "Rounds"},
	{Value: "junk", Label: "Junk silver"}, {Value: portfolio.FormOther, Label: "Other"}}

func formLabel(f string) string {
	for _, o := range ledgerForms {
		if o.Value == f {
			return o.Label
		}
	}
	return "Other"
}

// tableQuery reads the table's parameters; a value out of range is a 400 naming it.
func tableQuery(c *fiber.Ctx, metal, q string) (portfolio.HoldingsQuery, int, error) {
	per, err := kit.QueryInt(c, "per_page", 50, 1, portfolio.MaxLotPage)
	if err != nil {
		return portfolio.HoldingsQuery{}, 0, pageParamErr(err)
	}
	page, err := kit.QueryInt(c, "page", 1, 1, 1<<31-1)
	if err != nil {
		return portfolio.HoldingsQuery{}, 0, pageParamErr(err)
	}
	return portfolio.HoldingsQuery{Metal: metal, Q: q, Tag: strings.Clone(c.Query("tag")), LocationID: strings.Clone(c.Query("location_id")),
		Form: strings.Clone(c.Query("form")), From: strings.Clone(c.Query("from")), To: strings.Clone(c.Query("to")),
		Sort: strings.Clone(c.Query("sort")), Order: strings.Clone(c.Query("dir")), Limit: per, Offset: min(page-1, (1<<31-1)/per) * per}, per, nil
}

// pageParamErr names the page's own parameter in a refusal (the service's order is dir
// here), in words that say which part of the address to change.
func pageParamErr(err error) error {
	fs := apperr.FieldsOf(err)
	if len(fs) != 1 {
		return err
	}
	f, m := fs[0].Field, fs[0].Message
	if f == "order" {
		f = "dir"
	}
	return apperr.InvalidField(f, "choose another "+f+" in the address: it "+m)
}

// tableState is the table's sort, filters, headers and pages for the ledger page l.
func tableState(c *fiber.Ctx, hq portfolio.HoldingsQuery, per int, l portfolio.Ledger) pages.LedgerTable {
	t := pages.LedgerTable{Sort: "date", Dir: "desc", LocationID: hq.LocationID, Tag: hq.Tag, Form: hq.Form, From: hq.From, To: hq.To,
		PerPage: strconv.Itoa(per), Selected: c.Query("select") == "page"}
	if hq.Sort != "" {
		t.Sort = hq.Sort
	}
	for _, s := range portfolio.LotSorts {
		if s.Key == t.Sort {
			t.Dir = s.Order
		}
	}
	if hq.Order != "" {
		t.Dir = hq.Order
	}
	vals := url.Values{"view": {"table"}}
	set := func(k, v string) {
		if v != "" {
			vals.Set(k, v)
		}
	}
	set("q", hq.Q)
	set("metal", l.Metal)
	set("form", t.Form)
	set("location_id", t.LocationID)
	set("tag", t.Tag)
	set("from", t.From)
	set("to", t.To)
	t.Filtered = len(vals) > 1
	if per != 50 {
		vals.Set("per_page", t.PerPage)
	}
	for _, s := range portfolio.LotSorts {
		h := ledgerColumns[s.Key]
		col := pages.LedgerColumn{Key: s.Key, Label: h.Label, Numeric: h.Numeric, NextDir: s.Order}
		if s.Key == t.Sort {
			col.AriaSort = map[string]string{"asc": "ascending", "desc": "descending"}[t.Dir]
			col.NextDir = map[string]string{"asc": "desc", "desc": "asc"}[t.Dir]
		}
		v := cloneValues(vals)
		v.Set("sort", s.Key)
		v.Set("dir", col.NextDir)
		col.Href = safeHoldingsURL(v) // a new order starts at its first page
		t.Columns = append(t.Columns, col)
	}
	vals.Set("sort", t.Sort)
	vals.Set("dir", t.Dir)
	// The pages: "showing X–Y of N", the first, last and nearby pages, previous and next.
	cur, last := 1, 1
	if l.Limit > 0 {
		cur, last = l.Offset/l.Limit+1, max((l.Total+l.Limit-1)/l.Limit, 1)
	}
	pageURL := func(n int) templ.SafeURL {
		v := cloneValues(vals)
		if n > 1 {
			v.Set("page", strconv.Itoa(n))
		}
		return safeHoldingsURL(v)
	}
	if l.Total > 0 {
		t.Showing = fmt.Sprintf("Showing %s–%s of %s", format.Int(int64(l.Offset+1)), format.Int(int64(l.Offset+len(l.Lots))), format.Count(int64(l.Total), "lot", "lots"))
	}
	if last > 1 {
		if cur > 1 {
			t.Prev = pageURL(cur - 1)
		}
		if cur < last {
			t.Next = pageURL(cur + 1)
		}
		prevShown := 0
		for n := 1; n <= last; n++ {
			if n != 1 && n != last && (n < cur-2 || n > cur+2) {
				continue
			}
			if prevShown != 0 && n > prevShown+1 {
				t.Pages = append(t.Pages, pages.PageLink{Gap: true})
			}
			t.Pages = append(t.Pages, pages.PageLink{Number: strconv.Itoa(n), Href: pageURL(n), Current: n == cur})
			prevShown = n
		}
	}
	if cur > 1 {
		vals.Set("page", strconv.Itoa(cur))
	}
	t.Back = vals.Encode()
	sel := cloneValues(vals)
	sel.Set("select", "page")
	t.SelectAll, t.SelectNone = safeHoldingsURL(sel), safeHoldingsURL(vals)
	for _, n := range ledgerPageSizes {
		t.PageSizes = append(t.PageSizes, pages.Option{Value: strconv.Itoa(n), Label: strconv.Itoa(n) + " a page"})
	}
	if !slices.Contains(ledgerPageSizes, per) {
		t.PageSizes = append(t.PageSizes, pages.Option{Value: t.PerPage, Label: t.PerPage + " a page"})
	}
	t.Forms = ledgerForms
	return t
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, x := range v {
		out[k] = slices.Clone(x)
	}
	return out
}

func safeHoldingsURL(v url.Values) templ.SafeURL { return templ.SafeURL("/holdings?" + v.Encode()) }

// tableChoices fills the table's location and tag choices from the member's locations and the
// tags of their lots.
func (h *Handlers) tableChoices(c *fiber.Ctx, u account.User, t *pages.LedgerTable) {
	t.Today = h.memberToday(c)
	t.MoveTo = []pages.Option{{Value: "", Label: "Unassigned"}}
	for _, o := range h.locationOptions(c) {
		t.Locations = append(t.Locations, o)
		t.MoveTo = append(t.MoveTo, o)
	}
	tags, err := h.portfolio.LotTags(h.Ctx(c), u)
	if err != nil {
		return
	}
	for _, tag := range tags {
		t.TagsSeen = append(t.TagsSeen, pages.Option{Value: tag, Label: tag})
	}
	if t.Tag != "" && !slices.Contains(tags, t.Tag) {
		t.TagsSeen = append(t.TagsSeen, pages.Option{Value: t.Tag, Label: t.Tag})
	}
}

// bulkFlash says what a bulk action just did (the count and action come back in the query).
func bulkFlash(n, action string) string {
	k, err := strconv.Atoi(n)
	if err != nil || k < 0 {
		return ""
	}
	lots := format.Count(int64(k), "lot", "lots")
	switch action {
	case "move":
		return "Moved " + lots + "; a transfer is recorded for each."
	case "tag":
		return "Tagged " + lots + "."
	case "untag":
		return "Removed the tag from " + lots + "."
	}
	return ""
}
