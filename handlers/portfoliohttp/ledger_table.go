package portfoliohttp

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// The ledger's table view (issue 28): /holdings?view=table sorts by sort (date, metal, form,
// location, cost, value) in dir (asc, desc) and filters by metal, form, location_id, tag and the
// purchase dates from and to, all as query parameters so it works without JavaScript.

// ledgerSorts are the table's sortable columns, in order, with the direction a first click sorts.
var ledgerSorts = []struct {
	Key, Label, First string
	Numeric           bool
}{
	{"date", "Bought", "desc", false}, {"metal", "Metal", "asc", false}, {"form", "Form", "asc", false},
	{"location", "Location", "asc", false}, {"cost", "Cost basis left", "desc", true}, {"value", "Value", "desc", true},
}

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

// tableState reads the table's sort and filters; a value it does not know is ignored.
func tableState(c *fiber.Ctx, metal, q string) pages.LedgerTable {
	t := pages.LedgerTable{Sort: "date", Dir: "desc", LocationID: strings.Clone(c.Query("location_id")), Tag: strings.Clone(c.Query("tag"))}
	for _, s := range ledgerSorts {
		if c.Query("sort") == s.Key {
			t.Sort = s.Key
		}
	}
	if d := c.Query("dir"); d == "asc" || d == "desc" {
		t.Dir = d
	}
	for _, f := range ledgerForms {
		if c.Query("form") == f.Value {
			t.Form = f.Value
		}
	}
	for _, k := range []struct {
		dst *string
		key string
	}{{&t.From, "from"}, {&t.To, "to"}} {
		if d, err := time.Parse(time.DateOnly, c.Query(k.key)); err == nil {
			*k.dst = d.Format(time.DateOnly)
		}
	}
	vals := url.Values{"view": {"table"}}
	set := func(k, v string) {
		if v != "" {
			vals.Set(k, v)
		}
	}
	set("q", q)
	set("metal", metal)
	set("form", t.Form)
	set("location_id", t.LocationID)
	set("tag", t.Tag)
	set("from", t.From)
	set("to", t.To)
	for _, s := range ledgerSorts {
		col := pages.LedgerColumn{Key: s.Key, Label: s.Label, Numeric: s.Numeric, NextDir: s.First}
		if s.Key == t.Sort {
			col.AriaSort = map[string]string{"asc": "ascending", "desc": "descending"}[t.Dir]
			col.NextDir = map[string]string{"asc": "desc", "desc": "asc"}[t.Dir]
		}
		v := url.Values{}
		for k, x := range vals {
			v[k] = x
		}
		v.Set("sort", s.Key)
		v.Set("dir", col.NextDir)
		col.Href = safeHoldingsURL(v)
		t.Columns = append(t.Columns, col)
	}
	t.Filtered = len(vals) > 1
	vals.Set("sort", t.Sort)
	vals.Set("dir", t.Dir)
	t.Back = vals.Encode()
	t.Forms = ledgerForms
	return t
}

func safeHoldingsURL(v url.Values) templ.SafeURL { return templ.SafeURL("/holdings?" + v.Encode()) }

// filterAndSort keeps the lots the table's form and date filters select and orders them.
// The lots come newest purchase first; equal keys keep that order.
func filterAndSort(lots []portfolio.LedgerLot, t pages.LedgerTable, places map[string]string) []portfolio.LedgerLot {
	var from, to time.Time
	if t.From != "" {
		from, _ = time.Parse(time.DateOnly, t.From)
	}
	if t.To != "" {
		to, _ = time.Parse(time.DateOnly, t.To)
	}
	out := make([]portfolio.LedgerLot, 0, len(lots))
	for _, l := range lots {
		if t.Form != "" && portfolio.FormOf(l.ProductName) != t.Form {
			continue
		}
		if (t.From != "" || t.To != "") && l.PurchaseDate.IsZero() {
			continue
		}
		if t.From != "" && l.PurchaseDate.Before(from) || t.To != "" && l.PurchaseDate.After(to) {
			continue
		}
		out = append(out, l)
	}
	desc := t.Dir == "desc"
	cmpDec := func(a, b *decimal.Decimal) (int, bool) {
		// An unknown value sorts last either way.
		switch {
		case a == nil && b == nil:
			return 0, true
		case a == nil:
			return 1, true
		case b == nil:
			return -1, true
		}
		return a.Cmp(*b), false
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		var c int
		switch t.Sort {
		case "date":
			c = a.PurchaseDate.Compare(b.PurchaseDate.Time)
		case "metal":
			c = metalOrder(a.Metal) - metalOrder(b.Metal)
		case "form":
			c = strings.Compare(formLabel(portfolio.FormOf(a.ProductName)), formLabel(portfolio.FormOf(b.ProductName)))
		case "location":
			c = strings.Compare(strings.ToLower(placeName(places, a.LocationID)), strings.ToLower(placeName(places, b.LocationID)))
		case "cost":
			c = a.RemainingCost.Cmp(b.RemainingCost)
		case "value":
			v, fixed := cmpDec(a.Value, b.Value)
			if fixed {
				return v < 0
			}
			c = v
		}
		if desc {
			return c > 0
		}
		return c < 0
	})
	return out
}

func placeName(places map[string]string, id string) string {
	if id == "" {
		return "Unassigned"
	}
	return places[id]
}

func metalOrder(m metals.Metal) int {
	for i, x := range metals.All {
		if x == m {
			return i
		}
	}
	return len(metals.All)
}

// tableChoices fills the table's location and tag choices from the member's locations and the
// tags of their lots.
func (h *Handlers) tableChoices(c *fiber.Ctx, u account.User, t *pages.LedgerTable, places map[string]string) {
	t.Today = h.memberToday(c)
	t.MoveTo = []pages.Option{{Value: "", Label: "Unassigned"}}
	for _, o := range h.locationOptions(c) {
		t.Locations = append(t.Locations, o)
		t.MoveTo = append(t.MoveTo, o)
	}
	all, err := h.portfolio.ExportHoldings(h.Ctx(c), u)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	var tags []string
	for _, x := range all {
		for _, tag := range x.Tags {
			if !seen[tag] {
				seen[tag] = true
				tags = append(tags, tag)
			}
		}
	}
	sort.Strings(tags)
	for _, tag := range tags {
		t.TagsSeen = append(t.TagsSeen, pages.Option{Value: tag, Label: tag})
	}
	if t.Tag != "" && !seen[t.Tag] {
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
