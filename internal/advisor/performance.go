package advisor

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/performance"
)

// ToolPerformance answers how the member's stack did over a period, from the performance
// service (returns over a period, not the all-time profit).
const ToolPerformance = "stack_performance"

// perfUnknown is the range of a question about the stack over a period the engine cannot
// read: the tool says which periods it answers rather than answering all time instead.
const perfUnknown = "unknown"

const monthAlt = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`

var (
	sinceMonthRe = regexp.MustCompile(` since ` + monthAlt + `(?: (\d{4}))? `)
	inMonthRe    = regexp.MustCompile(` (?:in|during) ` + monthAlt + `(?: (\d{4}))? `)
	inYearRe     = regexp.MustCompile(` (?:in|during|for) (\d{4}) `)
	sinceYearRe  = regexp.MustCompile(` since (\d{4}) `)
	sinceDateRe  = regexp.MustCompile(` (?:since|from) (\d{4}-\d{2}-\d{2})(?: (?:to|until|till|through) (\d{4}-\d{2}-\d{2}))? `)
	// periodWordRe finds words that name some period the forms above did not read.
	periodWordRe = regexp.MustCompile(` (?:since|during|between|from|in|last|past|over|for) (?:the )?(?:last |past )?(?:\d|year|years|month|months|week|weeks|quarter|decade|` + monthAlt[1:len(monthAlt)-1] + `)`)
	monthNames   = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}
)

// aboutMyReturns reports a question about how the member's own stack did.
func aboutMyReturns(t string) bool {
	mine := has(t, "my stack", "my portfolio", "my holdings", "my metals", "my collection", "my position", "my positions", "i do", "i done", "have i done", "did i do", "am i")
	how := has(t, "how did", "how has", "how have", "how's", "how is", "perform", "performed", "performance", "do", "done", "doing", "return", "returns", "gain", "gains", "up", "down", "made", "make")
	return mine && how
}

// perfPeriodOf is the period a question about the member's own stack names, as the tool's
// range argument: a preset ("YTD"), "since:M" or "since:M:YYYY" (since a month), "in:YYYY"
// (a calendar year), "month:M" or "month:M:YYYY" (a calendar month), "from:YYYY-MM-DD" or
// "from:YYYY-MM-DD:YYYY-MM-DD" (dates), "last:month" or "last:year" (the calendar month or
// year before this one), perfUnknown (a period it cannot read); "" when the question is not
// about how the stack did over a period.
func perfPeriodOf(t string) string {
	if !aboutMyReturns(t) {
		return ""
	}
	if r := explicitPeriod(t); r != "" {
		return r
	}
	if r := presetPeriod(t); r != "" {
		return r
	}
	if periodWordRe.MatchString(t) && !has(t, "today") {
		return perfUnknown
	}
	return ""
}

// monthOf is the month a month word names.
func monthOf(w string) time.Month { return monthNames[w[:3]] }

// explicitPeriod reads a period named by dates, a month or a year.
func explicitPeriod(t string) string {
	if m := sinceDateRe.FindStringSubmatch(t); m != nil {
		if m[2] != "" {
			return "from:" + m[1] + ":" + m[2]
		}
		return "from:" + m[1]
	}
	if m := sinceMonthRe.FindStringSubmatch(t); m != nil {
		return monthArg("since", m[1], m[2])
	}
	if m := sinceYearRe.FindStringSubmatch(t); m != nil {
		return "from:" + m[1] + "-01-01"
	}
	if m := inMonthRe.FindStringSubmatch(t); m != nil {
		return monthArg("month", m[1], m[2])
	}
	if m := inYearRe.FindStringSubmatch(t); m != nil {
		return "in:" + m[1]
	}
	return ""
}

func monthArg(kind, word, year string) string {
	if year != "" {
		return fmt.Sprintf("%s:%d:%s", kind, monthOf(word), year)
	}
	return fmt.Sprintf("%s:%d", kind, monthOf(word))
}

// presetPeriod reads a period named by words ("this year", "last month").
func presetPeriod(t string) string {
	switch {
	case has(t, "this year", "ytd", "year to date", "year-to-date", "so far this year"):
		return "YTD"
	case has(t, "this month", "month to date"):
		return "MTD"
	case has(t, "this quarter", "quarter to date"):
		return "QTD"
	case has(t, "this week", "week to date"):
		return "WTD"
	case has(t, "past year", "last 12 months", "last twelve months", "past 12 months"):
		return "1Y"
	case has(t, "3 years", "three years", "3y"):
		return "3Y"
	case has(t, "5 years", "five years", "5y"):
		return "5Y"
	case has(t, "10 years", "ten years", "10y", "decade"):
		return "10Y"
	case has(t, "last month", "previous month"):
		return "last:month"
	case has(t, "last year", "previous year"):
		return "last:year"
	case has(t, "since i started", "since i began", "all time", "all-time", "ever"):
		return "MAX"
	}
	return ""
}

// perfAsk is a period asked about, ready for the performance service.
type perfAsk struct {
	q     performance.Query
	words string
	// why says why the period cannot be answered ("" when it can); facts state its figures.
	why   string
	facts []Fact
}

// perfQuery turns the tool's range argument into a performance query at now, with its words.
// A month without a year is the last one on or before now ("since October" in February is
// last October).
func perfQuery(r string, now time.Time) perfAsk {
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	kind, rest, _ := strings.Cut(r, ":")
	switch kind {
	case "since", "month":
		return monthAsk(kind, rest, today)
	case "in":
		year, err := strconv.Atoi(rest)
		if err != nil {
			return perfAsk{}
		}
		from := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)
		return explicitAsk(from, from.AddDate(1, 0, -1), today, fmt.Sprintf("in %d", year))
	case "from":
		return fromAsk(rest, today)
	case "last":
		return lastAsk(rest, today)
	}
	words := map[string]string{"YTD": "this year so far", "MTD": "this month so far", "QTD": "this quarter so far", "WTD": "this week so far",
		"1Y": "over the past year", "3Y": "over the past 3 years", "5Y": "over the past 5 years", "10Y": "over the past 10 years", "MAX": "since your first purchase", "1D": "over the day"}
	w, ok := words[r]
	if !ok {
		return perfAsk{}
	}
	return perfAsk{q: performance.Query{Period: r}, words: w}
}

// monthAsk is since the first of a month ("since") or that calendar month ("month").
func monthAsk(kind, rest string, today time.Time) perfAsk {
	parts := strings.Split(rest, ":")
	mon, err := strconv.Atoi(parts[0])
	if err != nil || mon < 1 || mon > 12 {
		return perfAsk{}
	}
	year := today.Year()
	if len(parts) == 2 {
		if year, err = strconv.Atoi(parts[1]); err != nil {
			return perfAsk{}
		}
	} else if time.Month(mon) > today.Month() {
		year--
	}
	from := time.Date(year, time.Month(mon), 1, 0, 0, 0, 0, time.UTC)
	if kind == "since" {
		return explicitAsk(from, today, today, "since "+from.Format("January 2006"))
	}
	return explicitAsk(from, from.AddDate(0, 1, -1), today, "in "+from.Format("January 2006"))
}

// fromAsk is since a date, or between two dates.
func fromAsk(rest string, today time.Time) perfAsk {
	a, b, two := strings.Cut(rest, ":")
	from, err := time.Parse(time.DateOnly, a)
	if err != nil {
		return perfAsk{}
	}
	if !two {
		return explicitAsk(from, today, today, "since "+day(from))
	}
	to, err := time.Parse(time.DateOnly, b)
	if err != nil {
		return perfAsk{}
	}
	if to.Before(from) {
		return perfAsk{why: "the period ends before it begins", words: "from " + day(from) + " to " + day(to),
			facts: []Fact{{Label: "Period asked", Value: day(from) + " to " + day(to), Source: "your question"}}}
	}
	return explicitAsk(from, to, today, "from "+day(from)+" to "+day(to))
}

// lastAsk is the calendar month or year before today's.
func lastAsk(what string, today time.Time) perfAsk {
	switch what {
	case "month":
		from := time.Date(today.Year(), today.Month()-1, 1, 0, 0, 0, 0, time.UTC)
		return explicitAsk(from, from.AddDate(0, 1, -1), today, "last month")
	case "year":
		from := time.Date(today.Year()-1, 1, 1, 0, 0, 0, 0, time.UTC)
		return explicitAsk(from, from.AddDate(1, 0, -1), today, "last year")
	}
	return perfAsk{}
}

// explicitAsk is the period from..to, cut at today; a period that has not begun cannot be
// answered.
func explicitAsk(from, to, today time.Time, words string) perfAsk {
	if from.After(today) {
		return perfAsk{words: words, why: "that period has not begun yet (today is " + day(today) + ")",
			facts: []Fact{{Label: "Period asked begins", Value: day(from), AsOf: from, Source: "your question"},
				{Label: "Today", Value: day(today), AsOf: today, Source: "Ounce's clock"}}}
	}
	if to.After(today) {
		to = today
	}
	return perfAsk{q: performance.Query{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly)}, words: words}
}

// perfMoney writes an amount of a performance answer in its currency.
func perfMoney(d decimal.Decimal, cur string) string {
	if cur == "" || cur == "USD" {
		return money(d)
	}
	return format.Money(d, cur)
}

func perfSigned(d decimal.Decimal, cur string) string {
	if cur == "" || cur == "USD" {
		return signedMoney(d)
	}
	return format.SignedMoney(d, cur)
}

const perfForms = "I can answer for this year, this month, this quarter, this week, the past year, last month, last year, since a month (\"since March\"), since a date (\"since 2023-05-01\"), a calendar month (\"in March 2025\") or a calendar year (\"in 2024\")."

func (s *Service) stackPerformance(ctx context.Context, u db.User, a args) (result, error) {
	if s.performance == nil {
		return result{Text: "I cannot work out returns over a period on this server."}, nil
	}
	ask := perfQuery(a.Range, s.now())
	if ask.why != "" {
		return result{Text: fmt.Sprintf("I cannot say how your stack did %s: %s.", ask.words, ask.why), Facts: ask.facts}, nil
	}
	if ask.q == (performance.Query{}) {
		return result{Text: "I cannot tell which period you mean. " + perfForms, Facts: []Fact{{Label: "Periods I answer", Value: perfForms, Source: "Ounce's advisor"}}}, nil
	}
	r, err := s.performance.Performance(ctx, u, ask.q)
	switch apperr.KindOf(err) {
	case apperr.MembershipRequired:
		return result{Text: "How your stack did over a period is part of Gold membership, as your stack's value and profit are; I can still answer about prices, the gold/silver ratio, junk silver melt, premiums, COMEX and Stack Signal."}, nil
	case apperr.Unauthorized:
		return result{Text: "Sign in and I can say how your stack did over a period."}, nil
	}
	if err != nil {
		return result{}, err
	}
	first, found, err := s.firstPurchase(ctx, u)
	if err != nil {
		return result{}, err
	}
	if !found {
		return result{Text: "You have no purchases recorded, so there is no return to work out. Add your purchases under Holdings."}, nil
	}
	firstFact := Fact{Label: "Your first purchase", Value: day(first), AsOf: first, Source: "your holdings"}
	span := day(r.From) + " to " + day(r.To)
	periodFact := Fact{Label: "Period", Value: span, AsOf: r.To, Source: "your question"}
	if r.To.Before(first) {
		return result{Text: fmt.Sprintf("I cannot say how your stack did %s (%s): your first purchase is dated %s, so you held no metal recorded here then. I can answer for any period from %s on.",
			ask.words, span, day(first), day(first)), Facts: []Fact{periodFact, firstFact}}, nil
	}
	res := perfAnswer(r, ask.words, span, periodFact)
	if r.From.Before(first) && r.Gain != nil {
		res.Facts = append(res.Facts, firstFact)
		res.Text += fmt.Sprintf(" Your first purchase is dated %s, so the period counts from nothing held before it.", day(first))
	}
	if v := s.viewOf(ctx, u, s.now()); r.Gain != nil && r.Currency != "" && v.cur != r.Currency {
		res.Text += fmt.Sprintf(" Returns over a period are worked out in %s on this server, not yet in %s, so these amounts are %s.", currencyWords(r.Currency), v.cur, currencyWords(r.Currency))
	}
	return res, nil
}

// firstPurchase is the day of the member's first recorded purchase (found is false without one):
// the start of the performance service's whole-history period.
func (s *Service) firstPurchase(ctx context.Context, u db.User) (time.Time, bool, error) {
	all, err := s.performance.Performance(ctx, u, performance.Query{Period: "MAX"})
	if err != nil {
		return time.Time{}, false, err
	}
	held := all.OzEnd != nil && all.OzEnd.IsPositive()
	return all.From, len(all.Flows) > 0 || held, nil
}

// perfAnswer writes one period's answer from the performance service's result, every amount
// in the result's currency.
func perfAnswer(r performance.Result, words, span string, periodFact Fact) result {
	cur := r.Currency
	if r.Gain == nil {
		text := fmt.Sprintf("I cannot say how your stack did %s (%s)", words, span)
		if len(r.Notes) > 0 {
			text += ": " + strings.Join(r.Notes, "; ")
		}
		return result{Text: text + ".", Facts: []Fact{periodFact}, Stale: r.Stale}
	}
	src := "your purchases and sales × daily closes"
	m, sm := func(d decimal.Decimal) string { return perfMoney(d, cur) }, func(d decimal.Decimal) string { return perfSigned(d, cur) }
	facts := []Fact{periodFact,
		{Label: "Value at the start (" + day(r.From.AddDate(0, 0, -1)) + " close)", Value: m(*r.StartValue), AsOf: r.From.AddDate(0, 0, -1), Source: src},
		{Label: "Value at the end", Value: m(*r.EndValue), AsOf: r.AsOf, Source: src},
		{Label: "Net money put in", Value: sm(*r.NetFlows), Source: "your purchases (with fees) less sale proceeds"},
		{Label: "Gain " + words, Value: sm(*r.Gain), AsOf: r.AsOf, Source: src},
		{Label: "Realized from sales " + words, Value: sm(*r.RealizedGain), Source: "your sales"},
		{Label: "Unrealized change " + words, Value: sm(*r.UnrealizedGain), AsOf: r.AsOf, Source: src},
	}
	text := fmt.Sprintf("%s (%s) your stack went from %s to %s with %s put in net, a gain of %s (%s realized from sales, %s unrealized).",
		capitalize(words), span, m(*r.StartValue), m(*r.EndValue), sm(*r.NetFlows), sm(*r.Gain), sm(*r.RealizedGain), sm(*r.UnrealizedGain))
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
		facts = append(facts, Fact{Label: "Same money in " + string(r.Benchmark.Metal) + ", gain", Value: sm(*r.Benchmark.Gain), AsOf: r.AsOf, Source: "your flows × " + string(r.Benchmark.Metal) + " closes"})
		text += fmt.Sprintf(" The same money put into %s at each day's close would have gained %s.", r.Benchmark.Metal, sm(*r.Benchmark.Gain))
	}
	if r.RealTWRPct != nil {
		facts = append(facts, Fact{Label: "Time-weighted return after inflation", Value: signedPct(*r.RealTWRPct), Source: r.CPISeries})
		text += " After inflation the time-weighted return is " + signedPct(*r.RealTWRPct) + "."
	}
	if r.Stale {
		facts = append(facts, Fact{Label: "End prices (not live) of", Value: day(r.AsOf), AsOf: r.AsOf, Source: "daily closes"})
		text += " Prices are not live: the end value is at the close of " + day(r.AsOf) + "."
	}
	return result{Text: text, Facts: facts, Stale: r.Stale}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
