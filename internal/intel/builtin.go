package intel

import (
	"context"
	"fmt"
	"strings"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// BuiltinWriter writes articles from the input data alone, with no network and no model. Its
// output is a pure function of the input (given Context.Now), which makes it the safe fallback
// for LLMWriter and the writer of record when no model is configured. It quotes headlines and
// summaries with attribution and states only numbers found in the input or derived from it
// (rounded prices and changes, the gold-to-silver ratio).
type BuiltinWriter struct{}

var _ Writer = BuiltinWriter{}

// Name identifies the built-in writer in Article.Writer.
func (BuiltinWriter) Name() string { return BuiltinName }

// Limits on quoted material, so one verbose feed item cannot swamp an article.
const (
	headlineRunes = 120
	summaryRunes  = 320
	maxAlsoRan    = 3
)

// demoNote labels articles written from demo stories in the text itself, so the label
// survives wherever the text is shown.
// demoPrefix labels demo content, once.
const demoPrefix = "Demo: "

const demoNote = "Demo content: this article was written from the sample stories that ship with Ounce for demonstration. It is not market news."

// Thresholds for describing a day's move in words, in percent.
var (
	bigMove   = decimal.NewFromInt(2)
	clearMove = decimal.RequireFromString("0.75")
	smallMove = decimal.RequireFromString("0.1")
)

// direction is +1 for a clear rise, -1 for a clear fall and 0 for a quiet day.
func direction(chg decimal.Decimal) int {
	switch {
	case chg.GreaterThanOrEqual(clearMove):
		return 1
	case chg.LessThanOrEqual(clearMove.Neg()):
		return -1
	}
	return 0
}

// sizeWords describes the size of a day's move for readers who skip the numbers.
func sizeWords(chg decimal.Decimal) string {
	a := chg.Abs()
	switch {
	case a.GreaterThanOrEqual(bigMove):
		return "a big move for a single day"
	case a.GreaterThanOrEqual(clearMove):
		return "a clear move on the day"
	case a.GreaterThanOrEqual(smallMove):
		return "a modest move"
	}
	return "barely changed on the day"
}

// voiceOf returns the phrasing of a category; unknown categories read as analysis.
func voiceOf(category string) voice {
	return voices[normCategory(category)]
}

// outlet names a source at the start of a sentence, even when the feed gave no name.
func outlet(s Story) string {
	return sourceName(s, "A sample story shipped with Ounce", "One of the outlets we follow")
}

// sourceName is a story's source in prose: demo for a sample story, the feed's name of the
// outlet, or unnamed when the feed gave none.
func sourceName(s Story, demo, unnamed string) string {
	if s.Demo {
		return demo
	}
	if n := oneLine(s.Source); n != "" {
		return n
	}
	return unnamed
}

// Article writes a cluster up as an article: what the sources say, the price context, what it
// means for a holder of physical metal, and what to watch next.
func (BuiltinWriter) Article(_ context.Context, cluster []Story, c Context) (Article, error) {
	if len(cluster) == 0 {
		return Article{}, ErrNoStories
	}
	a := articleFrame(cluster, c)
	ordered := sorted(cluster)
	lead := ordered[0]
	v := voiceOf(lead.Category)
	seed := slugStory(ordered).ID + "\x00" + slugStory(ordered).Title
	headline := clip(oneLine(lead.Title), headlineRunes)
	if lead.Demo {
		// The article is labelled demo once, up front; the sample's own "Demo:" is not repeated.
		headline = strings.TrimPrefix(headline, demoPrefix)
	}
	if headline == "" {
		headline = "an untitled report"
	}
	cited := citedMetals(a.Metals)

	a.Title = clip(fmt.Sprintf(pick(seed, v.frames), headline), MaxTitleRunes)
	if a.Demo && !strings.HasPrefix(a.Title, demoPrefix) {
		a.Title = clip(demoPrefix+a.Title, MaxTitleRunes)
	}
	a.Summary = articleSummary(lead, headline, len(a.Sources), cited, c)
	if a.Demo {
		a.Summary = demoPrefix + a.Summary
	}

	paras := []string{
		whatHappened(seed, v, ordered, headline),
		priceContext(seed, a.Metals, cited, c),
		stackerMeaning(seed, v, a.Metals, cited, c),
		whatToWatch(seed, v, a.Metals, c),
	}
	if a.Demo {
		paras = append(paras, demoNote)
	}
	a.Commentary = strings.Join(paras, "\n\n")
	a.Writer = BuiltinName
	return a, nil
}

// articleSummary is one sentence on who reports what, and one with the lead metal's price.
func articleSummary(lead Story, headline string, sources int, cited []metals.Metal, c Context) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s reports %s", outlet(lead), quote(headline))
	if others := sources - 1; others > 0 {
		noun := "outlets carry"
		if others == 1 {
			noun = "outlet carries"
		}
		fmt.Fprintf(&b, ", and %s other %s the story", countWord(others), noun)
	}
	b.WriteString(".")
	for _, m := range cited {
		p, ok := c.Prices[m]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, " %s is at %s an ounce (%s", m.Title(), usd(p.Price), p.move())
		if c.Stale {
			b.WriteString("; prices may be out of date")
		}
		b.WriteString(").")
		break
	}
	return b.String()
}

// whatHappened retells the story as the sources tell it, with attribution, and names the other
// outlets that carried it.
func whatHappened(seed string, v voice, ordered []Story, headline string) string {
	lead := ordered[0]
	var b strings.Builder
	fmt.Fprintf(&b, pick(seed, v.openers), outlet(lead), quote(headline))
	if sum := firstSentences(lead.Summary, 2, summaryRunes); sum != "" && !strings.EqualFold(sum, oneLine(lead.Title)) {
		intro := pick(seed+"summary", []string{
			"The report sums it up this way: ",
			"In the report's own words: ",
			"Its summary reads: ",
		})
		b.WriteString(" " + intro + quotedSentence(sum))
	}
	var others []string
	seen := map[string]bool{oneLine(lead.Title): true}
	for _, s := range ordered[1:] {
		t := storyTitle(s)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		others = append(others, fmt.Sprintf("%s (%s)", outletName(s), quote(t)))
		if len(others) == maxAlsoRan {
			break
		}
	}
	if len(others) == 1 {
		fmt.Fprintf(&b, " The same development is covered by %s.", others[0])
	} else if len(others) > 1 {
		fmt.Fprintf(&b, " %s other reports cover the same development: %s.",
			capitalize(countWord(len(others))), andList(others))
	}
	first := slugStory(ordered)
	switch {
	case first.Demo && !first.PublishedAt.IsZero():
		fmt.Fprintf(&b, " Ounce created this sample on %s; it never appeared in a news feed.", day(first.PublishedAt))
	case !first.PublishedAt.IsZero():
		fmt.Fprintf(&b, " The first report reached our feeds on %s.", day(first.PublishedAt))
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// priceLine lists the quoted metals with price and change, e.g. "gold is at $2,650.40 an
// ounce (+0.80% on the day) and silver at $31.20 (−1.20%)", plus the metals with no quote.
func priceLine(cited []metals.Metal, c Context) (line string, missing []metals.Metal) {
	var parts []string
	for _, m := range cited {
		p, ok := c.Prices[m]
		if !ok {
			missing = append(missing, m)
			continue
		}
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%s is at %s an ounce (%s)", m, usd(p.Price), p.move()))
		} else if p.current() {
			parts = append(parts, fmt.Sprintf("%s at %s (%s)", m, usd(p.Price), pct(p.ChangePct)))
		} else {
			parts = append(parts, fmt.Sprintf("%s at %s (%s)", m, usd(p.Price), p.move()))
		}
	}
	return andList(parts), missing
}

// ratio is the gold-to-silver ratio, ounces of silver one ounce of gold buys, when both
// prices are known.
func ratio(c Context) (decimal.Decimal, bool) {
	g, okG := c.Prices[metals.Gold]
	s, okS := c.Prices[metals.Silver]
	if !okG || !okS || !s.Price.IsPositive() || !g.Price.IsPositive() {
		return decimal.Zero, false
	}
	return g.Price.Div(s.Price).Round(1), true
}

// ratioDates names the dates of the two prices the ratio divides when they are not the same
// day (" (gold of 17 Aug 2026, silver of 10 Aug 2026)"), or when they are not today's
// (" (prices of 10 Aug 2026)"); "" for two current prices.
func ratioDates(c Context) string {
	g, s := c.Prices[metals.Gold], c.Prices[metals.Silver]
	switch {
	case g.current() && s.current():
		return ""
	case !g.Day.Equal(s.Day):
		return " (from gold of " + dayOr(g) + " and silver of " + dayOr(s) + ", not the same day)"
	}
	return " (prices of " + day(g.Day) + ")"
}

func dayOr(p PricePoint) string {
	if p.Day.IsZero() {
		return "today"
	}
	return day(p.Day)
}

// staleWarning is said whenever the price feed is behind, so old quotes are never presented
// as current.
const staleWarning = "A caution first: our price feed has not refreshed on schedule, so the quotes below may be out of date."

// priceContext sets the story against current prices, with the numbers.
func priceContext(seed string, own, cited []metals.Metal, c Context) string {
	var sent []string
	if c.Stale {
		sent = append(sent, staleWarning)
	}
	line, missing := priceLine(cited, c)
	if line == "" {
		sent = append(sent, fmt.Sprintf("We have no current price for %s to set beside this story, so the numbers are left out rather than guessed.", metalList(cited)))
		return strings.Join(sent, " ")
	}
	intro := pick(seed+"prices", []string{"At the time of writing", "As this goes out", "For context"})
	if len(own) == 0 {
		intro = "The reports name no metal in particular; for reference"
	}
	sent = append(sent, intro+", "+line+".")
	for _, m := range cited {
		if p, ok := c.Prices[m]; ok {
			if p.current() {
				sent = append(sent, fmt.Sprintf("For %s that is %s.", m, sizeWords(p.ChangePct)))
			}
			break
		}
	}
	if len(missing) > 0 {
		sent = append(sent, fmt.Sprintf("We have no current quote for %s, so it is left out here.", metalList(missing)))
	}
	// The ratio is how silver stackers judge value, so it goes with silver stories only.
	if r, ok := ratio(c); ok && containsMetal(cited, metals.Silver) {
		sent = append(sent, fmt.Sprintf("The gold-to-silver ratio stands at %s%s: one ounce of gold buys that many ounces of silver.", r.StringFixed(1), ratioDates(c)))
	}
	return strings.Join(sent, " ")
}

func containsMetal(ms []metals.Metal, m metals.Metal) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// stackerMeaning explains the story for someone who buys and holds coins and bars.
func stackerMeaning(seed string, v voice, own, cited []metals.Metal, c Context) string {
	sent := []string{pick(seed+"meaning", v.meaning)}
	if len(own) > 0 {
		sent = append(sent, metalNotes[own[0]])
	}
	for _, m := range cited {
		if p, ok := c.Prices[m]; ok {
			sent = append(sent, moveNotes[direction(p.ChangePct)])
			break
		}
	}
	return strings.Join(sent, " ")
}

// whatToWatch names what comes next, with the COMEX vault position of the article's metals
// when the caller supplied it.
func whatToWatch(seed string, v voice, own []metals.Metal, c Context) string {
	sent := []string{pick(seed+"watch", v.watch)}
	for _, l := range c.Vault {
		if containsMetal(own, l.Metal) {
			sent = append(sent, vaultSentence(l))
		}
	}
	return strings.Join(sent, " ")
}

// change words a vault movement: "down 1,234,567 oz", "up …", "unchanged".
func change(d decimal.Decimal) string {
	switch d.Round(0).Sign() {
	case 1:
		return "up " + oz(d)
	case -1:
		return "down " + oz(d.Abs())
	}
	return "unchanged"
}

// vaultSentence reports one COMEX line. Registered metal is the part with warrants issued,
// ready to deliver against futures, which is why a drain there is watched as a sign of
// tightness.
func vaultSentence(l VaultLine) string {
	s := fmt.Sprintf("COMEX vaults hold %s of registered %s, the part ready for delivery against futures, %s since the previous report; %s in all, %s",
		oz(l.Registered), l.Metal, change(l.RegisteredChange), oz(l.Combined), change(l.CombinedChange))
	if !l.AsOf.IsZero() {
		s += " (report of " + day(l.AsOf) + ")"
	}
	return s + "."
}
