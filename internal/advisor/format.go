package advisor

import (
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/format"
	"github.com/shopspring/decimal"
)

// The advisor writes figures with the one formatter (internal/format), so a reply, a brief and
// the page beside them show the same figure the same way. These short names keep the call
// sites readable.

func money(d decimal.Decimal) string       { return format.USD(d) }
func price(d decimal.Decimal) string       { return format.PriceUSD(d) }
func signedMoney(d decimal.Decimal) string { return format.SignedUSD(d) }
func pct(d decimal.Decimal) string         { return format.Pct(d) }
func signedPct(d decimal.Decimal) string   { return format.SignedPct(d) }
func ounces(d decimal.Decimal) string      { return format.Ounces(d) }
func signedOz(d decimal.Decimal) string    { return format.SignedOz(d) + " oz" }
func day(t time.Time) string               { return format.Date(t) }

// plainIntLimit is the largest bare integer a reply may state without a source: counts and
// periods ("3 reports", "30 days") are not market figures.
const plainIntLimit = 100

// numberSet holds every figure a text may state: the values, their absolute values and their
// usual roundings (format.Figures).
type numberSet format.Figures

func (s numberSet) add(d decimal.Decimal) { format.Figures(s).Add(d) }

// addText admits every figure in a text (a fact's value, a headline).
func (s numberSet) addText(text string) { format.Figures(s).AddText(text) }

// addTime admits the calendar parts of a date.
func (s numberSet) addTime(t time.Time) { format.Figures(s).AddTime(t) }

// ungrounded lists the figures in text the set does not account for.
func ungrounded(text string, known numberSet) []string {
	return format.Figures(known).Ungrounded(text, plainIntLimit)
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

func addShown(set map[string]bool, text string) { format.Figures(set).AddShown(text) }

func addShownTime(set map[string]bool, t time.Time) { format.Figures(set).AddShownTime(t) }

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
	return format.Figures(shown).Unshown(sentence)
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
