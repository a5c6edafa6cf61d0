package intel

import (
	"hash/fnv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ouncehq/ounce/internal/enum"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minus is the typographic minus sign; a hyphen before a number reads like a dash in prose.
const minus = format.Minus

// stripHTML returns the text of s without tags. Feed summaries and model answers both arrive
// with stray markup, and views escape what we store, so tags would show up as literal text.
// Entities are decoded, and since "&lt;b&gt;" decodes into a tag, stripping repeats until the
// text stops shrinking.
func stripHTML(s string) string {
	for {
		n := stripOnce(s)
		if n == s || len(n) >= len(s) {
			return n
		}
		s = n
	}
}

// stripOnce is one tokenizer pass. Script and style bodies are dropped because their text was
// never meant to be read; block tags become spaces so words on either side stay apart.
func stripOnce(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return b.String()
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style:
				skip++
			case atom.Br, atom.P, atom.Div, atom.Li:
				b.WriteByte(' ')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style:
				if skip > 0 {
					skip--
				}
			case atom.P, atom.Div, atom.Li:
				b.WriteByte(' ')
			}
		}
	}
}

// oneLine strips markup and collapses all whitespace, for titles and quoted summaries.
func oneLine(s string) string {
	s = stripHTML(strings.ToValidUTF8(s, ""))
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}), " ")
}

// paragraphs strips markup and normalises whitespace while keeping paragraph breaks, so model
// commentary comes out as the blank-line-separated plain text the views expect.
func paragraphs(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	var out []string
	for _, block := range strings.Split(s, "\n\n") {
		if p := oneLine(block); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n\n")
}

// clip shortens s to at most max runes, cutting at a word boundary and marking the cut, so a
// long headline or summary never ends mid-word.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	cut := len(r)
	for i := len(r) - 1; i > max/2; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " ,;:-") + "…"
}

// firstSentences keeps up to n sentences of s (and at most max runes), because a feed summary
// often runs on into boilerplate after its opening lines.
func firstSentences(s string, n, max int) string {
	s = oneLine(s)
	count, end := 0, len(s)
	for i := 0; i < len(s); i++ {
		if s[i] != '.' && s[i] != '!' && s[i] != '?' {
			continue
		}
		if i+1 < len(s) && s[i+1] != ' ' {
			continue // a decimal point or an abbreviation glued to the next word
		}
		count++
		if count == n {
			end = i + 1
			break
		}
	}
	return clip(s[:end], max)
}

// quote wraps a headline in typographic quotes, trimming double quotes it already carries
// (single ones stay: they are often apostrophes, as in "Investors'").
func quote(s string) string {
	return "\u201c" + strings.Trim(s, "\"\u201c\u201d ") + "\u201d"
}

// quotedSentence quotes a sentence taken from a source and ends the enclosing sentence,
// without doubling the full stop the quotation already has.
func quotedSentence(s string) string {
	q := quote(s)
	switch {
	case strings.HasSuffix(s, "."), strings.HasSuffix(s, "!"), strings.HasSuffix(s, "?"), strings.HasSuffix(s, "…"):
		return q
	}
	return q + "."
}

// variant picks one of n phrasings from a stable hash of seed, so the same story always reads
// the same way while different stories in the feed do not all share one template.
func variant(seed string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(seed))
	return int(h.Sum32() % uint32(n))
}

// pick returns the phrasing variant chooses for seed.
func pick(seed string, options []string) string {
	if len(options) == 0 {
		return ""
	}
	return options[variant(seed, len(options))]
}

// Articles write figures with the one formatter (internal/format), so a story and the page
// beside it show the same figure the same way: dollar sign, cents and separators; changes with
// an explicit sign, so "up" and "down" never hide in the colour; vault quantities in whole
// troy ounces (COMEX reports fractions nobody reads); dates as "22 Nov 2026".

func usd(d decimal.Decimal) string  { return format.USD(d) }
func pct(d decimal.Decimal) string  { return format.SignedPct(d) }
func oz(d decimal.Decimal) string   { return format.WholeOunces(d) }
func day(t time.Time) string        { return format.Date(t) }
func andList(items []string) string { return format.AndList(items) }

// metalList joins metal names for prose: "gold", "gold and silver", "gold, silver and platinum".
func metalList(ms []metals.Metal) string { return format.AndList(enum.Strings(ms)) }

// countWord spells small counts out, which reads better in prose and keeps the text free of
// digits that a reader might mistake for market figures.
func countWord(n int) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n >= 0 && n < len(words) {
		return words[n]
	}
	return "many"
}
