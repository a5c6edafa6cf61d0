package portfolio

import (
	"regexp"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// Dealer reporting of a sale on Form 1099-B (US; not tax advice).
//
// A US dealer buying precious metal from a customer files Form 1099-B only when the sale is of a
// kind and size that could settle a regulated futures contract (26 CFR §1.6045-1, brokers'
// returns, and the IRS Instructions for Form 1099-B; the list below is the one dealers publish
// from it). Ounce flags a disposal when, in one disposal:
//
//   - gold bars of 1 kilogram or more in total (32.1507466 troy oz; the rule says .995 fine);
//   - silver bars of 1,000 troy oz or more in total (.999 fine);
//   - platinum bars of 25 troy oz or more in total;
//   - palladium bars of 100 troy oz or more in total;
//   - 1 oz gold Krugerrands, Maple Leafs or Mexican Onzas, 25 coins or more;
//   - 90 % US silver coins of $1,000 face value or more (1,000 units of the $1-face product).
//
// A bar is a catalogue product of form bar, or a product named a bar. Sizes are compared in
// total over the disposal's units, exactly (no rounding). Other sales (American Eagles, most
// rounds, smaller quantities) are not reportable by the dealer under this rule; the seller's
// own reporting is a separate matter.

// Note1099B is what a possibly reportable sale says (US).
const Note1099B = "A dealer buying this from you may file Form 1099-B: the sale is of a kind and size the IRS broker rules list for precious metals (for example 1 kg or more of gold bars, 1,000 oz of silver bars, 25 or more 1 oz Krugerrands, Maple Leafs or Onzas)."

// Thresholds of the 1099-B rule, in grams (gold bars), troy ounces (other bars) or units (coins).
var (
	gold1099BGrams   = decimal.NewFromInt(1000)
	silver1099BOz    = decimal.NewFromInt(1000)
	platinum1099BOz  = decimal.NewFromInt(25)
	palladium1099BOz = decimal.NewFromInt(100)
)

const (
	goldCoins1099B = 25
	junkFace1099B  = 1000
)

var barWord = regexp.MustCompile(`(?i)\bbars?\b`)

// isBar reports whether a product is a bar: the catalogue's form, or a name saying so.
func isBar(product string) bool {
	if p, ok := metals.ProductByAlias(product); ok {
		return p.Form == metals.FormBar
	}
	return barWord.MatchString(product)
}

// isReportableGoldCoin reports whether a product is a 1 oz Krugerrand, Maple Leaf or Onza.
func isReportableGoldCoin(product string, unitOz decimal.Decimal) bool {
	if !unitOz.Equal(decimal.NewFromInt(1)) {
		return false
	}
	n := strings.ToLower(product)
	return strings.Contains(n, "krugerrand") || strings.Contains(n, "maple") || strings.Contains(n, "onza")
}

// May1099B reports whether a disposal of units of product (fineOz troy ounces in all) may be
// reported by a US dealer on Form 1099-B, by the rule above.
func May1099B(metal, product string, units int64, fineOz decimal.Decimal) bool {
	if units <= 0 {
		return false
	}
	if isBar(product) {
		switch metals.Metal(metal) {
		case metals.Gold:
			return fineOz.Mul(metals.GramsPerTroyOz).GreaterThanOrEqual(gold1099BGrams)
		case metals.Silver:
			return fineOz.GreaterThanOrEqual(silver1099BOz)
		case metals.Platinum:
			return fineOz.GreaterThanOrEqual(platinum1099BOz)
		case metals.Palladium:
			return fineOz.GreaterThanOrEqual(palladium1099BOz)
		}
		return false
	}
	switch metals.Metal(metal) {
	case metals.Gold:
		unitOz := fineOz.Div(decimal.NewFromInt(units))
		return units >= goldCoins1099B && isReportableGoldCoin(product, unitOz)
	case metals.Silver:
		p, ok := metals.ProductByAlias(product)
		return ok && p.ID == "silver-junk-90-face" && units >= junkFace1099B
	}
	return false
}
