package comex

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/internal/metals"
)

func TestSeed(t *testing.T) {
	all, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	// Counts and ranges from seed/SOURCES.md.
	tests := []struct {
		metal       metals.Metal
		rows        int
		first, last string
	}{
		// Dated by CME activity date (issue 10): the captures of 2025-12-01 and 2026-08-20
		// hold the reports of activity 2025-11-26 and 2026-08-19.
		{metals.Gold, 112, "2025-11-26", "2026-08-19"},
		{metals.Silver, 102, "2026-02-02", "2026-08-19"},
		{metals.Platinum, 0, "", ""},
		{metals.Palladium, 0, "", ""},
	}
	for _, tt := range tests {
		h := History(all, tt.metal)
		if len(h) != tt.rows {
			t.Errorf("%s: %d rows, want %d", tt.metal, len(h), tt.rows)
			continue
		}
		if tt.rows == 0 {
			continue
		}
		if day(h[0].Date) != tt.first || day(h[len(h)-1].Date) != tt.last {
			t.Errorf("%s: %s..%s, want %s..%s", tt.metal, day(h[0].Date), day(h[len(h)-1].Date), tt.first, tt.last)
		}
	}
	// Each call is independent: changing one result must not leak into the next.
	all[0].Registered = dec("1")
	again, _ := Seed()
	if again[0].Registered.Equal(dec("1")) {
		t.Error("Seed shares its slice between calls")
	}
}

// The seed and the real workbooks come from different archives; where they cover the
// same report they must agree, on the same activity date (the seed was dated by capture
// date before issue 10, so each of these reports showed twice, a day apart).
func TestSeedAgreesWithWorkbooks(t *testing.T) {
	all, err := Seed()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file     string
		seedDate string
		byReport bool
	}{
		{"Silver_2026-02-18.xls", "2026-02-18", false},
		{"Silver_2026-04-27.xls", "2026-04-27", false},
		{"Gold_2026-04-15.xls", "2026-04-15", false},
		{"Gold_2026-04-27.xls", "2026-04-27", false},
		{"Gold_2025-11-26.xls", "2025-11-26", false}, // captured after the Thanksgiving weekend
	}
	for _, tt := range tests {
		rs, err := ParseXLS(readFixture(t, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		snap := FromReport(rs[0])
		if tt.byReport || !rs[0].ActivityDate.Equal(date(tt.seedDate)) {
			t.Errorf("%s: activity date %s, expected the seed to use %s", tt.file, day(rs[0].ActivityDate), tt.seedDate)
		}
		found := false
		for _, s := range all {
			if s.Metal == snap.Metal && day(s.Date) == tt.seedDate {
				found = true
				if !s.Registered.Equal(snap.Registered) || !s.Eligible.Equal(snap.Eligible) {
					t.Errorf("%s: seed %s has %s/%s, workbook %s/%s", tt.file, tt.seedDate, s.Registered, s.Eligible, snap.Registered, snap.Eligible)
				}
			}
		}
		if !found {
			t.Errorf("%s: no seed row on %s", tt.file, tt.seedDate)
		}
	}
}

func TestParseSeedCSV(t *testing.T) {
	const h = SeedHeader + "\n"
	tests := []struct {
		name string
		in   string
		n    int
		want string // error substring; empty means success
	}{
		{"header only", h, 0, ""},
		{"two rows", h + "2026-01-02,gold,1.5,2\n2026-01-02,silver,3,4.125\n", 2, ""},
		{"BOM and CRLF", "\xef\xbb\xbf" + SeedHeader + "\r\n2026-01-02,gold,1,2\r\n", 1, ""},
		{"empty", "", 0, "empty input"},
		{"wrong header", "date,metal,registered,eligible\n", 0, "line 1: header"},
		{"extra column", h + "2026-01-02,gold,1,2,3\n", 0, "line 2: 5 fields"},
		{"missing column", h + "2026-01-02,gold,1\n", 0, "line 2: 3 fields"},
		{"bad date", h + "2026-01-02,gold,1,2\n02/01/2026,gold,1,2\n", 0, "line 3: date"},
		{"impossible date", h + "2026-02-30,gold,1,2\n", 0, "line 2: date"},
		{"symbol not id", h + "2026-01-02,XAU,1,2\n", 0, "line 2: metal"},
		{"capitalised", h + "2026-01-02,Gold,1,2\n", 0, "line 2: metal"},
		{"negative", h + "2026-01-02,gold,-1,2\n", 0, "line 2: registered_oz"},
		{"exponent", h + "2026-01-02,gold,1,2e3\n", 0, "line 2: eligible_oz"},
		{"four decimals", h + "2026-01-02,gold,1.2345,2\n", 0, "line 2: registered_oz"},
		{"blank number", h + "2026-01-02,gold,,2\n", 0, "line 2: registered_oz"},
		{"duplicate", h + "2026-01-02,gold,1,2\n2026-01-02,gold,1,2\n", 0, "line 3: second row"},
		{"out of order", h + "2026-01-03,gold,1,2\n2026-01-02,silver,1,2\n", 0, "line 3: date 2026-01-02 comes after"},
		{"bad quoting", h + "2026-01-02,\"gold,1,2\n", 0, "comex seed"},
		{"spaces", h + "2026-01-02, gold,1,2\n", 0, "line 2: metal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSeedCSV(strings.NewReader(tt.in))
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.n {
				t.Fatalf("%d rows, want %d", len(got), tt.n)
			}
		})
	}
	got, err := ParseSeedCSV(strings.NewReader(h + "2026-01-02,silver,3,4.125\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := got[0]
	if !s.Date.Equal(date("2026-01-02")) || s.Metal != metals.Silver || !s.Registered.Equal(dec("3")) || !s.Eligible.Equal(dec("4.125")) || !s.Combined().Equal(dec("7.125")) {
		t.Errorf("parsed %+v", s)
	}
}

func FuzzParseSeedCSV(f *testing.F) {
	f.Add(seedCSV)
	f.Add([]byte(SeedHeader + "\n2026-01-02,gold,1.5,2\n"))
	f.Add([]byte(SeedHeader + "\n2026-01-02,gold,1.5,2\n2026-01-01,gold,1,1\n"))
	f.Add([]byte("\"a\nb\",c"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseSeedCSV(bytes.NewReader(data))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for i, s := range got {
			if !known(s.Metal) || s.Registered.IsNegative() || s.Eligible.IsNegative() {
				t.Fatalf("accepted bad row %+v", s)
			}
			if i > 0 && s.Date.Before(got[i-1].Date) {
				t.Fatal("accepted rows out of date order")
			}
			k := day(s.Date) + string(s.Metal)
			if seen[k] {
				t.Fatal("accepted a duplicate row")
			}
			seen[k] = true
		}
	})
}
