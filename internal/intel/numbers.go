package intel

import (
	"time"

	"github.com/ouncehq/ounce/internal/format"
	"github.com/shopspring/decimal"
)

// plainIntLimit is the largest bare integer allowed without a source: counts, ordinals and
// periods ("three outlets", "50-day average") are not market figures, while prices,
// percentages, decimals and big quantities always need one.
const plainIntLimit = 100

// numberSet holds every number an article may state: the input's numbers, their absolute
// values and their usual roundings. It is the one figure check (format.Figures), shared with
// the advisor.
type numberSet format.Figures

func (s numberSet) add(d decimal.Decimal) { format.Figures(s).Add(d) }

// addScaled also admits a large quantity stated in thousands or millions ("30.1 million oz").
func (s numberSet) addScaled(d decimal.Decimal) { format.Figures(s).AddScaled(d) }

// addText admits every figure that appears in quoted input text.
func (s numberSet) addText(text string) { format.Figures(s).AddText(text) }

// addTime admits the calendar parts of a date the text may mention.
func (s numberSet) addTime(t time.Time) { format.Figures(s).AddTime(t) }

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
	return format.Figures(known).Ungrounded(text, plainIntLimit)
}
