package intel

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// numberRe finds figures in prose: an optional dollar sign, digits with or without thousands
// separators, an optional fraction and an optional percent sign. Signs are left out on
// purpose; the set of known numbers holds absolute values too.
var numberRe = regexp.MustCompile(`(\$\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%| percent)?`)

// plainIntLimit is the largest bare integer allowed without a source: counts, ordinals and
// periods ("three outlets", "50-day average") are not market figures, while prices,
// percentages, decimals and big quantities always need one.
const plainIntLimit = 100

// numberSet holds every number an article may state: the input's numbers, their absolute
// values and their usual roundings. Keys are decimal.String() forms, so "2650.40", "2650.4"
// and "2,650.40" all meet.
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

// addScaled also admits a large quantity stated in thousands or millions ("30.1 million oz").
func (s numberSet) addScaled(d decimal.Decimal) {
	s.add(d)
	s.add(d.Shift(-3))
	s.add(d.Shift(-6))
}

// addText admits every figure that appears in quoted input text.
func (s numberSet) addText(text string) {
	for _, m := range numberRe.FindAllStringSubmatch(text, -1) {
		if d, ok := parseFigure(m); ok {
			s.add(d)
		}
	}
}

// addTime admits the calendar parts of a date the text may mention.
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

func parseFigure(m []string) (decimal.Decimal, bool) {
	d, err := decimal.NewFromString(strings.ReplaceAll(m[2], ",", "") + m[3])
	return d, err == nil
}

// groundedNumbers collects the numbers a writer may use for these stories and this context:
// everything in the input, plus what the writers derive (the gold-to-silver ratio).
func groundedNumbers(stories []Story, c Context) numberSet {
	s := numberSet{}
	for _, st := range stories {
		s.addText(st.Title)
		s.addText(st.Summary)
		s.addText(st.Analysis)
		s.addText(st.Source)
		s.addTime(st.PublishedAt)
		s.add(decimal.NewFromInt(int64(st.Relevance)))
	}
	s.add(decimal.NewFromInt(int64(len(stories))))
	for _, p := range c.Prices {
		s.add(p.Price)
		s.add(p.ChangePct)
	}
	if r, ok := ratio(c); ok {
		s.add(r)
	}
	for _, l := range c.Vault {
		for _, d := range []decimal.Decimal{l.Registered, l.RegisteredChange, l.Combined, l.CombinedChange} {
			s.addScaled(d)
		}
		s.addTime(l.AsOf)
	}
	s.addTime(nowOf(c))
	return s
}

// ungrounded lists the figures in text that the set does not account for.
func ungrounded(text string, known numberSet) []string {
	var bad []string
	for _, m := range numberRe.FindAllStringSubmatch(text, -1) {
		d, ok := parseFigure(m)
		if !ok {
			bad = append(bad, m[0])
			continue
		}
		plain := m[1] == "" && m[3] == "" && m[4] == ""
		if plain && d.LessThanOrEqual(decimal.NewFromInt(plainIntLimit)) {
			continue
		}
		if !known[d.String()] {
			bad = append(bad, strings.TrimSpace(m[0]))
		}
	}
	return bad
}
