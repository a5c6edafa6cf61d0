package comex

import (
	"fmt"
	"sort"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/shopspring/decimal"
)

// DrainWindowDays is the window the drain rate is measured over, in CME business days
// counted back from the newest report (about four months): long enough to hold two reports
// of a metal CME files are rarely captured for, short enough to follow a change of trend.
const DrainWindowDays = 90

// BusinessDays counts the CME trading days after from up to and including to: the number
// of business days of activity between two reports' activity dates.
func BusinessDays(from, to time.Time) int {
	n := 0
	for d := from.AddDate(0, 0, 1); !d.After(to); d = d.AddDate(0, 0, 1) {
		if prices.IsTradingDay(d) {
			n++
		}
	}
	return n
}

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

	// RegisteredPerDay is the change in registered stocks per business day over the drain
	// window: (registered at DrainTo − registered at DrainFrom) ÷ DrainBusinessDays, where
	// DrainFrom and DrainTo are the activity dates of the oldest and newest report inside
	// the DrainWindowDays business days ending at AsOf. nil when fewer than two reports fall
	// in the window (DaysToZeroReason says so).
	RegisteredPerDay  *decimal.Decimal
	DrainFrom         time.Time
	DrainTo           time.Time
	DrainBusinessDays int

	// DaysToZero is registered ÷ the outflow per business day: business days until
	// registered stocks would run out at the window's pace. nil with DaysToZeroReason when
	// it cannot be measured or registered stocks are not falling.
	DaysToZero       *decimal.Decimal
	DaysToZeroReason string

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

	m.drain()

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

// drain measures the registered drain per business day between the activity dates of the
// oldest and newest report in the window, and days to zero at that pace.
func (m *Metrics) drain() {
	// The window's first business day: DrainWindowDays−1 trading days before AsOf.
	start := m.AsOf
	for n := 1; n < DrainWindowDays; {
		start = start.AddDate(0, 0, -1)
		if prices.IsTradingDay(start) {
			n++
		}
	}
	var in []Day
	for _, d := range m.History {
		if !d.Date.Before(start) {
			in = append(in, d)
		}
	}
	if len(in) < 2 {
		m.DaysToZeroReason = fmt.Sprintf("fewer than two reports in the %d business days from %s to %s: no drain rate can be measured", DrainWindowDays, day(start), day(m.AsOf))
		return
	}
	first, last := in[0], in[len(in)-1]
	m.DrainFrom, m.DrainTo = first.Date, last.Date
	m.DrainBusinessDays = BusinessDays(first.Date, last.Date)
	if m.DrainBusinessDays == 0 {
		m.DaysToZeroReason = "the reports in the window fall on the same business day"
		return
	}
	rate := last.Registered.Sub(first.Registered).Div(decimal.NewFromInt(int64(m.DrainBusinessDays)))
	m.RegisteredPerDay = &rate
	if !rate.IsNegative() {
		m.DaysToZeroReason = fmt.Sprintf("registered stocks did not fall between %s and %s", day(first.Date), day(last.Date))
		return
	}
	days := m.Registered.Div(rate.Neg())
	m.DaysToZero = &days
}
