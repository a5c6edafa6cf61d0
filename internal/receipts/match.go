package receipts

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// families are the product words that pick a line of the catalogue, in the order they decide:
// a "Buffalo Round" is a round, not the gold Buffalo coin.
var families = []struct {
	word string
	form metals.Form
	// key is a word every catalogue product of the family carries in its name or aliases.
	key string
}{
	{"round", metals.FormRound, "round"},
	{"bar", metals.FormBar, "bar"},
	{"eagle", metals.FormCoin, "eagle"},
	{"maple", metals.FormCoin, "maple"},
	{"krugerrand", metals.FormCoin, "krugerrand"},
	{"britannia", metals.FormCoin, "britannia"},
	{"philharmonic", metals.FormCoin, "philharmonic"},
	{"philharmoniker", metals.FormCoin, "philharmonic"},
	{"kangaroo", metals.FormCoin, "kangaroo"},
	{"nugget", metals.FormCoin, "kangaroo"},
	{"buffalo", metals.FormCoin, "buffalo"},
	{"panda", metals.FormCoin, "panda"},
}

// matchProduct finds the catalogue product a line describes: the same metal, family (eagle,
// maple, bar, round…) and fine weight, or junk silver by its purity. Nothing is guessed: with
// no stated weight, or two candidates, there is no match.
func matchProduct(desc string, it Item) (metals.Product, bool) {
	l := " " + strings.ToLower(desc) + " "
	if it.face.IsPositive() {
		id := map[int]string{90: "silver-junk-90-face", 40: "silver-junk-40-face"}[it.purity]
		return metals.ProductByID(id)
	}
	if strings.Contains(l, "war nickel") {
		return metals.ProductByID("silver-war-nickel")
	}
	if it.Metal == "" || !it.WeightOz.IsPositive() {
		return metals.Product{}, false
	}
	words := strings.FieldsFunc(l, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	has := func(w string) bool {
		for _, x := range words {
			if x == w || x == w+"s" {
				return true
			}
		}
		return false
	}
	for _, f := range families {
		if !has(f.word) {
			continue
		}
		var found []metals.Product
		for _, p := range metals.Products {
			hay := strings.ToLower(p.Name + " " + p.ID + " " + strings.Join(p.Aliases, " "))
			if p.Metal == it.Metal && p.Form == f.form && strings.Contains(hay, f.key) && sameWeight(p, it.WeightOz) {
				found = append(found, p)
			}
		}
		if len(found) == 1 {
			return found[0], true
		}
		return metals.Product{}, false
	}
	return metals.Product{}, false
}

// sameWeight compares a stated weight with a product's: nominal weights are what receipts
// print, and the catalogue keeps fine weights that differ slightly for gram coins (a 30 g Panda
// holds 29.97 g) — within 1 %.
func sameWeight(p metals.Product, w decimal.Decimal) bool {
	diff := p.FineOz.Sub(w).Abs()
	return diff.LessThanOrEqual(p.FineOz.Mul(decimal.RequireFromString("0.01")))
}
