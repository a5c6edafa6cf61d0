package comex

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "xls", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func date(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// Expected totals come from testdata/xls/SOURCES.md (the TOTAL TODAY column).
func TestParseXLSRealFiles(t *testing.T) {
	type want struct {
		metal                         metals.Metal
		report, activity              string
		reg, pledged, elig, comb      string
		depositories, pledgedDepCount int
	}
	tests := []struct {
		file string
		want []want
	}{
		{"Gold_2025-11-26.xls", []want{{metals.Gold, "2025-11-28", "2025-11-26", "18112393.509", "1940818.694", "18244709.434", "36357102.943", 20, -1}}},
		{"Gold_2026-04-15.xls", []want{{metals.Gold, "2026-04-16", "2026-04-15", "15777724.632", "1926418.685", "14237457.381", "30015182.013", 20, -1}}},
		{"Gold_2026-04-27.xls", []want{{metals.Gold, "2026-04-28", "2026-04-27", "15604254.174", "1923030.696", "13583391.730", "29187645.904", 20, -1}}},
		{"Silver_2026-01-22.xls", []want{{metals.Silver, "2026-01-23", "2026-01-22", "114262775.060", "0", "302162088.182", "416424863.242", 12, 0}}},
		{"Silver_2026-02-18.xls", []want{{metals.Silver, "2026-02-19", "2026-02-18", "88191059.264", "0", "279235569.023", "367426628.287", 12, 0}}},
		{"Silver_2026-04-27.xls", []want{{metals.Silver, "2026-04-28", "2026-04-27", "75715217.373", "0", "239466529.309", "315181746.682", 12, 0}}},
		{"PA-PL_2026-01-05.xls", []want{
			{metals.Platinum, "2026-01-06", "2026-01-05", "358797.636", "0", "286568.392", "645366.028", 11, 0},
			{metals.Palladium, "2026-01-06", "2026-01-05", "140786.120", "0", "70519.699", "211305.819", 11, 0},
		}},
		{"PA-PL_2026-04-27.xls", []want{
			{metals.Platinum, "2026-04-28", "2026-04-27", "271575.662", "0", "224046.453", "495622.115", 11, 0},
			{metals.Palladium, "2026-04-28", "2026-04-27", "203694.625", "0", "35957.856", "239652.481", 11, 0},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseXLS(readFixture(t, tt.file))
			if err != nil {
				t.Fatalf("ParseXLS: %v", err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d reports, want %d", len(got), len(tt.want))
			}
			for i, w := range tt.want {
				r := got[i]
				if r.Metal != w.metal {
					t.Errorf("report %d metal %s, want %s", i, r.Metal, w.metal)
				}
				if !r.ReportDate.Equal(date(w.report)) || !r.ActivityDate.Equal(date(w.activity)) {
					t.Errorf("%s dates report %s activity %s, want %s / %s", w.metal, day(r.ReportDate), day(r.ActivityDate), w.report, w.activity)
				}
				if r.ActivityDate.Location() != time.UTC || r.ActivityDate.Hour() != 0 {
					t.Errorf("%s activity date %v is not UTC midnight", w.metal, r.ActivityDate)
				}
				for _, c := range []struct {
					name string
					got  decimal.Decimal
					want string
				}{{"registered", r.Registered, w.reg}, {"pledged", r.Pledged, w.pledged}, {"eligible", r.Eligible, w.elig}, {"combined", r.Combined, w.comb}} {
					if !c.got.Equal(dec(c.want)) {
						t.Errorf("%s %s = %s, want %s", w.metal, c.name, c.got, c.want)
					}
				}
				if len(r.Depositories) != w.depositories {
					t.Errorf("%s has %d depositories, want %d", w.metal, len(r.Depositories), w.depositories)
				}
				if w.pledgedDepCount == 0 {
					for _, d := range r.Depositories {
						if !d.Pledged.IsZero() {
							t.Errorf("%s depository %q has pledged %s", w.metal, d.Name, d.Pledged)
						}
					}
				}
			}
		})
	}
}

// Gold lists each depository and its ENHANCED DELIVERY twin as separate lines; the
// exchange totals include both, so both must survive as their own rows.
func TestParseXLSGoldDetails(t *testing.T) {
	rs, err := ParseXLS(readFixture(t, "Gold_2026-04-15.xls"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Depository{}
	enhanced := 0
	for _, d := range rs[0].Depositories {
		byName[d.Name] = d
		if strings.Contains(d.Name, "ENHANCED DELIVERY") {
			enhanced++
		}
	}
	if enhanced != 10 {
		t.Errorf("%d ENHANCED DELIVERY depositories, want 10", enhanced)
	}
	tests := []struct {
		name                      string
		reg, pledged, elig, total string
	}{
		// The extra Pledged row that shifts this file's totals down by one.
		{"STONEX PRECIOUS METALS LLC", "21891.135", "385.812", "18569.526", "40460.661"},
		{"STONEX PRECIOUS METALS LLC - ENHANCED DELIVERY (400 OZ AND ELIGIBLE BRANDS)", "0", "0", "3981", "3981"},
		{"ASAHI DEPOSITORY LLC", "1733653.229", "104979.328", "275252.201", "2008905.430"},
		{"JP MORGAN CHASE BANK NA - ENHANCED DELIVERY (400 OZ AND ELIGIBLE BRANDS)", "0", "0", "3694331.277", "3694331.277"},
	}
	for _, tt := range tests {
		d, ok := byName[tt.name]
		if !ok {
			t.Errorf("no depository %q", tt.name)
			continue
		}
		if !d.Registered.Equal(dec(tt.reg)) || !d.Pledged.Equal(dec(tt.pledged)) || !d.Eligible.Equal(dec(tt.elig)) || !d.Total.Equal(dec(tt.total)) {
			t.Errorf("%s = %s/%s/%s/%s, want %s/%s/%s/%s", tt.name, d.Registered, d.Pledged, d.Eligible, d.Total, tt.reg, tt.pledged, tt.elig, tt.total)
		}
	}
}

func TestValidateRejectsTampering(t *testing.T) {
	rs, err := ParseXLS(readFixture(t, "Gold_2026-04-27.xls"))
	if err != nil {
		t.Fatal(err)
	}
	good := rs[0]
	if err := Validate(good); err != nil {
		t.Fatalf("untouched report rejected: %v", err)
	}
	clone := func(r Report) Report {
		r.Depositories = append([]Depository(nil), r.Depositories...)
		return r
	}
	one := dec("1")
	tests := []struct {
		name   string
		tamper func(*Report)
		want   string
	}{
		{"depository registered", func(r *Report) { r.Depositories[3].Registered = r.Depositories[3].Registered.Add(one) }, `": total`},
		{"depository eligible and total together", func(r *Report) {
			r.Depositories[0].Eligible = r.Depositories[0].Eligible.Add(one)
			r.Depositories[0].Total = r.Depositories[0].Total.Add(one)
		}, "TOTAL ELIGIBLE"},
		{"depository pledged", func(r *Report) { r.Depositories[1].Pledged = r.Depositories[1].Pledged.Add(one) }, "TOTAL PLEDGED"},
		{"total registered", func(r *Report) { r.Registered = r.Registered.Sub(one) }, "TOTAL REGISTERED"},
		{"combined adds pledged", func(r *Report) { r.Combined = r.Combined.Add(r.Pledged) }, "COMBINED TOTAL"},
		{"drift beyond tolerance", func(r *Report) { r.Depositories[2].Total = r.Depositories[2].Total.Add(dec("0.003")) }, `": total`},
		{"negative", func(r *Report) {
			r.Depositories[0].Registered = r.Depositories[0].Registered.Neg()
		}, "negative"},
		{"no depositories", func(r *Report) { r.Depositories = nil }, "no depositories"},
		{"unknown metal", func(r *Report) { r.Metal = "XAU" }, "unknown metal"},
		{"no activity date", func(r *Report) { r.ActivityDate = time.Time{} }, "activity date"},
		{"report before activity", func(r *Report) { r.ReportDate = r.ActivityDate.AddDate(0, 0, -1) }, "before activity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := clone(good)
			tt.tamper(&r)
			err := Validate(r)
			if err == nil {
				t.Fatal("tampered report accepted")
			}
			if !errors.Is(err, ErrInvalidReport) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want ErrInvalidReport mentioning %q", err, tt.want)
			}
		})
	}
	// Within tolerance: a thousandth of rounding is what CME itself prints.
	r := clone(good)
	r.Depositories[2].Total = r.Depositories[2].Total.Add(dec("0.002"))
	if err := Validate(r); err != nil {
		t.Errorf("0.002 oz rounding rejected: %v", err)
	}
}

func TestParseXLSSynthetic(t *testing.T) {
	goldDeps := []synthDep{
		{"VAULT ONE", 500, 20, 100},
		{"VAULT ONE - ENHANCED DELIVERY (400 OZ AND ELIGIBLE BRANDS)", 0, -1, 40},
		{"VAULT TWO", 300, -1, 7.5},
	}
	tests := []struct {
		name    string
		sheets  [][][]any
		metals  []metals.Metal
		reg     []string
		pledged []string
	}{
		{"silver in the mini stream", [][][]any{synthSheet()}, []metals.Metal{metals.Silver}, []string{"13346.178"}, []string{"0"}},
		{"TOTAL TODAY found by header in another column", [][][]any{
			synthSection("SILVER", 10, "Report Date: 12/1/2025", "Activity Date: 11/28/2025", synthSilverDeps),
		}, []metals.Metal{metals.Silver}, []string{"13346.178"}, []string{"0"}},
		{"gold with pledged and enhanced rows", [][][]any{
			synthSection("GOLD", 7, "Report Date: 4/16/2026", "Activity Date: 4/15/2026", goldDeps),
		}, []metals.Metal{metals.Gold}, []string{"800"}, []string{"20"}},
		{"two stacked sections", [][][]any{append(
			synthSection("PLATINUM", 7, "Report Date: 1/6/2026", "Activity Date: 1/5/2026", synthSilverDeps),
			synthSection("PALLADIUM", 7, "Report Date: 1/6/2026", "Activity Date: 1/5/2026", goldDeps[2:])...)},
			[]metals.Metal{metals.Platinum, metals.Palladium}, []string{"13346.178", "300"}, []string{"0", "0"}},
		{"sections on two sheets", [][][]any{
			synthSection("GOLD", 7, "Report Date: 4/16/2026", "Activity Date: 4/15/2026", goldDeps),
			synthSheet(),
		}, []metals.Metal{metals.Gold, metals.Silver}, []string{"800", "13346.178"}, []string{"20", "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := ParseXLS(xlsOf(tt.sheets...))
			if err != nil {
				t.Fatalf("ParseXLS: %v", err)
			}
			if len(rs) != len(tt.metals) {
				t.Fatalf("%d reports, want %d", len(rs), len(tt.metals))
			}
			for i, r := range rs {
				if r.Metal != tt.metals[i] || !r.Registered.Equal(dec(tt.reg[i])) || !r.Pledged.Equal(dec(tt.pledged[i])) {
					t.Errorf("report %d = %s reg %s pledged %s, want %s %s %s", i, r.Metal, r.Registered, r.Pledged, tt.metals[i], tt.reg[i], tt.pledged[i])
				}
			}
		})
	}
}

func TestParseXLSRejects(t *testing.T) {
	mutate := func(f func(rows [][]any) [][]any) []byte { return xlsOf(f(cloneRows(synthSheet()))) }
	setTotal := func(rows [][]any, label string, v any) [][]any {
		rows[findRow(rows, label)][7] = v
		return rows
	}
	tests := []struct {
		name  string
		data  []byte
		want  string
		class error
	}{
		{"empty input", nil, "empty", ErrNotXLS},
		{"HTML page", []byte("<!DOCTYPE html>\n<html><head><title>Access Denied</title></head></html>"), "HTML page", ErrNotXLS},
		{"HTML with BOM and spaces", []byte("\xef\xbb\xbf  \n<html><body>blocked</body></html>"), "HTML page", ErrNotXLS},
		{"xlsx", []byte("PK\x03\x04rest-of-zip"), "xlsx", ErrNotXLS},
		{"CSV text", []byte("date,metal\n2026-01-01,gold\n"), "OLE2 signature", ErrNotXLS},
		{"truncated compound file", readFixture(t, "Silver_2026-01-22.xls")[:600], "compound", ErrNotXLS},
		{"no sheets' content", xlsOf([][]any{{"just a note"}}), "no GOLD, SILVER", ErrLayout},
		{"empty sheet", xlsOf(nil), "no GOLD, SILVER", ErrLayout},
		{"missing activity date", mutate(func(r [][]any) [][]any { r[findRow(r, "Troy Ounce")] = []any{"Troy Ounce"}; return r }), "Activity Date", ErrLayout},
		{"missing report date", mutate(func(r [][]any) [][]any { r[findRow(r, "SILVER")] = []any{"SILVER"}; return r }), "Report Date", ErrLayout},
		{"impossible activity date", mutate(func(r [][]any) [][]any {
			r[findRow(r, "Troy Ounce")][6] = "Activity Date: 2/30/2026"
			return r
		}), "not a calendar date", ErrLayout},
		{"no TOTAL TODAY header", mutate(func(r [][]any) [][]any { r[findRow(r, "DEPOSITORY")][7] = "TOTAL"; return r }), "TOTAL TODAY", ErrLayout},
		{"no header row", mutate(func(r [][]any) [][]any { r[findRow(r, "DEPOSITORY")][0] = "DEPOT"; return r }), "DEPOSITORY header", ErrLayout},
		{"tampered depository figure", mutate(func(r [][]any) [][]any {
			i := findRow(r, "GAMMA BANK NA")
			r[i+1][7] = 12346.678
			return r
		}), "GAMMA BANK NA", ErrInvalidReport},
		{"tampered total", mutate(func(r [][]any) [][]any { return setTotal(r, "TOTAL ELIGIBLE", 326.251) }), "TOTAL ELIGIBLE", ErrInvalidReport},
		{"combined adds pledged or more", mutate(func(r [][]any) [][]any { return setTotal(r, "COMBINED TOTAL", 13700.0) }), "COMBINED TOTAL", ErrInvalidReport},
		{"text in a value cell", mutate(func(r [][]any) [][]any { return setTotal(r, "TOTAL REGISTERED", "n/a") }), "holds text", ErrLayout},
		{"empty value cell", mutate(func(r [][]any) [][]any { return setTotal(r, "TOTAL REGISTERED", nil) }), "is empty", ErrLayout},
		{"negative stock", mutate(func(r [][]any) [][]any {
			i := findRow(r, "BETA DEPOSITORY, INC.")
			r[i+1][7] = -1.0
			return r
		}), "negative", ErrLayout},
		{"missing eligible row", mutate(func(r [][]any) [][]any {
			i := findRow(r, "BETA DEPOSITORY, INC.")
			return append(r[:i+2], r[i+3:]...)
		}), "no Eligible row", ErrLayout},
		{"unknown sub-row", mutate(func(r [][]any) [][]any {
			r[findRow(r, "BETA DEPOSITORY, INC.")+2][0] = "  Reserved"
			return r
		}), "unknown depository line", ErrLayout},
		{"sub-row before any depository", mutate(func(r [][]any) [][]any {
			i := findRow(r, "ALPHA VAULTS LLC")
			r[i][0] = ""
			return r
		}), "before any depository", ErrLayout},
		{"no COMBINED TOTAL", mutate(func(r [][]any) [][]any { return r[:findRow(r, "COMBINED TOTAL")] }), "no COMBINED TOTAL", ErrLayout},
		{"duplicate section", xlsOf(synthSheet(), synthSheet()), "two silver sections", ErrLayout},
		{"stray row among totals", mutate(func(r [][]any) [][]any {
			i := findRow(r, "TOTAL ELIGIBLE")
			r[i] = []any{"SOMETHING ELSE", nil, 1.0}
			return r
		}), "among the totals", ErrLayout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := ParseXLS(tt.data)
			if err == nil {
				t.Fatalf("accepted: %+v", rs)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if !errors.Is(err, tt.class) {
				t.Errorf("error %q is not a %v", err, tt.class)
			}
		})
	}
}

// FuzzParseXLS feeds mutated real and synthetic workbooks through the whole path.
// Whatever the bytes, ParseXLS must return (never panic or hang), and anything it
// accepts must satisfy Validate.
func FuzzParseXLS(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "xls", "*.xls"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(xlsOf(synthSheet()))
	f.Add([]byte("<html></html>"))
	f.Add(oleMagic)
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ParseXLS(data)
		if err != nil {
			if len(rs) != 0 {
				t.Fatal("reports returned with an error")
			}
			return
		}
		for _, r := range rs {
			if err := Validate(r); err != nil {
				t.Fatalf("accepted a report that fails Validate: %v", err)
			}
		}
	})
}

// The rebuilt container must give back exactly the stream it was built from.
func TestRebuildCFBRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		stream []byte
	}{
		{"tiny", biffStream(synthSheet())},
		{"real gold", mustStream(t, readFixture(t, "Gold_2026-04-15.xls"))},
		{"sector multiple", bytes.Repeat([]byte{7}, 512*9)},
		{"large", bytes.Repeat([]byte{1, 2, 3}, 300000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := rebuildCFB(tt.stream)
			if err != nil {
				t.Fatal(err)
			}
			back, err := workbookStream(c)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) < len(tt.stream) || !bytes.Equal(back[:len(tt.stream)], tt.stream) || len(bytes.Trim(back[len(tt.stream):], "\x00")) != 0 {
				t.Errorf("stream changed: %d bytes in, %d out", len(tt.stream), len(back))
			}
		})
	}
}

func mustStream(t *testing.T, data []byte) []byte {
	t.Helper()
	s, err := workbookStream(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Hostile containers: each would make a naive reader loop or allocate without end.
func TestWorkbookStreamHostile(t *testing.T) {
	small := func() []byte { return xlsOf(synthSheet()) }
	big := func() []byte { return cfbFile(bytes.Repeat(biffStream(synthSheet()), 3)) }
	// The cases below patch the mini path of small and the FAT path of big.
	if n := len(biffStream(synthSheet())); n >= miniCutoff || 3*n < miniCutoff {
		t.Fatalf("synthetic stream of %d bytes no longer exercises both paths", n)
	}
	put := func(b []byte, off int, v uint32) []byte { le.PutUint32(b[off:], v); return b }
	const fat = 512 // FAT is sector 0 in cfbFile
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"FAT chain loops", func() []byte {
			b := big()
			// the directory sector (1) points back at itself
			return put(b, fat+4*1, 1)
		}(), "loops"},
		{"stream chain loops", func() []byte {
			b := big()
			// physical sector 3 holds the stream's last sector; send it back to the first
			n := uint32((len(b)/512 - 1) - 3)
			return put(b, fat+4*3, 3+n-1)
		}(), "loops"},
		{"mini chain loops", func() []byte {
			b := small()
			return put(b, 512*3+4*1, 0) // mini FAT is sector 2: entry 1 → 0
		}(), "loops"},
		{"chain leaves the file", put(big(), fat+4*1, 5000), "outside"},
		{"forged stream size", put(small(), 512*2+128+120, 0xFFFFFFF0), "larger than"},
		{"too many FAT sectors", put(small(), 44, 1<<30), "FAT sectors"},
		{"bad byte order", put(small(), 28, 0xFFFF), "byte-order"},
		{"version 4 header on small file", func() []byte {
			b := small()
			le.PutUint16(b[26:], 4)
			le.PutUint16(b[30:], 12)
			return b
		}(), "truncated"},
		{"no Workbook entry", func() []byte {
			b := small()
			copy(b[512*2+128:], []byte{'X', 0})
			return b
		}(), "no Workbook stream"},
		{"BIFF5 book", func() []byte {
			b := small()
			e := b[512*2+128:]
			clear(e[:64])
			copy(e, []byte{'B', 0, 'o', 0, 'o', 0, 'k', 0})
			le.PutUint16(e[64:], 10)
			return b
		}(), "Excel 5/95"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseXLS(tt.data)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
			if !errors.Is(err, ErrNotXLS) {
				t.Errorf("error %v does not wrap ErrNotXLS", err)
			}
		})
	}
}

func TestCheckBIFF8(t *testing.T) {
	good := biffStream(synthSheet())
	tests := []struct {
		name   string
		stream []byte
		want   string
	}{
		{"valid", good, ""},
		{"no BOF", append([]byte{1, 0, 0, 0}, good...), "BOF"},
		{"BIFF5", func() []byte { b := bytes.Clone(good); le.PutUint16(b[4:], 0x0500); return b }(), "BIFF version"},
		{"sheet substream first", func() []byte { b := bytes.Clone(good); le.PutUint16(b[6:], 0x0010); return b }(), "workbook globals"},
		{"no EOF", good[:20+12], "past the end"},
		{"no sheets", append(bof(0x0005), eofRec()...), "no sheets"},
		{"sheet points past the end", func() []byte { b := bytes.Clone(good); le.PutUint32(b[24:], 1<<20); return b }(), "past the end"},
		{"too many sheets", biffStream(make([][][]any, maxSheets+1)...), "more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkBIFF8(tt.stream)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
