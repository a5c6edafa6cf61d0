package dealers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Tier is a quantity price break: Price per unit when buying MinQty to MaxQty units (MaxQty 0:
// no upper bound).
type Tier struct {
	MinQty int
	MaxQty int
	Price  decimal.Decimal
}

// PageOffer is what a product page says about the product: the price of one unit, the
// quantity tiers when the page has them, and availability.
type PageOffer struct {
	Name string
	// Price is the price of a single unit: the tier that starts at one, never the "as low as"
	// price of the largest quantity.
	Price    decimal.Decimal
	Currency string
	InStock  bool
	Tiers    []Tier
	// Via names where the price was read: "json-ld", "microdata", plus "+table" when the
	// tiers came from the page's quantity price table.
	Via string
}

// Errors of the page adapter.
var (
	ErrNoProduct = errors.New("no schema.org Product with an offer on the page")
	ErrOnlyLow   = errors.New(`only an "as low as" price on the page, no single-unit price`)
)

// maxPrice bounds a believable unit price (a kilo of gold is about $150,000).
var maxPrice = decimal.NewFromInt(10_000_000)

// ParseProductPage reads a dealer's product page: schema.org Product/Offer data in JSON-LD
// first, microdata second, and the page's quantity price table for tiers when the structured
// data has none.
func ParseProductPage(body []byte) (PageOffer, error) {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return PageOffer{}, fmt.Errorf("parse html: %w", err)
	}
	var nodes []map[string]any
	via := ""
	for _, raw := range jsonLDBlocks(doc) {
		d := json.NewDecoder(strings.NewReader(raw))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			continue // one broken block must not hide a good one
		}
		nodes = append(nodes, findProducts(v)...)
	}
	if len(nodes) > 0 {
		via = "json-ld"
	} else {
		for _, it := range microdataItems(doc) {
			nodes = append(nodes, findProducts(it)...)
		}
		via = "microdata"
	}
	table := tableTiers(doc)
	var firstErr error
	for _, p := range nodes {
		off, err := offerFromProduct(p, table)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		off.Via = via + off.Via
		return off, nil
	}
	if firstErr != nil {
		return PageOffer{}, firstErr
	}
	return PageOffer{}, ErrNoProduct
}

// jsonLDBlocks returns the text of every <script type="application/ld+json">.
func jsonLDBlocks(n *html.Node) []string {
	var out []string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Script && strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				b.WriteString(c.Data)
			}
			out = append(out, b.String())
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// hasType reports whether a node's @type is (or lists) the schema.org type t.
func hasType(m map[string]any, t string) bool {
	match := func(v any) bool {
		s, _ := v.(string)
		s = s[strings.LastIndexAny(s, "/#:")+1:]
		return strings.EqualFold(s, t)
	}
	switch v := m["@type"].(type) {
	case string:
		return match(v)
	case []any:
		for _, x := range v {
			if match(x) {
				return true
			}
		}
	}
	return false
}

// findProducts walks JSON-LD (objects, arrays, @graph) for Product nodes.
func findProducts(v any) []map[string]any {
	var out []map[string]any
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = append(out, findProducts(e)...)
		}
	case map[string]any:
		if hasType(x, "Product") || hasType(x, "IndividualProduct") || hasType(x, "ProductModel") {
			out = append(out, x)
		}
		for _, k := range []string{"@graph", "mainEntity", "itemListElement", "item"} {
			if c, ok := x[k]; ok {
				out = append(out, findProducts(c)...)
			}
		}
	}
	return out
}

// list turns a single value or an array into a slice.
func list(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

// first is the first value of a property (JSON-LD and microdata both allow several).
func first(m map[string]any, k string) any {
	l := list(m[k])
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case json.Number:
		return x.String()
	case map[string]any:
		// A nested item standing for a value (e.g. availability as {"@id": …}).
		for _, k := range []string{"@id", "url", "name", "value"} {
			if s := str(first(x, k)); s != "" {
				return s
			}
		}
	}
	return ""
}

var moneyRe = regexp.MustCompile(`^\$?\s*([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(\.[0-9]+)?$`)

// parsePrice reads 34.99, "34.99", "$1,234.56" as dollars.
func parsePrice(v any) (decimal.Decimal, bool) {
	s := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(str(v)), "USD"))
	m := moneyRe.FindStringSubmatch(s)
	if m == nil {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(strings.ReplaceAll(m[1], ",", "") + m[2])
	if err != nil || !d.IsPositive() || d.GreaterThan(maxPrice) {
		return decimal.Zero, false
	}
	return d, true
}

// inStock reads schema.org availability: InStock, LimitedAvailability, OnlineOnly and
// InStoreOnly can be bought now; anything else (OutOfStock, SoldOut, PreOrder, BackOrder,
// Discontinued), or no statement at all, cannot be promised.
func inStock(v any) bool {
	s := strings.ToLower(str(v))
	s = s[strings.LastIndexAny(s, "/#:")+1:]
	switch strings.ReplaceAll(s, " ", "") {
	case "instock", "limitedavailability", "onlineonly", "instoreonly":
		return true
	}
	return false
}

// quantity reads an eligibleQuantity (QuantitativeValue) as a range.
func quantity(v any) (lo, hi int, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap {
		return 0, 0, false
	}
	atoi := func(k string) int {
		n, err := strconv.Atoi(strings.TrimSpace(str(first(m, k))))
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	lo, hi = atoi("minValue"), atoi("maxValue")
	if lo == 0 {
		if v := atoi("value"); v > 0 {
			lo, hi = v, v
		}
	}
	if lo == 0 && hi == 0 {
		return 0, 0, false
	}
	if lo == 0 {
		lo = 1
	}
	return lo, hi, true
}

// offerFromProduct reads a Product node's offers.
func offerFromProduct(p map[string]any, table []Tier) (PageOffer, error) {
	out := PageOffer{Name: str(first(p, "name"))}
	var tiers, plain []Tier
	var low, high decimal.Decimal
	stockKnown := false
	currency := ""
	var visit func(o map[string]any, depth int)
	visit = func(o map[string]any, depth int) {
		if depth > 4 {
			return
		}
		if c := str(first(o, "priceCurrency")); c != "" && currency == "" {
			currency = strings.ToUpper(c)
		}
		if a := first(o, "availability"); a != nil && !stockKnown {
			out.InStock, stockKnown = inStock(a), true
		}
		for _, spec := range list(o["priceSpecification"]) {
			sm, ok := spec.(map[string]any)
			if !ok {
				continue
			}
			if c := str(first(sm, "priceCurrency")); c != "" && currency == "" {
				currency = strings.ToUpper(c)
			}
			if price, ok := parsePrice(first(sm, "price")); ok {
				if lo, hi, ok := quantity(first(sm, "eligibleQuantity")); ok {
					tiers = append(tiers, Tier{MinQty: lo, MaxQty: hi, Price: price})
				} else {
					plain = append(plain, Tier{MinQty: 1, Price: price})
				}
			}
		}
		if price, ok := parsePrice(first(o, "price")); ok {
			if lo, hi, ok := quantity(first(o, "eligibleQuantity")); ok {
				tiers = append(tiers, Tier{MinQty: lo, MaxQty: hi, Price: price})
			} else {
				plain = append(plain, Tier{MinQty: 1, Price: price})
			}
		}
		if v, ok := parsePrice(first(o, "lowPrice")); ok && low.IsZero() {
			low = v
		}
		if v, ok := parsePrice(first(o, "highPrice")); ok && high.IsZero() {
			high = v
		}
		for _, sub := range list(o["offers"]) {
			if sm, ok := sub.(map[string]any); ok {
				visit(sm, depth+1)
			}
		}
	}
	visit(map[string]any{"offers": p["offers"]}, 0)
	if currency != "" && currency != "USD" {
		return PageOffer{}, fmt.Errorf("priced in %s, not USD", currency)
	}
	out.Currency = "USD"
	switch {
	case len(tiers) > 0:
		out.Tiers = normalizeTiers(tiers)
	case len(table) > 0:
		out.Tiers, out.Via = table, "+table"
	}
	switch {
	case len(out.Tiers) > 0:
		out.Price = out.Tiers[0].Price
	case len(plain) > 0:
		out.Price = plain[0].Price
	case high.IsPositive():
		// An aggregate "from … to …" without tiers: the single unit pays the high end.
		out.Price = high
	case low.IsPositive():
		return PageOffer{}, ErrOnlyLow
	default:
		return PageOffer{}, ErrNoProduct
	}
	return out, nil
}

// normalizeTiers sorts tiers by their first quantity and drops repeats of a quantity.
func normalizeTiers(ts []Tier) []Tier {
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].MinQty < ts[j].MinQty })
	var out []Tier
	for _, t := range ts {
		if len(out) > 0 && out[len(out)-1].MinQty == t.MinQty {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Quantity ranges of price tables: "1 - 19", "1–19", "1 to 19", "20+", "500 or more", "100 & up".
var (
	rangeRe  = regexp.MustCompile(`(?i)^(?:qty\.?|quantity)?\s*:?\s*([0-9][0-9,]*)\s*(?:-|–|—|to)\s*([0-9][0-9,]*)\b`)
	openRe   = regexp.MustCompile(`(?i)^(?:qty\.?|quantity)?\s*:?\s*([0-9][0-9,]*)\s*(?:\+|or more|and up|& ?up|and over|or above)`)
	dollarRe = regexp.MustCompile(`\$\s*([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(\.[0-9]{1,2})?`)
)

// parseQty reads a quantity range cell.
func parseQty(s string) (lo, hi int, ok bool) {
	s = strings.TrimSpace(s)
	num := func(x string) int { n, _ := strconv.Atoi(strings.ReplaceAll(x, ",", "")); return n }
	if m := rangeRe.FindStringSubmatch(s); m != nil {
		lo, hi = num(m[1]), num(m[2])
		return lo, hi, lo > 0 && hi >= lo
	}
	if m := openRe.FindStringSubmatch(s); m != nil {
		lo = num(m[1])
		return lo, 0, lo > 0
	}
	return 0, 0, false
}

// tableTiers finds a quantity price table: rows (<tr>, or elements with role="row") whose
// first cell is a quantity range and a later cell a dollar price. The first price column is
// taken: dealers list the check/wire price first. At least two such rows make a table.
func tableTiers(doc *html.Node) []Tier {
	var best []Tier
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.DataAtom == atom.Table || attr(n, "role") == "table" || attr(n, "role") == "grid") {
			var ts []Tier
			for _, row := range rows(n) {
				cells := cellsOf(row)
				if len(cells) < 2 {
					continue
				}
				lo, hi, ok := parseQty(cells[0])
				if !ok {
					continue
				}
				for _, c := range cells[1:] {
					if m := dollarRe.FindStringSubmatch(c); m != nil {
						if p, ok := parsePrice(m[1] + m[2]); ok {
							ts = append(ts, Tier{MinQty: lo, MaxQty: hi, Price: p})
						}
						break
					}
				}
			}
			if len(ts) >= 2 && len(ts) > len(best) {
				best = normalizeTiers(ts)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return best
}

// rows are a table's rows: <tr> or role="row", nested tables excluded.
func rows(table *html.Node) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Tr || attr(c, "role") == "row" {
				out = append(out, c)
				continue
			}
			if c.DataAtom == atom.Table {
				continue
			}
			walk(c)
		}
	}
	walk(table)
	return out
}

// cellsOf is the text of a row's cells (td/th, or the row's element children).
func cellsOf(row *html.Node) []string {
	var out []string
	for c := row.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			out = append(out, strings.Join(strings.Fields(textOf(c)), " "))
		}
	}
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

// microdataItems returns the page's top-level microdata items as JSON-LD-like maps:
// {"@type": "Product", "name": "…", "offers": {…}} with every property a list of values.
func microdataItems(doc *html.Node) []any {
	var out []any
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && hasAttr(n, "itemscope") && !hasAttr(n, "itemprop") {
			out = append(out, microdataItem(n))
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

// microdataItem reads one itemscope element's properties (nested items stay nested).
func microdataItem(n *html.Node) map[string]any {
	item := map[string]any{}
	if t := strings.Fields(attr(n, "itemtype")); len(t) > 0 {
		item["@type"] = t[0]
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			props := strings.Fields(attr(c, "itemprop"))
			if len(props) > 0 {
				var v any
				if hasAttr(c, "itemscope") {
					v = microdataItem(c)
				} else {
					v = microdataValue(c)
				}
				for _, p := range props {
					item[p] = append(list(item[p]), v)
				}
				if hasAttr(c, "itemscope") {
					continue // its properties belong to the nested item
				}
			} else if hasAttr(c, "itemscope") {
				continue // an unrelated item inside this one
			}
			walk(c)
		}
	}
	walk(n)
	return item
}

// microdataValue is a property's value per the microdata rules (content, href, value,
// datetime), falling back to the element's text.
func microdataValue(n *html.Node) string {
	if hasAttr(n, "content") {
		return attr(n, "content")
	}
	switch n.DataAtom {
	case atom.A, atom.Link, atom.Area:
		return attr(n, "href")
	case atom.Img, atom.Source, atom.Audio, atom.Video, atom.Embed, atom.Iframe, atom.Track:
		return attr(n, "src")
	case atom.Data, atom.Meter:
		return attr(n, "value")
	case atom.Time:
		if v := attr(n, "datetime"); v != "" {
			return v
		}
	}
	return strings.Join(strings.Fields(textOf(n)), " ")
}
