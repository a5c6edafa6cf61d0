package news

import (
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// PricePoint is one metal's spot price in US dollars per troy ounce and its
// change on the day in percent.
type PricePoint struct {
	Price     decimal.Decimal
	ChangePct decimal.Decimal
	// Day is the trading day of Price; a stale quote names it (zero when unknown).
	Day time.Time
}

// PriceContext is what the classifier knows about the market when it writes an
// analysis. Stale is set when the prices are not current (offline start, a
// failing provider) so the text can say so instead of presenting old numbers as
// today's.
type PriceContext struct {
	Prices map[metals.Metal]PricePoint
	Stale  bool
}

// priority breaks ties between equally scored categories: categories named after
// an actor or an event beat general commentary, because a headline that names a
// central bank or a mine is about that first and about the price second.
var priority = []Category{Breaking, CentralBank, Policy, Geopolitical, Mining, SupplyDemand, Investment, Analysis}

// categoryBase is the relevance a category starts with for a stacker: sudden
// moves, supply of coins and bars, central banks and tax rules touch a holder
// of physical metal more directly than miners' results or chart commentary.
var categoryBase = map[Category]int{
	Breaking: 35, SupplyDemand: 25, CentralBank: 25, Policy: 25,
	Geopolitical: 20, Investment: 20, Mining: 15, Analysis: 15,
}

// summaryWeightDiv scales summary matches down: summaries wander into context
// and background, titles say what the story is.
const summaryWeightDiv = 2

// leadIn catches wire-style urgency markers at the start of a headline.
var leadIn = regexp.MustCompile(`(?i)^\s*(breaking|urgent|alert|live|just in|flash|update)\s*[:\-–—|]`)

// Classify assigns the item its category, metals, relevance and analysis. It is
// deterministic: the same item and price context always give the same result,
// and it states no fact that is not in the item or the prices.
func Classify(it Item, pc PriceContext) Item {
	title := tokenize(it.Title)
	summary := tokenize(it.Summary)

	scores := scoreCategories(it.Title, title, summary)
	cat, best := pickCategory(scores)
	it.Category = cat

	it.Metals = detectMetals(title)
	if len(it.Metals) == 0 {
		it.Metals = detectMetals(summary)
	}
	it.Relevance = relevance(cat, best, it.Metals, title, summary)
	it.Analysis = analysis(it, pc)
	return it
}

// scoreCategories sums rule weights per category over the title and, scaled
// down, the summary.
func scoreCategories(rawTitle string, title, summary []string) map[Category]int {
	scores := make(map[Category]int, len(Categories))
	for _, rs := range rules {
		for _, wt := range rs.terms {
			for _, term := range wt.terms {
				p := compiled(term)
				if p.in(title) {
					scores[rs.cat] += wt.w
				}
				if p.in(summary) {
					scores[rs.cat] += wt.w / summaryWeightDiv
				}
			}
		}
	}
	if leadIn.MatchString(rawTitle) {
		scores[Breaking] += 45
	}
	// A move verb next to a price or a percentage is the shape of a market-moving
	// headline ("jumps $60", "plunges 7%").
	if scores[Breaking] > 0 && hasFigure(title) {
		scores[Breaking] += 10
	}
	return scores
}

// pickCategory takes the highest score, breaking ties by priority. With no
// signal at all the item is general market commentary.
func pickCategory(scores map[Category]int) (Category, int) {
	best, bestScore := Analysis, 0
	for _, c := range priority {
		if s := scores[c]; s > bestScore {
			best, bestScore = c, s
		}
	}
	return best, bestScore
}

func hasFigure(toks []string) bool {
	for i, t := range toks {
		if t == "%" || (t == "$" && i+1 < len(toks) && isNumber(toks[i+1])) {
			return true
		}
	}
	return false
}

// detectMetals lists the metals the text names, in display order. "Bullion"
// means gold unless another metal is named, which is how the trade uses it.
func detectMetals(toks []string) []metals.Metal {
	found := map[metals.Metal]bool{}
	for _, mt := range metalTerms {
		if compiled(mt.term).in(toks) {
			for _, m := range mt.metals {
				found[metals.Metal(m)] = true
			}
		}
	}
	if len(found) == 0 && compiled("bullion").in(toks) {
		found[metals.Gold] = true
	}
	var out []metals.Metal
	for _, m := range metals.All {
		if found[m] {
			out = append(out, m)
		}
	}
	return out
}

// relevance scores 0-100 how much an item matters to a holder of physical metal:
// the category's base, whether a metal is named, how clear the classification
// was, and whether it touches what stackers buy and pay.
func relevance(cat Category, score int, ms []metals.Metal, title, summary []string) int {
	r := categoryBase[cat]
	switch {
	case len(ms) > 0:
		r += 25 + 5*(len(ms)-1)
	case compiled("precious metal*").in(title) || compiled("metals").in(title) || compiled("precious metal*").in(summary):
		r += 10
	}
	spec := score * 20 / 90
	if spec > 20 {
		spec = 20
	}
	r += spec
	if hasFigure(title) {
		r += 5
	}
	for _, t := range stackerTerms {
		if compiled(t).in(title) || compiled(t).in(summary) {
			r += 10
			break
		}
	}
	if len(ms) == 0 && score < 30 {
		// Nothing names a metal and no rule fired strongly: probably off-topic.
		r = min(r, 30)
	}
	return max(0, min(100, r))
}

// tokenize lowercases and splits text into words, keeping numbers such as
// "2,500" or "1.40" whole and "$" and "%" as tokens of their own.
func tokenize(s string) []string {
	var (
		toks []string
		cur  []rune
	)
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(strings.ToLower(s))
	for i, r := range rs {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = append(cur, r)
		case (r == ',' || r == '.') && len(cur) > 0 && unicode.IsDigit(cur[len(cur)-1]) &&
			i+1 < len(rs) && unicode.IsDigit(rs[i+1]):
			cur = append(cur, r)
		case r == '$' || r == '%':
			flush()
			toks = append(toks, string(r))
		default:
			flush()
		}
	}
	flush()
	return toks
}

func isNumber(t string) bool {
	return t != "" && t[0] >= '0' && t[0] <= '9'
}

// numberWords lets "#" in a term match spelled-out counts, as in "five-year low".
var numberWords = map[string]bool{
	"two": true, "three": true, "four": true, "five": true, "six": true, "seven": true, "eight": true,
	"nine": true, "ten": true, "eleven": true, "twelve": true, "fifteen": true, "twenty": true,
}

// pattern is a compiled term: one matcher per word.
type pattern []wordMatch

type wordMatch struct {
	word   string
	prefix bool
	number bool
}

func (w wordMatch) match(tok string) bool {
	switch {
	case w.number:
		return isNumber(tok) || numberWords[tok]
	case w.prefix:
		return strings.HasPrefix(tok, w.word)
	}
	return tok == w.word
}

func (p pattern) in(toks []string) bool {
	if len(p) == 0 {
		return false
	}
outer:
	for i := 0; i+len(p) <= len(toks); i++ {
		for j, w := range p {
			if !w.match(toks[i+j]) {
				continue outer
			}
		}
		return true
	}
	return false
}

// patterns holds the compiled terms of the fixed rule tables; it is built once
// when the package loads and only read afterwards, so it needs no lock.
var patterns = buildPatterns()

func buildPatterns() map[string]pattern {
	m := map[string]pattern{}
	add := func(t string) { m[t] = compile(t) }
	for _, rs := range rules {
		for _, wt := range rs.terms {
			for _, t := range wt.terms {
				add(t)
			}
		}
	}
	for _, t := range stackerTerms {
		add(t)
	}
	for _, mt := range metalTerms {
		add(mt.term)
	}
	for _, t := range []string{"bullion", "precious metal*", "metals"} {
		add(t)
	}
	return m
}

func compiled(term string) pattern {
	if p, ok := patterns[term]; ok {
		return p
	}
	return compile(term)
}

func compile(term string) pattern {
	var p pattern
	for _, w := range strings.Fields(term) {
		switch {
		case w == "#":
			p = append(p, wordMatch{number: true})
		case len(w) > 1 && strings.HasSuffix(w, "*"):
			p = append(p, wordMatch{word: strings.TrimSuffix(w, "*"), prefix: true})
		default:
			p = append(p, wordMatch{word: w})
		}
	}
	return p
}
