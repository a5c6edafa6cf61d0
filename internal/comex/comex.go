// Package comex is Ounce's Vault Watch domain: it reads the CME Group "Daily Metal
// Stocks Report" workbooks that describe COMEX warehouse inventory, carries a seed
// history of exchange totals, and turns a metal's history into the figures Vault Watch
// shows (daily drains, registered share, days to zero, oversubscription).
//
// The parsing and the figures are pure functions over Report and Snapshot values; the
// Service (service.go) is the one place they meet storage and the network: it stores
// imported, fetched and seeded reports through db and serves Vault Watch from them.
package comex

import (
	"errors"
	"fmt"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// Depository is one warehouse's line in a report. Pledged is part of Registered
// (metal registered but pledged as collateral), so it never adds to Total.
type Depository struct {
	Name       string
	Registered decimal.Decimal
	Pledged    decimal.Decimal
	Eligible   decimal.Decimal
	Total      decimal.Decimal
}

// Report is one metal's section of a CME depository workbook, in troy ounces.
// ActivityDate is the business day the figures describe; ReportDate is when CME
// published them, normally the next business day. Both are UTC midnight.
type Report struct {
	Metal        metals.Metal
	ReportDate   time.Time
	ActivityDate time.Time
	Registered   decimal.Decimal
	Pledged      decimal.Decimal
	Eligible     decimal.Decimal
	Combined     decimal.Decimal
	Depositories []Depository
}

// Snapshot is one day's exchange-wide totals for a metal: the unit of history that
// Vault Watch stores and charts. Date is the CME activity date at UTC midnight.
type Snapshot struct {
	Date       time.Time
	Metal      metals.Metal
	Registered decimal.Decimal
	Eligible   decimal.Decimal
}

// Combined is registered plus eligible, the figure CME calls COMBINED TOTAL.
func (s Snapshot) Combined() decimal.Decimal { return s.Registered.Add(s.Eligible) }

// FromReport reduces a parsed report to the totals kept in history, dated by the
// activity date because that is the day the stocks were counted.
func FromReport(r Report) Snapshot {
	return Snapshot{Date: r.ActivityDate, Metal: r.Metal, Registered: r.Registered, Eligible: r.Eligible}
}

// ContractSize is the troy ounces one COMEX futures contract calls for: GC (gold)
// 100 oz, SI (silver) 5,000 oz, PL (platinum) 50 oz, PA (palladium) 100 oz, per the
// CME contract specifications. It is zero for an unknown metal so that callers
// cannot mistake a typo for a real delivery claim.
func ContractSize(m metals.Metal) decimal.Decimal {
	switch m {
	case metals.Gold:
		return decimal.NewFromInt(100)
	case metals.Silver:
		return decimal.NewFromInt(5000)
	case metals.Platinum:
		return decimal.NewFromInt(50)
	case metals.Palladium:
		return decimal.NewFromInt(100)
	}
	return decimal.Zero
}

// depositoryTolerance is how far a depository's Total may sit from Registered +
// Eligible. CME prints three decimals, so honest rounding stays within a couple of
// thousandths; anything wider means the sheet was misread or altered.
var depositoryTolerance = decimal.RequireFromString("0.002")

// ErrInvalidReport is wrapped by every error Validate returns, so callers can tell a
// report that contradicts itself from one that could not be read at all.
var ErrInvalidReport = errors.New("comex: report fails its own totals")

// Validate checks a report against the arithmetic CME's sheet itself obeys: each
// depository's Total is Registered + Eligible, the exchange totals are the sums of
// the depository rows, and COMBINED TOTAL is registered + eligible (pledged is a part
// of registered and is not added). A report that breaks any of these is not trusted,
// because Vault Watch would otherwise publish numbers CME never did.
func Validate(r Report) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s %s", ErrInvalidReport, r.Metal, fmt.Sprintf(format, args...))
	}
	if !known(r.Metal) {
		return fmt.Errorf("%w: unknown metal %q", ErrInvalidReport, r.Metal)
	}
	if r.ActivityDate.IsZero() {
		return bad("report has no activity date")
	}
	if r.ReportDate.IsZero() {
		return bad("report has no report date")
	}
	if r.ReportDate.Before(r.ActivityDate) {
		return bad("report date %s is before activity date %s", day(r.ReportDate), day(r.ActivityDate))
	}
	if len(r.Depositories) == 0 {
		return bad("report lists no depositories")
	}
	var reg, pledged, elig decimal.Decimal
	for _, d := range r.Depositories {
		for _, v := range []struct {
			name string
			val  decimal.Decimal
		}{{"registered", d.Registered}, {"pledged", d.Pledged}, {"eligible", d.Eligible}, {"total", d.Total}} {
			if v.val.IsNegative() {
				return bad("depository %q has negative %s %s", d.Name, v.name, v.val)
			}
		}
		if want := d.Registered.Add(d.Eligible); !within(d.Total, want, depositoryTolerance) {
			return bad("depository %q: total %s != registered %s + eligible %s", d.Name, d.Total, d.Registered, d.Eligible)
		}
		reg = reg.Add(d.Registered)
		pledged = pledged.Add(d.Pledged)
		elig = elig.Add(d.Eligible)
	}
	// Each depository figure may carry its own rounding, so the allowance grows with
	// the number of rows summed.
	tol := decimal.Max(depositoryTolerance, decimal.New(5, -4).Mul(decimal.NewFromInt(int64(len(r.Depositories)))))
	for _, t := range []struct {
		name      string
		got, want decimal.Decimal
	}{
		{"TOTAL REGISTERED", r.Registered, reg},
		{"TOTAL PLEDGED", r.Pledged, pledged},
		{"TOTAL ELIGIBLE", r.Eligible, elig},
	} {
		if t.got.IsNegative() {
			return bad("%s is negative (%s)", t.name, t.got)
		}
		if !within(t.got, t.want, tol) {
			return bad("%s %s != sum of depositories %s", t.name, t.got, t.want)
		}
	}
	if want := r.Registered.Add(r.Eligible); !within(r.Combined, want, depositoryTolerance) {
		return bad("COMBINED TOTAL %s != registered %s + eligible %s", r.Combined, r.Registered, r.Eligible)
	}
	return nil
}

// known accepts only the canonical identifiers; metals.Parse alone would also let
// "XAU" or " Gold " through, which must never reach storage as a metal key.
func known(m metals.Metal) bool {
	p, err := metals.Parse(string(m))
	return err == nil && p == m
}

func within(a, b, tol decimal.Decimal) bool { return a.Sub(b).Abs().LessThanOrEqual(tol) }

func day(t time.Time) string { return t.Format(time.DateOnly) }
