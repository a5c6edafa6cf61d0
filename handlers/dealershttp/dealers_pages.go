package dealershttp

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/components"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// dealerFilter is the page's state in its query string.
type dealerFilter struct {
	Metal, Weight, Form, Sort string
	Desc                      bool
}

func (f dealerFilter) href(change func(*dealerFilter)) string {
	g := f
	if change != nil {
		change(&g)
	}
	q := url.Values{"metal": {g.Metal}}
	if g.Weight != "" {
		q.Set("weight", g.Weight)
	}
	if g.Form != "" {
		q.Set("form", g.Form)
	}
	if g.Sort != "" && g.Sort != "price" || g.Desc {
		q.Set("sort", g.Sort)
		if g.Desc {
			q.Set("dir", "desc")
		}
	}
	return "/dealers?" + q.Encode()
}

// weightChip is how a fine weight is offered as a filter: its query value and its label.
func weightChip(oz decimal.Decimal) (value, label string) {
	for _, f := range []struct{ oz, v, l string }{{"0.1", "1/10", "1/10 oz"}, {"0.25", "1/4", "1/4 oz"}, {"0.5", "1/2", "1/2 oz"}} {
		if oz.Equal(decimal.RequireFromString(f.oz)) {
			return f.v, f.l
		}
	}
	if oz.Equal(oz.Truncate(0)) {
		return oz.String(), oz.String() + " oz"
	}
	g := oz.Mul(metals.GramsPerTroyOz).Round(0)
	if g.GreaterThanOrEqual(decimal.NewFromInt(1000)) && g.Mod(decimal.NewFromInt(1000)).IsZero() {
		kg := g.Div(decimal.NewFromInt(1000)).String()
		return kg + "kg", kg + " kg"
	}
	return g.String() + "g", g.String() + " g"
}

// productWeight describes a unit: its weight, or $1 face of junk silver with its silver.
func productWeight(p metals.Product) string {
	if p.PerFace {
		return "$1 face · " + format.Oz(p.FineOz) + " oz silver"
	}
	if p.Form == metals.FormJunk {
		return "1 coin · " + format.Oz(p.FineOz) + " oz silver"
	}
	_, l := weightChip(p.FineOz)
	return l
}

var formLabels = map[metals.Form]string{metals.FormCoin: "Coins", metals.FormBar: "Bars", metals.FormRound: "Rounds", metals.FormJunk: "Junk silver"}

// spotLine says what the premiums are measured against, and how current it is.
func spotLine(s dealers.Spot) (text string, stale bool) {
	switch {
	case !s.Known:
		return "No " + strings.ToLower(s.Metal.Title()) + " spot price is known, so premiums cannot be worked out.", true
	case s.Stale:
		return s.Metal.Title() + " spot " + format.PriceUSD(s.Price) + "/oz — last known price, from " + format.Date(s.AsOf) + "; not live.", true
	}
	return s.Metal.Title() + " spot " + format.PriceUSD(s.Price) + "/oz, live as of " + format.DateTime(s.AsOf) + ".", false
}

// dealerProductView formats one product's quotes, sorted by the page's column.
func dealerProductView(pq dealers.ProductQuotes, f dealerFilter) pages.DealerProductView {
	p := pq.Product
	v := pages.DealerProductView{ID: p.ID, Name: p.Name, Weight: productWeight(p), Form: string(p.Form), Demo: pq.Demo && len(pq.Quotes) > 0,
		Href: "/dealers/" + url.PathEscape(p.ID), Median: format.PctPtr(pq.MedianPremium)}
	if pq.Best != nil {
		v.BestText = pq.Best.Dealer.Name + " at " + format.USD(pq.Best.Price)
	}
	qs := append([]dealers.Quote(nil), pq.Quotes...)
	dealers.SortQuotes(qs, f.Sort, f.Desc)
	top := decimal.Zero
	for _, q := range qs {
		if q.PremiumPct != nil && q.PremiumPct.GreaterThan(top) {
			top = *q.PremiumPct
		}
	}
	for _, q := range qs {
		r := pages.DealerQuoteRow{Dealer: q.Dealer.Name, Price: format.USD(q.Price), PerOz: format.USD(q.PricePerOz), Premium: format.PctPtr(q.PremiumPct),
			InStock: q.InStock, Demo: q.Demo(), Best: pq.Best != nil && pq.Best.Dealer.Slug == q.Dealer.Slug,
			GoHref:  "/go/" + url.PathEscape(q.Dealer.Slug) + "/" + url.PathEscape(p.ID),
			AddHref: "/holdings/new?" + url.Values{"product": {p.ID}, "price": {q.Price.StringFixed(2)}, "dealer": {q.Dealer.Name}}.Encode()}
		if q.PremiumPct != nil && q.PremiumPct.IsPositive() && top.IsPositive() {
			r.Bar = int(q.PremiumPct.Div(top).Mul(decimal.NewFromInt(100)).Round(0).IntPart())
			r.Bar = max(r.Bar, 2)
		}
		if q.Demo() {
			r.Updated = "Demo, at spot of " + format.Date(q.UpdatedAt)
		} else {
			r.Updated = format.DateTime(q.UpdatedAt)
		}
		var tiers []string
		for _, t := range q.Tiers {
			rng := strconv.Itoa(t.MinQty) + "+"
			if t.MaxQty > 0 {
				rng = strconv.Itoa(t.MinQty) + "–" + strconv.Itoa(t.MaxQty)
			}
			tiers = append(tiers, rng+": "+format.USD(t.Price))
		}
		r.Tiers = strings.Join(tiers, " · ")
		v.Quotes = append(v.Quotes, r)
	}
	for _, col := range []struct{ key, label string }{{"dealer", "Dealer"}, {"price", "Price"}, {"premium", "Premium"}, {"stock", "Stock"}, {"updated", "Updated"}} {
		h := pages.SortHeader{Label: col.label, Key: col.key, Sort: "none"}
		active := f.Sort == col.key || f.Sort == "" && col.key == "price"
		if active {
			h.Sort = map[bool]string{true: "descending", false: "ascending"}[f.Desc]
		}
		h.Href = f.href(func(g *dealerFilter) { g.Sort, g.Desc = col.key, active && !f.Desc })
		v.Headers = append(v.Headers, h)
	}
	return v
}

// DealersPage is the comparison page: metal tabs, form and weight filters, one table per product.
func (h *Handlers) DealersPage(c *fiber.Ctx) error {
	f := dealerFilter{Metal: c.Query("metal", string(metals.Silver)), Weight: strings.TrimSpace(c.Query("weight")), Form: strings.TrimSpace(c.Query("form")),
		Sort: c.Query("sort", "price"), Desc: c.Query("dir") == "desc"}
	if !contains(dealers.SortKeys, f.Sort) {
		return apperr.InvalidField("sort", "must be one of "+strings.Join(dealers.SortKeys, ", "))
	}
	q, err := dealerQuery(f.Metal, f.Weight, f.Form)
	if err != nil {
		return err
	}
	cmp, err := h.dealers.Compare(h.Ctx(c), q)
	if err != nil {
		return err
	}
	tracked, err := h.dealers.Products(h.Ctx(c), q.Metal)
	if err != nil {
		return err
	}
	v := pages.DealersView{MetalTitle: q.Metal.Title(), Demo: cmp.Demo, Offline: cmp.Offline}
	v.Spot, v.SpotStale = spotLine(cmp.Spot)
	for _, m := range metals.All {
		v.MetalTabs = append(v.MetalTabs, pages.Chip{Label: m.Title(), Href: dealerFilter{Metal: string(m)}.href(nil), Active: m == q.Metal})
	}
	v.FormChips = append(v.FormChips, pages.Chip{Label: "All forms", Href: f.href(func(g *dealerFilter) { g.Form = "" }), Active: f.Form == ""})
	weights := map[string]decimal.Decimal{}
	forms := map[metals.Form]bool{}
	for _, tp := range tracked {
		forms[tp.Product.Form] = true
		if tp.Product.Form != metals.FormJunk && (f.Form == "" || string(tp.Product.Form) == f.Form) {
			val, _ := weightChip(tp.Product.FineOz)
			weights[val] = tp.Product.FineOz
		}
	}
	for _, fm := range dealers.Forms {
		if forms[fm] {
			v.FormChips = append(v.FormChips, pages.Chip{Label: formLabels[fm], Href: f.href(func(g *dealerFilter) { g.Form = string(fm) }), Active: f.Form == string(fm)})
		}
	}
	v.WeightChips = append(v.WeightChips, pages.Chip{Label: "Any weight", Href: f.href(func(g *dealerFilter) { g.Weight = "" }), Active: f.Weight == ""})
	vals := make([]string, 0, len(weights))
	for val := range weights {
		vals = append(vals, val)
	}
	sort.Slice(vals, func(i, j int) bool { return weights[vals[i]].LessThan(weights[vals[j]]) })
	for _, val := range vals {
		_, label := weightChip(weights[val])
		v.WeightChips = append(v.WeightChips, pages.Chip{Label: label, Href: f.href(func(g *dealerFilter) { g.Weight = val }),
			Active: !q.Weight.IsZero() && dealers.WeightMatches(metals.Product{FineOz: weights[val]}, q.Weight)})
	}
	for _, pq := range cmp.Products {
		v.Products = append(v.Products, dealerProductView(pq, f))
	}
	return kit.Render(c, fiber.StatusOK, pages.Dealers(h.Meta(c, "Dealer prices", "dealers").Describe("Where a coin or bar is cheapest, and the premium over its metal's spot value that each dealer charges."), v))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// dealerChartDays are the history lengths the product page offers; the first is its default.
var dealerChartDays = []int{30, 90, 365}

// DealerProductPage is one product: its quotes and the premium-history chart. For HTMX it
// answers the chart alone (the comparison page loads it when a product's history is opened).
func (h *Handlers) DealerProductPage(c *fiber.Ctx) error {
	days, err := kit.QueryInt(c, "days", dealerChartDays[0], 1, dealers.MaxHistoryDays)
	if err != nil {
		return err
	}
	hist, err := h.dealers.History(h.Ctx(c), dealers.HistoryQuery{Product: c.Params("product"), Days: days})
	if apperr.KindOf(err) == apperr.Invalid && len(apperr.FieldsOf(err)) > 0 && apperr.FieldsOf(err)[0].Field == "product" {
		return apperr.NotFoundf("product")
	}
	if err != nil {
		return err
	}
	p := hist.Product
	chart := dealerChart(hist)
	if kit.IsHTMX(c) {
		return kit.Render(c, fiber.StatusOK, pages.DealerChart(chart))
	}
	cmp, err := h.dealers.Compare(h.Ctx(c), dealers.Query{Metal: p.Metal})
	if err != nil {
		return err
	}
	f := dealerFilter{Metal: string(p.Metal), Sort: c.Query("sort", "price"), Desc: c.Query("dir") == "desc"}
	if !contains(dealers.SortKeys, f.Sort) {
		f.Sort = "price"
	}
	v := pages.DealerProductPageView{Chart: chart, Back: dealerFilter{Metal: string(p.Metal)}.href(nil)}
	v.Spot, v.SpotStale = spotLine(cmp.Spot)
	for _, pq := range cmp.Products {
		if pq.Product.ID == p.ID {
			v.Product = dealerProductView(pq, f)
			// Sorting on this page stays on this page.
			for i := range v.Product.Headers {
				v.Product.Headers[i].Href = strings.Replace(v.Product.Headers[i].Href, "/dealers?", "/dealers/"+url.PathEscape(p.ID)+"?", 1)
			}
		}
	}
	if v.Product.ID == "" {
		v.Product = pages.DealerProductView{ID: p.ID, Name: p.Name, Weight: productWeight(p)}
	}
	for _, d := range dealerChartDays {
		v.DayChips = append(v.DayChips, pages.Chip{Label: format.Count(int64(d), "day", "days"), Href: "/dealers/" + url.PathEscape(p.ID) + "?days=" + strconv.Itoa(d), Active: d == days})
	}
	for i := len(hist.Overall) - 1; i >= 0; i-- {
		pt := hist.Overall[i]
		v.Points = append(v.Points, pages.DealerHistoryRow{Date: format.Date(pt.Day), Min: format.Pct(pt.Min), Median: format.Pct(pt.Median), Quotes: format.Int(int64(pt.Quotes))})
	}
	return kit.Render(c, fiber.StatusOK, pages.DealerProduct(h.Meta(c, p.Name+" · dealer prices", "dealers").Describe("Prices for "+p.Name+" from each dealer, with the premium over spot and its history."), v))
}

// dealerChart draws a product's lowest and median premium per day.
func dealerChart(hist dealers.History) pages.DealerChartView {
	p := hist.Product
	id := "premium-chart-" + p.ID
	ch := components.Chart{ID: id, Title: p.Name + ": premium over spot, lowest and median across dealers", YSuffix: "%"}
	low := components.ChartSeries{Name: "lowest", Legend: "Lowest premium", Class: "stroke-emerald-600 dark:stroke-emerald-400", Swatch: "bg-emerald-600 dark:bg-emerald-400"}
	med := components.ChartSeries{Name: "median", Legend: "Median premium", Class: "stroke-amber-600 dark:stroke-amber-400", Swatch: "bg-amber-600 dark:bg-amber-400"}
	for _, pt := range hist.Overall {
		x := format.ISODate(pt.Day)
		// Floats only place the lines; the labels keep the exact figures.
		low.Points = append(low.Points, components.ChartPoint{X: x, Y: pt.Min.InexactFloat64(), Label: format.Pct(pt.Min)})
		med.Points = append(med.Points, components.ChartPoint{X: x, Y: pt.Median.InexactFloat64(), Label: format.Pct(pt.Median)})
	}
	ch.Series = []components.ChartSeries{low, med}
	ch.Description = "Line chart of " + format.Count(int64(len(hist.Overall)), "day", "days") + " of premiums over spot."
	if n := len(hist.Overall); n > 0 {
		last := hist.Overall[n-1]
		ch.Description = "Line chart of " + format.Count(int64(n), "day", "days") + " from " + format.Date(hist.Overall[0].Day) + " to " + format.Date(last.Day) +
			". On the last day the lowest premium was " + format.Pct(last.Min) + " and the median " + format.Pct(last.Median) + "."
	}
	return pages.DealerChartView{Chart: ch, Demo: hist.Demo, Days: hist.Days}
}
