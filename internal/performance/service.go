// Package performance answers "how did my stack do?" for any period: start and end value,
// net flows, gain (realized and unrealized), time- and money-weighted returns, the change in
// fine ounces, a benchmark of the same flows put into one metal, and the return after
// inflation. It reads the portfolio's position ledger (purchases and sales summed per metal
// and day, kept by the store with every write), never the lots themselves, and the price
// history; the math is pure functions over a timeline of daily values (calc.go).
package performance

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Store is what the service reads of the storage. *db.Store satisfies it.
type Store interface {
	PerformanceDays(ctx context.Context, userID int64) ([]db.PerformanceDay, error)
	LedgerRevision(ctx context.Context, userID int64) (int64, error)
	HasLotsOutside(ctx context.Context, userID int64, currency string) (bool, error)
	PerformanceCurrencyDays(ctx context.Context, userID int64) ([]db.PerformanceCurrencyDay, error)
}

var _ Store = (*db.Store)(nil)

// market is what the service reads of the price service: closes and the live board.
type market interface {
	Pricer
	Snapshot() prices.Snapshot
	// Generation changes whenever a stored close is added or corrected.
	Generation() uint64
	// Through is the date of the metal's newest daily close.
	Through(m metals.Metal) time.Time
}

// Deps are what the service is built from.
type Deps struct {
	Store Store
	// Prices is the price service; nil means no prices: every figure is null with a note.
	Prices *prices.Service
	// Rates are the exchange rates (*fx.Service); nil answers in US dollars only.
	Rates  Rates
	Now    func() time.Time
	Logger *slog.Logger
}

// Service holds the performance use cases.
type Service struct {
	store     Store
	market    market
	rates     Rates
	now       func() time.Time
	log       *slog.Logger
	cache     answerCache
	factors   factorCache
	days      lruCache[int64, keptDays]            // the ledger days last read per member (days.go)
	timelines lruCache[timelineKey, *keptTimeline] // the valued timelines per question (kept.go)
	outside   outsideCache                         // whether lots are outside a currency, per member (currency.go)

	wholeValuations wholeValuations
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, rates: d.Rates, now: d.Now, log: d.Logger}
	if d.Prices != nil {
		s.market = d.Prices
	}
	s.now = wallclock.Or(s.now)
	s.log = cmp.Or(s.log, slog.Default())
	return s
}

// Presets are the named periods, in display order.
var Presets = []string{"1D", "WTD", "MTD", "QTD", "YTD", "1Y", "3Y", "5Y", "10Y", "MAX"}

// DefaultPeriod applies when a request names neither a period nor dates.
const DefaultPeriod = "YTD"

// Query is one period asked for: Period a preset, or From (and To, default the last day
// with data) as YYYY-MM-DD; Metal narrows to one metal ("" the stack); Benchmark is the
// metal the flows are compared with (gold when ""); Currency is the ISO 4217 code to answer
// in ("" the member's display currency).
type Query struct {
	Period, From, To, Metal, Benchmark, Currency string
}

// Flow is the money put in (purchases at cost, fees included: positive) or taken out (net
// sale proceeds: negative) on one day.
type Flow struct {
	Date   time.Time
	Amount decimal.Decimal
	Kind   string // "purchase" or "sale"
}

// Benchmark is what the same dated flows would be worth in one metal.
type Benchmark struct {
	Metal                  metals.Metal
	EndValue, Gain, TWRPct *decimal.Decimal
}

// Result is one period's performance. Amounts are in Currency, to the cent; percentages are
// percent to four places; a nil figure could not be computed and Notes say why.
type Result struct {
	Period string
	// From is the first day of the period; the start value is the stack at the close
	// before it (the end of From − 1). To is its last day.
	From, To                                                           time.Time
	Currency                                                           string
	Metal                                                              metals.Metal // "" for the whole stack
	StartValue, EndValue, NetFlows, Gain, UnrealizedGain, RealizedGain *decimal.Decimal
	TWRPct, MWRPct                                                     *decimal.Decimal
	// Annualized says MWRPct is a rate per year (periods over 365 days); otherwise it is the
	// growth over the period.
	Annualized     bool
	OzStart, OzEnd *decimal.Decimal
	Benchmark      Benchmark
	RealTWRPct     *decimal.Decimal
	// CPISeries names the consumer price index RealTWRPct is deflated by ("" without one).
	CPISeries string
	Flows     []Flow
	// AsOf is when the end value's prices are of: the live board's time, or the newest close
	// it used. Stale is true when that is before the period's end and prices are not live.
	AsOf  time.Time
	Stale bool
	Notes []string
}

// span is one period to compute.
type span struct {
	name     string
	from, to time.Time
}

func requireGold(u db.User) error {
	if u.ID == 0 {
		return apperr.New(apperr.Unauthorized, "sign in to use the portfolio")
	}
	if !account.IsGold(u) {
		return apperr.Membership("the portfolio")
	}
	return nil
}

func utcDay(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// presetSpan is where a preset period starts, counted back from today (UTC); first is the
// ledger's first day (for MAX).
func presetSpan(p string, today, first time.Time) span {
	sp := span{name: p, to: today}
	back := func(years int) time.Time { return today.AddDate(-years, 0, 1) }
	switch p {
	case "1D":
		sp.from = today
	case "WTD":
		sp.from = today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
	case "MTD":
		sp.from = today.AddDate(0, 0, 1-today.Day())
	case "QTD":
		sp.from = time.Date(today.Year(), (today.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "YTD":
		sp.from = time.Date(today.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	case "1Y":
		sp.from = back(1)
	case "3Y":
		sp.from = back(3)
	case "5Y":
		sp.from = back(5)
	case "10Y":
		sp.from = back(10)
	case "MAX":
		sp.from = today
		if !first.IsZero() && first.Before(today) {
			sp.from = first
		}
	}
	return sp
}

func parseMetal(field, v string, def metals.Metal) (metals.Metal, error) {
	if v == "" {
		return def, nil
	}
	m, err := metals.Parse(v)
	if err != nil {
		return "", apperr.InvalidField(field, "must be one of gold, silver, platinum, palladium")
	}
	return m, nil
}

// parse checks a query against today; the ledger's first day is applied later (MAX).
func parse(q Query, today time.Time) (span, metals.Metal, metals.Metal, error) {
	metal, err := parseMetal("metal", q.Metal, "")
	if err != nil {
		return span{}, "", "", err
	}
	bench, err := parseMetal("benchmark", q.Benchmark, metals.Gold)
	if err != nil {
		return span{}, "", "", err
	}
	if q.From == "" && q.To == "" {
		p := strings.ToUpper(strings.TrimSpace(q.Period))
		if p == "" {
			p = DefaultPeriod
		}
		if !slices.Contains(Presets, p) {
			return span{}, "", "", apperr.InvalidField("period", "must be one of "+strings.Join(Presets, ", ")+" (or give from and to)")
		}
		return span{name: p}, metal, bench, nil
	}
	if q.Period != "" {
		return span{}, "", "", apperr.InvalidField("period", "give either period or from/to, not both")
	}
	if q.From == "" {
		return span{}, "", "", apperr.InvalidField("from", "required with to (YYYY-MM-DD)")
	}
	from, err := db.ParseDate(q.From)
	if err != nil {
		return span{}, "", "", apperr.InvalidField("from", "must be a date as YYYY-MM-DD")
	}
	to := db.NewDate(today)
	if q.To != "" {
		if to, err = db.ParseDate(q.To); err != nil {
			return span{}, "", "", apperr.InvalidField("to", "must be a date as YYYY-MM-DD")
		}
	}
	switch {
	case to.After(today):
		return span{}, "", "", apperr.InvalidField("to", "must not be after "+isoDay(today))
	case from.After(to.Time):
		return span{}, "", "", apperr.InvalidField("from", "must not be after to")
	case from.Year() < 1900:
		return span{}, "", "", apperr.InvalidField("from", "must be in 1900 or later")
	}
	return span{name: "custom", from: from.Time, to: to.Time}, metal, bench, nil
}

// period reads a one-period query of u's on today (after the plan check): its span, and the
// metal, benchmark and currency asked (the member's display currency when none is).
func (s *Service) period(ctx context.Context, u db.User, q Query, today time.Time) (span, question, error) {
	if err := requireGold(u); err != nil {
		return span{}, question{}, err
	}
	sp, metal, bench, err := parse(q, today)
	if err != nil {
		return span{}, question{}, err
	}
	cur, err := s.currency(ctx, u, q.Currency)
	if err != nil {
		return span{}, question{}, err
	}
	return sp, question{metal: metal, bench: bench, currency: cur}, nil
}

// Performance answers one period.
func (s *Service) Performance(ctx context.Context, u db.User, q Query) (Result, error) {
	sp, asked, err := s.period(ctx, u, q, utcDay(s.now()))
	if err != nil {
		return Result{}, err
	}
	asked.flows = true
	out, err := s.compute(ctx, u, asked, []span{sp})
	if err != nil {
		return Result{}, err
	}
	return out[0], nil
}

// Summary answers every preset period at once in the member's display currency (without the
// flows of each: one period's answer lists them).
func (s *Service) Summary(ctx context.Context, u db.User, metal, benchmark string) ([]Result, error) {
	return s.SummaryIn(ctx, u, metal, benchmark, "")
}

// SummaryIn is Summary in currency ("" the member's display currency).
func (s *Service) SummaryIn(ctx context.Context, u db.User, metal, benchmark, currency string) ([]Result, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	m, err := parseMetal("metal", metal, "")
	if err != nil {
		return nil, err
	}
	b, err := parseMetal("benchmark", benchmark, metals.Gold)
	if err != nil {
		return nil, err
	}
	cur, err := s.currency(ctx, u, currency)
	if err != nil {
		return nil, err
	}
	spans := make([]span, len(Presets))
	for i, p := range Presets {
		spans[i] = span{name: p}
	}
	return s.compute(ctx, u, question{metal: m, bench: b, currency: cur}, spans)
}

// question is what an answer depends on besides the periods.
type question struct {
	metal, bench metals.Metal
	currency     string
	flows        bool // list each period's flows
}

func (s *Service) compute(ctx context.Context, u db.User, q question, spans []span) ([]Result, error) {
	// The revision is read before the ledger, so an answer is never kept under a revision
	// newer than the ledger it was computed from.
	rev, err := s.store.LedgerRevision(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	key := cacheKey{user: u.ID, q: q}
	for _, sp := range spans {
		key.spans += sp.name + isoDay(sp.from) + isoDay(sp.to) + ";"
	}
	state := s.cacheState(rev, s.now())
	if out, ok := s.cache.get(key, state); ok {
		return out, nil
	}
	out, err := s.answer(ctx, u, q, spans, rev, state)
	if err == nil {
		s.cache.put(key, state, out)
	}
	return out, err
}

func (s *Service) answer(ctx context.Context, u db.User, q question, spans []span, rev int64, st cacheState) ([]Result, error) {
	all, change, err := s.ledgerDays(ctx, u.ID, rev)
	if err != nil {
		return nil, err
	}
	conv := s.converter(ctx, q.currency)
	// The money of the ledger in the answer's currency; a flow without a rate withholds the
	// money figures (ounces stay), said in a note.
	all, noRate, err := s.inCurrency(ctx, u, conv, all, rev)
	if err != nil {
		return nil, err
	}
	days := narrow(all, q.metal)
	today := utcDay(s.now())
	var first time.Time
	if len(days) > 0 {
		first = days[0].Day.Time
	}
	out := make([]Result, len(spans))
	for i, sp := range spans {
		if sp.name != "custom" {
			sp = presetSpan(sp.name, today, first)
			spans[i] = sp
		}
		out[i] = Result{Period: sp.name, From: sp.from, To: sp.to, Currency: conv.Currency(), Metal: q.metal, Benchmark: Benchmark{Metal: q.bench}}
	}
	if s.market == nil {
		for i := range out {
			out[i].Stale = true
			out[i].Notes = append(out[i].Notes, "this server has no prices, so nothing can be valued")
		}
		return out, nil
	}
	used, board := usedMetals(days, q.bench), s.market.Snapshot()
	live := livePrices(used, board)
	// The timeline spans every period at once, with a point at each start and end.
	v := valuation{key: timelineKey{user: u.ID, metal: q.metal, bench: q.bench, currency: conv.Currency()}, rev: rev, change: change,
		days: days, conv: conv, bench: q.bench, lo: today, live: live, today: today, gen: st.gen, fxEpoch: st.fx}
	for _, sp := range spans {
		st := sp.from.AddDate(0, 0, -1)
		v.extra = append(v.extra, st, sp.to)
		v.lo, v.hi = minTime(v.lo, st), maxTime(v.hi, sp.to)
		v.key.spans += sp.name + isoDay(sp.from) + isoDay(sp.to) + ";"
	}
	pts, x := s.valued(ctx, v)
	find := func(d time.Time) int {
		i, _ := slices.BinarySearchFunc(pts, d, func(p point, t time.Time) int { return p.day.Compare(t) })
		return i
	}
	cpi := CPIFor(conv.Currency())
	for i, sp := range spans {
		r := &out[i]
		liveEnd := live != nil && sp.to.Equal(today)
		var closes string
		r.AsOf, r.Stale, closes = s.asOf(used, sp.to, today, liveEnd, board.AsOf)
		if sp.name == "1D" && !liveEnd {
			r.Notes = append(r.Notes, "1D needs live prices and they are not live: the newest close is of "+isoDay(r.AsOf)+"; ask for a period or dates instead")
			continue
		}
		if r.Stale {
			r.Notes = append(r.Notes, "prices are not live: the end value is at the newest closes on or before "+isoDay(sp.to)+" ("+closes+")")
		}
		if n := rateNote(conv, sp.to); n != "" {
			r.Notes = append(r.Notes, n)
			r.Stale = true
		}
		f := x.measure(find(sp.from.AddDate(0, 0, -1)), find(sp.to))
		fill(r, f)
		r.Notes = append(r.Notes, f.notes...)
		// Inflation counts from when money was first in the stack: a 10Y period of a stack
		// bought last year has last year's TWR, deflated over the same months.
		held := sp.from.AddDate(0, 0, -1)
		if first.AddDate(0, 0, -1).After(held) {
			held = first.AddDate(0, 0, -1)
		}
		s.real(r, f, cpi, held)
		if q.flows {
			r.Flows = flowsOf(days, sp.from, sp.to)
		}
	}
	if noRate != "" {
		for i := range out {
			withholdMoney(&out[i], noRate)
		}
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// narrow is the days of one metal ("" every day).
func narrow(all []db.PerformanceDay, metal metals.Metal) []db.PerformanceDay {
	if metal == "" {
		return all
	}
	days := make([]db.PerformanceDay, 0, len(all))
	for _, d := range all {
		if d.Metal == metal {
			days = append(days, d)
		}
	}
	return days
}

// usedMetals is the metals an answer values: those of its days and the benchmark.
func usedMetals(days []db.PerformanceDay, bench metals.Metal) map[metals.Metal]bool {
	used := map[metals.Metal]bool{bench: true}
	for _, d := range days {
		used[d.Metal] = true
	}
	return used
}

// livePrices is the board's price of each metal used, or nil when one of them is not live.
func livePrices(used map[metals.Metal]bool, board prices.Snapshot) map[metals.Metal]decimal.Decimal {
	live := map[metals.Metal]decimal.Decimal{}
	for m := range used {
		sp, ok := board.Prices[m]
		if !ok || sp.Stale || sp.Price.IsZero() {
			return nil
		}
		live[m] = sp.Price
	}
	return live
}

// withholdMoney empties a result's money figures and percentages, keeping the ounces, and
// says why.
func withholdMoney(r *Result, why string) {
	r.StartValue, r.EndValue, r.NetFlows, r.Gain, r.UnrealizedGain, r.RealizedGain = nil, nil, nil, nil, nil, nil
	r.TWRPct, r.MWRPct, r.RealTWRPct, r.Annualized = nil, nil, nil, false
	r.Benchmark = Benchmark{Metal: r.Benchmark.Metal}
	r.Flows = nil
	r.Notes = append(r.Notes, why)
}

// asOf is when a period's end value is priced: the live board's time, or the oldest of the
// newest closes on or before end of the metals used (each is valued at its own). It is
// stale when the period ends today and prices are not live, or when that close is more than
// a long weekend before the period's end (the data stops short of it).
func (s *Service) asOf(used map[metals.Metal]bool, end, today time.Time, live bool, liveAt time.Time) (time.Time, bool, string) {
	if live {
		return liveAt, false, ""
	}
	var at time.Time
	var each []string
	for _, m := range metals.All {
		if !used[m] {
			continue
		}
		d := s.market.Through(m)
		if !d.Before(end) {
			d = time.Time{}
			if cl := s.market.Closes(m, end.AddDate(0, 0, -14), end); len(cl) > 0 {
				d = cl[len(cl)-1].Date
			}
		}
		if at.IsZero() || d.Before(at) {
			at = d
		}
		each = append(each, string(m)+" "+isoDay(d))
	}
	return at, end.Equal(today) || end.Sub(at) > 4*24*time.Hour, strings.Join(each, ", ")
}

func fill(r *Result, f figures) {
	r.StartValue, r.EndValue, r.NetFlows, r.Gain, r.UnrealizedGain, r.RealizedGain = f.start, f.end, f.net, f.gain, f.unrealized, f.realized
	if f.start != nil {
		a, b := metals.Ounces(f.ozStart), metals.Ounces(f.ozEnd)
		r.OzStart, r.OzEnd = &a, &b
	}
	r.TWRPct = pct(f.twr)
	r.Annualized = f.annualized
	if f.annualized {
		r.MWRPct = pct(f.mwrAnnual)
	} else {
		r.MWRPct = pct(f.mwrPeriod)
	}
	r.Benchmark.EndValue, r.Benchmark.Gain, r.Benchmark.TWRPct = f.benchEnd, f.benchGain, pct(f.benchTWR)
}

// real deflates the period's TWR by the currency's consumer price index.
func (s *Service) real(r *Result, f figures, cpi *CPISeries, from time.Time) {
	if cpi == nil {
		r.Notes = append(r.Notes, "no consumer price index is held for "+r.Currency+", so there is no return after inflation")
		return
	}
	r.CPISeries = cpi.Name
	if f.twr == nil {
		return
	}
	v, note, ok := cpi.realReturn(*f.twr, from, r.To)
	if note != "" {
		r.Notes = append(r.Notes, note)
	}
	if ok {
		r.RealTWRPct = pct(&v)
	}
}

// flowsOf lists the money in and out per day in [from, to], purchases before sales (the days'
// money is in the answer's currency).
func flowsOf(days []db.PerformanceDay, from, to time.Time) []Flow {
	out := []Flow{}
	i, _ := slices.BinarySearchFunc(days, from, func(d db.PerformanceDay, t time.Time) int { return d.Day.Compare(t) })
	for i < len(days) && !days[i].Day.After(to) {
		day := days[i].Day.Time
		in, sold := decimal.Zero, decimal.Zero
		for ; i < len(days) && days[i].Day.Equal(day); i++ {
			in = in.Add(days[i].Bought)
			sold = sold.Add(days[i].Proceeds)
		}
		if !in.IsZero() {
			out = append(out, Flow{Date: day, Amount: metals.Money(in), Kind: "purchase"})
		}
		if !sold.IsZero() {
			out = append(out, Flow{Date: day, Amount: metals.Money(sold).Neg(), Kind: "sale"})
		}
	}
	return out
}
