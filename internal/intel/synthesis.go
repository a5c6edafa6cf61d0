package intel

import (
	"context"
	"fmt"
	"strings"

	"github.com/ouncehq/ounce/internal/metals"
)

// MaxSynthesisStories is how many of the day's stories the synthesis discusses; beyond five
// it stops being a summary.
const MaxSynthesisStories = 5

// ordinals number the synthesis stories in prose.
var ordinals = []string{"First", "Second", "Third", "Fourth", "Fifth"}

// synthesisTitle names the day and the two most-followed moves, e.g. "Daily synthesis,
// 22 Nov 2026: gold +0.80%, silver −1.20%". Gold and silver come first because they are what
// most readers hold; other metals stand in only when those quotes are missing.
func synthesisTitle(c Context) string {
	t := "Daily synthesis, " + day(nowOf(c))
	var moves []string
	for _, m := range metals.All {
		if p, ok := c.Prices[m]; ok {
			mv := string(m) + " " + pct(p.ChangePct)
			if !p.current() {
				// An old move is named with its date, never presented as the day's.
				mv += " on " + day(p.Day)
			}
			moves = append(moves, mv)
			if len(moves) == 2 {
				break
			}
		}
	}
	if len(moves) == 0 {
		return t + ": no current prices"
	}
	if !c.allCurrent() {
		return t + ": last known moves, " + strings.Join(moves, ", ")
	}
	return t + ": " + strings.Join(moves, ", ")
}

// synthesisInput is what a daily synthesis is written from: the top stories, most relevant
// first, at most MaxSynthesisStories of them; ErrNothingToWrite with neither stories nor prices.
func synthesisInput(top []Story, c Context) ([]Story, error) {
	if len(top) == 0 && len(c.Prices) == 0 {
		return nil, ErrNothingToWrite
	}
	ordered := sorted(top)
	if len(ordered) > MaxSynthesisStories {
		ordered = ordered[:MaxSynthesisStories]
	}
	return ordered, nil
}

// Synthesis writes the daily synthesis: all four prices with their change, the COMEX vault
// position when given, the top stories (at most MaxSynthesisStories, most relevant first),
// what the day means for a stacker and what to watch next. With no stories it still writes
// a price-and-vault synthesis; with neither stories nor prices it returns ErrNothingToWrite.
func (BuiltinWriter) Synthesis(_ context.Context, top []Story, c Context) (Article, error) {
	ordered, err := synthesisInput(top, c)
	if err != nil {
		return Article{}, err
	}
	a := synthesisFrame(ordered, c)
	seed := day(a.PublishedAt)

	a.Title = synthesisTitle(c)
	a.Summary = synthesisSummary(ordered, c)
	if a.Demo {
		a.Summary = "Demo: " + a.Summary
	}

	paras := []string{synthesisPrices(seed, c)}
	if len(c.Vault) > 0 {
		paras = append(paras, synthesisVault(c.Vault))
	}
	paras = append(paras, synthesisStories(ordered), synthesisMeaning(seed, ordered, c))
	closing := synthesisWatch(seed, ordered, c)
	if a.Demo {
		closing += " " + demoNote
	}
	paras = append(paras, closing)
	a.Commentary = strings.Join(paras, "\n\n")
	a.Writer = BuiltinName
	return a, nil
}

// synthesisSummary is the day in two sentences: the prices, then the lead story.
func synthesisSummary(ordered []Story, c Context) string {
	var parts []string
	for _, m := range metals.All {
		if p, ok := c.Prices[m]; ok {
			part := fmt.Sprintf("%s %s at %s", m, pct(p.ChangePct), usd(p.Price))
			if !p.current() {
				part += " (close of " + day(p.Day) + ")"
			}
			parts = append(parts, part)
		}
	}
	var b strings.Builder
	if len(parts) > 0 {
		b.WriteString(capitalize(andList(parts)))
		if c.Stale {
			b.WriteString(" (prices may be out of date)")
		}
		b.WriteString(".")
	} else {
		b.WriteString("No current prices are available today.")
	}
	if len(ordered) > 0 {
		fmt.Fprintf(&b, " Lead story: %s, from %s.", quote(storyTitle(ordered[0])), outletName(ordered[0]))
	}
	return b.String()
}

// storyTitle is a story's headline for quoting; a demo sample's own "Demo:" is dropped because
// the article carries the label once.
func storyTitle(s Story) string {
	t := clip(oneLine(s.Title), headlineRunes)
	if s.Demo {
		t = strings.TrimPrefix(t, demoPrefix)
	}
	return t
}

// outletName names a source mid-sentence.
func outletName(s Story) string {
	return sourceName(s, "a sample story shipped with Ounce", "an outlet we follow")
}

// synthesisPrices states every metal's price and change, the biggest mover, the overall tone
// and the gold-to-silver ratio.
func synthesisPrices(seed string, c Context) string {
	var sent []string
	if c.Stale {
		sent = append(sent, "A caution first: our price feed has not refreshed on schedule, so these prices may be out of date.")
	}
	if c.allCurrent() {
		sent = append(sent, pick(seed, []string{
			"Here is where the four metals stand.",
			"First, the prices.",
			"The day in prices:",
		}))
	} else {
		sent = append(sent, "These are the last prices we have, not today's; each is named with its date.")
	}
	var have, missing []metals.Metal
	for _, m := range metals.All {
		p, ok := c.Prices[m]
		if !ok {
			missing = append(missing, m)
			continue
		}
		have = append(have, m)
		if p.current() {
			sent = append(sent, fmt.Sprintf("%s is at %s an ounce, %s.", m.Title(), usd(p.Price), p.move()))
		} else {
			sent = append(sent, fmt.Sprintf("%s closed at %s an ounce on %s, %s.", m.Title(), usd(p.Price), day(p.Day), p.move()))
		}
	}
	if len(missing) > 0 {
		sent = append(sent, fmt.Sprintf("We have no current quote for %s.", metalList(missing)))
	}
	if len(have) > 1 {
		sent = append(sent, tone(have, c))
		mover := have[0]
		for _, m := range have[1:] {
			if metals.Percent(c.Prices[m].ChangePct).Abs().GreaterThan(metals.Percent(c.Prices[mover].ChangePct).Abs()) {
				mover = m
			}
		}
		if !metals.Percent(c.Prices[mover].ChangePct).IsZero() {
			sent = append(sent, fmt.Sprintf("The biggest mover is %s at %s.", mover, pct(c.Prices[mover].ChangePct)))
		}
	}
	if r, ok := ratio(c); ok {
		sent = append(sent, fmt.Sprintf("The gold-to-silver ratio is %s%s.", r.StringFixed(1), ratioDates(c)))
	}
	return strings.Join(sent, " ")
}

// moves splits the quoted metals by the sign of their rounded change.
func moves(have []metals.Metal, c Context) (up, down, flat []metals.Metal) {
	for _, m := range have {
		switch metals.Percent(c.Prices[m].ChangePct).Sign() {
		case 1:
			up = append(up, m)
		case -1:
			down = append(down, m)
		default:
			flat = append(flat, m)
		}
	}
	return up, down, flat
}

// tone sums up the direction of the day in words.
func tone(have []metals.Metal, c Context) string {
	up, down, flat := moves(have, c)
	switch {
	case len(up) == len(have) && c.allCurrent():
		return "Every metal we quote is higher on the day."
	case len(down) == len(have) && c.allCurrent():
		return "Every metal we quote is lower on the day."
	case len(up) == len(have):
		return "Every metal we quote rose in its last recorded session."
	case len(down) == len(have):
		return "Every metal we quote fell in its last recorded session."
	case len(flat) == len(have):
		return "Nothing moved: every metal we quote is unchanged."
	}
	var parts []string
	if len(up) > 0 {
		parts = append(parts, metalList(up)+" "+isAre(up)+" up")
	}
	if len(down) > 0 {
		parts = append(parts, metalList(down)+" "+isAre(down)+" down")
	}
	if len(flat) > 0 {
		parts = append(parts, metalList(flat)+" "+isAre(flat)+" unchanged")
	}
	return "It is a mixed day: " + strings.Join(parts, ", while ") + "."
}

func isAre(ms []metals.Metal) string {
	if len(ms) == 1 {
		return "is"
	}
	return "are"
}

// synthesisVault reports every COMEX line and what the registered drains or additions mean.
func synthesisVault(lines []VaultLine) string {
	sent := []string{"In the COMEX warehouses:"}
	drained, added := false, false
	for _, l := range lines {
		sent = append(sent, vaultSentence(l))
		switch l.RegisteredChange.Round(0).Sign() {
		case -1:
			drained = true
		case 1:
			added = true
		}
	}
	switch {
	case drained && !added:
		sent = append(sent, "A falling registered figure means less metal ready for delivery against futures, which physical buyers watch as a sign of tightness.")
	case added && !drained:
		sent = append(sent, "Rising registered stocks mean more metal on hand for delivery, which eases the pressure physical buyers sometimes feel.")
	case added && drained:
		sent = append(sent, "The registered figures point in different directions, so no single message on tightness comes out of the vaults today.")
	}
	return strings.Join(sent, " ")
}

// synthesisStories walks through the day's top stories in order of relevance.
func synthesisStories(ordered []Story) string {
	if len(ordered) == 0 {
		return "No story in our feeds over the last day was strong enough to make this round-up, so today's synthesis rests on prices alone."
	}
	sent := []string{fmt.Sprintf("The stories that mattered most, %s in all:", countWord(len(ordered)))}
	if len(ordered) == 1 {
		sent = []string{"One story stood out today."}
	}
	for i, s := range ordered {
		t := storyTitle(s)
		line := fmt.Sprintf("%s, %s reports %s, filed under %s", ordinals[i], outletName(s), quote(t), voiceOf(s.Category).label)
		if len(ordered) == 1 {
			line = fmt.Sprintf("%s reports %s, filed under %s", outlet(s), quote(t), voiceOf(s.Category).label)
		}
		if ms := unionMetals([]Story{s}); len(ms) > 0 {
			line += " and touching " + metalList(ms)
		}
		sent = append(sent, line+".")
	}
	return strings.Join(sent, " ")
}

// synthesisMeaning reads the day for a stacker: the tone of prices, the ratio, and the kind of
// news that led.
func synthesisMeaning(seed string, ordered []Story, c Context) string {
	var have []metals.Metal
	for _, m := range metals.All {
		if _, ok := c.Prices[m]; ok {
			have = append(have, m)
		}
	}
	var sent []string
	if len(have) > 0 {
		up, down, flat := moves(have, c)
		quiet := true
		for _, m := range have {
			if direction(c.Prices[m].ChangePct) != 0 {
				quiet = false
			}
		}
		switch {
		case quiet || len(flat) == len(have):
			sent = append(sent, "For a stacker this is a quiet day. Nothing here calls for action; it is a good time to review your allocation rather than the chart.")
		case len(up) == len(have):
			sent = append(sent, "A broad rise lifts the value of every stack, but it tends to lift dealer premiums too; if you planned to buy, compare offers carefully today.")
		case len(down) == len(have):
			sent = append(sent, "A broad dip hurts on paper but helps anyone buying on a schedule: the same money buys more ounces today.")
		default:
			sent = append(sent, "Days like this are a reminder that the metals answer to different forces: gold to money and central banks, silver, platinum and palladium more to industry. Holding more than one metal smooths some of that out.")
		}
	}
	if _, ok := ratio(c); ok {
		sent = append(sent, "Stackers who switch between gold and silver watch the ratio more than either price: a high ratio makes silver cheap relative to gold, a low one the reverse.")
	}
	if len(ordered) > 0 {
		v := voiceOf(ordered[0].Category)
		sent = append(sent, fmt.Sprintf("The lead story is about %s. %s", v.label, pick(seed+"meaning", v.meaning)))
	}
	if len(sent) == 0 {
		sent = append(sent, "With no prices to read, the day's news is the only guide, and none of it calls for a hurried decision.")
	}
	return strings.Join(sent, " ")
}

// synthesisWatch closes the synthesis with what to look out for next.
func synthesisWatch(seed string, ordered []Story, c Context) string {
	var sent []string
	if len(ordered) > 0 {
		sent = append(sent, pick(seed+"watch", voiceOf(ordered[0].Category).watch))
	} else {
		sent = append(sent, "What to watch: whether tomorrow's news gives the market a direction.")
	}
	if len(c.Vault) > 0 {
		sent = append(sent, "The next COMEX report will show whether today's vault movement continues.")
	}
	if c.Stale {
		sent = append(sent, "Check the live prices before acting on any figure here, since our feed was behind when this was written.")
	}
	return strings.Join(sent, " ")
}
