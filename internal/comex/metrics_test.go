package comex

import (
	"strings"
	"testing"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

func snaps(m metals.Metal, dates []string, reg, elig []int64) []Snapshot {
	out := make([]Snapshot, len(dates))
	for i := range dates {
		out[i] = Snapshot{Date: date(dates[i]), Metal: m, Registered: decimal.NewFromInt(reg[i]), Eligible: decimal.NewFromInt(elig[i])}
	}
	return out
}

func i64(v int64) *int64 { return &v }

func TestContractSize(t *testing.T) {
	tests := []struct {
		m    metals.Metal
		want int64
	}{{metals.Gold, 100}, {metals.Silver, 5000}, {metals.Platinum, 50}, {metals.Palladium, 100}, {"copper", 0}}
	for _, tt := range tests {
		if got := ContractSize(tt.m); !got.Equal(decimal.NewFromInt(tt.want)) {
			t.Errorf("ContractSize(%s) = %s, want %d", tt.m, got, tt.want)
		}
	}
}

func TestCompute(t *testing.T) {
	week := []string{"2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06", "2026-03-09", "2026-03-10"}
	// Registered 100 90 95 80 70 72 60: changes -10 +5 -15 -10 +2 -12.
	// All seven reports fall in the window: 100 → 60 over the 6 business days 03-03..03-10
	// is a drain of 40/6 oz a day, so 60 lasts 9 business days.
	silver := snaps(metals.Silver, week, []int64{100, 90, 95, 80, 70, 72, 60}, []int64{50, 55, 50, 60, 65, 66, 70})

	ptr := func(s string) *decimal.Decimal { d := dec(s); return &d }
	type want struct {
		asOf               string
		reg, elig, comb    string
		dReg, dElig, dComb string
		share              string // rounded to 2 dp
		days, oiOz, ratio  *decimal.Decimal
		historyLen         int
	}
	tests := []struct {
		name    string
		history []Snapshot
		oi      *int64
		want    want
	}{
		{"silver week with open interest", silver, i64(3), want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("9"), ptr("15000"), ptr("250"), 7}},
		{"open interest unknown", silver, nil, want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("9"), nil, nil, 7}},
		{"zero open interest is unknown, not 0", silver, i64(0), want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("9"), nil, nil, 7}},
		{"input out of order is sorted", []Snapshot{silver[6], silver[0], silver[3], silver[1], silver[5], silver[2], silver[4]}, i64(3), want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("9"), ptr("15000"), ptr("250"), 7}},
		{"a short history measures what there is", snaps(metals.Gold, week[:3], []int64{100, 90, 80}, []int64{0, 5, 20}), i64(2), want{
			// 100 → 80 over 2 business days: 10 a day, 80 / 10 = 8; 2×100 oz over 80 registered = 2.5
			"2026-03-04", "80", "20", "100", "-10", "15", "5", "80.00", ptr("8"), ptr("200"), ptr("2.5"), 3}},
		{"registered rising: no days to zero", snaps(metals.Platinum, week[:3], []int64{10, 20, 25}, []int64{5, 5, 5}), i64(4), want{
			"2026-03-04", "25", "5", "30", "5", "0", "5", "83.33", nil, ptr("200"), ptr("8"), 3}},
		{"flat registered: no days to zero", snaps(metals.Gold, week[:2], []int64{10, 10}, []int64{5, 1}), nil, want{
			"2026-03-03", "10", "1", "11", "0", "-4", "-4", "90.91", nil, nil, nil, 2}},
		{"registered gone: ratio undefined, open interest still shown", snaps(metals.Palladium, week[:2], []int64{10, 0}, []int64{5, 9}), i64(7), want{
			"2026-03-03", "0", "9", "9", "-10", "4", "-6", "0.00", ptr("0"), ptr("700"), nil, 2}},
		{"single report", snaps(metals.Gold, week[:1], []int64{400}, []int64{600}), i64(1), want{
			"2026-03-02", "400", "600", "1000", "0", "0", "0", "40.00", nil, ptr("100"), ptr("0.25"), 1}},
		{"empty vault", snaps(metals.Gold, week[:1], []int64{0}, []int64{0}), i64(1), want{
			"2026-03-02", "0", "0", "0", "0", "0", "0", "0.00", nil, ptr("100"), nil, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Compute(tt.history, tt.oi)
			w := tt.want
			if day(m.AsOf) != w.asOf {
				t.Errorf("AsOf %s, want %s", day(m.AsOf), w.asOf)
			}
			for _, c := range []struct {
				name string
				got  decimal.Decimal
				want string
			}{
				{"Registered", m.Registered, w.reg}, {"Eligible", m.Eligible, w.elig}, {"Combined", m.Combined, w.comb},
				{"RegisteredChange", m.RegisteredChange, w.dReg}, {"EligibleChange", m.EligibleChange, w.dElig},
				{"CombinedChange", m.CombinedChange, w.dComb}, {"RegisteredSharePct", metals.Percent(m.RegisteredSharePct), w.share},
			} {
				if !c.got.Equal(dec(c.want)) {
					t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
				}
			}
			for _, c := range []struct {
				name      string
				got, want *decimal.Decimal
			}{{"DaysToZero", m.DaysToZero, w.days}, {"OpenInterestOz", m.OpenInterestOz, w.oiOz}, {"OversubscribedRatio", m.OversubscribedRatio, w.ratio}} {
				switch {
				case c.want == nil && c.got != nil:
					t.Errorf("%s = %s, want nil", c.name, c.got)
				case c.want != nil && c.got == nil:
					t.Errorf("%s = nil, want %s", c.name, c.want)
				case c.want != nil && !c.got.Equal(*c.want):
					t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
				}
			}
			if len(m.History) != w.historyLen {
				t.Fatalf("history has %d days, want %d", len(m.History), w.historyLen)
			}
			first := m.History[0]
			if !first.RegisteredChange.IsZero() || !first.EligibleChange.IsZero() || !first.CombinedChange.IsZero() {
				t.Errorf("first day has changes %+v", first)
			}
			for i := 1; i < len(m.History); i++ {
				d, p := m.History[i], m.History[i-1]
				if !d.Date.After(p.Date) || !d.RegisteredChange.Equal(d.Registered.Sub(p.Registered)) || !d.CombinedChange.Equal(d.Combined.Sub(p.Combined)) {
					t.Errorf("day %d inconsistent: %+v after %+v", i, d, p)
				}
			}
		})
	}
}

func TestComputeHistoryDays(t *testing.T) {
	m := Compute(snaps(metals.Silver, []string{"2026-03-02", "2026-03-03", "2026-03-05"}, []int64{100, 90, 95}, []int64{50, 55, 40}), nil)
	want := []Day{
		{date("2026-03-02"), dec("100"), dec("50"), dec("150"), dec("0"), dec("0"), dec("0")},
		{date("2026-03-03"), dec("90"), dec("55"), dec("145"), dec("-10"), dec("5"), dec("-5")},
		{date("2026-03-05"), dec("95"), dec("40"), dec("135"), dec("5"), dec("-15"), dec("-10")},
	}
	for i, w := range want {
		g := m.History[i]
		if !g.Date.Equal(w.Date) || !g.Registered.Equal(w.Registered) || !g.Eligible.Equal(w.Eligible) || !g.Combined.Equal(w.Combined) ||
			!g.RegisteredChange.Equal(w.RegisteredChange) || !g.EligibleChange.Equal(w.EligibleChange) || !g.CombinedChange.Equal(w.CombinedChange) {
			t.Errorf("day %d = %+v, want %+v", i, g, w)
		}
	}
	// 100 → 95 over the 3 business days 03-03..03-05 is 5/3 oz a day; 95 ÷ 5/3 = 57. (Per
	// report, (-10+5)/2 = -2.5 a report gave 38: a report is not a business day.)
	if m.DaysToZero == nil || !m.DaysToZero.Round(6).Equal(dec("57")) || m.DrainBusinessDays != 3 {
		t.Errorf("DaysToZero = %v over %d business days, want 57 over 3", m.DaysToZero, m.DrainBusinessDays)
	}
}

// TestDrainPerBusinessDay is issue 10, case 5: platinum's two real CME reports, 112 calendar
// days apart, gave "3.1 trading days" (one report-to-report change read as one day).
func TestDrainPerBusinessDay(t *testing.T) {
	pt := []Snapshot{
		{Date: date("2026-01-05"), Metal: metals.Platinum, Registered: dec("358797.636"), Eligible: dec("300000")},
		{Date: date("2026-04-27"), Metal: metals.Platinum, Registered: dec("271575.662"), Eligible: dec("300000")},
	}
	m := Compute(pt, nil)
	// 80 weekdays less Good Friday (2026-04-03): 79 business days; 87,221.974 oz ÷ 79 =
	// 1,104.07 oz a day; 271,575.662 ÷ 1,104.07 = 246.0 business days.
	if m.DrainBusinessDays != 79 || m.RegisteredPerDay == nil || m.RegisteredPerDay.Round(2).String() != "-1104.08" ||
		m.DaysToZero == nil || m.DaysToZero.Round(1).String() != "246" || day(m.DrainFrom) != "2026-01-05" || day(m.DrainTo) != "2026-04-27" {
		t.Fatalf("platinum: %d business days, %v oz/day, days to zero %v (%s..%s)", m.DrainBusinessDays, m.RegisteredPerDay, m.DaysToZero, day(m.DrainFrom), day(m.DrainTo))
	}
	// Only one report inside the window: no rate, and a reason instead of a number.
	pt[0].Date = date("2025-06-02")
	m = Compute(pt, nil)
	if m.DaysToZero != nil || m.RegisteredPerDay != nil || !strings.Contains(m.DaysToZeroReason, "fewer than two reports") {
		t.Fatalf("one report in the window: days %v rate %v reason %q", m.DaysToZero, m.RegisteredPerDay, m.DaysToZeroReason)
	}
	if BusinessDays(date("2026-04-02"), date("2026-04-06")) != 1 { // Good Friday and a weekend
		t.Fatal("business days across Good Friday")
	}
}

func TestComputeEmpty(t *testing.T) {
	m := Compute(nil, i64(5))
	if !m.AsOf.IsZero() || m.History == nil || len(m.History) != 0 || m.DaysToZero != nil || m.OpenInterestOz != nil || m.OversubscribedRatio != nil {
		t.Errorf("empty history gave %+v", m)
	}
}

// Compute over the real seed: gold's last report is of activity 2026-08-19 and the figures come
// straight from the CSV.
func TestComputeOnSeed(t *testing.T) {
	all, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	m := Compute(History(all, metals.Gold), nil)
	if day(m.AsOf) != "2026-08-19" || !m.Registered.Equal(dec("14514950.107")) || !m.Eligible.Equal(dec("12165903.313")) {
		t.Errorf("gold as of %s: %s / %s", day(m.AsOf), m.Registered, m.Eligible)
	}
	if m.Metal != metals.Gold || len(m.History) != 112 {
		t.Errorf("metal %s, %d days", m.Metal, len(m.History))
	}
}

func TestFromReport(t *testing.T) {
	rs, err := ParseXLS(readFixture(t, "PA-PL_2026-04-27.xls"))
	if err != nil {
		t.Fatal(err)
	}
	s := FromReport(rs[1])
	if s.Metal != metals.Palladium || !s.Date.Equal(date("2026-04-27")) || !s.Registered.Equal(dec("203694.625")) || !s.Eligible.Equal(dec("35957.856")) || !s.Combined().Equal(dec("239652.481")) {
		t.Errorf("FromReport = %+v", s)
	}
}
