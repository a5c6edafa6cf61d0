package comex

import (
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
	// The last five changes sum to -30, an average drain of 6 per report, so 60 lasts 10.
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
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("10"), ptr("15000"), ptr("250"), 7}},
		{"open interest unknown", silver, nil, want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("10"), nil, nil, 7}},
		{"zero open interest is unknown, not 0", silver, i64(0), want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("10"), nil, nil, 7}},
		{"input out of order is sorted", []Snapshot{silver[6], silver[0], silver[3], silver[1], silver[5], silver[2], silver[4]}, i64(3), want{
			"2026-03-10", "60", "70", "130", "-12", "4", "-8", "46.15", ptr("10"), ptr("15000"), ptr("250"), 7}},
		{"fewer than five changes averages what there is", snaps(metals.Gold, week[:3], []int64{100, 90, 80}, []int64{0, 5, 20}), i64(2), want{
			// changes -10, -10: 80 / 10 = 8 reports; 2×100 oz over 80 registered = 2.5
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
	// Average change over the two changes is (-10+5)/2 = -2.5; 95 / 2.5 = 38.
	if m.DaysToZero == nil || !m.DaysToZero.Equal(dec("38")) {
		t.Errorf("DaysToZero = %v, want 38", m.DaysToZero)
	}
}

func TestComputeEmpty(t *testing.T) {
	m := Compute(nil, i64(5))
	if !m.AsOf.IsZero() || m.History == nil || len(m.History) != 0 || m.DaysToZero != nil || m.OpenInterestOz != nil || m.OversubscribedRatio != nil {
		t.Errorf("empty history gave %+v", m)
	}
}

// Compute over the real seed: gold's last report is 2026-08-20 and the figures come
// straight from the CSV.
func TestComputeOnSeed(t *testing.T) {
	all, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	m := Compute(History(all, metals.Gold), nil)
	if day(m.AsOf) != "2026-08-20" || !m.Registered.Equal(dec("14514950.107")) || !m.Eligible.Equal(dec("12165903.313")) {
		t.Errorf("gold as of %s: %s / %s", day(m.AsOf), m.Registered, m.Eligible)
	}
	if m.Metal != metals.Gold || len(m.History) != 120 {
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
