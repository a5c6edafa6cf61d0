package advisor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/performance"
)

// PeriodFigures are how the stack did over one period in a brief, from the performance
// service: the gain after the money put in, and the time-weighted return.
type PeriodFigures struct {
	Period   string // "YTD" or "MTD"
	From, To time.Time
	Currency string
	Gain     *decimal.Decimal
	TWRPct   *decimal.Decimal
	// AsOf is when the end value's prices are of; Stale says they are not live.
	AsOf  time.Time
	Stale bool
}

// briefPeriods are the periods the brief reports, with their words.
var briefPeriods = []struct{ period, words string }{{"YTD", "this year so far"}, {"MTD", "this month so far"}}

// addPerformance writes how the stack did this year and this month: the gain after the money
// put in and the time-weighted return, in the performance service's currency, naming the day
// its prices are of and saying when they are not live.
func (s *Service) addPerformance(ctx context.Context, b *Brief, u db.User, v view) error {
	if s.performance == nil {
		return nil
	}
	var parts []string
	var notes []string
	stale, cur := false, ""
	var asOf time.Time
	for _, p := range briefPeriods {
		r, err := s.performance.Performance(ctx, u, performance.Query{Period: p.period})
		if err != nil {
			return err
		}
		span := day(r.From) + " to " + day(r.To)
		if r.Gain == nil || r.TWRPct == nil {
			notes = append(notes, "how your stack did "+p.words+" I cannot work out"+why(r.Notes))
			continue
		}
		b.Figures.Performance = append(b.Figures.Performance, PeriodFigures{Period: p.period, From: r.From, To: r.To, Currency: r.Currency,
			Gain: r.Gain, TWRPct: r.TWRPct, AsOf: r.AsOf, Stale: r.Stale})
		parts = append(parts, fmt.Sprintf("%s (%s) %s after the money you put in, a time-weighted return of %s",
			p.words, span, perfSigned(*r.Gain, r.Currency), signedPct(*r.TWRPct)))
		stale, cur, asOf = stale || r.Stale, r.Currency, r.AsOf
	}
	if len(parts) == 0 && len(notes) == 0 {
		return nil
	}
	text := ""
	if len(parts) > 0 {
		text = upperFirst(strings.Join(parts, "; ")) + "."
		if stale {
			text += " Prices are not live: the end values are at the last known closes, the oldest of them from " + day(asOf) + "."
		} else {
			text += " Valued at the live prices of " + day(asOf) + "."
		}
		if cur != "" && cur != v.cur {
			text += fmt.Sprintf(" Returns over a period are worked out in %s on this server, not yet in %s, so these amounts are %s.", currencyWords(cur), v.cur, currencyWords(cur))
		}
	}
	if len(notes) > 0 {
		text = strings.TrimSpace(text + " " + upperFirst(strings.Join(notes, "; ")) + ".")
	}
	b.Stale = b.Stale || stale
	b.Sections = append(b.Sections, Section{Title: "How your stack did", Text: text})
	b.Sources = append(b.Sources, Source{Kind: "performance", Title: "Your returns", URL: "/v1/portfolio/performance/summary", AsOf: asOf})
	return nil
}

// knownPerformance admits the figures and dates of the periods into a brief's figure sets.
func (f Figures) knownPerformance(k numberSet) {
	for _, p := range f.Performance {
		for _, d := range []*decimal.Decimal{p.Gain, p.TWRPct} {
			if d != nil {
				k.add(*d)
			}
		}
		k.addTime(p.From)
		k.addTime(p.To)
		k.addTime(p.AsOf)
	}
}

func (f Figures) shownPerformance(set map[string]bool, add func(*decimal.Decimal)) {
	for _, p := range f.Performance {
		add(p.Gain)
		add(p.TWRPct)
		addShownTime(set, p.From)
		addShownTime(set, p.To)
		addShownTime(set, p.AsOf)
	}
}

// why is the notes of a result without figures of their own (a brief states only figures
// it lists), as a clause.
func why(notes []string) string {
	var out []string
	for _, n := range notes {
		if !strings.ContainsAny(n, "0123456789") {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return ": " + strings.Join(out, "; ")
}
