package advisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// Brief is a member's daily brief: prose over figures, every figure of the prose listed in
// Figures (the writer's text is checked against them before it is stored).
type Brief struct {
	Date        db.Date
	GeneratedAt time.Time
	Writer      string
	Headline    string
	Body        string
	Sections    []Section
	Figures     Figures
	Sources     []Source
	Stale       bool
}

// Section is one titled part of a brief.
type Section struct {
	Title string
	Text  string
}

// Source is an item a brief draws on.
type Source struct {
	Kind  string // "stack-signal", "market-intel", "comex", "prices", "holdings"
	Title string
	URL   string
	AsOf  time.Time
}

// Figures are the numbers of a brief. Pointers are nil when unknown.
type Figures struct {
	StackValue *decimal.Decimal
	Change     *decimal.Decimal
	ChangePct  *decimal.Decimal
	// ChangeFrom is the date of the previous brief the change is measured from, or
	// "previous close" when there is none.
	ChangeFrom string
	ByMetal    map[metals.Metal]MetalFigures
	Alerts     []FiredAlert
	// Currency and Unit are what the money and prices are in: the member's display currency
	// and weight unit when the brief was written ("" is USD per troy ounce). Break-even is in
	// them too (since briefs of 2026-11-28: each lot's cost at its purchase day's rate).
	Currency string `json:",omitempty"`
	Unit     string `json:",omitempty"`
	// Performance is how the stack did this year and this month (the performance service's
	// figures, in its currency).
	Performance []PeriodFigures `json:",omitempty"`
}

// currency is the brief's currency and unit, the defaults standing in for briefs written
// before they were recorded.
func (f Figures) currency() (string, string) {
	cur, unit := f.Currency, f.Unit
	if cur == "" {
		cur = "USD"
	}
	if unit == "" {
		unit = string(metals.Ounce)
	}
	return cur, unit
}

// MetalFigures are one held metal's numbers in a brief.
type MetalFigures struct {
	HeldOz                 decimal.Decimal
	Spot                   *decimal.Decimal
	SpotAsOf               time.Time
	SpotStale              bool
	Value                  *decimal.Decimal
	ChangePct              *decimal.Decimal
	ChangeFrom             string
	BreakEven              *decimal.Decimal
	DistanceToBreakEvenPct *decimal.Decimal
	ComexRegistered        *decimal.Decimal
	ComexRegisteredChange  *decimal.Decimal
	ComexAsOf              time.Time
}

// BriefPage is a page of a member's briefs, newest first.
type BriefPage struct {
	Briefs        []Brief
	Limit, Offset int
	Total         int
}

// ParseBriefDate reads the date parameter ("" is today in the member's zone).
func (s *Service) briefDay(u db.User, date string) (db.Date, error) {
	if strings.TrimSpace(date) == "" {
		d, _ := localDay(u, s.now())
		return d, nil
	}
	d, err := db.ParseDate(strings.TrimSpace(date))
	if err != nil {
		return db.Date{}, apperr.InvalidField("date", "must be a date as YYYY-MM-DD")
	}
	return d, nil
}

func requireMember(u db.User) error {
	if u.ID == 0 {
		return apperr.New(apperr.Unauthorized, "sign in to read your daily brief")
	}
	return account.RequireGold(u, "The daily brief")
}

// BriefOf returns the member's brief of a day (today in their zone by default); none is not
// found.
func (s *Service) BriefOf(ctx context.Context, u db.User, date, claimed string) (Brief, error) {
	if err := checkClaim(u, claimed); err != nil {
		return Brief{}, err
	}
	if err := requireMember(u); err != nil {
		return Brief{}, err
	}
	d, err := s.briefDay(u, date)
	if err != nil {
		return Brief{}, err
	}
	row, err := s.store.BriefByDay(ctx, u.ID, d)
	if errors.Is(err, db.ErrNotFound) {
		return Brief{}, apperr.New(apperr.NotFound, "no daily brief for %s yet; generate it with POST /v1/daily-brief/generate", d)
	}
	if err != nil {
		return Brief{}, err
	}
	return decodeBrief(row)
}

// Briefs lists the member's past briefs.
func (s *Service) Briefs(ctx context.Context, u db.User, limit, offset int) (BriefPage, error) {
	if err := requireMember(u); err != nil {
		return BriefPage{}, err
	}
	if limit <= 0 || limit > 100 {
		limit = 30
	}
	if offset < 0 {
		offset = 0
	}
	rows, total, err := s.store.BriefsByUser(ctx, u.ID, limit, offset)
	if err != nil {
		return BriefPage{}, err
	}
	out := BriefPage{Briefs: []Brief{}, Limit: limit, Offset: offset, Total: total}
	for _, r := range rows {
		b, err := decodeBrief(r)
		if err != nil {
			return BriefPage{}, err
		}
		out.Briefs = append(out.Briefs, b)
	}
	return out, nil
}

func decodeBrief(r db.Brief) (Brief, error) {
	var b Brief
	if err := json.Unmarshal([]byte(r.Content), &b); err != nil {
		return Brief{}, fmt.Errorf("advisor: stored brief %s: %w", r.ID, err)
	}
	b.Date, b.GeneratedAt, b.Writer = r.Day, r.GeneratedAt, r.Writer
	return b, nil
}

// GenerateBrief writes the member's brief of today (their zone). A brief already written
// today is returned as it is unless regenerate is true; created says whether this call wrote it.
func (s *Service) GenerateBrief(ctx context.Context, u db.User, regenerate bool, claimed string) (Brief, bool, error) {
	if err := checkClaim(u, claimed); err != nil {
		return Brief{}, false, err
	}
	if err := requireMember(u); err != nil {
		return Brief{}, false, err
	}
	now := s.now()
	d, _ := localDay(u, now)
	if regenerate {
		// Writing again costs a model call each time, so it is one of the day's advisor
		// messages; the first brief of the day is free.
		if err := s.useQuota(ctx, u); err != nil {
			return Brief{}, false, err
		}
	} else {
		row, err := s.store.BriefByDay(ctx, u.ID, d)
		if err == nil {
			b, err := decodeBrief(row)
			return b, false, err
		}
		if !errors.Is(err, db.ErrNotFound) {
			return Brief{}, false, err
		}
	}
	b, err := s.composeBrief(ctx, u, d, now)
	if err != nil {
		return Brief{}, false, err
	}
	if dropped := b.verify(); len(dropped) > 0 {
		s.log.Warn("advisor: brief sentences left out by the figure check", "user", u.ID, "left_out", dropped)
	}
	if bad := ungrounded(b.text(), b.known()); len(bad) > 0 {
		return Brief{}, false, fmt.Errorf("advisor: brief states figures it does not list: %s", strings.Join(firstN(bad, 5), ", "))
	}
	if polished, reason := s.polishBrief(ctx, b); reason != "" {
		s.log.Warn("advisor: model brief not used", "reason", reason)
	} else {
		b = polished
	}
	content, err := json.Marshal(b)
	if err != nil {
		return Brief{}, false, err
	}
	id := newID("br_")
	row, err := s.store.SaveBrief(ctx, db.Brief{ID: id, UserID: u.ID, Day: d, GeneratedAt: now.UTC(), Writer: b.Writer, Content: string(content)}, regenerate)
	if err != nil {
		return Brief{}, false, err
	}
	out, err := decodeBrief(row)
	return out, row.ID == id, err
}

// text is all the prose of the brief.
func (b Brief) text() string {
	parts := []string{b.Headline, b.Body}
	for _, s := range b.Sections {
		parts = append(parts, s.Title, s.Text)
	}
	return strings.Join(parts, "\n")
}

// known is every figure the brief's prose may state: its figures, the titles it quotes and
// its dates.
func (b Brief) known() numberSet {
	k := numberSet{}
	f := b.Figures
	for _, d := range []*decimal.Decimal{f.StackValue, f.Change, f.ChangePct} {
		if d != nil {
			k.add(*d)
		}
	}
	k.addText(f.ChangeFrom)
	for _, m := range f.ByMetal {
		k.add(m.HeldOz)
		for _, d := range []*decimal.Decimal{m.Spot, m.Value, m.ChangePct, m.BreakEven, m.DistanceToBreakEvenPct, m.ComexRegistered, m.ComexRegisteredChange} {
			if d != nil {
				k.add(*d)
			}
		}
		k.addText(m.ChangeFrom)
		k.addTime(m.SpotAsOf)
		k.addTime(m.ComexAsOf)
	}
	f.knownPerformance(k)
	for _, a := range f.Alerts {
		k.addText(a.Target)
		k.addText(a.Price)
		k.addTime(a.FiredAt)
	}
	for _, s := range b.Sources {
		k.addText(s.Title)
		k.addTime(s.AsOf)
	}
	k.addTime(b.Date.Time)
	return k
}

// shown are the figures the brief lists, exactly as its prose writes them: money and
// percentages to the cent, ounces to three places, and the figures of the titles and dates
// it quotes.
func (b Brief) shown() map[string]bool {
	set := map[string]bool{}
	add := func(d *decimal.Decimal) {
		if d == nil {
			return
		}
		for _, v := range []decimal.Decimal{*d, d.Abs()} {
			set[v.Round(2).String()] = true
			set[v.Round(3).String()] = true
			set[v.Round(4).String()] = true
		}
	}
	f := b.Figures
	add(f.StackValue)
	add(f.Change)
	add(f.ChangePct)
	addShown(set, f.ChangeFrom)
	for _, m := range f.ByMetal {
		held := m.HeldOz
		add(&held)
		for _, d := range []*decimal.Decimal{m.Spot, m.Value, m.ChangePct, m.BreakEven, m.DistanceToBreakEvenPct, m.ComexRegistered, m.ComexRegisteredChange} {
			add(d)
		}
		addShown(set, m.ChangeFrom)
		addShownTime(set, m.SpotAsOf)
		addShownTime(set, m.ComexAsOf)
	}
	f.shownPerformance(set, add)
	for _, a := range f.Alerts {
		addShown(set, a.Target+" "+a.Price)
		addShownTime(set, a.FiredAt)
	}
	for _, src := range b.Sources {
		addShown(set, src.Title)
		addShownTime(set, src.AsOf)
	}
	addShownTime(set, b.Date.Time)
	return set
}

// verify leaves out of the brief every sentence stating a figure its figures do not list,
// and returns those sentences.
func (b *Brief) verify() []string {
	shown := b.shown()
	var dropped []string
	if bad := unshown(b.Headline, shown); len(bad) > 0 {
		dropped = append(dropped, b.Headline+" [unchecked: "+strings.Join(bad, ", ")+"]")
		b.Headline = "Your daily brief"
	}
	var body []string
	for i, sec := range b.Sections {
		text, out := verifyText(sec.Text, shown)
		b.Sections[i].Text = text
		dropped = append(dropped, out...)
		body = append(body, text)
	}
	if len(dropped) > 0 {
		b.Body = strings.Join(body, "\n\n")
	}
	return dropped
}

// composeBrief gathers the figures of the day and writes them up, one section builder after
// another in the order the brief reads.
func (s *Service) composeBrief(ctx context.Context, u db.User, d db.Date, now time.Time) (Brief, error) {
	b := Brief{Date: d, GeneratedAt: now.UTC(), Writer: BuiltinWriter, Figures: Figures{ByMetal: map[metals.Metal]MetalFigures{}}, Sources: []Source{}, Sections: []Section{}}
	var prev *Brief
	if row, err := s.store.BriefBefore(ctx, u.ID, d); err == nil {
		if pb, err := decodeBrief(row); err == nil {
			prev = &pb
		}
	} else if !errors.Is(err, db.ErrNotFound) {
		return Brief{}, err
	}
	var p portfolio.Portfolio
	v := s.viewOf(ctx, u, now)
	if s.portfolio != nil {
		var err error
		if p, v, err = s.valuation(ctx, u, v); err != nil {
			return Brief{}, err
		}
	}
	board := s.board()
	if !v.usd() {
		b.Figures.Currency, b.Figures.Unit = v.cur, string(v.unit)
	}
	if prev != nil {
		// A change is measured only from a brief written in the same money.
		if pc, pu := prev.Figures.currency(); pc != v.cur || pu != string(v.unit) {
			prev = nil
		}
	}
	var held []metals.Metal
	for _, x := range p.Positions {
		if x.HeldOz.IsPositive() {
			held = append(held, x.Metal)
		}
	}

	if len(held) == 0 {
		b.Headline = "Your daily brief: no holdings recorded yet"
		b.Sections = append(b.Sections, Section{Title: "Your stack", Text: "You have no holdings recorded yet. Add your purchases under Holdings and tomorrow's brief will value them."})
	} else {
		b.addStack(p, prev, v)
		b.addMetals(p, prev, board, v)
		if err := s.addPerformance(ctx, &b, u, v); err != nil {
			return Brief{}, err
		}
	}
	if err := s.addAlerts(ctx, &b, u, prev, now); err != nil {
		return Brief{}, err
	}
	s.addIntel(ctx, &b, held)
	s.addComex(ctx, &b, held)

	var body []string
	for _, sec := range b.Sections {
		body = append(body, sec.Text)
	}
	b.Body = strings.Join(body, "\n\n")
	return b, nil
}

// addStack writes the stack's value and its change since the previous brief (or the
// previous close), with the headline.
func (b *Brief) addStack(p portfolio.Portfolio, prev *Brief, v view) {
	total := v.optOwn(p.TotalValue)
	b.Figures.StackValue = total
	stack := ""
	if total != nil {
		stack = fmt.Sprintf("Your stack is worth %s at spot.", v.money(*total))
		b.Headline = "Your stack: " + v.money(*total)
		if prev != nil && prev.Figures.StackValue != nil {
			ch := metals.Money(total.Sub(*prev.Figures.StackValue))
			if v.cur != "USD" {
				ch = ch.Round(format.MinorUnits(v.cur))
			}
			b.Figures.Change = &ch
			b.Figures.ChangeFrom = prev.Date.String()
			stack += fmt.Sprintf(" That is %s since your brief of %s", v.signedMoney(ch), day(prev.Date.Time))
			if prev.Figures.StackValue.IsPositive() {
				cp := metals.Percent(metals.PctChange(*prev.Figures.StackValue, *total))
				b.Figures.ChangePct = &cp
				stack += ", " + signedPct(cp)
				b.Headline += ", " + signedPct(cp) + " since " + day(prev.Date.Time)
			}
			stack += "."
		} else if p.DayChange != nil && !p.Stale {
			b.Figures.Change, b.Figures.ChangePct, b.Figures.ChangeFrom = v.optOwn(p.DayChange), p.DayChangePct, "previous close"
			stack += fmt.Sprintf(" It moved %s since the previous close", v.signedMoney(*b.Figures.Change))
			if p.DayChangePct != nil {
				stack += " (" + signedPct(*p.DayChangePct) + ")"
				b.Headline += ", " + signedPct(*p.DayChangePct) + " on the day"
			}
			stack += "."
		}
	} else {
		b.Headline = "Your daily brief"
		stack = "I cannot value your whole stack today: a metal you hold has no price."
	}
	if n := v.note(); n != "" {
		stack += " " + n
		if v.cur != "USD" {
			b.Sources = append(b.Sources, Source{Kind: "fx", Title: fx.SourceECB, URL: "/v1/fx?currency=" + v.cur, AsOf: v.rateDay})
		}
	}
	b.Sections = append(b.Sections, Section{Title: "Your stack", Text: stack})
	b.Sources = append(b.Sources, Source{Kind: "holdings", Title: "Your holdings", URL: "/holdings"})
}

// addMetals writes each held metal's move and break-even, and says which prices are not live.
func (b *Brief) addMetals(p portfolio.Portfolio, prev *Brief, board prices.Snapshot, v view) {
	var moves, evens []string
	for _, x := range p.Positions {
		if !x.HeldOz.IsPositive() {
			continue
		}
		mf := MetalFigures{HeldOz: metals.Ounces(x.HeldOz), Spot: v.optOwnPerUnit(x.Spot), Value: v.optOwn(x.Value), SpotStale: x.SpotStale}
		if sp, ok := board.Prices[x.Metal]; ok {
			mf.SpotAsOf = sp.AsOf
		}
		if mf.Spot != nil {
			line := fmt.Sprintf("%s %s", metalName(x.Metal), v.price(*mf.Spot))
			if pm, ok := prevMetal(prev, x.Metal); ok && pm.Spot != nil && pm.Spot.IsPositive() {
				cp := metals.Percent(metals.PctChange(*pm.Spot, *mf.Spot))
				mf.ChangePct, mf.ChangeFrom = &cp, prev.Date.String()
				line += fmt.Sprintf(", %s since %s", signedPct(cp), day(prev.Date.Time))
			} else if sp := board.Prices[x.Metal]; !sp.Stale && !sp.PrevClose.IsZero() {
				cp := sp.ChangePct
				mf.ChangePct, mf.ChangeFrom = &cp, "previous close"
				line += fmt.Sprintf(", %s on the day", signedPct(cp))
			}
			if x.SpotStale {
				line += fmt.Sprintf(" (last known price from %s, not live)", day(mf.SpotAsOf))
			}
			moves = append(moves, line)
		} else {
			moves = append(moves, metalName(x.Metal)+": no price yet")
		}
		if be := x.BreakEven(); be != nil {
			// In the member's currency per their unit: each lot's cost at its purchase day's rate.
			beShown := v.ownPerUnit(*be)
			mf.BreakEven = &beShown
			line := fmt.Sprintf("%s breaks even at %s%s", metalName(x.Metal), perOzText(*be, v), costWords(v))
			if dist := x.DistanceToBreakEvenPct(); dist != nil {
				dd := metals.Percent(*dist)
				mf.DistanceToBreakEvenPct = &dd
				if dd.IsPositive() {
					line += fmt.Sprintf(", %s above spot", pct(dd))
				} else {
					line += fmt.Sprintf(", %s below spot", pct(dd.Abs()))
				}
			}
			evens = append(evens, line)
		}
		b.Figures.ByMetal[x.Metal] = mf
	}
	b.Sections = append(b.Sections, Section{Title: "Your metals", Text: strings.Join(moves, "; ") + "."})

	if len(evens) > 0 {
		b.Sections = append(b.Sections, Section{Title: "Break-even", Text: strings.Join(evens, "; ") + "."})
	}
	b.Sources = append(b.Sources, Source{Kind: "prices", Title: "Price board", URL: "/markets", AsOf: board.AsOf})
	if p.Stale {
		b.Stale = true
		b.Sections = append(b.Sections, Section{Title: "Prices", Text: "Some prices above are not live: each names the date of its last known price."})
	}
}

// addAlerts lists the member's price alerts that fired since the previous brief (or the last
// day).
func (s *Service) addAlerts(ctx context.Context, b *Brief, u db.User, prev *Brief, now time.Time) error {
	b.Figures.Alerts = []FiredAlert{}
	if s.alerts == nil {
		b.Sections = append(b.Sections, Section{Title: "Alerts", Text: "Price alerts are not set up on this server, so none fired."})
	} else {
		since := now.Add(-24 * time.Hour)
		if prev != nil {
			since = prev.GeneratedAt
		}
		fired, err := s.alerts.FiredSince(ctx, u.ID, since)
		if err != nil {
			return err
		}
		if len(fired) == 0 {
			b.Sections = append(b.Sections, Section{Title: "Alerts", Text: "None of your price alerts fired since " + day(since) + "."})
		} else {
			var lines []string
			for _, a := range fired {
				sym, per := "$", ""
				if a.Currency != "" && a.Currency != "USD" {
					sym = format.Symbol(a.Currency)
				}
				if a.Unit != "" && a.Unit != string(metals.Ounce) || sym != "$" {
					per = "/" + a.Unit
					if a.Unit == "" {
						per = "/oz"
					}
				}
				lines = append(lines, fmt.Sprintf("%s went %s %s%s%s (at %s%s%s on %s)", metalName(a.Metal), a.Direction, sym, a.Target, per, sym, a.Price, per, day(a.FiredAt)))
			}
			b.Figures.Alerts = fired
			b.Sections = append(b.Sections, Section{Title: "Alerts", Text: strings.Join(lines, "; ") + "."})
		}
	}
	return nil
}

// addIntel adds the Stack Signal article and the market-intel headlines for the metals held.
func (s *Service) addIntel(ctx context.Context, b *Brief, held []metals.Metal) {
	if s.intel != nil {
		if page, err := s.intel.StackSignal(ctx, intel.SignalQuery{Limit: 20}); err == nil && len(page.Articles) > 0 {
			art := page.Articles[0]
			for _, a := range page.Articles {
				if anyHeld(a.Metals, held) {
					art = a
					break
				}
			}
			label := "Stack Signal"
			if art.Demo {
				label += " (demo article)"
			}
			b.Sections = append(b.Sections, Section{Title: label, Text: fmt.Sprintf("\"%s\" (%s). %s", art.Title, day(art.PublishedAt), art.Summary)})
			b.Sources = append(b.Sources, Source{Kind: "stack-signal", Title: art.Title + " " + art.Summary, URL: "/signal/" + art.Slug, AsOf: art.PublishedAt})
		}
		var heads []string
		seen := map[string]bool{}
		for _, m := range held {
			page, err := s.intel.MarketIntel(ctx, intel.NewsQuery{Limit: 2, Metal: m})
			if err != nil {
				continue
			}
			for _, n := range page.Items {
				if seen[n.ID] {
					continue
				}
				seen[n.ID] = true
				h := fmt.Sprintf("%s (%s, %s)", n.Title, n.Source, day(n.PublishedAt))
				if n.Demo && !strings.HasPrefix(n.Title, "Demo") {
					h = "Demo: " + h
				}
				heads = append(heads, h)
				b.Sources = append(b.Sources, Source{Kind: "market-intel", Title: n.Title + " " + n.Source, URL: n.URL, AsOf: n.PublishedAt})
			}
		}
		if len(heads) > 0 {
			b.Sections = append(b.Sections, Section{Title: "Market intel", Text: strings.Join(heads, "; ") + "."})
		}
	}
}

// addComex adds the COMEX registered stocks of the metals held.
func (s *Service) addComex(ctx context.Context, b *Brief, held []metals.Metal) {
	if s.vault != nil {
		var lines []string
		for _, m := range held {
			w, found, err := s.vault.Current(ctx, m)
			if err != nil || !found || len(w.History) == 0 {
				continue
			}
			last := w.History[len(w.History)-1]
			mf := b.Figures.ByMetal[m]
			reg, ch := metals.Ounces(last.Registered), metals.Ounces(last.RegisteredChange)
			mf.ComexRegistered, mf.ComexRegisteredChange, mf.ComexAsOf = &reg, &ch, last.Date
			b.Figures.ByMetal[m] = mf
			lines = append(lines, fmt.Sprintf("registered %s %s on %s (%s on the previous report)", m, ounces(reg), day(last.Date), signedOz(ch)))
			b.Sources = append(b.Sources, Source{Kind: "comex", Title: "COMEX " + string(m) + " stocks", URL: "/vault", AsOf: last.Date})
		}
		if len(lines) > 0 {
			b.Sections = append(b.Sections, Section{Title: "COMEX", Text: upperFirst(strings.Join(lines, "; ")) + "."})
		}
	}
}

func prevMetal(prev *Brief, m metals.Metal) (MetalFigures, bool) {
	if prev == nil {
		return MetalFigures{}, false
	}
	mf, ok := prev.Figures.ByMetal[m]
	return mf, ok
}

func anyHeld(list db.MetalList, held []metals.Metal) bool {
	for _, m := range held {
		if hasMetal(list, m) {
			return true
		}
	}
	return false
}

// GenerateDue writes today's brief for every Gold member whose local time is past BriefHour
// and who has none yet; it returns how many it wrote. The morning job calls it.
func (s *Service) GenerateDue(ctx context.Context) (int, error) {
	users, err := s.store.GoldUsers(ctx)
	if err != nil {
		return 0, err
	}
	now := s.now()
	n := 0
	for _, u := range users {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if now.In(account.Location(u)).Hour() < BriefHour {
			continue
		}
		d, _ := localDay(u, now)
		if _, err := s.store.BriefByDay(ctx, u.ID, d); err == nil {
			continue
		}
		if _, created, err := s.GenerateBrief(ctx, u, false, ""); err != nil {
			s.log.Warn("advisor: morning brief", "user", u.ID, "err", err)
		} else if created {
			n++
		}
	}
	return n, nil
}

// briefLockKey is the advisory lock of the morning brief job among instances sharing one
// PostgreSQL database.
const briefLockKey = 7302014

// RunBriefs writes the morning briefs on the leader instance, checking every few minutes,
// until ctx ends.
func (s *Service) RunBriefs(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = 5 * time.Minute
	}
	s.store.RunAsLeader(ctx, briefLockKey, time.Minute, func(ctx context.Context) {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			if n, err := s.GenerateDue(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("advisor: morning briefs", "err", err)
			} else if n > 0 {
				s.log.Info("advisor: morning briefs written", "count", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}
