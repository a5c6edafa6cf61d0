package prices

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

func TestParseCSV(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // "date=price"
		wantErr string
	}{
		{name: "usd_per_oz header", in: "date,usd_per_oz\n2024-01-02,2064.4\n2024-01-03,2034.95\n", want: []string{"2024-01-02=2064.4", "2024-01-03=2034.95"}},
		{name: "price header, no final newline", in: "date,price\n2024-01-02,2064.4", want: []string{"2024-01-02=2064.4"}},
		{name: "CRLF and BOM", in: "\uFEFFdate,usd_per_oz\r\n2024-01-02,35\r\n2024-02-01,35.125\r\n", want: []string{"2024-01-02=35", "2024-02-01=35.125"}},
		{name: "header only", in: "date,usd_per_oz\n", want: nil},
		{name: "trailing blank lines", in: "date,price\n2024-01-02,1\n\n\n", want: []string{"2024-01-02=1"}},
		{name: "empty", in: "", wantErr: "line 1: empty"},
		{name: "wrong header", in: "day,close\n2024-01-02,1\n", wantErr: "line 1: header"},
		{name: "one field", in: "date,price\n2024-01-02\n", wantErr: "line 2: want two fields"},
		{name: "three fields", in: "date,price\n2024-01-02,1,2\n", wantErr: "line 2: want two fields"},
		{name: "short date", in: "date,price\n2024-1-02,1\n", wantErr: "line 2: date"},
		{name: "impossible date", in: "date,price\n2024-02-30,1\n", wantErr: "line 2: date"},
		{name: "US date", in: "date,price\n01/02/2024,1\n", wantErr: "line 2: date"},
		{name: "zero", in: "date,price\n2024-01-02,0\n", wantErr: "line 2: price \"0\" is not positive"},
		{name: "zero with decimals", in: "date,price\n2024-01-02,0.000\n", wantErr: "not positive"},
		{name: "negative", in: "date,price\n2024-01-02,-5\n", wantErr: "line 2: price"},
		{name: "exponent", in: "date,price\n2024-01-02,1e3\n", wantErr: "line 2: price"},
		{name: "spaces", in: "date,price\n2024-01-02, 12\n", wantErr: "line 2: price"},
		{name: "dangling point", in: "date,price\n2024-01-02,12.\n", wantErr: "line 2: price"},
		{name: "empty price", in: "date,price\n2024-01-02,\n", wantErr: "line 2: price"},
		{name: "duplicate", in: "date,price\n2024-01-02,1\n2024-01-03,2\n2024-01-03,2\n", wantErr: "line 4: duplicate date 2024-01-03"},
		{name: "descending", in: "date,price\n2024-01-03,1\n2024-01-02,2\n", wantErr: "line 3: date 2024-01-02 is before 2024-01-03"},
		{name: "blank line inside", in: "date,price\n2024-01-02,1\n\n2024-01-03,2\n", wantErr: "line 3: blank line"},
		{name: "huge line", in: "date,price\n2024-01-02," + strings.Repeat("9", 10000) + "\n", wantErr: "line 2: line too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCSV(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, c := range got {
				s = append(s, c.Date.Format(time.DateOnly)+"="+c.Price.String())
				if c.Date.Location() != time.UTC || c.Date.Hour() != 0 {
					t.Errorf("date %v is not UTC midnight", c.Date)
				}
			}
			if !slices.Equal(s, tt.want) {
				t.Errorf("got %v, want %v", s, tt.want)
			}
		})
	}
}

func FuzzParseCSV(f *testing.F) {
	for _, m := range metals.All {
		b, err := historyFS.ReadFile("history/" + string(m) + "_monthly.csv")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 600)])
	}
	f.Add([]byte("date,price\n2024-01-02,1\n2024-01-02,1\n"))
	f.Add([]byte("\uFEFFdate,price\r\n2024-02-29,0.5\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := ParseCSV(bytes.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("error does not name the line: %v", err)
			}
			return
		}
		// Whatever is accepted is ascending, positive, and survives a round trip.
		var b strings.Builder
		b.WriteString("date,usd_per_oz\n")
		for i, c := range got {
			if !c.Price.IsPositive() {
				t.Fatalf("non-positive price %s", c.Price)
			}
			if i > 0 && !c.Date.After(got[i-1].Date) {
				t.Fatalf("not ascending at %d", i)
			}
			fmt.Fprintf(&b, "%s,%s\n", c.Date.Format(time.DateOnly), c.Price.String())
		}
		again, err := ParseCSV(strings.NewReader(b.String()))
		if err != nil || len(again) != len(got) {
			t.Fatalf("round trip: %v (%d vs %d rows)", err, len(again), len(got))
		}
		for i := range got {
			if !again[i].Price.Equal(got[i].Price) || !again[i].Date.Equal(got[i].Date) {
				t.Fatalf("round trip changed row %d", i)
			}
		}
	})
}

func TestEmbedded(t *testing.T) {
	// Row counts and end points from history/SOURCES.md.
	tests := []struct {
		m                        metals.Metal
		daily, monthly           int
		firstDaily, lastDaily    string
		firstMonthly, lastMonthl string
	}{
		{metals.Gold, 14804, 919, "1968-01-02=35.18", "2026-08-17=4405.8", "1950-01-01=34.73", "2026-07-01=4073.92"},
		{metals.Silver, 14802, 799, "1968-01-02=2.173", "2026-08-10=63.935", "1960-01-01=0.91", "2026-07-01=58.559"},
		{metals.Platinum, 9125, 797, "1990-04-02=470.5", "2026-05-29=1922.9", "1960-01-01=83.5", "2026-05-01=1998.39"},
		{metals.Palladium, 9046, 589, "1990-04-02=127.65", "2026-02-05=1724.5", "1977-01-01=55.45", "2026-01-01=1873.62"},
	}
	str := func(c Close) string { return c.Date.Format(time.DateOnly) + "=" + c.Price.String() }
	for _, tt := range tests {
		t.Run(string(tt.m), func(t *testing.T) {
			daily, monthly, err := Embedded(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			if len(daily) != tt.daily || len(monthly) != tt.monthly {
				t.Fatalf("rows: %d daily, %d monthly; want %d, %d", len(daily), len(monthly), tt.daily, tt.monthly)
			}
			if str(daily[0]) != tt.firstDaily || str(daily[len(daily)-1]) != tt.lastDaily {
				t.Errorf("daily runs %s … %s", str(daily[0]), str(daily[len(daily)-1]))
			}
			if str(monthly[0]) != tt.firstMonthly || str(monthly[len(monthly)-1]) != tt.lastMonthl {
				t.Errorf("monthly runs %s … %s", str(monthly[0]), str(monthly[len(monthly)-1]))
			}
			// Callers get their own copies.
			daily[0].Price = decimal.NewFromInt(1)
			again, _, _ := Embedded(tt.m)
			if str(again[0]) != tt.firstDaily {
				t.Error("modifying a returned slice changed the cache")
			}
		})
	}
	if _, _, err := Embedded("copper"); err == nil {
		t.Error("copper has no embedded history")
	}
	if !strings.Contains(HistoryProvenance(), "LBMA") {
		t.Error("provenance text missing")
	}
}

func TestEmbeddedParseIsFast(t *testing.T) {
	start := time.Now()
	rows := 0
	for _, m := range metals.All {
		s := loadEmbedded(m) // uncached
		if s.err != nil {
			t.Fatal(s.err)
		}
		rows += len(s.daily) + len(s.monthly)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("parsing %d rows took %v, want well under a second", rows, took)
	}
}

func closes(spec ...string) []Close {
	var out []Close
	for _, s := range spec {
		d, p, _ := strings.Cut(s, "=")
		day, err := time.Parse(time.DateOnly, d)
		if err != nil {
			panic(err)
		}
		out = append(out, Close{Date: day, Price: dec(p)})
	}
	return out
}

func TestMergeSeries(t *testing.T) {
	monthly := closes("2019-11-01=1470", "2019-12-01=1480", "2020-01-01=1560", "2020-02-01=1597")
	tests := []struct {
		name           string
		daily, monthly []Close
		want           []Close
	}{
		{"months before first daily", closes("2020-01-02=1527", "2020-01-03=1552"), monthly, closes("2019-11-01=1470", "2019-12-01=1480", "2020-01-02=1527", "2020-01-03=1552")},
		{"month of the first daily is dropped", closes("2020-01-31=1589"), monthly, closes("2019-11-01=1470", "2019-12-01=1480", "2020-01-31=1589")},
		{"month equal to first daily is dropped", closes("2020-01-01=1520", "2020-01-02=1527"), monthly, closes("2019-11-01=1470", "2019-12-01=1480", "2020-01-01=1520", "2020-01-02=1527")},
		{"no dailies", nil, monthly, monthly},
		{"no monthlies", closes("2020-01-02=1527"), nil, closes("2020-01-02=1527")},
		{"dailies older than every month", closes("2019-01-02=1280"), monthly, closes("2019-01-02=1280")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertCloses(t, MergeSeries(tt.daily, tt.monthly), tt.want)
		})
	}
	// The real ALL series is strictly ascending and splices at the first daily.
	daily, monthly, err := Embedded(metals.Gold)
	if err != nil {
		t.Fatal(err)
	}
	all := MergeSeries(daily, monthly)
	for i := 1; i < len(all); i++ {
		if !all[i].Date.After(all[i-1].Date) {
			t.Fatalf("ALL not ascending at %v", all[i].Date)
		}
	}
	if len(all) != 216+len(daily) { // 1950-01 … 1967-12 monthly (January 1968 has daily closes), then daily
		t.Errorf("ALL has %d points", len(all))
	}
}

func TestSinceAndExtend(t *testing.T) {
	base := closes("2026-08-13=4380", "2026-08-14=4390.7", "2026-08-17=4405.8")
	tests := []struct {
		name  string
		start string
		want  int
	}{
		{"before all", "2026-01-01", 3},
		{"on a date", "2026-08-14", 2},
		{"between dates", "2026-08-15", 1},
		{"after all", "2026-09-01", 0},
	}
	for _, tt := range tests {
		d, _ := time.Parse(time.DateOnly, tt.start)
		if got := Since(base, d); len(got) != tt.want {
			t.Errorf("%s: Since = %d points, want %d", tt.name, len(got), tt.want)
		}
	}
	newer := closes("2026-08-17=4406", "2026-08-18=4410", "2026-08-19=4415")
	assertCloses(t, ExtendDaily(base, newer), closes("2026-08-13=4380", "2026-08-14=4390.7", "2026-08-17=4405.8", "2026-08-18=4410", "2026-08-19=4415"))
	assertCloses(t, ExtendDaily(nil, newer), newer)
	assertCloses(t, ExtendDaily(base, nil), base)
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		in      string
		want    Range
		wantErr bool
	}{
		{"", Range1Y, false},
		{"1M", Range1M, false},
		{"3M", Range3M, false},
		{"6M", Range6M, false},
		{"1Y", Range1Y, false},
		{"5Y", Range5Y, false},
		{"ALL", RangeAll, false},
		{"all", RangeAll, false},
		{" 5y ", Range5Y, false},
		{"2Y", "", true},
		{"1W", "", true},
		{"max", "", true},
	}
	for _, tt := range tests {
		got, err := ParseRange(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseRange(%q) = %q, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "1M, 3M, 6M, 1Y, 5Y, ALL") {
			t.Errorf("error %q does not list the ranges", err)
		}
	}
	if len(Ranges) != 6 {
		t.Errorf("Ranges = %v", Ranges)
	}
}

func TestRangeStart(t *testing.T) {
	at := func(s string) time.Time {
		d, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return d
	}
	tests := []struct {
		r    Range
		now  time.Time
		want string
	}{
		{Range1M, at("2026-07-15T13:00:00Z"), "2026-06-15"},
		{Range1M, at("2026-03-31T10:00:00Z"), "2026-02-28"},
		{Range1M, at("2024-03-31T10:00:00Z"), "2024-02-29"},
		{Range3M, at("2026-05-31T10:00:00Z"), "2026-02-28"},
		{Range6M, at("2026-01-10T10:00:00Z"), "2025-07-10"},
		{Range1Y, at("2024-02-29T10:00:00Z"), "2023-02-28"},
		{Range5Y, at("2026-07-15T23:59:00Z"), "2021-07-15"},
		{Range1M, at("2026-07-15T23:30:00-04:00"), "2026-06-16"}, // already the 16th in UTC
		{RangeAll, at("2026-07-15T13:00:00Z"), "0001-01-01"},
	}
	for _, tt := range tests {
		got := tt.r.Start(tt.now)
		if got.Format(time.DateOnly) != tt.want || got.Location() != time.UTC || got.Hour() != 0 {
			t.Errorf("%s.Start(%v) = %v, want %s", tt.r, tt.now, got, tt.want)
		}
	}
	if !RangeAll.Start(time.Now()).IsZero() {
		t.Error("ALL should start at the zero time")
	}
}

func TestLTTBBasics(t *testing.T) {
	pts := closes("2026-01-01=10", "2026-01-02=11", "2026-01-03=30", "2026-01-04=12", "2026-01-05=13", "2026-01-06=1", "2026-01-07=14")
	tests := []struct {
		max  int
		want []string // dates
	}{
		{100, []string{"2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06", "2026-01-07"}},
		{7, []string{"2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05", "2026-01-06", "2026-01-07"}},
		{4, []string{"2026-01-01", "2026-01-03", "2026-01-06", "2026-01-07"}},
		{3, []string{"2026-01-01", "2026-01-03", "2026-01-07"}},
		{2, []string{"2026-01-01", "2026-01-07"}},
		{1, []string{"2026-01-01"}},
		{0, nil},
		{-5, nil},
	}
	for _, tt := range tests {
		got := LTTB(pts, tt.max)
		var ds []string
		for _, c := range got {
			ds = append(ds, c.Date.Format(time.DateOnly))
		}
		if !slices.Equal(ds, tt.want) {
			t.Errorf("LTTB(max=%d) = %v, want %v", tt.max, ds, tt.want)
		}
	}
	cp := LTTB(pts, 100)
	cp[0].Price = dec("999")
	if pts[0].Price.Equal(dec("999")) {
		t.Error("LTTB returned the input, not a copy")
	}
	if len(LTTB(nil, 10)) != 0 {
		t.Error("empty input")
	}
}

// spiky is a gently waving series with sharp one-day spikes up and down.
func spiky(n int, spikes map[int]string) []Close {
	out := make([]Close, n)
	start := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range out {
		p := decimal.NewFromFloat(1000 + 50*math.Sin(float64(i)/40)).Round(2)
		if s, ok := spikes[i]; ok {
			p = dec(s)
		}
		out[i] = Close{Date: start.AddDate(0, 0, i), Price: p}
	}
	return out
}

func TestLTTBKeepsExtremes(t *testing.T) {
	tests := []struct {
		name   string
		n, max int
		spikes map[int]string
	}{
		{"isolated spikes", 10000, 300, map[int]string{1234: "5000.01", 7777: "10.5"}},
		{"spike next to a dip", 10000, 300, map[int]string{5000: "4000", 5001: "20"}},
		{"spikes at the ends", 5000, 100, map[int]string{0: "3000", 4999: "5"}},
		{"tiny budget", 1000, 3, map[int]string{400: "2500", 401: "50"}},
		{"lesser spikes elsewhere", 20000, 500, map[int]string{100: "1900", 15000: "2000", 16000: "300", 300: "310"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pts := spiky(tt.n, tt.spikes)
			got := LTTB(pts, tt.max)
			if len(got) != tt.max {
				t.Errorf("got %d points, want %d", len(got), tt.max)
			}
			if !got[0].Date.Equal(pts[0].Date) || !got[len(got)-1].Date.Equal(pts[len(pts)-1].Date) {
				t.Error("first or last point dropped")
			}
			for i := 1; i < len(got); i++ {
				if !got[i].Date.After(got[i-1].Date) {
					t.Fatalf("output not ascending at %d", i)
				}
			}
			hi, lo := pts[0].Price, pts[0].Price
			for _, p := range pts {
				hi, lo = decimal.Max(hi, p.Price), decimal.Min(lo, p.Price)
			}
			var gotHi, gotLo bool
			for _, p := range got {
				gotHi = gotHi || p.Price.Equal(hi)
				gotLo = gotLo || p.Price.Equal(lo)
			}
			if tt.max >= 4 && (!gotHi || !gotLo) {
				t.Errorf("extremes lost: high %s kept %t, low %s kept %t", hi, gotHi, lo, gotLo)
			}
			if tt.max == 3 && !gotHi && !gotLo {
				t.Error("neither extreme kept with a single bucket")
			}
		})
	}
}

func TestLTTBRealHistory(t *testing.T) {
	daily, monthly, err := Embedded(metals.Silver)
	if err != nil {
		t.Fatal(err)
	}
	all := MergeSeries(daily, monthly)
	got := LTTB(all, 800)
	orig := map[time.Time]string{}
	for _, c := range all {
		orig[c.Date] = c.Price.String()
	}
	want := map[string]bool{"2026-01-29": false} // silver's record fix in the data, $118.45
	for _, c := range got {
		if _, ok := want[c.Date.Format(time.DateOnly)]; ok {
			want[c.Date.Format(time.DateOnly)] = true
		}
		// Returned prices are the original decimals, not float round trips.
		if orig[c.Date] != c.Price.String() {
			t.Fatalf("%s: price %s, source has %s", c.Date.Format(time.DateOnly), c.Price, orig[c.Date])
		}
	}
	for d, ok := range want {
		if !ok {
			t.Errorf("%s missing from the downsampled series", d)
		}
	}
}
