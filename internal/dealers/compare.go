package dealers

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// Quote is one dealer's price for one product, with what it means at spot.
type Quote struct {
	Dealer  Dealer
	Product metals.Product
	// Price is the price of one unit (of $1 face for junk silver).
	Price   decimal.Decimal
	InStock bool
	// URL is the catalogue URL a click leads to (affiliate template applied).
	URL       string
	UpdatedAt time.Time
	// Source is SourcePage, SourceFeed or SourceDemo.
	Source string
	Tiers  []Tier
	// PricePerOz is Price over the fine ounces of a unit.
	PricePerOz decimal.Decimal
	// PremiumPct is the premium over spot in percent; nil when the spot is unknown.
	PremiumPct *decimal.Decimal
}

// Demo reports whether the quote is a demo quote.
func (q Quote) Demo() bool { return q.Source == SourceDemo }

// ProductQuotes is the comparison of one product.
type ProductQuotes struct {
	Product metals.Product
	// Quotes are sorted by price, in-stock first among equal prices.
	Quotes []Quote
	// Best is the cheapest quote in stock; nil when none is.
	Best *Quote
	// MedianPremium is the median premium of the quotes; nil without a spot or quotes.
	MedianPremium *decimal.Decimal
	// Demo is true when the quotes are demo quotes (no fresh real quote of the product).
	Demo bool
}

// Comparison is dealer prices for a metal.
type Comparison struct {
	Metal    metals.Metal
	Spot     Spot
	Products []ProductQuotes
	// Demo is true when any product shows demo quotes.
	Demo bool
	// Offline is true when the service never fetches.
	Offline bool
}

// Query selects products to compare. Zero Weight and empty Form mean any.
type Query struct {
	Metal  metals.Metal
	Weight decimal.Decimal
	Form   metals.Form
}

// validForm reports whether f is one of the product forms.
func validForm(f metals.Form) bool {
	switch f {
	case metals.FormCoin, metals.FormBar, metals.FormRound, metals.FormJunk:
		return true
	}
	return false
}

// Forms lists the product forms in display order.
var Forms = []metals.Form{metals.FormCoin, metals.FormBar, metals.FormRound, metals.FormJunk}

const metalMessage = "must be one of gold, silver, platinum, palladium"

func (q Query) validate() error {
	var fe []apperr.FieldError
	if q.Metal == "" {
		fe = append(fe, apperr.FieldError{Field: "metal", Message: "is required: " + metalMessage})
	} else if !q.Metal.Valid() {
		fe = append(fe, apperr.FieldError{Field: "metal", Message: metalMessage})
	}
	if q.Weight.IsNegative() {
		fe = append(fe, apperr.FieldError{Field: "weight", Message: "must be more than 0"})
	}
	if q.Form != "" && !validForm(q.Form) {
		fe = append(fe, apperr.FieldError{Field: "form", Message: "must be one of coin, bar, round, junk"})
	}
	return apperr.InvalidFields(fe)
}

func (q Query) matches(p metals.Product) bool {
	if p.Metal != q.Metal || q.Form != "" && p.Form != q.Form {
		return false
	}
	return q.Weight.IsZero() || WeightMatches(p, q.Weight)
}

// Compare is the use case behind /v1/dealer-prices and /dealers: for each product of the
// metal (and weight, form) that some dealer carries, its fresh quotes ranked by price, outliers
// left out, premiums at the board's spot. A product with no fresh real quote shows demo quotes,
// labelled so, derived from published typical premiums.
func (s *Service) Compare(ctx context.Context, q Query) (Comparison, error) {
	if err := q.validate(); err != nil {
		return Comparison{}, err
	}
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return Comparison{}, err
	}
	real, err := s.freshQuotes(ctx, cat)
	if err != nil {
		return Comparison{}, err
	}
	out := Comparison{Metal: q.Metal, Spot: s.spot(q.Metal), Offline: s.cfg.Offline}
	for _, p := range cat.Products {
		if !q.matches(p) || len(cat.DealersFor(p.ID)) == 0 {
			continue
		}
		pq := ProductQuotes{Product: p, Quotes: real[p.ID]}
		if len(pq.Quotes) == 0 {
			pq.Quotes, pq.Demo = demoQuotes(cat, p, out.Spot), true
		}
		rank(&pq, out.Spot)
		out.Demo = out.Demo || pq.Demo && len(pq.Quotes) > 0
		out.Products = append(out.Products, pq)
	}
	return out, nil
}

// freshQuotes reads stored quotes younger than MaxAge, by product, for pairs the catalogue
// still carries, with outliers left out.
func (s *Service) freshQuotes(ctx context.Context, cat Catalogue) (map[string][]Quote, error) {
	rows, err := s.store.DealerQuotesSince(ctx, s.now().Add(-s.cfg.MaxAge))
	if err != nil {
		return nil, err
	}
	out := map[string][]Quote{}
	for _, r := range rows {
		d, okD := cat.Dealer(r.Dealer)
		p, okP := cat.Product(r.Product)
		u, okU := cat.ProductURL(r.Dealer, r.Product)
		if !okD || !okP || !okU {
			continue
		}
		out[p.ID] = append(out[p.ID], Quote{Dealer: d, Product: p, Price: r.Price, InStock: r.InStock, URL: u,
			UpdatedAt: r.FetchedAt, Source: r.Source, Tiers: decodeTiers(r.Tiers)})
	}
	for id, qs := range out {
		out[id] = withoutOutliers(qs)
	}
	return out, nil
}

// withoutOutliers drops quotes over OutlierPct from the product's median price.
func withoutOutliers(qs []Quote) []Quote {
	ps := make([]decimal.Decimal, len(qs))
	for i, q := range qs {
		ps[i] = q.Price
	}
	flags, _ := Outliers(ps)
	var out []Quote
	for i, q := range qs {
		if !flags[i] {
			out = append(out, q)
		}
	}
	return out
}

// rank fills the derived figures, sorts by price and picks the best quote in stock.
func rank(pq *ProductQuotes, spot Spot) {
	var prems []decimal.Decimal
	for i := range pq.Quotes {
		q := &pq.Quotes[i]
		q.PricePerOz = PricePerOz(q.Price, q.Product.FineOz)
		q.PremiumPct = nil
		if spot.Known {
			if p, ok := PremiumPct(q.Price, spot.Price, q.Product.FineOz); ok {
				q.PremiumPct = &p
				prems = append(prems, p)
			}
		}
	}
	SortQuotes(pq.Quotes, "price", false)
	pq.Best = nil
	for i := range pq.Quotes {
		if pq.Quotes[i].InStock {
			b := pq.Quotes[i] // a copy: callers may re-sort Quotes
			pq.Best = &b
			break
		}
	}
	if len(prems) > 0 {
		m := Median(prems)
		pq.MedianPremium = &m
	}
}

// SortKeys are the columns quotes can be sorted by.
var SortKeys = []string{"price", "premium", "dealer", "stock", "updated"}

// SortQuotes orders quotes by a column ("price", "premium", "dealer", "stock", "updated"),
// descending when desc; ties fall back to price, then dealer name, so the order is stable.
// Unknown keys sort by price.
func SortQuotes(qs []Quote, key string, desc bool) {
	byPrice := func(a, b Quote) int {
		if c := a.Price.Cmp(b.Price); c != 0 {
			return c
		}
		if a.InStock != b.InStock {
			if a.InStock {
				return -1
			}
			return 1
		}
		return strings.Compare(strings.ToLower(a.Dealer.Name), strings.ToLower(b.Dealer.Name))
	}
	cmp := func(a, b Quote) int {
		switch key {
		case "premium":
			switch {
			case a.PremiumPct != nil && b.PremiumPct != nil:
				if c := a.PremiumPct.Cmp(*b.PremiumPct); c != 0 {
					return c
				}
			case a.PremiumPct != nil:
				return -1
			case b.PremiumPct != nil:
				return 1
			}
		case "dealer":
			if c := strings.Compare(strings.ToLower(a.Dealer.Name), strings.ToLower(b.Dealer.Name)); c != 0 {
				return c
			}
		case "stock":
			if a.InStock != b.InStock {
				if a.InStock {
					return -1
				}
				return 1
			}
		case "updated":
			if c := a.UpdatedAt.Compare(b.UpdatedAt); c != 0 {
				return -c // newest first is the natural order
			}
		}
		return byPrice(a, b)
	}
	sort.SliceStable(qs, func(i, j int) bool {
		c := cmp(qs[i], qs[j])
		if desc {
			return c > 0
		}
		return c < 0
	})
}

// TrackedProduct is a catalogue product with the dealers that carry it.
type TrackedProduct struct {
	Product metals.Product
	Dealers []Dealer
}

// Products lists the tracked products (of one metal, or all when m is empty), in catalogue order.
func (s *Service) Products(ctx context.Context, m metals.Metal) ([]TrackedProduct, error) {
	if m != "" && !m.Valid() {
		return nil, apperr.InvalidField("metal", metalMessage)
	}
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return nil, err
	}
	var out []TrackedProduct
	for _, p := range cat.Products {
		if m != "" && p.Metal != m {
			continue
		}
		if ds := cat.DealersFor(p.ID); len(ds) > 0 {
			out = append(out, TrackedProduct{Product: p, Dealers: ds})
		}
	}
	return out, nil
}

// ProductPremium is what an advisor can say about buying a product now.
type ProductPremium struct {
	Product metals.Product
	Spot    Spot
	// Best is the cheapest quote in stock (nil when none); Lowest and Median are premiums over
	// spot in percent across the quotes (nil without spot).
	Best          *Quote
	LowestPremium *decimal.Decimal
	MedianPremium *decimal.Decimal
	Quotes        int
	// Demo is true when the figures come from demo quotes, which must be said.
	Demo bool
}

// Premiums answers "what does a 1 oz silver coin cost over spot now": for each product of the
// metal (and weight when not zero) the best price and the range of premiums. It is the
// service method the advisor quotes.
func (s *Service) Premiums(ctx context.Context, m metals.Metal, weight decimal.Decimal) ([]ProductPremium, error) {
	c, err := s.Compare(ctx, Query{Metal: m, Weight: weight})
	if err != nil {
		return nil, err
	}
	var out []ProductPremium
	for _, pq := range c.Products {
		pp := ProductPremium{Product: pq.Product, Spot: c.Spot, Best: pq.Best, MedianPremium: pq.MedianPremium, Quotes: len(pq.Quotes), Demo: pq.Demo}
		for _, q := range pq.Quotes {
			if q.PremiumPct != nil && (pp.LowestPremium == nil || q.PremiumPct.LessThan(*pp.LowestPremium)) {
				v := *q.PremiumPct
				pp.LowestPremium = &v
			}
		}
		out = append(out, pp)
	}
	return out, nil
}
