package dealers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// Dealer is a seller of bullion.
type Dealer struct {
	Slug string
	Name string
	// Site is the dealer's home page, the click-through target when no product page is listed.
	Site string
	// AffiliateTemplate wraps every URL sent to the dealer; it holds {url}. "{url}" alone means
	// no affiliate programme.
	AffiliateTemplate string
	// BuiltIn is true for the nine dealers Ounce ships with (an import may still edit them).
	BuiltIn bool
}

// BuiltInDealers are the dealers Ounce knows without an import. No affiliate programme is
// configured: an operator who has one imports the dealer with its template.
var BuiltInDealers = []Dealer{
	{Slug: "apmex", Name: "APMEX", Site: "https://www.apmex.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "jm-bullion", Name: "JM Bullion", Site: "https://www.jmbullion.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "sd-bullion", Name: "SD Bullion", Site: "https://sdbullion.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "monument-metals", Name: "Monument Metals", Site: "https://monumentmetals.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "hero-bullion", Name: "Hero Bullion", Site: "https://www.herobullion.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "bullion-exchanges", Name: "Bullion Exchanges", Site: "https://bullionexchanges.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "summit-metals", Name: "Summit Metals", Site: "https://summitmetals.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "provident-metals", Name: "Provident Metals", Site: "https://www.providentmetals.com/", AffiliateTemplate: "{url}", BuiltIn: true},
	{Slug: "money-metals", Name: "Money Metals", Site: "https://www.moneymetals.com/", AffiliateTemplate: "{url}", BuiltIn: true},
}

// Listing is one dealer's product page for one product, read by the page adapter.
type Listing struct {
	Dealer  string
	Product string
	URL     string
}

// FeedConfig is one dealer's JSON price list and how to map it onto products.
type FeedConfig struct {
	Dealer string
	URL    string
	// ItemsPath is the dotted path to the array of items ("data.products"); empty means the
	// document itself is the array.
	ItemsPath string
	// SKUField, PriceField and InStockField are dotted paths inside one item; InStockField may
	// be empty (the feed lists only what is for sale).
	SKUField, PriceField, InStockField string
	// SKUs maps the dealer's SKUs to catalogue product ids; other items are ignored.
	SKUs map[string]string
}

// Catalogue is every dealer, product, listing and feed: the built-in ones with what imports
// added or edited.
type Catalogue struct {
	Dealers  []Dealer
	Products []metals.Product
	Listings []Listing
	Feeds    []FeedConfig

	dealerBySlug map[string]Dealer
	productByID  map[string]metals.Product
	listingURL   map[pair]string
	feedPairs    map[pair]bool
}

// pair is a dealer and a product.
type pair struct{ dealer, product string }

// Dealer looks a dealer up by slug.
func (c Catalogue) Dealer(slug string) (Dealer, bool) { d, ok := c.dealerBySlug[slug]; return d, ok }

// Product looks a product up by id.
func (c Catalogue) Product(id string) (metals.Product, bool) {
	p, ok := c.productByID[id]
	return p, ok
}

// Carries reports whether the catalogue knows the dealer to sell the product: a listed
// product page, a feed SKU mapped to it, or the built-in demo assortment.
func (c Catalogue) Carries(dealer, product string) bool {
	k := pair{dealer, product}
	if _, ok := c.listingURL[k]; ok || c.feedPairs[k] {
		return true
	}
	d, okD := c.dealerBySlug[dealer]
	p, okP := c.productByID[product]
	return okD && okP && demoCarries(d, p)
}

// ProductURL is where a click on (dealer, product) goes, affiliate template applied: the
// listed product page, or the dealer's site. ok is false for a pair the catalogue does not
// carry, so nothing but a catalogue URL can ever be produced.
func (c Catalogue) ProductURL(dealer, product string) (string, bool) {
	if !c.Carries(dealer, product) {
		return "", false
	}
	d := c.dealerBySlug[dealer]
	target := d.Site
	if u, ok := c.listingURL[pair{dealer, product}]; ok {
		target = u
	}
	out, err := applyAffiliate(d.AffiliateTemplate, target)
	if err != nil {
		return "", false
	}
	return out, true
}

// DealersFor lists the dealers that carry a product, by name.
func (c Catalogue) DealersFor(product string) []Dealer {
	var out []Dealer
	for _, d := range c.Dealers {
		if c.Carries(d.Slug, product) {
			out = append(out, d)
		}
	}
	return out
}

// Catalogue reads the catalogue: built-in dealers and products, with imports applied.
func (s *Service) Catalogue(ctx context.Context) (Catalogue, error) {
	rows, err := s.store.DealerCatalogue(ctx)
	if err != nil {
		return Catalogue{}, err
	}
	dealers := map[string]Dealer{}
	for _, d := range BuiltInDealers {
		dealers[d.Slug] = d
	}
	for _, r := range rows.Dealers {
		_, builtIn := dealers[r.Slug]
		dealers[r.Slug] = Dealer{Slug: r.Slug, Name: r.Name, Site: r.Site, AffiliateTemplate: r.AffiliateTemplate, BuiltIn: builtIn}
	}
	products := append([]metals.Product(nil), metals.Products...)
	for _, r := range rows.Products {
		if _, builtIn := metals.ProductByID(r.ID); builtIn {
			continue // imports never change a built-in product (validation refuses it too)
		}
		products = append(products, importedProduct(r.ID, r.Name, metals.Metal(r.Metal), r.WeightOz, metals.Form(r.Form), r.Purity))
	}
	var listings []Listing
	for _, r := range rows.Listings {
		listings = append(listings, Listing{Dealer: r.Dealer, Product: r.Product, URL: r.URL})
	}
	var feeds []FeedConfig
	for _, r := range rows.Feeds {
		f := FeedConfig{Dealer: r.Dealer, URL: r.URL, ItemsPath: r.ItemsPath, SKUField: r.SKUField, PriceField: r.PriceField, InStockField: r.InStockField}
		if err := json.Unmarshal([]byte(r.SKUs), &f.SKUs); err != nil {
			return Catalogue{}, fmt.Errorf("feed %s %s: stored SKU map: %w", r.Dealer, r.URL, err)
		}
		feeds = append(feeds, f)
	}
	var ds []Dealer
	for _, d := range dealers {
		ds = append(ds, d)
	}
	return buildCatalogue(ds, products, listings, feeds), nil
}

// buildCatalogue indexes the parts. Dealers are ordered by name.
func buildCatalogue(ds []Dealer, products []metals.Product, listings []Listing, feeds []FeedConfig) Catalogue {
	sort.Slice(ds, func(i, j int) bool { return strings.ToLower(ds[i].Name) < strings.ToLower(ds[j].Name) })
	c := Catalogue{Dealers: ds, Products: products, Listings: listings, Feeds: feeds,
		dealerBySlug: map[string]Dealer{}, productByID: map[string]metals.Product{}, listingURL: map[pair]string{}, feedPairs: map[pair]bool{}}
	for _, d := range ds {
		c.dealerBySlug[d.Slug] = d
	}
	for _, p := range products {
		c.productByID[p.ID] = p
	}
	for _, l := range listings {
		if _, ok := c.dealerBySlug[l.Dealer]; ok {
			if _, ok := c.productByID[l.Product]; ok {
				c.listingURL[pair{l.Dealer, l.Product}] = l.URL
			}
		}
	}
	for _, f := range feeds {
		for _, pid := range f.SKUs {
			if _, ok := c.productByID[pid]; ok {
				c.feedPairs[pair{f.Dealer, pid}] = true
			}
		}
	}
	return c
}

// importedProduct is a product an import added. Junk is sold by face value: its weight is the
// fine ounces in $1 face.
func importedProduct(id, name string, m metals.Metal, oz decimal.Decimal, f metals.Form, purity decimal.Decimal) metals.Product {
	return metals.Product{ID: id, Name: name, Metal: m, FineOz: oz, Form: f, Purity: purity, PerFace: f == metals.FormJunk}
}

var slugRe = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// MaxSlug bounds a dealer or product slug (the API document states it too).
const MaxSlug = 64

// validSlug is lowercase letters and digits in hyphen-separated words, at most MaxSlug characters.
func validSlug(s string) bool { return len(s) <= MaxSlug && slugRe.MatchString(s) }

// maxURLLen bounds every URL of the catalogue.
const maxURLLen = 2000

// checkWebURL accepts only an absolute http(s) URL with a host and no user info: the only kind
// Ounce ever sends a browser to. Scheme-relative (//evil), javascript:, data: and relative
// URLs are refused.
func checkWebURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("is required")
	}
	if len(raw) > maxURLLen {
		return nil, fmt.Errorf("must be at most %d characters", maxURLLen)
	}
	if strings.TrimSpace(raw) != raw || strings.ContainsAny(raw, " \t\r\n\\") {
		return nil, fmt.Errorf("must not contain spaces or backslashes")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("is not a URL")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("must start with https:// or http://")
	}
	if u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return nil, fmt.Errorf("must name a host")
	}
	if u.User != nil {
		return nil, fmt.Errorf("must not carry a user name or password")
	}
	return u, nil
}

// sameSite reports whether a listing's host belongs to the dealer's site: the site's host
// without "www.", or a subdomain of it.
func sameSite(site, listing *url.URL) bool {
	base := strings.TrimPrefix(strings.ToLower(site.Hostname()), "www.")
	h := strings.ToLower(listing.Hostname())
	return h == base || strings.HasSuffix(h, "."+base)
}

// checkAffiliateTemplate accepts a template holding {url} exactly once in one of two forms:
// "{url}" followed by query parameters to append ("{url}?ref=partner"), or a web URL that
// wraps the product URL ("https://partner.example/click?u={url}").
func checkAffiliateTemplate(t string) error {
	if strings.Count(t, "{url}") != 1 {
		return fmt.Errorf("must hold {url} exactly once")
	}
	if rest, ok := strings.CutPrefix(t, "{url}"); ok {
		if rest != "" && rest[0] != '?' && rest[0] != '&' {
			return fmt.Errorf("must be {url}, {url} followed by ? or & and the parameters to append, or a URL starting with https:// or http://")
		}
	} else if !strings.HasPrefix(t, "https://") && !strings.HasPrefix(t, "http://") {
		return fmt.Errorf("must start with {url} or with https:// or http://")
	}
	if _, err := applyAffiliate(t, "https://example.com/product?id=1#top"); err != nil {
		return err
	}
	if _, err := applyAffiliate(t, "https://example.com/product"); err != nil {
		return err
	}
	return nil
}

// applyAffiliate puts target into the template. A template starting with {url} appends to the
// URL kept as it is: its suffix ("?ref=x" or "&ref=x") joins the URL's own query with the
// right separator, before its fragment. Any other template
// wraps the URL query-escaped. The result is checked again, so a template can never turn a
// catalogue URL into something else than a web URL, and an appending one never changes its host.
func applyAffiliate(template, target string) (string, error) {
	tu, err := checkWebURL(target)
	if err != nil {
		return "", fmt.Errorf("url %s", err)
	}
	out := target
	if rest, ok := strings.CutPrefix(template, "{url}"); ok {
		out = appendToURL(target, rest)
	} else if template != "" {
		out = strings.Replace(template, "{url}", url.QueryEscape(target), 1)
	}
	ou, err := checkWebURL(out)
	if err != nil {
		return "", fmt.Errorf("affiliate URL %s", err)
	}
	if strings.HasPrefix(template, "{url}") && (ou.Scheme != tu.Scheme || ou.Host != tu.Host) {
		return "", fmt.Errorf("affiliate URL must keep the product URL's host")
	}
	return out, nil
}

// appendToURL adds a template's suffix to target: "?a=b" and "&a=b" become query parameters
// after the URL's own query and before its fragment.
func appendToURL(target, suffix string) string {
	if suffix == "" {
		return target
	}
	base, frag, hasFrag := strings.Cut(target, "#")
	params := strings.TrimLeft(suffix[1:], "?&")
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
		if strings.HasSuffix(base, "?") || strings.HasSuffix(base, "&") {
			sep = ""
		}
	}
	out := base + sep + params
	if hasFrag {
		out += "#" + frag
	}
	return out
}
