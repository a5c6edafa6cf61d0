package advisor

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// money renders dollars to the cent with thousands separators: $12,345.67, -$5.00.
func money(d decimal.Decimal) string {
	s := "$" + group(d.Abs().StringFixed(2))
	if d.Round(2).IsNegative() {
		return "-" + s
	}
	return s
}

// price renders a price per ounce at its source's precision (at least cents, at most four
// places): $63.935, $4,405.80. Rounding a three-decimal close to cents would show a figure no
// premium can be recomputed from.
func price(d decimal.Decimal) string {
	// Trailing zeros of a stored column's scale (2650.4000) are not precision.
	places := -d.Round(4).Exponent()
	for t := d.Round(4).StringFixed(places); places > 2 && t[len(t)-1] == '0'; t = t[:len(t)-1] {
		places--
	}
	if places < 2 {
		places = 2
	}
	s := "$" + group(d.Abs().StringFixed(places))
	if d.Round(places).IsNegative() {
		return "-" + s
	}
	return s
}

// signedMoney renders a change with its sign: +$12.00, -$3.50.
func signedMoney(d decimal.Decimal) string {
	if d.Round(2).IsNegative() {
		return money(d)
	}
	return "+" + money(d)
}

// pct renders a percentage to 2 places: 12.35%.
func pct(d decimal.Decimal) string { return d.StringFixed(2) + "%" }

// signedPct renders a percentage change with its sign: +1.20%, -0.35%.
func signedPct(d decimal.Decimal) string {
	if d.Round(2).IsNegative() {
		return pct(d)
	}
	return "+" + pct(d)
}

// ounces renders fine ounces, trailing zeros trimmed, at most 3 places: 12.5 oz.
func ounces(d decimal.Decimal) string {
	s := group(d.Round(3).String())
	return s + " oz"
}

// plain renders a number with thousands separators, trailing zeros trimmed.
func plain(d decimal.Decimal, places int32) string { return group(d.Round(places).String()) }

// group puts thousands separators into the integer part of a plain decimal string.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String() + frac
	if neg {
		return "-" + out
	}
	return out
}

// day renders a date as "Nov 20, 2026".
func day(t time.Time) string { return t.Format("Jan 2, 2006") }

// numberRe finds figures in prose: an optional dollar sign, digits with or without
// thousands separators, an optional fraction and an optional percent sign.
var numberRe = regexp.MustCompile(`(\$\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%)?`)

// plainIntLimit is the largest bare integer a reply may state without a source: counts and
// periods ("3 reports", "30 days") are not market figures.
const plainIntLimit = 100

// numberSet holds every figure a text may state: the values, their absolute values and their
// usual roundings, keyed by decimal.String().
type numberSet map[string]bool

func (s numberSet) add(d decimal.Decimal) {
	for _, v := range []decimal.Decimal{d, d.Abs()} {
		s[v.String()] = true
		for places := int32(0); places <= 4; places++ {
			s[v.Round(places).String()] = true
			s[v.Truncate(places).String()] = true
		}
	}
}

// addText admits every figure in a text (a fact's value, a headline).
func (s numberSet) addText(text string) {
	for _, m := range numberRe.FindAllStringSubmatch(text, -1) {
		if d, ok := figure(m); ok {
			s.add(d)
		}
	}
}

// addTime admits the calendar parts of a date.
func (s numberSet) addTime(t time.Time) {
	if t.IsZero() {
		return
	}
	for _, tt := range []time.Time{t, t.UTC()} {
		for _, n := range []int{tt.Year(), int(tt.Month()), tt.Day(), tt.Hour(), tt.Minute()} {
			s.add(decimal.NewFromInt(int64(n)))
		}
	}
}

func figure(m []string) (decimal.Decimal, bool) {
	d, err := decimal.NewFromString(strings.ReplaceAll(m[2], ",", "") + m[3])
	return d, err == nil
}

// ungrounded lists the figures in text the set does not account for.
func ungrounded(text string, known numberSet) []string {
	var bad []string
	for _, m := range numberRe.FindAllStringSubmatch(text, -1) {
		d, ok := figure(m)
		if !ok {
			bad = append(bad, m[0])
			continue
		}
		if m[1] == "" && m[3] == "" && m[4] == "" && d.LessThanOrEqual(decimal.NewFromInt(plainIntLimit)) {
			continue
		}
		if !known[d.String()] {
			bad = append(bad, strings.TrimSpace(m[0]))
		}
	}
	return bad
}

// The check every built-in reply and brief passes before it is sent: each sentence may state
// only figures its facts state, exactly as they are shown there (no other rounding, no figure
// of its own). A sentence that states any other number is left out and reported, so a wrong
// figure never reaches a member even if a function has a bug.

// shownFigures are the figures a reply's facts show: every number written in a fact's value
// or label, and the day and year of its date.
func shownFigures(facts []Fact) map[string]bool {
	set := map[string]bool{}
	for _, f := range facts {
		addShown(set, f.Value+" "+f.Label)
		addShownTime(set, f.AsOf)
	}
	return set
}

func addShown(set map[string]bool, text string) {
	for _, m := range numberRe.FindAllStringSubmatch(text, -1) {
		if d, ok := figure(m); ok {
			set[d.String()] = true
		}
	}
}

func addShownTime(set map[string]bool, t time.Time) {
	if t.IsZero() {
		return
	}
	for _, tt := range []time.Time{t, t.UTC()} {
		set[decimal.NewFromInt(int64(tt.Day())).String()] = true
		set[decimal.NewFromInt(int64(tt.Year())).String()] = true
	}
}

// sentences splits prose after each '.', '!' or '?' that ends a sentence (followed by a space
// or the end), so "$2,650.40" stays whole.
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' && c != '\n' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' && c != '\n' {
			continue
		}
		if s := strings.TrimSpace(text[start : i+1]); s != "" {
			out = append(out, s)
		}
		start = i + 1
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// unshown lists the figures of a sentence the set does not show.
func unshown(sentence string, shown map[string]bool) []string {
	var bad []string
	for _, m := range numberRe.FindAllStringSubmatch(sentence, -1) {
		d, ok := figure(m)
		if !ok || !shown[d.String()] {
			bad = append(bad, strings.TrimSpace(m[0]))
		}
	}
	return bad
}

// leftOutNote replaces what the check took out of a reply.
const leftOutNote = "I left out a statement I could not check against my data."

// verifyText keeps the sentences of text whose every figure is shown, and returns the ones it
// left out (each with the figures that failed).
func verifyText(text string, shown map[string]bool) (string, []string) {
	var kept, dropped []string
	for _, s := range sentences(text) {
		if bad := unshown(s, shown); len(bad) > 0 {
			dropped = append(dropped, s+" [unchecked: "+strings.Join(bad, ", ")+"]")
			continue
		}
		kept = append(kept, s)
	}
	if len(dropped) == 0 {
		return text, nil
	}
	kept = append(kept, leftOutNote)
	return strings.Join(kept, " "), dropped
}
