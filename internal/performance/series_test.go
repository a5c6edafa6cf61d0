package performance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// TestSeriesHandComputed: the hand case day by day. Values are the stack's at each close;
// the cumulative TWR chains the same daily factors as TestHandComputedPeriods, so the last
// point is the period's 23.9883 %; the benchmark value is the flows' gold ounces at each close.
//
//	Dec 31  value 0, nothing held: no return yet       benchmark 0
//	Jan 2   110: 110/112 − 1 = −1.7857 %                 112/110 oz × 110 = 112
//	Jan 3   315: 110/112 × 315/324 − 1 = −4.5139 %       (112/110 + 214/105) oz × 105 = 320.91
//	Jan 8   420: 23.9883 %                               434.85, gold +40 %
func TestSeriesHandComputed(t *testing.T) {
	s := service(handCase, handMarket(), "2025-01-08")
	ser, err := s.Series(context.Background(), member, Query{From: "2025-01-01", To: "2025-01-08"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ser.Points) != 9 || ser.Points[0].Date != day("2024-12-31") || ser.Points[8].Date != day("2025-01-08") {
		t.Fatalf("points %d: %+v", len(ser.Points), ser.Points)
	}
	at := func(d string) SeriesPoint {
		for _, p := range ser.Points {
			if p.Date.Equal(day(d)) {
				return p
			}
		}
		t.Fatalf("no point on %s", d)
		return SeriesPoint{}
	}
	if p := at("2024-12-31"); p.TWRPct != nil {
		t.Errorf("a return before anything is held: %s", p.TWRPct)
	}
	eq(t, "Dec 31 value", at("2024-12-31").Value, "0")
	eq(t, "Dec 31 benchmark", at("2024-12-31").BenchmarkValue, "0")
	eq(t, "Jan 2 value", at("2025-01-02").Value, "110")
	eq(t, "Jan 2 twr", at("2025-01-02").TWRPct, "-1.7857")
	eq(t, "Jan 2 benchmark", at("2025-01-02").BenchmarkValue, "112")
	eq(t, "Jan 3 value", at("2025-01-03").Value, "315")
	eq(t, "Jan 3 twr", at("2025-01-03").TWRPct, "-4.5139")
	eq(t, "Jan 3 benchmark", at("2025-01-03").BenchmarkValue, "320.91")
	eq(t, "Jan 8 value", at("2025-01-08").Value, "420")
	eq(t, "Jan 8 twr", at("2025-01-08").TWRPct, "23.9883")
	eq(t, "Jan 8 benchmark", at("2025-01-08").BenchmarkValue, "434.85")
	eq(t, "Jan 8 benchmark twr", at("2025-01-08").BenchmarkTWRPct, "40")

	// From a held start the first point is 0 %.
	ser, err = s.Series(context.Background(), member, Query{From: "2025-01-04", To: "2025-01-08"})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "start twr", ser.Points[0].TWRPct, "0")
	eq(t, "start benchmark", ser.Points[0].BenchmarkValue, "315")
	eq(t, "end twr", ser.Points[len(ser.Points)-1].TWRPct, "29.8496")
	eq(t, "end benchmark", ser.Points[len(ser.Points)-1].BenchmarkValue, "426.97")
}

// TestSeriesMatchesSummary: each preset's last point is the summary's TWR and benchmark.
func TestSeriesMatchesSummary(t *testing.T) {
	s := service(handCase, handMarket(), "2025-01-08")
	sum, err := s.Summary(context.Background(), member, "", "")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range sum {
		ser, err := s.Series(context.Background(), member, Query{Period: r.Period})
		if err != nil {
			t.Fatal(err)
		}
		if r.TWRPct == nil {
			continue
		}
		last := ser.Points[len(ser.Points)-1]
		same := func(a, b *decimal.Decimal) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
		if !same(last.TWRPct, r.TWRPct) || !same(last.Value, r.EndValue) || !same(last.BenchmarkValue, r.Benchmark.EndValue) {
			t.Errorf("%s: series ends at twr %v value %v benchmark %v, summary %v %v %v", r.Period, last.TWRPct, last.Value, last.BenchmarkValue, r.TWRPct, r.EndValue, r.Benchmark.EndValue)
		}
		checked++
	}
	if checked < 5 {
		t.Fatalf("only %d periods had a TWR", checked)
	}
}

// TestSeries1DOffline: 1D without live prices has no points and says why, naming the close.
func TestSeries1DOffline(t *testing.T) {
	s := service(handCase, handMarket(), "2025-01-08")
	ser, err := s.Series(context.Background(), member, Query{Period: "1D"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ser.Points) != 0 || len(ser.Notes) == 0 || !strings.Contains(ser.Notes[0], "not live") || !strings.Contains(ser.Notes[0], "2025-01-08") {
		t.Errorf("1D offline: %d points, notes %q", len(ser.Points), ser.Notes)
	}
	if _, err := s.Series(context.Background(), member, Query{Period: "2W"}); err == nil {
		t.Error("an unknown period was answered")
	}
}

// revStore is a ledger whose days and revision the test changes.
type revStore struct {
	days *fakeStore
	rev  *int64
}

func (r revStore) PerformanceDays(ctx context.Context, id int64) ([]db.PerformanceDay, error) {
	return r.days.PerformanceDays(ctx, id)
}
func (r revStore) LedgerRevision(context.Context, int64) (int64, error) { return *r.rev, nil }
func (r revStore) HasLotsOutside(context.Context, int64, string) (bool, error) {
	return false, nil
}
func (r revStore) PerformanceCurrencyDays(context.Context, int64) ([]db.PerformanceCurrencyDay, error) {
	return nil, nil
}

// TestSeriesFollowsTheLedger: a kept series is served again until the ledger's revision moves.
func TestSeriesFollowsTheLedger(t *testing.T) {
	days, rev := fakeStore{buy("2025-01-02", "1", "112")}, int64(1)
	s := New(Deps{Store: revStore{&days, &rev}, Now: func() time.Time { return day("2025-01-08").Add(15 * time.Hour) }})
	s.market = handMarket()
	q := Query{From: "2025-01-01", To: "2025-01-08"}
	end := func() *decimal.Decimal {
		ser, err := s.Series(context.Background(), member, q)
		if err != nil {
			t.Fatal(err)
		}
		return ser.Points[len(ser.Points)-1].Value
	}
	eq(t, "one ounce", end(), "140")
	days = append(days, buy("2025-01-03", "1", "105"))
	eq(t, "same revision: the kept series", end(), "140")
	rev = 2
	eq(t, "new revision: two ounces", end(), "280")
}
