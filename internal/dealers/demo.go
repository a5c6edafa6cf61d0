package dealers

import (
	"hash/fnv"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// premiumRange is a published typical premium range in percent over spot.
type premiumRange struct{ lo, hi decimal.Decimal }

func pr(lo, hi string) premiumRange { return premiumRange{mustDec(lo), mustDec(hi)} }

// demoPremiums are the typical retail premiums demo quotes are drawn from, per built-in
// product. Where each figure comes from is in README.md ("Dealer prices"): gold coins and
// bars from hkombat.com's "Different Gold Products and Their Premium Structures Explained";
// Silver Eagles from findbullionprices.com (lowest 16.65 %, highest 31 % among tracked
// dealers); other sovereign silver coins and rounds from silver-bible.pages.dev's "What is a
// premium" ($4–8 and $2–4 an ounce at $53 spot) and thestacker.life (a round 11 % over
// $71 spot); junk silver from silver-coin-values.com (6.1 %) and kelseywilliamsgold.com
// (about 10 %); platinum coins from goldandsilverblog.com (Maple 8.22 %, Eagle 13.49 %).
// Ranges marked "estimate" have no published figure we could cite and are ours.
var demoPremiums = map[string]premiumRange{
	"gold-american-eagle-1oz":        pr("5", "7"),
	"gold-american-eagle-half-oz":    pr("6", "9"),  // estimate: between 1 oz and 1/10 oz
	"gold-american-eagle-quarter-oz": pr("7", "10"), // estimate: between 1 oz and 1/10 oz
	"gold-american-eagle-tenth-oz":   pr("8", "12"),
	"gold-american-buffalo-1oz":      pr("5", "7"),
	"gold-maple-leaf-1oz":            pr("5", "7"),
	"gold-maple-leaf-quarter-oz":     pr("7", "10"), // estimate: as the 1/4 oz Eagle
	"gold-maple-leaf-tenth-oz":       pr("8", "12"), // estimate: as the 1/10 oz Eagle
	"gold-krugerrand-1oz":            pr("4", "6"),
	"gold-britannia-1oz":             pr("5", "7"),
	"gold-philharmonic-1oz":          pr("5", "7"),
	"gold-kangaroo-1oz":              pr("5", "7"),
	"gold-panda-30g":                 pr("5", "7"),
	"gold-bar-1g":                    pr("15", "20"),
	"gold-bar-1oz":                   pr("1", "4"),
	"gold-bar-10oz":                  pr("1.5", "2.5"),
	"gold-bar-1kg":                   pr("1", "1.5"),

	"silver-american-eagle-1oz":   pr("16.65", "31"),
	"silver-maple-leaf-1oz":       pr("7.5", "15"),
	"silver-krugerrand-1oz":       pr("7.5", "15"),
	"silver-britannia-1oz":        pr("7.5", "15"),
	"silver-philharmonic-1oz":     pr("7.5", "15"),
	"silver-kangaroo-1oz":         pr("7.5", "15"),
	"silver-panda-30g":            pr("7.5", "15"),
	"silver-round-1oz":            pr("3.8", "11"),
	"silver-bar-1oz":              pr("5", "12"),  // estimate: between rounds and coins
	"silver-bar-10oz":             pr("4", "8"),   // estimate: below coins, near rounds
	"silver-bar-100oz":            pr("2.5", "5"), // estimate
	"silver-bar-1kg":              pr("3", "6"),   // estimate
	"silver-junk-90-face":         pr("6", "10"),
	"silver-junk-40-face":         pr("6", "10"),  // estimate: as 90 % coins
	"silver-war-nickel":           pr("10", "25"), // estimate
	"platinum-american-eagle-1oz": pr("10", "14"),
	"platinum-maple-leaf-1oz":     pr("7", "10"),
	"platinum-bar-1oz":            pr("5", "8"),  // estimate
	"palladium-maple-leaf-1oz":    pr("8", "12"), // estimate
	"palladium-bar-1oz":           pr("6", "9"),  // estimate
}

// hash01 is a stable number in [0, 1000] from the parts, so demo quotes are the same on every
// instance and every request.
func hash01(parts ...string) int64 {
	h := fnv.New64a()
	for _, p := range parts {
		_, _ = h.Write([]byte(p))
		_, _ = h.Write([]byte{0})
	}
	return int64(h.Sum64() % 1001)
}

// demoCarries is the demo assortment: a built-in dealer carries about four in five built-in
// products, chosen by a stable hash rather than by any claim about the real dealer.
func demoCarries(d Dealer, p metals.Product) bool {
	if !d.BuiltIn {
		return false
	}
	if _, ok := demoPremiums[p.ID]; !ok {
		return false
	}
	if _, builtIn := metals.ProductByID(p.ID); !builtIn {
		return false
	}
	return hash01("carry", d.Slug, p.ID)%5 != 0
}

// demoPremium is a dealer's demo premium for a product on a day (zero day: today's quote): a
// stable point in the product's published range, moved a little from day to day so the
// history chart has a shape. It is labelled demo wherever it appears.
func demoPremium(d Dealer, p metals.Product, day string) decimal.Decimal {
	r := demoPremiums[p.ID]
	pos := decimal.NewFromInt(hash01("premium", d.Slug, p.ID)).Div(decimal.NewFromInt(1000))
	width := r.hi.Sub(r.lo)
	v := r.lo.Add(width.Mul(pos))
	if day != "" {
		// ±15 % of the range's width, still clamped to the range.
		wob := decimal.NewFromInt(hash01("day", d.Slug, p.ID, day) - 500).Div(decimal.NewFromInt(500)).Mul(width).Mul(mustDec("0.15"))
		v = decimal.Max(r.lo, decimal.Min(r.hi, v.Add(wob)))
	}
	return v
}

// demoInStock marks about one demo quote in nine as out of stock, so the page shows both badges.
func demoInStock(d Dealer, p metals.Product) bool { return hash01("stock", d.Slug, p.ID)%9 != 0 }

// demoPrice is the unit price a demo premium gives at a spot, to the cent.
func demoPrice(spot decimal.Decimal, p metals.Product, premium decimal.Decimal) decimal.Decimal {
	return spot.Mul(p.FineOz).Mul(premium.Div(hundred).Add(decimal.NewFromInt(1))).Round(2)
}

// demoQuotes are the demo quotes of a product at a spot, from every dealer that carries it in
// the demo assortment. Their time is the spot's: they are only as current as it is.
func demoQuotes(c Catalogue, p metals.Product, spot Spot) []Quote {
	if !spot.Known {
		return nil
	}
	var out []Quote
	for _, d := range c.Dealers {
		if !demoCarries(d, p) {
			continue
		}
		price := demoPrice(spot.Price, p, demoPremium(d, p, ""))
		u, _ := c.ProductURL(d.Slug, p.ID)
		out = append(out, Quote{Dealer: d, Product: p, Price: price, InStock: demoInStock(d, p), URL: u, UpdatedAt: spot.AsOf, Source: SourceDemo})
	}
	return out
}

// demoObservations are a product's demo premium history over the days of the board's daily
// closes in [from, to]: each carrying dealer priced at that day's close.
func demoObservations(c Catalogue, p metals.Product, closes []closePoint) []observation {
	var out []observation
	for _, cl := range closes {
		day := cl.Day.Format(time.DateOnly)
		for _, d := range c.Dealers {
			if !demoCarries(d, p) {
				continue
			}
			price := demoPrice(cl.Price, p, demoPremium(d, p, day))
			prem, ok := PremiumPct(price, cl.Price, p.FineOz)
			if !ok {
				continue
			}
			out = append(out, observation{Dealer: d.Slug, Day: cl.Day, Premium: prem})
		}
	}
	return out
}

// closePoint is one daily close of the metal.
type closePoint struct {
	Day   time.Time
	Price decimal.Decimal
}
