package metals

import (
	"sort"
	"strings"

	"github.com/shopspring/decimal"
)

// Form is the physical kind of a product.
type Form string

// The product forms.
const (
	FormCoin  Form = "coin"
	FormBar   Form = "bar"
	FormRound Form = "round"
	// FormJunk is circulated US coinage bought by face value.
	FormJunk Form = "junk"
)

// Product is one commonly stacked bullion product. FineOz is the pure metal in one unit in
// troy ounces: for .999+ products it is the nominal weight (a "10 oz .999 silver bar" holds
// 10 oz of silver); for 22-carat coins it is the stated gold content (a Krugerrand holds 1 oz of
// gold in 33.93 g of alloy); for junk silver the unit is $1 of face value.
type Product struct {
	ID     string
	Name   string
	Metal  Metal
	FineOz decimal.Decimal
	Form   Form
	// Purity is the millesimal fineness as a fraction (0.9999, 0.9167, 0.900).
	Purity decimal.Decimal
	// PerFace is true when one unit is $1 of face value (junk silver).
	PerFace bool
	// Aliases are other words people and dealers use for it, for search and receipt matching.
	Aliases []string
}

// GramsPerTroyOz is the definition of the troy ounce.
var GramsPerTroyOz = decimal.RequireFromString("31.1034768")

// ozFromGrams converts a gram weight to troy ounces, kept to 5 places as ounces are stored.
func ozFromGrams(g string) decimal.Decimal {
	return decimal.RequireFromString(g).Div(GramsPerTroyOz).Round(5)
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// Products is the catalogue, grouped by metal. Facts (weights, fineness) are the mints' and
// refiners' published specifications. Chinese Pandas are 30 g since 2016.
var Products = []Product{
	// Gold
	{ID: "gold-american-eagle-1oz", Name: "American Gold Eagle 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9167"), Aliases: []string{"gold eagle", "age", "american eagle gold"}},
	{ID: "gold-american-eagle-half-oz", Name: "American Gold Eagle 1/2 oz", Metal: Gold, FineOz: dec("0.5"), Form: FormCoin, Purity: dec("0.9167"), Aliases: []string{"1/2 oz gold eagle"}},
	{ID: "gold-american-eagle-quarter-oz", Name: "American Gold Eagle 1/4 oz", Metal: Gold, FineOz: dec("0.25"), Form: FormCoin, Purity: dec("0.9167"), Aliases: []string{"1/4 oz gold eagle"}},
	{ID: "gold-american-eagle-tenth-oz", Name: "American Gold Eagle 1/10 oz", Metal: Gold, FineOz: dec("0.1"), Form: FormCoin, Purity: dec("0.9167"), Aliases: []string{"1/10 oz gold eagle"}},
	{ID: "gold-american-buffalo-1oz", Name: "American Gold Buffalo 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"gold buffalo", "buffalo"}},
	{ID: "gold-maple-leaf-1oz", Name: "Canadian Gold Maple Leaf 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"gold maple", "maple leaf gold", "gml"}},
	// Added for receipt matching: fractional Maple Leafs are common dealer lines.
	{ID: "gold-maple-leaf-tenth-oz", Name: "Canadian Gold Maple Leaf 1/10 oz", Metal: Gold, FineOz: dec("0.1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"1/10 oz gold maple"}},
	{ID: "gold-maple-leaf-quarter-oz", Name: "Canadian Gold Maple Leaf 1/4 oz", Metal: Gold, FineOz: dec("0.25"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"1/4 oz gold maple"}},
	{ID: "gold-krugerrand-1oz", Name: "South African Gold Krugerrand 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9167"), Aliases: []string{"krugerrand", "krand", "gold krugerrand"}},
	{ID: "gold-britannia-1oz", Name: "British Gold Britannia 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"gold britannia"}},
	{ID: "gold-philharmonic-1oz", Name: "Austrian Gold Philharmonic 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"gold philharmonic", "vienna philharmonic gold"}},
	{ID: "gold-kangaroo-1oz", Name: "Australian Gold Kangaroo 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"gold kangaroo", "gold nugget"}},
	{ID: "gold-panda-30g", Name: "Chinese Gold Panda 30 g", Metal: Gold, FineOz: ozFromGrams("29.97"), Form: FormCoin, Purity: dec("0.999"), Aliases: []string{"gold panda"}},
	{ID: "gold-bar-1g", Name: "Gold Bar 1 g", Metal: Gold, FineOz: ozFromGrams("1"), Form: FormBar, Purity: dec("0.9999"), Aliases: []string{"1 gram gold bar", "1g gold"}},
	{ID: "gold-bar-1oz", Name: "Gold Bar 1 oz", Metal: Gold, FineOz: dec("1"), Form: FormBar, Purity: dec("0.9999"), Aliases: []string{"1 oz gold bar"}},
	{ID: "gold-bar-10oz", Name: "Gold Bar 10 oz", Metal: Gold, FineOz: dec("10"), Form: FormBar, Purity: dec("0.9999"), Aliases: []string{"10 oz gold bar"}},
	{ID: "gold-bar-1kg", Name: "Gold Bar 1 kg", Metal: Gold, FineOz: ozFromGrams("1000"), Form: FormBar, Purity: dec("0.9999"), Aliases: []string{"kilo gold bar", "1 kilo gold"}},

	// Silver
	{ID: "silver-american-eagle-1oz", Name: "American Silver Eagle 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.999"), Aliases: []string{"silver eagle", "ase", "american eagle silver"}},
	{ID: "silver-maple-leaf-1oz", Name: "Canadian Silver Maple Leaf 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"silver maple", "maple leaf silver", "sml"}},
	{ID: "silver-krugerrand-1oz", Name: "South African Silver Krugerrand 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.999"), Aliases: []string{"silver krugerrand"}},
	{ID: "silver-britannia-1oz", Name: "British Silver Britannia 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.999"), Aliases: []string{"silver britannia", "britannia"}},
	{ID: "silver-philharmonic-1oz", Name: "Austrian Silver Philharmonic 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.999"), Aliases: []string{"silver philharmonic", "vienna philharmonic silver"}},
	{ID: "silver-kangaroo-1oz", Name: "Australian Silver Kangaroo 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9999"), Aliases: []string{"silver kangaroo"}},
	{ID: "silver-panda-30g", Name: "Chinese Silver Panda 30 g", Metal: Silver, FineOz: ozFromGrams("29.97"), Form: FormCoin, Purity: dec("0.999"), Aliases: []string{"silver panda"}},
	{ID: "silver-round-1oz", Name: "Silver Round 1 oz (generic)", Metal: Silver, FineOz: dec("1"), Form: FormRound, Purity: dec("0.999"), Aliases: []string{"silver round", "generic round", "1 oz round"}},
	{ID: "silver-bar-1oz", Name: "Silver Bar 1 oz", Metal: Silver, FineOz: dec("1"), Form: FormBar, Purity: dec("0.999"), Aliases: []string{"1 oz silver bar"}},
	{ID: "silver-bar-10oz", Name: "Silver Bar 10 oz", Metal: Silver, FineOz: dec("10"), Form: FormBar, Purity: dec("0.999"), Aliases: []string{"10 oz silver bar", "10oz bar"}},
	{ID: "silver-bar-100oz", Name: "Silver Bar 100 oz", Metal: Silver, FineOz: dec("100"), Form: FormBar, Purity: dec("0.999"), Aliases: []string{"100 oz silver bar", "100oz bar"}},
	{ID: "silver-bar-1kg", Name: "Silver Bar 1 kg", Metal: Silver, FineOz: ozFromGrams("1000"), Form: FormBar, Purity: dec("0.999"), Aliases: []string{"kilo silver bar", "1 kilo silver", "1kg silver bar"}},
	// Junk silver is bought by face value: one unit is $1 face. Worn 90 % coins hold about
	// 0.715 oz per $1 face (the trade convention, see CirculatedOzPerFaceDollar); two 40 %
	// Kennedy halves hold 2 × 0.14792 oz; twenty war nickels 20 × 0.05626 oz.
	{ID: "silver-junk-90-face", Name: "90% US Silver Coins ($1 face)", Metal: Silver, FineOz: CirculatedOzPerFaceDollar, Form: FormJunk, Purity: dec("0.900"), PerFace: true, Aliases: []string{"junk silver", "junk", "90%", "90% silver", "constitutional silver", "pre-1965 silver"}},
	{ID: "silver-junk-40-face", Name: "40% Kennedy Half Dollars ($1 face)", Metal: Silver, FineOz: dec("0.29584"), Form: FormJunk, Purity: dec("0.400"), PerFace: true, Aliases: []string{"40% silver", "40%", "40% kennedy", "1965-1970 halves"}},
	{ID: "silver-war-nickel", Name: "Jefferson War Nickel (1942–1945)", Metal: Silver, FineOz: dec("0.05626"), Form: FormJunk, Purity: dec("0.350"), Aliases: []string{"war nickel", "35% silver nickel"}},

	// Platinum
	{ID: "platinum-american-eagle-1oz", Name: "American Platinum Eagle 1 oz", Metal: Platinum, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9995"), Aliases: []string{"platinum eagle"}},
	{ID: "platinum-maple-leaf-1oz", Name: "Canadian Platinum Maple Leaf 1 oz", Metal: Platinum, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9995"), Aliases: []string{"platinum maple"}},
	{ID: "platinum-bar-1oz", Name: "Platinum Bar 1 oz", Metal: Platinum, FineOz: dec("1"), Form: FormBar, Purity: dec("0.9995"), Aliases: []string{"1 oz platinum bar"}},

	// Palladium
	{ID: "palladium-maple-leaf-1oz", Name: "Canadian Palladium Maple Leaf 1 oz", Metal: Palladium, FineOz: dec("1"), Form: FormCoin, Purity: dec("0.9995"), Aliases: []string{"palladium maple"}},
	{ID: "palladium-bar-1oz", Name: "Palladium Bar 1 oz", Metal: Palladium, FineOz: dec("1"), Form: FormBar, Purity: dec("0.9995"), Aliases: []string{"1 oz palladium bar"}},
}

var productsByID = func() map[string]Product {
	m := make(map[string]Product, len(Products))
	for _, p := range Products {
		m[p.ID] = p
	}
	return m
}()

// ProductByID looks a catalogue product up by its id.
func ProductByID(id string) (Product, bool) {
	p, ok := productsByID[id]
	return p, ok
}

// FaceOz is the fine silver of face dollars of a per-face product ($10 face of 90 % → 7.15 oz).
func (p Product) FaceOz(face decimal.Decimal) decimal.Decimal { return p.FineOz.Mul(face) }

// SearchProducts returns catalogue products whose name, id or aliases contain every word of q
// (case-insensitive), optionally of one metal, best matches first (name prefix, then catalogue
// order). An empty q lists the whole catalogue (of the metal).
func SearchProducts(q string, metal Metal) []Product {
	words := strings.Fields(searchText(q))
	type hit struct {
		p     Product
		score int
		i     int
	}
	var hits []hit
	for i, p := range Products {
		if metal != "" && p.Metal != metal {
			continue
		}
		hay := searchText(p.Name + " " + p.ID + " " + strings.Join(p.Aliases, " "))
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		score := 0
		if len(words) > 0 && strings.HasPrefix(strings.ToLower(p.Name), words[0]) {
			score = 1
		}
		// The whole query as words of the name or an alias ("10 oz" in "Gold Bar 10 oz", not
		// in "1/10 oz") beats words found apart.
		if len(words) > 0 && strings.Contains(" "+hay+" ", " "+strings.Join(words, " ")+" ") {
			score += 2
		}
		hits = append(hits, hit{p, score, i})
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].score != hits[b].score {
			return hits[a].score > hits[b].score
		}
		return hits[a].i < hits[b].i
	})
	out := make([]Product, len(hits))
	for i, h := range hits {
		out[i] = h.p
	}
	return out
}

// searchText is text as the picker compares it: lower case, single spaces, and "90 %" written
// "90%", so people's spellings of a product meet its name and aliases.
func searchText(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.ReplaceAll(s, " %", "%")
}

// ProductByAlias is the one product whose name or alias is q, as a person types it ("ASE",
// "krugerrand", "90 % silver"); false when none is, or when q names more than one.
func ProductByAlias(q string) (Product, bool) {
	q = searchText(q)
	var found []Product
	for _, p := range Products {
		if searchText(p.Name) == q {
			return p, true
		}
		for _, a := range p.Aliases {
			if searchText(a) == q {
				found = append(found, p)
				break
			}
		}
	}
	if len(found) != 1 {
		return Product{}, false
	}
	return found[0], true
}
