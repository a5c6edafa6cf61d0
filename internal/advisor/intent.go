package advisor

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// The built-in engine's reading of a question: which function answers it and with which
// arguments. It works on plain words: a question is lower-cased, common typos are corrected
// against a small vocabulary, and then phrases are looked for from the most specific intent
// (melt of junk coins, the gold/silver ratio) to the most general (a metal's price).

// intent is what the engine understood.
type intent struct {
	Name string
	Args args
	// Part is the words of a part of the question the engine cannot answer (Name is
	// intentUnanswered then).
	Part string
}

// intentUnanswered is a part of a several-part question no function answers.
const intentUnanswered = "unanswered"

// vocabulary are the words typos are corrected towards.
var vocabulary = strings.Fields(`gold silver platinum palladium price prices spot worth value valued stack portfolio
	holdings profit profits loss losses breakeven allocation allocated ratio junk dimes quarters halves premium premiums
	dealer dealers comex registered eligible signal melt face week weeks month months year years highest lowest
	change changed today inventory percent average ounce ounces coins kennedy morgan nickels dollars return returns
	gains split diversified breakdown article latest commentary vault trend warehouse headline headlines performance
	unrealized realized currently trading quote eagle eagles maple buffalo krugerrand britannia philharmonic
	break kangaroo panda rounds coin`)

// commonShort are ordinary four-letter words one letter short of a vocabulary word; they are
// never "corrected" ("once" is not "ounce", "tend" is not "trend").
var commonShort = map[string]bool{"once": true, "tend": true, "rice": true, "ears": true, "spit": true, "vale": true,
	"wort": true, "cons": true, "tack": true, "bred": true, "weak": true, "bead": true, "bake": true, "beak": true, "sack": true}

// aliases fix short forms and typos too short for the edit-distance rule.
var aliases = map[string]string{
	"gld": "gold", "au": "gold", "xau": "gold", "goldd": "gold",
	"slv": "silver", "slvr": "silver", "ag": "silver", "xag": "silver", "silber": "silver",
	"plat": "platinum", "pt": "platinum", "xpt": "platinum", "platnum": "platinum",
	"pd": "palladium", "xpd": "palladium", "paladium": "palladium", "palladium's": "palladium",
	"comx": "comex", "cmx": "comex", "gsr": "ratio", "p&l": "pnl", "p/l": "pnl", "pl": "pnl",
	"ozt": "oz", "ozs": "oz", "oz.": "oz", "ounces": "oz", "ounce": "oz", "troy": "",
	"whats": "what's", "hows": "how's", "worht": "worth", "wroth": "worth", "vaule": "value",
	"b/e": "breakeven", "be": "be", "prtfolio": "portfolio", "portfollio": "portfolio",
}

var tokenRe = regexp.MustCompile(`[a-z0-9$%&/.,'-]+`)

// normalize lower-cases the question, corrects typos and rejoins it with single spaces.
func normalize(msg string) string {
	msg = strings.ToLower(strings.NewReplacer("’", "'", "‘", "'", "“", " ", "”", " ", "?", " ", "!", " ", "(", " ", ")", " ", ";", " ", ":", " ").Replace(msg))
	toks := tokenRe.FindAllString(msg, -1)
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		t = strings.TrimRight(t, ".,'")
		t = strings.TrimLeft(t, ",'")
		if t == "" {
			continue
		}
		if a, ok := aliases[t]; ok {
			if a != "" {
				out = append(out, a)
			}
			continue
		}
		out = append(out, correct(t))
	}
	return " " + strings.Join(out, " ") + " "
}

// correct replaces a word one typo away from the vocabulary (two for long words). A
// four-letter word is corrected only when it is a longer keyword with one letter dropped
// ("brek" → "break", "valu" → "value") and not an ordinary word of its own.
func correct(t string) string {
	if len(t) < 4 || strings.ContainsAny(t, "0123456789$%/&") {
		return t
	}
	for _, v := range vocabulary {
		if v == t {
			return t
		}
	}
	short := len(t) == 4
	if short && commonShort[t] {
		return t
	}
	maxDist := 1
	if len(t) >= 8 {
		maxDist = 2
	}
	best, bestD := t, maxDist+1
	for _, v := range vocabulary {
		if abs(len(v)-len(t)) > maxDist || (short && len(v) != 5) {
			continue
		}
		if d := editDistance(t, v); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps count once).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// has reports whether the normalized text holds any of the phrases as whole words.
func has(t string, phrases ...string) bool {
	for _, p := range phrases {
		if strings.Contains(t, " "+p+" ") {
			return true
		}
	}
	return false
}

// hasPrefix reports whether a word of the text starts with any of the stems.
func hasPrefix(t string, stems ...string) bool {
	for _, s := range stems {
		if strings.Contains(t, " "+s) {
			return true
		}
	}
	return false
}

var metalWords = []wordsFor[metals.Metal]{
	{metals.Gold, []string{"gold", "gold's"}},
	{metals.Silver, []string{"silver", "silver's"}},
	{metals.Platinum, []string{"platinum", "platinum's"}},
	{metals.Palladium, []string{"palladium"}},
}

// metalOf is the first metal the text names.
func metalOf(t string) metals.Metal { return firstNamed(t, metalWords) }

// wordsFor is a value and the words that name it in a question.
type wordsFor[K any] struct {
	key   K
	words []string
}

// firstNamed is the key of list whose word stands first in the normalized text t (each word
// between spaces); the zero key when none does. On a tie the earlier entry of list wins.
func firstNamed[K any](t string, list []wordsFor[K]) K {
	var best K
	at := len(t) + 1
	for _, n := range list {
		for _, w := range n.words {
			if i := strings.Index(t, " "+w+" "); i >= 0 && i < at {
				best, at = n.key, i
			}
		}
	}
	return best
}

// rangeOf is the range the text names ("" for none).
func rangeOf(t string) string {
	switch {
	case has(t, "all time", "all-time", "ever", "record", "alltime"):
		return "ALL"
	case has(t, "ytd", "year to date", "year-to-date", "this year", "since january", "so far this year"):
		return "YTD"
	case has(t, "5 years", "five years", "5y", "5 yr", "5yr", "half a decade", "4 years", "3 years", "three years", "2 years", "two years"):
		return "5Y"
	case has(t, "6 months", "six months", "6m", "half year", "half a year", "6 mo", "6mo"):
		return "6M"
	case has(t, "3 months", "three months", "3m", "quarter", "last quarter", "90 days", "3 mo", "3mo", "this quarter"):
		return "3M"
	case has(t, "year", "12 months", "1y", "52 week", "52-week", "annual", "yearly", "1 year", "one year", "365 days", "twelve months"):
		return "1Y"
	case has(t, "month", "30 days", "1m", "4 weeks", "four weeks", "monthly", "1 month", "one month"):
		return "1M"
	case has(t, "week", "7 days", "1w", "weekly", "5 days", "few days", "seven days", "wk"):
		return "1W"
	case has(t, "today", "24 hours", "24h", "daily", "day", "this morning", "right now", "now"):
		return "1D"
	}
	return ""
}

var (
	moneyRe  = regexp.MustCompile(`\$\s?(\d[\d,]*(?:\.\d+)?)\s?(k|thousand)?|(\d[\d,]*(?:\.\d+)?)\s?(k|thousand|dollars|bucks|usd)\b|(\d[\d,]*(?:\.\d+)?)`)
	faceRe   = regexp.MustCompile(`\$\s?(\d[\d,]*(?:\.\d+)?)\s?(?:in |of |worth of )?(?:junk )?(?:silver )?(?:coins? )?(?:face|fv)|(\d[\d,]*(?:\.\d+)?) dollars? (?:in |of )?face|face(?: value)?(?: of| worth)? \$?\s?(\d[\d,]*(?:\.\d+)?)`)
	coinRe   = regexp.MustCompile(`(\d[\d,]*)\s?(?:x )?(?:old |junk |silver |90% |90 percent |pre-1965 |pre 1965 |pre-64 |pre-65 |mercury |roosevelt |washington |walking liberty |franklin |circulated |uncirculated )*(dimes?|quarters?|half dollars?|half-dollars?|halves|halfs|kennedys?|kennedy halves|kennedy half dollars?|morgans?|morgan dollars?|peace dollars?|silver dollars?|dollars?|war nickels?|nickels?)\b`)
	weightRe = regexp.MustCompile(`(\d+/\d+|\d+(?:\.\d+)?)\s?-?\s?(?:oz|gram|g)\b`)
)

// coinParam maps the coin words of coinRe to the calculator's coin types.
func coinParam(word, t string) string {
	switch {
	case strings.HasPrefix(word, "dime"):
		return "dimes"
	case strings.HasPrefix(word, "quarter"):
		return "quarters"
	case strings.HasPrefix(word, "kennedy") && has(t, "40%", "40 percent", "1965", "1965-1970", "1970", "40", "clad"):
		return "kennedy_40"
	case strings.HasPrefix(word, "half") || strings.HasPrefix(word, "kennedy"):
		return "half_dollars"
	case strings.Contains(word, "nickel"):
		return "war_nickels"
	}
	return "dollars"
}

// parseNumber reads "3,000", "3.5k" into a decimal.
func parseNumber(digits, suffix string) (decimal.Decimal, bool) {
	d, err := decimal.NewFromString(strings.ReplaceAll(digits, ",", ""))
	if err != nil {
		return decimal.Zero, false
	}
	if suffix == "k" || suffix == "thousand" {
		d = d.Mul(decimal.NewFromInt(1000))
	}
	return d, true
}

// targetOf is the price a what-if question names: a dollar amount, or the largest number.
func targetOf(t string) string {
	best := decimal.Zero
	found := false
	for _, m := range moneyRe.FindAllStringSubmatch(t, -1) {
		var d decimal.Decimal
		var ok bool
		switch {
		case m[1] != "":
			d, ok = parseNumber(m[1], m[2])
			if ok {
				return d.String()
			}
		case m[3] != "":
			d, ok = parseNumber(m[3], m[4])
		default:
			d, ok = parseNumber(m[5], "")
		}
		if ok && d.GreaterThan(best) {
			best, found = d, true
		}
	}
	if !found {
		return ""
	}
	return best.String()
}

// weightOf is the product weight a question names, in troy ounces ("" for none).
func weightOf(t string) string {
	switch {
	case has(t, "tenth", "tenth oz", "tenth-oz", "1/10th"):
		return "0.1"
	case has(t, "quarter oz", "quarter-oz", "quarter ounce"):
		return "0.25"
	case has(t, "half oz", "half-oz", "half ounce"):
		return "0.5"
	case has(t, "kilo", "kilogram", "1 kg", "1kg"):
		return "32.1507"
	case has(t, "one oz", "an oz", "1-oz", "1oz"):
		return "1"
	case has(t, "ten oz", "10oz", "10-oz"):
		return "10"
	case has(t, "100oz", "100-oz"):
		return "100"
	}
	m := weightRe.FindStringSubmatch(t)
	if m == nil {
		return ""
	}
	unit := strings.TrimSpace(t[strings.Index(t, m[0])+len(m[1]):])
	var d decimal.Decimal
	if a, b, ok := strings.Cut(m[1], "/"); ok {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil || y == 0 {
			return ""
		}
		d = decimal.NewFromInt(int64(x)).Div(decimal.NewFromInt(int64(y))).Round(4)
	} else {
		d, _ = decimal.NewFromString(m[1])
	}
	if strings.HasPrefix(unit, "g") && !strings.HasPrefix(unit, "gold") {
		d = d.Div(metals.TroyOunceGrams).Round(4)
	}
	return d.String()
}

var productWords = []string{"eagle", "eagles", "maple", "maples", "maple leaf", "buffalo", "buffalos", "krugerrand", "krugerrands",
	"britannia", "britannias", "philharmonic", "philharmonics", "bar", "bars", "round", "rounds", "coin", "coins", "bullion", "panda", "pandas",
	"kangaroo", "kangaroos"}

// productKindWords are the words naming a kind of product, and the word of the catalogue
// names that kind is matched with.
var productKindWords = []wordsFor[string]{
	{"eagle", []string{"eagle", "eagles", "ase"}},
	{"maple leaf", []string{"maple", "maples", "maple leaf", "maple leafs", "maple leaves", "sml", "gml"}},
	{"buffalo", []string{"buffalo", "buffalos", "buffaloes"}},
	{"krugerrand", []string{"krugerrand", "krugerrands", "krand", "krands"}},
	{"britannia", []string{"britannia", "britannias"}},
	{"philharmonic", []string{"philharmonic", "philharmonics", "phil", "phils", "philly", "phillies"}},
	{"kangaroo", []string{"kangaroo", "kangaroos", "roo", "roos", "nugget", "nuggets"}},
	{"panda", []string{"panda", "pandas"}},
	{"round", []string{"round", "rounds"}},
	{"bar", []string{"bar", "bars", "kilo bar", "kilo bars"}},
}

// productKinds lists the product kinds a premium question may name.
func productKinds() []string {
	out := make([]string, len(productKindWords))
	for i, k := range productKindWords {
		out[i] = k.key
	}
	return out
}

// productOf is the product kind the text names first ("" for none).
func productOf(t string) string { return firstNamed(t, productKindWords) }

// parse reads a question into an intent: the first of intentRules that reads it.
func parse(msg string) intent {
	t := normalize(msg)
	metal := metalOf(t)
	for _, rule := range intentRules {
		if in, ok := rule(t, metal); ok {
			return in
		}
	}
	return intent{Name: IntentCapability}
}

// intentRule reads a normalized question (and the metal it names first) as one intent.
type intentRule func(t string, metal metals.Metal) (intent, bool)

// intentRules are tried in order, from the most specific intent (help, the ratio, melt of
// junk coins) to the most general (a metal's price).
var intentRules = []intentRule{capabilityRule, ratioRule, junkRule, comexRule, signalRule, premiumsRule, whatIfRule,
	breakEvenRule, performanceRule, profitRule, allocationRule, stackRule, priceRangeRule, spotRule}

func named(name string, a args) (intent, bool) { return intent{Name: name, Args: a}, true }

func capabilityRule(t string, _ metals.Metal) (intent, bool) {
	if has(t, "help", "what can you do", "what can you answer", "what do you know", "what can i ask", "commands") && !has(t, "worth", "price") {
		return named(IntentCapability, args{})
	}
	return intent{}, false
}

func ratioRule(t string, _ metals.Metal) (intent, bool) {
	if has(t, "ratio", "gold to silver", "gold-to-silver", "gold/silver", "gold:silver", "gold vs silver", "gold versus silver",
		"silver to gold", "oz of silver does", "ounces of silver does", "oz of silver for", "ounces of silver for", "ounces of silver buy", "oz of silver buy", "silver does one oz of gold") {
		return named(ToolRatio, args{})
	}
	return intent{}, false
}

func junkRule(t string, _ metals.Metal) (intent, bool) {
	if !isJunk(t) {
		return intent{}, false
	}
	a := args{}
	if m := faceRe.FindStringSubmatch(t); m != nil {
		a.Face = firstNonEmpty(m[1], m[2], m[3])
		a.Face = strings.ReplaceAll(a.Face, ",", "")
	} else if m := coinRe.FindStringSubmatch(t); m != nil {
		n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if err == nil {
			a.Count, a.Coin = n, coinParam(m[2], t)
		}
	}
	return named(ToolJunkMelt, a)
}

func comexRule(t string, metal metals.Metal) (intent, bool) {
	if has(t, "comex", "registered", "eligible", "vault", "vaults", "warehouse", "warehouses", "depository", "depositories", "deliverable", "inventories", "inventory", "vault watch") {
		return named(ToolComex, args{Metal: string(metal)})
	}
	return intent{}, false
}

func signalRule(t string, metal metals.Metal) (intent, bool) {
	if has(t, "signal", "stack signal", "news", "headline", "headlines", "article", "articles", "commentary", "synthesis",
		"what's happening", "what is happening", "market update", "what's new", "whats new", "market news", "latest on") {
		return named(ToolStackSignal, args{Metal: string(metal)})
	}
	return intent{}, false
}

func premiumsRule(t string, metal metals.Metal) (intent, bool) {
	if has(t, "premium", "premiums", "dealer", "dealers", "over spot", "above spot", "markup", "mark-up", "mark up", "cheapest", "best price",
		"where to buy", "where can i buy", "where should i buy", "cost to buy", "pay over", "buy price") ||
		(has(t, productWords...) && (weightOf(t) != "" || has(t, "cost", "costs", "price", "buy"))) {
		return named(ToolPremiums, args{Metal: string(orMetal(metal, t)), Weight: weightOf(t), Product: productOf(t)})
	}
	return intent{}, false
}

func whatIfRule(t string, metal metals.Metal) (intent, bool) {
	if isWhatIf(t) {
		return named(ToolWhatIf, args{Metal: string(metal), Target: targetOf(t)})
	}
	return intent{}, false
}

func breakEvenRule(t string, metal metals.Metal) (intent, bool) {
	if has(t, "breakeven", "break-even", "break even", "brake even", "average cost", "avg cost", "cost per oz", "cost per ounce", "average price",
		"avg price", "my money back", "need to reach", "need to hit", "needs to hit", "needs to reach", "cost basis per", "paid per oz", "paid per ounce", "paid on average", "pay on average", "on average for") {
		return named(ToolBreakEven, args{Metal: string(metal)})
	}
	return intent{}, false
}

func performanceRule(t string, _ metals.Metal) (intent, bool) {
	if r := perfPeriodOf(t); r != "" {
		return named(ToolPerformance, args{Range: r})
	}
	return intent{}, false
}

func profitRule(t string, _ metals.Metal) (intent, bool) {
	if has(t, "profit", "profits", "loss", "losses", "pnl", "gain", "gains", "up or down", "made", "lost", "return", "returns", "roi",
		"unrealized", "realized", "underwater", "under water", "in the green", "in the red", "how am i doing", "how's my stack doing",
		"how is my stack doing", "how's my portfolio doing", "how is my portfolio doing", "am i up", "am i down", "making money", "losing money") {
		return named(ToolProfitLoss, args{})
	}
	return intent{}, false
}

func allocationRule(t string, _ metals.Metal) (intent, bool) {
	if has(t, "allocation", "allocated", "split", "mix", "breakdown", "break down", "broken down", "diversified", "diversification", "proportion",
		"proportions", "percentage", "percentages", "weighting", "weighted", "how much of my", "what share", "what percent", "balance between", "exposure") {
		return named(ToolAllocation, args{})
	}
	return intent{}, false
}

func stackRule(t string, _ metals.Metal) (intent, bool) {
	if has(t, "my stack", "my portfolio", "my holdings", "my metal", "my metals", "my collection", "net worth", "i own", "i have", "do i own", "do i have", "i hold", "my gold", "my silver", "my platinum", "my palladium", "my coins", "my bars", "my position", "my positions") ||
		(has(t, "worth", "value", "valued", "total") && has(t, "my", "mine", "stack", "portfolio", "holdings")) {
		return named(ToolStackValue, args{})
	}
	return intent{}, false
}

func priceRangeRule(t string, metal metals.Metal) (intent, bool) {
	if metal == "" || !(rangeOf(t) != "" && rangeOf(t) != "1D" || has(t, "high", "low", "highest", "lowest", "peak", "bottom", "range", "performance", "perform", "performed", "trend", "trending", "chart")) {
		return intent{}, false
	}
	r := rangeOf(t)
	if r == "" || r == "1D" {
		r = "1M"
		if has(t, "high", "low", "highest", "lowest", "peak", "bottom") {
			r = "1Y"
		}
	}
	return named(ToolPriceRange, args{Metal: string(metal), Range: r})
}

func spotRule(t string, metal metals.Metal) (intent, bool) {
	if metal != "" || has(t, "price", "prices", "spot", "spot prices", "metals", "quote", "quotes", "trading at") {
		return named(ToolSpotPrice, args{Metal: string(metal)})
	}
	return intent{}, false
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// orMetal guesses the metal of a product question that names none: eagles and bars default
// to what the words say, else silver (the commonest premium question).
func orMetal(m metals.Metal, t string) metals.Metal {
	if m != "" {
		return m
	}
	if has(t, "krugerrand", "krugerrands") {
		return metals.Gold
	}
	return metals.Silver
}

// isJunk reports a junk-silver melt question.
func isJunk(t string) bool {
	if has(t, "junk", "90%", "90 percent", "constitutional", "melt", "face", "face value", "fv", "pre-1965", "pre 1965", "pre-64", "pre-65", "war nickels", "war nickel") {
		return true
	}
	if has(t, "kennedy", "kennedys", "morgan", "morgans", "morgan dollars", "peace dollars", "half dollars", "halves", "dimes", "mercury dimes") {
		return true
	}
	// "40 quarters" is coins; "last quarter" is a period.
	return coinRe.MatchString(t) && hasPrefix(t, "quarters", "dime", "nickel")
}

// isWhatIf reports a question about the stack at a target price.
func isWhatIf(t string) bool {
	if targetOf(t) == "" {
		return false
	}
	return has(t, "what if", "if", "hits", "hit", "reaches", "reach", "goes to", "went to", "gets to", "rises to", "falls to", "drops to",
		"climbs to", "jumps to", "target", "would", "were", "at", "scenario", "hypothetically", "suppose", "assuming", "assume")
}

// partRe splits a question into its parts: "and", "also", "plus", "as well as", ";", "?" and
// ", " (a comma followed by a space: "3,000" stays whole).
var partRe = regexp.MustCompile(`(?i)\s+(?:and|also|plus|as well as|&)\s+|[?;]+|,\s+(?:and\s+)?`)

// fillerWords are the words of a part that asks nothing by itself ("thanks", "tell me").
var fillerWords = map[string]bool{"please": true, "pls": true, "plz": true, "thanks": true, "thank": true, "you": true, "thx": true,
	"tell": true, "me": true, "show": true, "give": true, "the": true, "a": true, "an": true, "what": true, "what's": true, "is": true,
	"are": true, "my": true, "of": true, "on": true, "for": true, "now": true, "today": true, "right": true, "also": true, "and": true,
	"about": true, "how": true, "how's": true, "its": true, "it's": true, "it": true, "ok": true, "okay": true, "hi": true, "hey": true,
	"hello": true, "too": true, "as": true, "well": true, "then": true, "so": true, "do": true, "i": true, "can": true, "could": true,
	"would": true, "all": true, "them": true, "both": true, "that": true, "this": true, "one": true, "ones": true, "same": true}

// parseAll reads every part of a question. A part that only names a metal ("… and silver")
// asks the nearest other part's question about that metal; counts of junk coins add up into
// one melt value; a part no function answers is kept so the reply can say so.
func parseAll(msg string) []intent {
	whole := parse(msg)
	raw := partRe.Split(msg, -1)
	if len(raw) < 2 {
		return []intent{whole}
	}
	const (
		strong = iota
		weak
		unknown
	)
	type piece struct {
		in   intent
		kind int
		t    string
	}
	var pieces []piece
	for _, p := range raw {
		t := normalize(p)
		if strings.TrimSpace(t) == "" {
			continue
		}
		in := parse(p)
		switch {
		case in.Name == IntentCapability && fillerOnly(t):
			continue
		case in.Name == IntentCapability && has(t, "help", "what can you do", "what can you answer", "what can i ask", "commands"):
			pieces = append(pieces, piece{in, strong, t})
		case in.Name == IntentCapability:
			pieces = append(pieces, piece{intent{Name: intentUnanswered, Part: strings.TrimSpace(p)}, unknown, t})
		case in.Name == ToolSpotPrice && in.Args.Metal != "" && !has(t, "price", "prices", "spot", "quote", "trading at", "worth", "cost"):
			pieces = append(pieces, piece{in, weak, t})
		default:
			pieces = append(pieces, piece{in, strong, t})
		}
	}
	nearest := func(i int) (intent, bool) {
		for j := i - 1; j >= 0; j-- {
			if pieces[j].kind == strong {
				return pieces[j].in, true
			}
		}
		for j := i + 1; j < len(pieces); j++ {
			if pieces[j].kind == strong {
				return pieces[j].in, true
			}
		}
		return intent{}, false
	}
	var out []intent
	anyStrong := false
	for i, pc := range pieces {
		switch pc.kind {
		case strong:
			anyStrong = true
			out = append(out, pc.in)
		case unknown:
			out = append(out, pc.in)
		case weak:
			base, ok := nearest(i)
			if !ok {
				out = append(out, pc.in)
				continue
			}
			if !takesMetal(base.Name) {
				continue
			}
			in := intent{Name: base.Name, Args: base.Args}
			in.Args.Metal = pc.in.Args.Metal
			if base.Name == ToolWhatIf {
				if tg := targetOf(pc.t); tg != "" {
					in.Args.Target = tg
				}
			}
			if base.Name == ToolPriceRange {
				if r := rangeOf(pc.t); r != "" && r != "1D" {
					in.Args.Range = r
				}
			}
			out = append(out, in)
		}
	}
	if !anyStrong {
		return []intent{whole}
	}
	return mergeIntents(out)
}

// takesMetal reports whether a function answers about one metal.
func takesMetal(name string) bool {
	switch name {
	case ToolBreakEven, ToolSpotPrice, ToolPriceRange, ToolWhatIf, ToolPremiums, ToolStackSignal, ToolComex:
		return true
	}
	return false
}

func fillerOnly(t string) bool {
	for _, w := range strings.Fields(t) {
		if !fillerWords[w] {
			return false
		}
	}
	return true
}

// mergeIntents adds junk coin counts up into the first melt question and drops repeats.
func mergeIntents(in []intent) []intent {
	var out []intent
	seen := map[string]bool{}
	junk := -1
	for _, x := range in {
		if x.Name == ToolJunkMelt {
			if junk < 0 {
				junk = len(out)
				out = append(out, x)
				continue
			}
			j := &out[junk].Args
			if x.Args.Face != "" {
				if j.Face == "" {
					j.Face = x.Args.Face
				} else if a, err1 := decimal.NewFromString(j.Face); err1 == nil {
					if b, err2 := decimal.NewFromString(x.Args.Face); err2 == nil {
						j.Face = a.Add(b).String()
					}
				}
			}
			more := x.Args.Coins
			if x.Args.Count != 0 {
				more = append([]coinCount{{Coin: x.Args.Coin, Count: x.Args.Count}}, more...)
			}
			for _, c := range more {
				if j.Count == 0 && j.Coin == "" {
					j.Coin, j.Count = c.Coin, c.Count
				} else {
					j.Coins = append(j.Coins, c)
				}
			}
			continue
		}
		key := x.Name + x.Args.json() + x.Part
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, x)
	}
	return out
}
