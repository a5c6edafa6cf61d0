package advisor

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/performance"
)

// ToolPerformance answers how the member's stack did over a period, from the performance
// service (returns over a period, not the all-time profit).
const ToolPerformance = "stack_performance"

var (
	sinceMonthRe = regexp.MustCompile(` since (january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)(?: (\d{4}))? `)
	inYearRe     = regexp.MustCompile(` (?:in|during|for) (\d{4}) `)
	monthNames   = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
)

// perfPeriodOf is the period a question about the member's own stack names, as the tool's
// range argument: a preset ("YTD"), "since:M" or "since:M:YYYY" (a month), "in:YYYY" (a
// calendar year); "" when the question is not about how the stack did over a period.
func perfPeriodOf(t string) string {
	mine := has(t, "my stack", "my portfolio", "my holdings", "my metals", "my collection", "my position", "my positions", "i do", "i done", "have i done", "did i do", "am i")
	how := has(t, "how did", "how has", "how have", "how's", "how is", "perform", "performed", "performance", "do", "done", "doing", "return", "returns", "gain", "gains", "up", "down", "made", "make")
	if !mine || !how {
		return ""
	}
	if m := sinceMonthRe.FindStringSubmatch(t); m != nil {
		mon := monthNames[m[1][:3]]
		if m[1] == "sept" {
			mon = 9
		}
		if m[2] != "" {
			return fmt.Sprintf("since:%d:%s", mon, m[2])
		}
		return fmt.Sprintf("since:%d", mon)
	}
	if m := inYearRe.FindStringSubmatch(t); m != nil {
		return "in:" + m[1]
	}
	switch {
	case has(t, "this year", "ytd", "year to date", "year-to-date", "so far this year", "since january"):
		return "YTD"
	case has(t, "this month", "month to date"):
		return "MTD"
	case has(t, "this quarter", "quarter to date"):
		return "QTD"
	case has(t, "this week", "week to date"):
		return "WTD"
	case has(t, "past year", "last 12 months", "last twelve months", "past 12 months"):
		return "1Y"
	case has(t, "since i started", "since i began", "all time", "all-time", "ever"):
		return "MAX"
	}
	return ""
}

// perfQuery turns the tool's range argument into a performance query at now, with its words.
func perfQuery(r string, now time.Time) (performance.Query, string, bool) {
	today := now.UTC()
	switch {
	case strings.HasPrefix(r, "since:"):
		parts := strings.Split(r, ":")
		mon, err := strconv.Atoi(parts[1])
		if err != nil || mon < 1 || mon > 12 {
			return performance.Query{}, "", false
		}
		year := today.Year()
		if len(parts) == 3 {
			if year, err = strconv.Atoi(parts[2]); err != nil {
				return performance.Query{}, "", false
			}
		} else if time.Month(mon) > today.Month() {
			year-- // "since October" in March is last October
		}
		from := time.Date(year, time.Month(mon), 1, 0, 0, 0, 0, time.UTC)
		return performance.Query{From: from.Format(time.DateOnly)}, "since " + from.Format("January 2006"), true
	case strings.HasPrefix(r, "in:"):
		year, err := strconv.Atoi(strings.TrimPrefix(r, "in:"))
		if err != nil {
			return performance.Query{}, "", false
		}
		q := performance.Query{From: fmt.Sprintf("%d-01-01", year), To: fmt.Sprintf("%d-12-31", year)}
		if year == today.Year() {
			q.To = today.Format(time.DateOnly)
		}
		return q, fmt.Sprintf("in %d", year), true
	}
	words := map[string]string{"YTD": "this year so far", "MTD": "this month so far", "QTD": "this quarter so far", "WTD": "this week so far",
		"1Y": "over the past year", "MAX": "since your first purchase", "1D": "over the day"}
	w, ok := words[r]
	return performance.Query{Period: r}, w, ok
}

func (s *Service) stackPerformance(ctx context.Context, u db.User, a args) (result, error) {
	if s.performance == nil {
		return result{Text: "I cannot work out returns over a period on this server."}, nil
	}
	q, words, ok := perfQuery(a.Range, s.now())
	if !ok {
		return result{Text: "I can answer for this year, this month, this quarter, this week, the past year, since a month (\"since March\") or a calendar year (\"in 2024\")."}, nil
	}
	r, err := s.performance.Performance(ctx, u, q)
	if err != nil {
		return result{}, err
	}
	src := "your purchases and sales × daily closes"
	span := day(r.From) + " to " + day(r.To)
	if r.Gain == nil {
		text := fmt.Sprintf("I cannot say how your stack did %s (%s)", words, span)
		if len(r.Notes) > 0 {
			text += ": " + strings.Join(r.Notes, "; ")
		}
		return result{Text: text + ".", Stale: r.Stale}, nil
	}
	facts := []Fact{
		{Label: "Period", Value: span, AsOf: r.To, Source: "your question"},
		{Label: "Value at the start (" + day(r.From.AddDate(0, 0, -1)) + " close)", Value: money(*r.StartValue), AsOf: r.From.AddDate(0, 0, -1), Source: src},
		{Label: "Value at the end", Value: money(*r.EndValue), AsOf: r.AsOf, Source: src},
		{Label: "Net money put in", Value: signedMoney(*r.NetFlows), Source: "your purchases (with fees) less sale proceeds"},
		{Label: "Gain " + words, Value: signedMoney(*r.Gain), AsOf: r.AsOf, Source: src},
		{Label: "Realized from sales " + words, Value: signedMoney(*r.RealizedGain), Source: "your sales"},
		{Label: "Unrealized change " + words, Value: signedMoney(*r.UnrealizedGain), AsOf: r.AsOf, Source: src},
	}
	text := fmt.Sprintf("%s (%s) your stack went from %s to %s with %s put in net, a gain of %s (%s realized from sales, %s unrealized).",
		capitalize(words), span, money(*r.StartValue), money(*r.EndValue), signedMoney(*r.NetFlows), signedMoney(*r.Gain),
		signedMoney(*r.RealizedGain), signedMoney(*r.UnrealizedGain))
	if r.TWRPct != nil {
		facts = append(facts, Fact{Label: "Time-weighted return " + words, Value: signedPct(*r.TWRPct), AsOf: r.AsOf, Source: src})
		text += " Time-weighted return " + signedPct(*r.TWRPct)
		if r.MWRPct != nil {
			per := ""
			if r.Annualized {
				per = " a year"
			}
			facts = append(facts, Fact{Label: "Money-weighted return " + words + per, Value: signedPct(*r.MWRPct), AsOf: r.AsOf, Source: src})
			text += ", money-weighted " + signedPct(*r.MWRPct) + per
		}
		text += "."
	}
	if r.Benchmark.Gain != nil {
		facts = append(facts, Fact{Label: "Same money in " + string(r.Benchmark.Metal) + ", gain", Value: signedMoney(*r.Benchmark.Gain), AsOf: r.AsOf, Source: "your flows × " + string(r.Benchmark.Metal) + " closes"})
		text += fmt.Sprintf(" The same money put into %s at each day's close would have gained %s.", r.Benchmark.Metal, signedMoney(*r.Benchmark.Gain))
	}
	if r.RealTWRPct != nil {
		facts = append(facts, Fact{Label: "Time-weighted return after inflation", Value: signedPct(*r.RealTWRPct), Source: r.CPISeries})
		text += " After inflation the time-weighted return is " + signedPct(*r.RealTWRPct) + "."
	}
	if r.Stale {
		text += " Prices are not live: the end value is at the close of " + day(r.AsOf) + "."
	}
	return result{Text: text, Facts: facts, Stale: r.Stale}, nil
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
