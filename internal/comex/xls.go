package comex

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shakinm/xlsReader/xls"
	"github.com/shakinm/xlsReader/xls/record"
	"github.com/shopspring/decimal"
)

// ErrNotXLS is wrapped when the bytes are not an Excel 97-2003 workbook at all. CME
// answers bot checks and outages with HTML pages under the .xls address, so a fetch
// that "succeeds" can still land here.
var ErrNotXLS = errors.New("comex: not an xls workbook")

// ErrLayout is wrapped when a workbook opens but does not look like a CME stocks
// report any more: a missing date, header or row. It usually means CME changed the
// layout, which needs a person, whereas ErrNotXLS usually means a bad download.
var ErrLayout = errors.New("comex: unexpected report layout")

// CME report sheets have about 150 rows and 9 columns; these caps keep a hostile
// file from making the grid scan expensive while leaving ample room for growth.
const (
	maxRows = 4096
	maxCols = 32
)

// cell is one spreadsheet cell reduced to what the parser needs.
type cell struct {
	text  string
	num   float64
	isNum bool
}

type grid [][]cell

func (g grid) at(r, c int) cell {
	if r < 0 || r >= len(g) || c < 0 || c >= len(g[r]) {
		return cell{}
	}
	return g[r][c]
}

// label is the column-A text with its indentation kept, because CME marks the
// per-depository sub-rows by indenting them.
func (g grid) label(r int) string { return g.at(r, 0).text }

// ParseXLS reads a CME "Daily Metal Stocks Report" workbook (Gold_Stocks.xls,
// Silver_stocks.xls or PA-PL_Stck_Rprt.xls) into one Report per metal section, in
// sheet order. Rows and the TOTAL TODAY column are found by their text, never by
// position, because CME inserts rows (a depository's Pledged line, for one) from
// day to day. Every report is checked with Validate; a file whose figures do not add
// up is rejected as a whole rather than partly believed.
func ParseXLS(data []byte) (reports []Report, err error) {
	// Last line of defence: one odd download must cost an error, never the process.
	defer func() {
		if p := recover(); p != nil {
			reports, err = nil, fmt.Errorf("%w: unreadable workbook (%v)", ErrNotXLS, p)
		}
	}()
	if err := sniff(data); err != nil {
		return nil, err
	}
	stream, err := workbookStream(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotXLS, err)
	}
	if err := checkBIFF8(stream); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotXLS, err)
	}
	clean, err := rebuildCFB(stream)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotXLS, err)
	}
	sheets, err := readGrids(clean)
	if err != nil {
		return nil, err
	}
	seen := make(map[metals.Metal]bool)
	for _, g := range sheets {
		rs, err := parseSheet(g)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if seen[r.Metal] {
				return nil, fmt.Errorf("%w: workbook has two %s sections", ErrLayout, r.Metal)
			}
			seen[r.Metal] = true
			if err := Validate(r); err != nil {
				return nil, err
			}
			reports = append(reports, r)
		}
	}
	if len(reports) == 0 {
		return nil, fmt.Errorf("%w: no GOLD, SILVER, PLATINUM or PALLADIUM section found in the workbook", ErrLayout)
	}
	return reports, nil
}

// sniff turns the common wrong payloads into errors a person can act on.
func sniff(data []byte) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: input is empty", ErrNotXLS)
	}
	head := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(head) > 0 && head[0] == '<' {
		lower := bytes.ToLower(head[:min(len(head), 512)])
		if bytes.Contains(lower, []byte("<html")) || bytes.Contains(lower, []byte("<!doctype")) {
			return fmt.Errorf("%w: got an HTML page (blocked or error response) instead of a spreadsheet", ErrNotXLS)
		}
		return fmt.Errorf("%w: got markup instead of a spreadsheet", ErrNotXLS)
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return fmt.Errorf("%w: got an .xlsx (zip) file; CME's reports are .xls", ErrNotXLS)
	}
	if !bytes.HasPrefix(data, oleMagic) {
		return fmt.Errorf("%w: missing the OLE2 signature", ErrNotXLS)
	}
	return nil
}

// readGrids runs the xls reader over a container rebuilt by rebuildCFB. The reader
// indexes records without bounds checks, so a damaged record panics inside it; the
// panic is turned into an error for this one file instead of taking the service down.
func readGrids(clean []byte) (out []grid, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: workbook is damaged (%v)", ErrNotXLS, p)
		}
	}()
	wb, err := xls.OpenReader(bytes.NewReader(clean))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotXLS, err)
	}
	if wb.GetNumberSheets() == 0 {
		return nil, fmt.Errorf("%w: workbook has no sheets", ErrNotXLS)
	}
	for i := 0; i < wb.GetNumberSheets(); i++ {
		sh, err := wb.GetSheet(i)
		if err != nil {
			return nil, fmt.Errorf("%w: sheet %d: %v", ErrNotXLS, i+1, err)
		}
		n := sh.GetNumberRows()
		if n > maxRows {
			return nil, fmt.Errorf("%w: sheet %q has %d rows, more than a stocks report ever does", ErrLayout, sh.GetName(), n)
		}
		g := make(grid, n)
		for r := range n {
			row, err := sh.GetRow(r)
			if err != nil {
				return nil, fmt.Errorf("%w: sheet %q row %d: %v", ErrNotXLS, sh.GetName(), r+1, err)
			}
			g[r] = make([]cell, maxCols)
			for c := range maxCols {
				cd, err := row.GetCol(c)
				if err != nil {
					return nil, fmt.Errorf("%w: sheet %q row %d: %v", ErrNotXLS, sh.GetName(), r+1, err)
				}
				switch v := cd.(type) {
				case *record.Number:
					g[r][c] = cell{num: v.GetFloat64(), isNum: true}
				case *record.Rk:
					g[r][c] = cell{num: v.GetFloat64(), isNum: true}
				case *record.LabelSSt, *record.LabelBIFF8, *record.LabelBIFF5:
					g[r][c] = cell{text: latin1(v.GetString())}
				}
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// latin1 repairs strings the reader hands back as raw bytes: BIFF8 stores
// single-byte strings as Latin-1, which the reader does not decode.
func latin1(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		r[i] = rune(s[i])
	}
	return string(r)
}

var (
	activityRe = regexp.MustCompile(`(?i)activity\s+date\s*:\s*(\d{1,2})/(\d{1,2})/(\d{4})`)
	reportRe   = regexp.MustCompile(`(?i)report\s+date\s*:\s*(\d{1,2})/(\d{1,2})/(\d{4})`)
)

// sectionMetal recognises the bare metal names CME puts in column A to open a section.
func sectionMetal(label string) (metals.Metal, bool) {
	switch strings.ToUpper(strings.TrimSpace(label)) {
	case "GOLD":
		return metals.Gold, true
	case "SILVER":
		return metals.Silver, true
	case "PLATINUM":
		return metals.Platinum, true
	case "PALLADIUM":
		return metals.Palladium, true
	}
	return "", false
}

func norm(s string) string { return strings.Join(strings.Fields(strings.ToUpper(s)), " ") }

// parseSheet finds every metal section in a sheet. PA-PL sheets stack PLATINUM and
// PALLADIUM, each with its own dates and totals, so sections are parsed one after the
// other until the sheet runs out.
func parseSheet(g grid) ([]Report, error) {
	var out []Report
	for r := 0; r < len(g); r++ {
		m, ok := sectionMetal(g.label(r))
		if !ok {
			continue
		}
		rep, end, err := parseSection(g, r, m)
		if err != nil {
			return nil, fmt.Errorf("%w: %s section (row %d): %w", ErrLayout, m, r+1, err)
		}
		out = append(out, rep)
		r = end
	}
	return out, nil
}

// parseSection reads one metal's section starting at its title row and returns the
// report and the row of its COMBINED TOTAL.
func parseSection(g grid, start int, m metals.Metal) (Report, int, error) {
	rep := Report{Metal: m}
	header := -1
	for r := start; r < len(g) && header < 0; r++ {
		if r > start {
			if other, ok := sectionMetal(g.label(r)); ok {
				return rep, 0, fmt.Errorf("%s section starts at row %d before the DEPOSITORY header", other, r+1)
			}
		}
		if norm(g.label(r)) == "DEPOSITORY" {
			header = r
			break
		}
		for _, c := range g[r] {
			if c.isNum {
				continue
			}
			if mm := activityRe.FindStringSubmatch(c.text); mm != nil {
				d, err := mdy(mm[1:])
				if err != nil {
					return rep, 0, fmt.Errorf("row %d: activity date: %w", r+1, err)
				}
				if !rep.ActivityDate.IsZero() && !d.Equal(rep.ActivityDate) {
					return rep, 0, errors.New("two different activity dates")
				}
				rep.ActivityDate = d
			}
			if mm := reportRe.FindStringSubmatch(c.text); mm != nil {
				d, err := mdy(mm[1:])
				if err != nil {
					return rep, 0, fmt.Errorf("row %d: report date: %w", r+1, err)
				}
				if !rep.ReportDate.IsZero() && !d.Equal(rep.ReportDate) {
					return rep, 0, errors.New("two different report dates")
				}
				rep.ReportDate = d
			}
		}
	}
	if header < 0 {
		return rep, 0, errors.New("no DEPOSITORY header row")
	}
	if rep.ActivityDate.IsZero() {
		return rep, 0, errors.New(`no "Activity Date: M/D/YYYY" above the header`)
	}
	if rep.ReportDate.IsZero() {
		return rep, 0, errors.New(`no "Report Date: M/D/YYYY" above the header`)
	}
	col := -1
	for c, v := range g[header] {
		if !v.isNum && norm(v.text) == "TOTAL TODAY" {
			if col >= 0 {
				return rep, 0, fmt.Errorf("row %d: two TOTAL TODAY columns", header+1)
			}
			col = c
		}
	}
	if col < 0 {
		return rep, 0, fmt.Errorf("row %d: no TOTAL TODAY column in the header", header+1)
	}

	value := func(r int, what string) (decimal.Decimal, error) {
		c := g.at(r, col)
		if !c.isNum {
			if strings.TrimSpace(c.text) != "" {
				return decimal.Zero, fmt.Errorf("row %d (%s): TOTAL TODAY holds text %q, not a number", r+1, what, c.text)
			}
			return decimal.Zero, fmt.Errorf("row %d (%s): TOTAL TODAY is empty", r+1, what)
		}
		return ounces(c.num, r, what)
	}

	var (
		cur   *Depository
		have  map[string]bool
		seenT = map[string]bool{}
	)
	closeDepository := func() error {
		if cur == nil {
			return nil
		}
		for _, need := range []string{"registered", "eligible", "total"} {
			if !have[need] {
				return fmt.Errorf("depository %q has no %s row", cur.Name, strings.ToUpper(need[:1])+need[1:])
			}
		}
		rep.Depositories = append(rep.Depositories, *cur)
		cur = nil
		return nil
	}
	for r := header + 1; r < len(g); r++ {
		raw := g.label(r)
		lab := norm(raw)
		if lab == "" {
			continue
		}
		if other, ok := sectionMetal(raw); ok {
			return rep, 0, fmt.Errorf("%s section starts at row %d before COMBINED TOTAL", other, r+1)
		}
		switch lab {
		case "REGISTERED", "PLEDGED", "ELIGIBLE", "TOTAL":
			key := strings.ToLower(lab)
			if cur == nil {
				return rep, 0, fmt.Errorf("row %d: %q row before any depository name", r+1, strings.TrimSpace(raw))
			}
			if have[key] {
				return rep, 0, fmt.Errorf("row %d: depository %q has a second %q row", r+1, cur.Name, strings.TrimSpace(raw))
			}
			have[key] = true
			v, err := value(r, cur.Name+" "+key)
			if err != nil {
				return rep, 0, err
			}
			switch key {
			case "registered":
				cur.Registered = v
			case "pledged":
				cur.Pledged = v
			case "eligible":
				cur.Eligible = v
			case "total":
				cur.Total = v
			}
		case "TOTAL REGISTERED", "TOTAL PLEDGED", "TOTAL ELIGIBLE", "COMBINED TOTAL":
			if err := closeDepository(); err != nil {
				return rep, 0, err
			}
			if seenT[lab] {
				return rep, 0, fmt.Errorf("row %d: second %s row", r+1, lab)
			}
			seenT[lab] = true
			v, err := value(r, lab)
			if err != nil {
				return rep, 0, err
			}
			switch lab {
			case "TOTAL REGISTERED":
				rep.Registered = v
			case "TOTAL PLEDGED":
				rep.Pledged = v
			case "TOTAL ELIGIBLE":
				rep.Eligible = v
			case "COMBINED TOTAL":
				for _, need := range []string{"TOTAL REGISTERED", "TOTAL ELIGIBLE"} {
					if !seenT[need] {
						return rep, 0, fmt.Errorf("no %s row before COMBINED TOTAL", need)
					}
				}
				rep.Combined = v
				return rep, r, nil
			}
		default:
			if len(seenT) > 0 {
				return rep, 0, fmt.Errorf("row %d: unexpected row %q among the totals", r+1, strings.TrimSpace(raw))
			}
			if raw != strings.TrimLeft(raw, " \t") {
				// An indented line is a sub-row; an unknown kind means CME changed the
				// layout, and guessing would put ounces in the wrong bucket.
				return rep, 0, fmt.Errorf("row %d: unknown depository line %q", r+1, strings.TrimSpace(raw))
			}
			if err := closeDepository(); err != nil {
				return rep, 0, err
			}
			cur = &Depository{Name: strings.Join(strings.Fields(raw), " ")}
			have = map[string]bool{}
		}
	}
	return rep, 0, errors.New("no COMBINED TOTAL row")
}

// ounces converts a cell to troy ounces at CME's three published decimals; the
// doubles in the file carry binary noise such as 36403451.80499999.
func ounces(f float64, r int, what string) (decimal.Decimal, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return decimal.Zero, fmt.Errorf("row %d (%s): value is not a finite number", r+1, what)
	}
	if f < 0 {
		return decimal.Zero, fmt.Errorf("row %d (%s): negative stock %v", r+1, what, f)
	}
	if f > 1e12 {
		return decimal.Zero, fmt.Errorf("row %d (%s): %v oz is not a plausible stock", r+1, what, f)
	}
	return decimal.NewFromFloat(f).Round(3), nil
}

// mdy reads CME's unpadded M/D/YYYY and refuses dates that time.Date would
// silently roll over (2/30 becoming 3/2).
func mdy(parts []string) (time.Time, error) {
	mo, _ := strconv.Atoi(parts[0])
	d, _ := strconv.Atoi(parts[1])
	y, _ := strconv.Atoi(parts[2])
	t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	if t.Year() != y || int(t.Month()) != mo || t.Day() != d || y < 1900 {
		return time.Time{}, fmt.Errorf("%s/%s/%s is not a calendar date", parts[0], parts[1], parts[2])
	}
	return t, nil
}
