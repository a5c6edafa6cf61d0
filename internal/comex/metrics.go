package comex

import (
	"sort"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// DrainWindow is how many of the latest report-to-report changes feed DaysToZero:
// one trading week, long enough to smooth a single large withdrawal, short enough to
// follow a change of trend.
const DrainWindow = 5

// Day is one report in a metal's history with its movement since the report before.
// The first day of a history has zero changes because there is nothing to compare.
type Day struct {
	Date             time.Time
	Registered       decimal.Decimal
	Eligible         decimal.Decimal
	Combined         decimal.Decimal
	RegisteredChange decimal.Decimal
	EligibleChange   decimal.Decimal
	CombinedChange   decimal.Decimal
}

// Metrics is what Vault Watch shows for one metal. Figures are in troy ounces and
// unrounded; rounding belongs to whoever renders them (see metals.Ounces/Percent).
//
// The optional figures are pointers because "unknown" must stay distinguishable from
// zero: a nil DaysToZero means registered stocks are not draining, and a nil
// OversubscribedRatio means open interest was not supplied or nothing is registered.
type Metrics struct {
	Metal metals.Metal
	AsOf  time.Time

	Registered decimal.Decimal
	Eligible   decimal.Decimal
	Combined   decimal.Decimal

	// Changes against the previous report in the history (not the previous
	// calendar day: weekends, holidays and gaps in the record are skipped).
	RegisteredChange decimal.Decimal
	EligibleChange   decimal.Decimal
	CombinedChange   decimal.Decimal

	// RegisteredSharePct is registered as a percentage of combined stocks: the part
	// actually available to settle futures.
	RegisteredSharePct decimal.Decimal

	// DaysToZero is registered ÷ the average registered outflow per report over the
	// last DrainWindow changes, i.e. reports (business days) until registered stocks
	// would run out at that pace.
	DaysToZero *decimal.Decimal

	// OpenInterestOz is open interest expressed in ounces (contracts × ContractSize).
	OpenInterestOz *decimal.Decimal
	// OversubscribedRatio is OpenInterestOz ÷ Registered: ounces claimed per ounce
	// available for delivery.
	OversubscribedRatio *decimal.Decimal

	History []Day
}

// Compute derives Vault Watch figures from one metal's history. The history is
// sorted by date here (a copy; the argument is untouched) so a caller's ordering
// slip cannot turn a rise into a drain. openInterestContracts is the current futures
// open interest for the metal's main contract, or nil when unknown; zero or negative
// counts are treated as unknown, since a live COMEX contract never has no open
// interest and a ratio of 0 would read as "no pressure at all".
func Compute(history []Snapshot, openInterestContracts *int64) Metrics {
	h := append([]Snapshot(nil), history...)
	sort.SliceStable(h, func(i, j int) bool { return h[i].Date.Before(h[j].Date) })

	m := Metrics{History: make([]Day, len(h))}
	for i, s := range h {
		d := Day{Date: s.Date, Registered: s.Registered, Eligible: s.Eligible, Combined: s.Combined()}
		if i > 0 {
			p := m.History[i-1]
			d.RegisteredChange = d.Registered.Sub(p.Registered)
			d.EligibleChange = d.Eligible.Sub(p.Eligible)
			d.CombinedChange = d.Combined.Sub(p.Combined)
		}
		m.History[i] = d
	}
	if len(h) == 0 {
		return m
	}
	last := m.History[len(h)-1]
	m.Metal = h[len(h)-1].Metal
	m.AsOf = last.Date
	m.Registered, m.Eligible, m.Combined = last.Registered, last.Eligible, last.Combined
	m.RegisteredChange, m.EligibleChange, m.CombinedChange = last.RegisteredChange, last.EligibleChange, last.CombinedChange
	if !m.Combined.IsZero() {
		m.RegisteredSharePct = m.Registered.Div(m.Combined).Mul(decimal.NewFromInt(100))
	}

	if n := min(DrainWindow, len(h)-1); n > 0 {
		sum := decimal.Zero
		for _, d := range m.History[len(h)-n:] {
			sum = sum.Add(d.RegisteredChange)
		}
		// registered ÷ (−sum/n), written as registered·n ÷ −sum to divide only once.
		if sum.IsNegative() {
			days := m.Registered.Mul(decimal.NewFromInt(int64(n))).Div(sum.Neg())
			m.DaysToZero = &days
		}
	}

	if openInterestContracts != nil && *openInterestContracts > 0 {
		if size := ContractSize(m.Metal); size.IsPositive() {
			oz := decimal.NewFromInt(*openInterestContracts).Mul(size)
			m.OpenInterestOz = &oz
			if m.Registered.IsPositive() {
				ratio := oz.Div(m.Registered)
				m.OversubscribedRatio = &ratio
			}
		}
	}
	return m
}
