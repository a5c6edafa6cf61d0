package dealers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// The import file (README, "Dealer prices"). Its JSON tags live here, on the file's own
// shape, never on domain types.
type importFile struct {
	Dealers  []importDealer  `json:"dealers"`
	Products []importProduct `json:"products"`
	Listings []importListing `json:"listings"`
	Feeds    []importFeed    `json:"feeds"`
}

type importDealer struct {
	Slug                 string `json:"slug"`
	Name                 string `json:"name"`
	Site                 string `json:"site"`
	AffiliateURLTemplate string `json:"affiliate_url_template"`
}

type importProduct struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Metal    string          `json:"metal"`
	WeightOz json.RawMessage `json:"weight_oz"`
	Form     string          `json:"form"`
	Purity   json.RawMessage `json:"purity"`
}

type importListing struct {
	Dealer  string `json:"dealer"`
	Product string `json:"product"`
	URL     string `json:"url"`
}

type importFeed struct {
	Dealer    string `json:"dealer"`
	URL       string `json:"url"`
	ItemsPath string `json:"items_path"`
	Fields    struct {
		SKU     string `json:"sku"`
		Price   string `json:"price"`
		InStock string `json:"in_stock"`
	} `json:"fields"`
	SKUs map[string]string `json:"skus"`
}

// RowError is one problem of an import file: Row names the entry ("listings[2]", or "file"),
// Field the member.
type RowError struct {
	Row, Field, Message string
}

func (e RowError) String() string {
	if e.Field == "" {
		return e.Row + ": " + e.Message
	}
	return e.Row + "." + e.Field + ": " + e.Message
}

// ImportResult counts what an import stored.
type ImportResult struct {
	Dealers, Products, Listings, Feeds int
}

// MaxImportBytes bounds an import file.
const MaxImportBytes = 5 << 20

// ImportErrors returns the row problems of a failed import (nil for other errors).
func ImportErrors(err error) []RowError {
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Unprocessable {
		rows, _ := e.Details["errors"].([]RowError)
		return rows
	}
	return nil
}

// Import adds or edits dealers, products, listings and feeds from a JSON file. Every row is
// checked first; with any problem nothing is stored and the error lists them all (see
// ImportErrors). It is an operator's command, run with the database's own access.
func (s *Service) Import(ctx context.Context, data []byte) (ImportResult, error) {
	if len(data) > MaxImportBytes {
		return ImportResult{}, importFailed([]RowError{{Row: "file", Message: fmt.Sprintf("is larger than %d MiB", MaxImportBytes>>20)}})
	}
	var f importFile
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return ImportResult{}, importFailed([]RowError{{Row: "file", Message: "is not the import JSON: " + err.Error()}})
	}
	if d.More() {
		return ImportResult{}, importFailed([]RowError{{Row: "file", Message: "has more than one JSON document"}})
	}
	if len(f.Dealers)+len(f.Products)+len(f.Listings)+len(f.Feeds) == 0 {
		return ImportResult{}, importFailed([]RowError{{Row: "file", Message: "has no dealers, products, listings or feeds"}})
	}
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return ImportResult{}, err
	}
	rows, errs := validateImport(f, cat)
	if len(errs) > 0 {
		return ImportResult{}, importFailed(errs)
	}
	if err := s.store.ImportDealerCatalogue(ctx, rows); err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Dealers: len(rows.Dealers), Products: len(rows.Products), Listings: len(rows.Listings), Feeds: len(rows.Feeds)}, nil
}

func importFailed(errs []RowError) error {
	msg := errs[0].String()
	if len(errs) > 1 {
		msg += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	return &apperr.Error{Kind: apperr.Unprocessable, Msg: msg, Details: map[string]any{"errors": errs}}
}

// importNumber reads a number written as a JSON number or a string.
func importNumber(raw json.RawMessage) (decimal.Decimal, bool) {
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if json.Unmarshal(raw, &s) != nil {
			return decimal.Zero, false
		}
	}
	d, err := plainDecimal(strings.TrimSpace(s))
	return d, err == nil
}

func textOK(s string, max int) bool {
	return strings.TrimSpace(s) == s && s != "" && utf8.RuneCountInString(s) <= max && utf8.ValidString(s)
}

// importCheck gathers what validating an import file needs: the rows accepted so far, the
// errors found, and the dealers' sites and the products known (the catalogue's and the file's).
type importCheck struct {
	out      db.DealerCatalogueRows
	errs     []RowError
	sites    map[string]*url.URL
	products map[string]bool
}

func (c *importCheck) bad(row, field, msg string) {
	c.errs = append(c.errs, RowError{Row: row, Field: field, Message: msg})
}

// nameOK checks a row's name (a dealer's, a product's) against the rule of names: present, at
// most max characters, without surrounding spaces; a bad one is recorded.
func (c *importCheck) nameOK(row, name string, max int) bool {
	if textOK(name, max) {
		return true
	}
	c.bad(row, "name", fmt.Sprintf("is required, at most %d characters, without surrounding spaces", max))
	return false
}

// validateImport checks every row against the catalogue and the rest of the file.
func validateImport(f importFile, cat Catalogue) (db.DealerCatalogueRows, []RowError) {
	c := &importCheck{sites: map[string]*url.URL{}, products: map[string]bool{}}
	for _, d := range cat.Dealers {
		if u, err := url.Parse(d.Site); err == nil {
			c.sites[d.Slug] = u
		}
	}
	c.checkDealers(f.Dealers)
	for _, p := range cat.Products {
		c.products[p.ID] = true
	}
	c.checkProducts(f.Products)
	c.checkListings(f.Listings)
	for i, fd := range f.Feeds {
		c.checkFeed(fmt.Sprintf("feeds[%d]", i), fd)
	}
	return c.out, c.errs
}

// checkDealers accepts the file's dealers; their sites join the catalogue's.
func (c *importCheck) checkDealers(dealers []importDealer) {
	seen := map[string]bool{}
	for i, d := range dealers {
		row := fmt.Sprintf("dealers[%d]", i)
		ok := true
		if !validSlug(d.Slug) {
			c.bad(row, "slug", "must be lowercase letters and digits in words joined by hyphens (apmex, jm-bullion)")
			ok = false
		} else if seen[d.Slug] {
			c.bad(row, "slug", "repeats an earlier dealer of the file")
			ok = false
		}
		seen[d.Slug] = true
		if !c.nameOK(row, d.Name, 120) {
			ok = false
		}
		site, err := checkWebURL(d.Site)
		if err != nil {
			c.bad(row, "site", err.Error())
			ok = false
		}
		tmpl := d.AffiliateURLTemplate
		if tmpl == "" {
			tmpl = "{url}"
		}
		if err := checkAffiliateTemplate(tmpl); err != nil {
			c.bad(row, "affiliate_url_template", err.Error())
			ok = false
		}
		if ok {
			c.sites[d.Slug] = site
			c.out.Dealers = append(c.out.Dealers, db.DealerRow{Slug: d.Slug, Name: d.Name, Site: d.Site, AffiliateTemplate: tmpl})
		}
	}
}

// checkProducts accepts the file's products; their ids join the catalogue's.
func (c *importCheck) checkProducts(products []importProduct) {
	seen := map[string]bool{}
	for i, p := range products {
		row := fmt.Sprintf("products[%d]", i)
		ok := true
		_, builtIn := metals.ProductByID(p.ID)
		switch {
		case !validSlug(p.ID):
			c.bad(row, "id", "must be lowercase letters and digits in words joined by hyphens (silver-libertad-1oz)")
			ok = false
		case builtIn:
			c.bad(row, "id", "is a built-in product, which imports cannot change; choose a new id")
			ok = false
		case seen[p.ID]:
			c.bad(row, "id", "repeats an earlier product of the file")
			ok = false
		}
		seen[p.ID] = true
		if !c.nameOK(row, p.Name, 200) {
			ok = false
		}
		if !metals.Metal(p.Metal).Valid() {
			c.bad(row, "metal", metalMessage)
			ok = false
		}
		w, wok := importNumber(p.WeightOz)
		if !wok || !w.IsPositive() || w.GreaterThan(maxWeight) || w.Exponent() < -8 {
			c.bad(row, "weight_oz", "must be fine troy ounces per unit (per $1 face for junk), more than 0 and at most 100000, up to 8 decimals")
			ok = false
		}
		if !validForm(metals.Form(p.Form)) {
			c.bad(row, "form", "must be one of coin, bar, round, junk")
			ok = false
		}
		pur, pok := importNumber(p.Purity)
		if !pok || !pur.IsPositive() || pur.GreaterThan(decimal.NewFromInt(1)) || pur.Exponent() < -5 {
			c.bad(row, "purity", "must be the fineness as a fraction, more than 0 and at most 1 (0.999), up to 5 decimals")
			ok = false
		}
		if ok {
			c.products[p.ID] = true
			c.out.Products = append(c.out.Products, db.DealerProductRow{ID: p.ID, Name: p.Name, Metal: p.Metal, WeightOz: w, Form: p.Form, Purity: pur})
		}
	}
}

// dealerKnown reports whether slug is a dealer of the catalogue or of the file.
func (c *importCheck) dealerKnown(row, slug string) bool {
	if _, ok := c.sites[slug]; ok {
		return true
	}
	c.bad(row, "dealer", "is not a dealer of the catalogue or of this file")
	return false
}

// checkListings accepts listings of known dealers and products, on the dealer's site.
func (c *importCheck) checkListings(listings []importListing) {
	seenPair := map[pair]bool{}
	for i, l := range listings {
		row := fmt.Sprintf("listings[%d]", i)
		ok := c.dealerKnown(row, l.Dealer)
		if !c.products[l.Product] {
			c.bad(row, "product", "is not a product of the catalogue or of this file")
			ok = false
		}
		if seenPair[pair{l.Dealer, l.Product}] {
			c.bad(row, "product", "repeats an earlier listing of the same dealer")
			ok = false
		}
		seenPair[pair{l.Dealer, l.Product}] = true
		u, err := checkWebURL(l.URL)
		switch {
		case err != nil:
			c.bad(row, "url", err.Error())
			ok = false
		case c.sites[l.Dealer] != nil && !sameSite(c.sites[l.Dealer], u):
			c.bad(row, "url", "must be on the dealer's site ("+c.sites[l.Dealer].Hostname()+")")
			ok = false
		}
		if ok {
			c.out.Listings = append(c.out.Listings, db.DealerListingRow{Dealer: l.Dealer, Product: l.Product, URL: l.URL})
		}
	}
}

// checkFeed accepts one feed of a known dealer whose SKUs map to known products.
func (c *importCheck) checkFeed(row string, fd importFeed) {
	ok := c.dealerKnown(row, fd.Dealer)
	if _, err := checkWebURL(fd.URL); err != nil {
		c.bad(row, "url", err.Error())
		ok = false
	}
	if fd.ItemsPath != "" && !validPath(fd.ItemsPath) {
		c.bad(row, "items_path", "must be a dotted path like data.products, or empty for a top-level array")
		ok = false
	}
	for _, fl := range []struct{ name, val string }{{"fields.sku", fd.Fields.SKU}, {"fields.price", fd.Fields.Price}} {
		if !validPath(fl.val) {
			c.bad(row, fl.name, "is required: the dotted path of the member inside one item")
			ok = false
		}
	}
	if fd.Fields.InStock != "" && !validPath(fd.Fields.InStock) {
		c.bad(row, "fields.in_stock", "must be a dotted path inside one item, or empty")
		ok = false
	}
	if len(fd.SKUs) == 0 {
		c.bad(row, "skus", "must map at least one of the dealer's SKUs to a product id")
		ok = false
	}
	keys := make([]string, 0, len(fd.SKUs))
	for k := range fd.SKUs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !textOK(k, 100) {
			c.bad(row, "skus", fmt.Sprintf("SKU %q must be 1 to 100 characters without surrounding spaces", k))
			ok = false
		}
		if !c.products[fd.SKUs[k]] {
			c.bad(row, "skus."+k, "is not a product of the catalogue or of this file")
			ok = false
		}
	}
	if ok {
		b, _ := json.Marshal(fd.SKUs)
		c.out.Feeds = append(c.out.Feeds, db.DealerFeedRow{Dealer: fd.Dealer, URL: fd.URL, ItemsPath: fd.ItemsPath, SKUField: fd.Fields.SKU,
			PriceField: fd.Fields.Price, InStockField: fd.Fields.InStock, SKUs: string(b)})
	}
}
