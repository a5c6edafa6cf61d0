package format

import (
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// The figure check: generated prose (news articles, briefs, advisor replies) may state only
// numbers its inputs state. It reads figures the way this package writes them, so the writer
// and the check share one idea of what a figure is.

// figureRe finds figures in prose: an optional dollar sign, digits with or without thousands
// separators, an optional fraction and an optional percent sign. Signs are left out on
// purpose (a set holds absolute values too), so "−$5.00" and "-$5.00" are both the figure 5.00.
var figureRe = regexp.MustCompile(`(\$\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%| percent)?`)

// Figure is one number written in a text.
type Figure struct {
	Text  string          // as written, trimmed: "$2,650.40"
	Value decimal.Decimal // its value without sign: 2650.40
	// Plain is true for a bare integer (no dollar sign, fraction or percent): counts and
	// periods ("3 reports", "30 days") rather than market figures.
	Plain bool
	ok    bool
}

// FiguresIn lists the figures written in text, in order.
func FiguresIn(text string) []Figure {
	var out []Figure
	for _, m := range figureRe.FindAllStringSubmatch(text, -1) {
		d, err := decimal.NewFromString(strings.ReplaceAll(m[2], ",", "") + m[3])
		out = append(out, Figure{Text: strings.TrimSpace(m[0]), Value: d, ok: err == nil,
			Plain: m[1] == "" && m[3] == "" && m[4] == ""})
	}
	return out
}

// Figures is a set of numbers a text may state, keyed by decimal.String(), so "2650.40",
// "2650.4" and "2,650.40" all meet.
type Figures map[string]bool

// Add admits d, its absolute value and their usual roundings and truncations (0 to 4 places).
func (s Figures) Add(d decimal.Decimal) {
	for _, v := range []decimal.Decimal{d, d.Abs()} {
		s[v.String()] = true
		for places := int32(0); places <= 4; places++ {
			s[v.Round(places).String()] = true
			s[v.Truncate(places).String()] = true
		}
	}
}

// AddScaled also admits a large quantity stated in thousands or millions ("30.1 million oz").
func (s Figures) AddScaled(d decimal.Decimal) {
	s.Add(d)
	s.Add(d.Shift(-3))
	s.Add(d.Shift(-6))
}

// AddText admits every figure written in text (a quoted headline, a fact's value), with its
// roundings.
func (s Figures) AddText(text string) {
	for _, f := range FiguresIn(text) {
		if f.ok {
			s.Add(f.Value)
		}
	}
}

// AddTime admits the calendar parts of a date and time (year, month, day, hour, minute), in
// t's zone and in UTC.
func (s Figures) AddTime(t time.Time) {
	if t.IsZero() {
		return
	}
	for _, tt := range []time.Time{t, t.UTC()} {
		for _, n := range []int{tt.Year(), int(tt.Month()), tt.Day(), tt.Hour(), tt.Minute()} {
			s.Add(decimal.NewFromInt(int64(n)))
		}
	}
}

// AddShown admits exactly the figures written in text, no other rounding: the stricter set a
// reply's sentences are held to.
func (s Figures) AddShown(text string) {
	for _, f := range FiguresIn(text) {
		if f.ok {
			s[f.Value.String()] = true
		}
	}
}

// AddShownTime admits the day and year of a date as a page shows it ("23 Nov 2026").
func (s Figures) AddShownTime(t time.Time) {
	if t.IsZero() {
		return
	}
	for _, tt := range []time.Time{t, t.UTC()} {
		s[decimal.NewFromInt(int64(tt.Day())).String()] = true
		s[decimal.NewFromInt(int64(tt.Year())).String()] = true
	}
}

// Ungrounded lists the figures of text the set does not account for; bare integers up to
// plainLimit pass (counts and periods are not market figures).
func (s Figures) Ungrounded(text string, plainLimit int64) []string {
	var bad []string
	for _, f := range FiguresIn(text) {
		if f.ok && f.Plain && f.Value.LessThanOrEqual(decimal.NewFromInt(plainLimit)) {
			continue
		}
		if !f.ok || !s[f.Value.String()] {
			bad = append(bad, f.Text)
		}
	}
	return bad
}

// Unshown lists every figure of text the set does not hold, bare integers included.
func (s Figures) Unshown(text string) []string {
	var bad []string
	for _, f := range FiguresIn(text) {
		if !f.ok || !s[f.Value.String()] {
			bad = append(bad, f.Text)
		}
	}
	return bad
}
