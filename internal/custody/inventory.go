package custody

import (
	"context"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// Dealers is what the statement reads of dealer prices: each metal's spot (with its source
// and time) and the fresh dealer quotes of each catalogue product.
type Dealers interface {
	Compare(ctx context.Context, q dealers.Query) (dealers.Comparison, error)
}

// typicalPremium is a product form's usual retail premium over spot, percent: our round
// estimates from the dealer comparison's published ranges (README, "Dealer prices"), used
// for a replacement cost only when no fresh dealer quote of the product exists.
var typicalPremium = map[string]decimal.Decimal{
	"coin": decimal.NewFromInt(6), "bar": decimal.NewFromInt(4), "round": decimal.NewFromInt(10), "junk": decimal.NewFromInt(8), portfolio.FormOther: decimal.NewFromInt(6),
}

// InventoryLine is one lot of the statement: what is still held of it and its values.
type InventoryLine struct {
	HoldingID, Description string
	Metal                  metals.Metal
	Units                  int64
	FineOz                 decimal.Decimal
	PurchaseDate           db.Date
	// Cost is the cost basis of the units still held.
	Cost decimal.Decimal
	// AtSpot and Replacement are nil without a price of the metal.
	AtSpot, Replacement *decimal.Decimal
	// Basis says how Replacement was reached: the median dealer ask, or spot × a premium.
	Basis     string
	Documents int
}

// InventorySection is one location's lots with their totals.
type InventorySection struct {
	LocationID, Name, Kind string
	Insured                *decimal.Decimal
	Lines                  []InventoryLine
	Oz, Cost               decimal.Decimal
	AtSpot, Replacement    decimal.Decimal
	// Priced is false when some lot's metal has no price (its values are left out of the totals).
	Priced bool
}

// PriceNote is a spot price the statement used, with where and when it comes from.
type PriceNote struct {
	Metal  metals.Metal
	Price  decimal.Decimal
	Source string
	AsOf   time.Time
	Stale  bool
}

// Inventory is the dated custody statement of a member's stack.
type Inventory struct {
	AsOf     time.Time
	Sections []InventorySection
	Prices   []PriceNote
}

// InventoryStatement lists each location's lots still held (locationID "" every location,
// "none" the unassigned lots) with their values at spot and at replacement cost.
func (s *Service) InventoryStatement(ctx context.Context, u db.User, locationID string) (Inventory, error) {
	if err := requireGold(u); err != nil {
		return Inventory{}, err
	}
	locs, err := s.store.LocationsByUser(ctx, u.ID)
	if err != nil {
		return Inventory{}, err
	}
	byID := map[string]Location{}
	for _, l := range locs {
		byID[l.ID] = l
	}
	if locationID != "" && locationID != "none" {
		if _, ok := byID[locationID]; !ok {
			return Inventory{}, apperr.NotFoundf("location")
		}
	}
	lots, err := s.holdings.ExportHoldings(ctx, u)
	if err != nil {
		return Inventory{}, err
	}
	docs, err := s.docs.DocumentsByUser(ctx, u.ID)
	if err != nil {
		return Inventory{}, err
	}
	docCount := map[string]int{}
	for _, d := range docs {
		docCount[d.HoldingID]++
	}
	pr := s.pricesFor(ctx, lots)
	inv := Inventory{AsOf: s.now().UTC()}
	sections := map[string]*InventorySection{}
	var order []string
	for _, h := range lots {
		if h.Remaining() <= 0 || (locationID == "none" && h.LocationID != "") || (locationID != "" && locationID != "none" && h.LocationID != locationID) {
			continue
		}
		sec, ok := sections[h.LocationID]
		if !ok {
			sec = &InventorySection{LocationID: h.LocationID, Name: "Unassigned", Priced: true}
			if l, ok := byID[h.LocationID]; ok {
				sec.Name, sec.Kind = l.Name, l.Kind
				if d, ok := InsuredValue(l); ok {
					sec.Insured = &d
				}
			}
			sections[h.LocationID] = sec
			order = append(order, h.LocationID)
		}
		line := pr.line(h)
		line.Documents = docCount[h.ID]
		sec.Lines = append(sec.Lines, line)
		sec.Oz, sec.Cost = sec.Oz.Add(line.FineOz), sec.Cost.Add(line.Cost)
		if line.AtSpot == nil {
			sec.Priced = false
			continue
		}
		sec.AtSpot, sec.Replacement = sec.AtSpot.Add(*line.AtSpot), sec.Replacement.Add(*line.Replacement)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := sections[order[i]], sections[order[j]]
		if (a.LocationID == "") != (b.LocationID == "") {
			return b.LocationID == "" // unassigned last
		}
		return a.Name < b.Name
	})
	for _, k := range order {
		inv.Sections = append(inv.Sections, *sections[k])
	}
	for _, m := range metals.All {
		if n, ok := pr.spot[m]; ok {
			inv.Prices = append(inv.Prices, n)
		}
	}
	return inv, nil
}

// pricer values lots: spots per metal and the median fresh dealer ask per product.
type pricer struct {
	spot map[metals.Metal]PriceNote
	ask  map[string]askOf
}

type askOf struct {
	median decimal.Decimal
	quotes int
	newest time.Time
}

// pricesFor reads the spot of each metal held and the dealer quotes of its products.
func (s *Service) pricesFor(ctx context.Context, lots []portfolio.Holding) pricer {
	p := pricer{spot: map[metals.Metal]PriceNote{}, ask: map[string]askOf{}}
	held := map[metals.Metal]bool{}
	for _, h := range lots {
		if h.Remaining() > 0 {
			held[h.Metal] = true
		}
	}
	if s.dealers == nil {
		return p
	}
	for _, m := range metals.All {
		if !held[m] {
			continue
		}
		c, err := s.dealers.Compare(ctx, dealers.Query{Metal: m})
		if err != nil {
			s.log.Warn("inventory: dealer prices", "metal", m, "err", err)
			continue
		}
		if c.Spot.Known {
			p.spot[m] = PriceNote{Metal: m, Price: c.Spot.Price, Source: c.Spot.Source, AsOf: c.Spot.AsOf, Stale: c.Spot.Stale}
		}
		for _, pq := range c.Products {
			if pq.Demo || len(pq.Quotes) == 0 {
				continue
			}
			prices := make([]decimal.Decimal, len(pq.Quotes))
			a := askOf{quotes: len(pq.Quotes)}
			for i, q := range pq.Quotes {
				prices[i] = q.Price
				if q.UpdatedAt.After(a.newest) {
					a.newest = q.UpdatedAt
				}
			}
			a.median = median(prices)
			p.ask[pq.Product.ID] = a
		}
	}
	return p
}

func median(xs []decimal.Decimal) decimal.Decimal {
	sort.Slice(xs, func(i, j int) bool { return xs[i].LessThan(xs[j]) })
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return xs[n/2-1].Add(xs[n/2]).Div(decimal.NewFromInt(2))
}

// line values what is still held of a lot.
func (p pricer) line(h portfolio.Holding) InventoryLine {
	units := decimal.NewFromInt(h.Remaining())
	l := InventoryLine{HoldingID: h.ID, Description: h.Name(), Metal: h.Metal, Units: h.Remaining(), FineOz: h.RemainingOz(), PurchaseDate: h.PurchaseDate,
		Cost: cents(h.TotalCost().Mul(units).Div(decimal.NewFromInt(h.Quantity)))}
	sp, ok := p.spot[h.Metal]
	if !ok {
		l.Basis = "no " + string(h.Metal) + " price"
		return l
	}
	atSpot := cents(l.FineOz.Mul(sp.Price))
	l.AtSpot = &atSpot
	if prod, ok := metals.ProductByAlias(h.ProductName); ok && !prod.PerFace && prod.FineOz.Equal(h.WeightOz) {
		if a, ok := p.ask[prod.ID]; ok {
			r := cents(a.median.Mul(units))
			l.Replacement = &r
			l.Basis = "median dealer ask of " + plural(a.quotes, "quote") + ", " + a.newest.UTC().Format("2 Jan 2006")
			return l
		}
	}
	form := portfolio.FormOf(h.ProductName)
	prem := typicalPremium[form]
	r := cents(atSpot.Mul(decimal.NewFromInt(100).Add(prem)).Div(decimal.NewFromInt(100)))
	l.Replacement = &r
	l.Basis = "spot × " + decimal.NewFromInt(100).Add(prem).Div(decimal.NewFromInt(100)).StringFixed(2) + " (typical " + form + " premium " + prem.String() + " %, our estimate)"
	return l
}

// cents rounds a line's amount as it is printed, so the totals are the sums of the lines.
func cents(d decimal.Decimal) decimal.Decimal { return metals.Money(d) }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return decimal.NewFromInt(int64(n)).String() + " " + word + "s"
}
