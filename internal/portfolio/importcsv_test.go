package portfolio

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

var importNow = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

// TestParseHoldingsCSVFile refuses a file that cannot be read as a whole, naming why.
func TestParseHoldingsCSVFile(t *testing.T) {
	for _, c := range []struct {
		name, data, field, msg string
	}{
		{"empty", "", "file", "is empty"},
		{"not UTF-8", "metal,quantity,weight_oz,purchase_price\n\xff,1,1,1\n", "file", "UTF-8"},
		{"unknown column", "metal,quantity,weight_oz,purchase_price,colour\n", "header", `unknown column "colour"`},
		{"duplicate column", "metal,quantity,weight_oz,purchase_price,Metal\n", "header", `column "metal" appears twice`},
		{"missing columns", "metal,quantity\n", "header", "missing required column(s): weight_oz, purchase_price"},
		{"unnamed column", "metal,,quantity,weight_oz,purchase_price\n", "header", "column 2 has no name"},
		{"bad header quoting", "metal,\"quantity\n", "header", "is not valid CSV"},
	} {
		_, err := ParseHoldingsCSV([]byte(c.data), importNow)
		f := apperr.FieldsOf(err)
		if len(f) != 1 || f[0].Field != c.field || !strings.Contains(f[0].Message, c.msg) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, err := ParseHoldingsCSV(bytes.Repeat([]byte("x"), MaxImportBytes+1), importNow); apperr.KindOf(err) != apperr.TooLarge {
		t.Errorf("over 5 MiB: %v", err)
	}
	var b strings.Builder
	b.WriteString("metal,quantity,weight_oz,purchase_price\n")
	for range MaxImportRows + 1 {
		b.WriteString("gold,1,1,1\n")
	}
	if _, err := ParseHoldingsCSV([]byte(b.String()), importNow); apperr.KindOf(err) != apperr.TooLarge || !strings.Contains(err.Error(), "10000 data rows") {
		t.Errorf("too many rows: %v", err)
	}
}

// TestParseHoldingsCSVRows validates each row like a new holding and collects every problem.
func TestParseHoldingsCSVRows(t *testing.T) {
	data := "\xef\xbb\xbfMetal, Product Name ,quantity,Weight-Oz,purchase_price,fees,purchase_date,notes\n" +
		"silver,1 oz Eagle,20,1,32.50,12.40,2026-11-02,\"two\nlines\"\n" + // row 1: good, a note over two lines
		"gold,,0,abc,10,,,\n" + // row 2: two problems
		"gold,bar,1,1\n" + // row 3: short
		"platinum,'+bar,1,1,950,0,2999-01-01,\n" + // row 4: a future date
		"palladium,x,1,0.5,1000,0,,'=note\n" // row 5: good, escaped formula cells
	p, err := ParseHoldingsCSV([]byte(data), importNow)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(p.Columns, ",") != "metal,product_name,quantity,weight_oz,purchase_price,fees,purchase_date,notes" {
		t.Fatalf("columns %v", p.Columns)
	}
	if len(p.Rows) != 5 || p.BadRows != 3 || p.ErrorCount != 4 || fmt.Sprint(p.Bad) != "[false true true true false]" {
		t.Fatalf("rows %d bad %d errors %d %v", len(p.Rows), p.BadRows, p.ErrorCount, p.Bad)
	}
	want := []ImportRowError{
		{2, "quantity", "must be between 1 and 1000000"},
		{2, "weight_oz", "must be a number"},
		{3, "row", "has 4 cells; the header has 8"},
		{4, "purchase_date", "cannot be in the future"},
	}
	for i, w := range want {
		if p.Errors[i] != w {
			t.Errorf("error %d = %+v, want %+v", i, p.Errors[i], w)
		}
	}
	first, last := p.Rows[0], p.Rows[4]
	if first.Metal != "silver" || first.ProductName != "1 oz Eagle" || first.Quantity != 20 || !first.Fees.Equal(d("12.40")) || first.Notes != "two\nlines" || first.PurchaseDate.String() != "2026-11-02" {
		t.Errorf("row 1: %+v", first)
	}
	if last.Notes != "=note" || !last.WeightOz.Equal(d("0.5")) || !last.PurchaseDate.IsZero() {
		t.Errorf("row 5: %+v", last)
	}
	if p.Rows[3].ProductName != "+bar" {
		t.Errorf("row 4's escaped product: %q", p.Rows[3].ProductName)
	}
	problem := ImportProblem(p)
	if problem.Kind != apperr.Unprocessable || problem.Msg != "3 of 5 rows have problems (4 in all); nothing was imported" || problem.Details["error_count"] != 4 {
		t.Fatalf("problem %+v", problem)
	}
}

// TestImportErrorsAreCapped: every problem is counted, at most MaxImportErrors are listed.
func TestImportErrorsAreCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("metal,quantity,weight_oz,purchase_price\n")
	for range 1000 {
		b.WriteString("tin,0,1,1\n")
	}
	p, err := ParseHoldingsCSV([]byte(b.String()), importNow)
	if err != nil || p.ErrorCount != 2000 || len(p.Errors) != MaxImportErrors || p.BadRows != 1000 {
		t.Fatalf("%v: %d listed of %d", err, len(p.Errors), p.ErrorCount)
	}
}

// TestExportImportsBack: what WriteHoldingsCSV writes parses back to the same holdings, formula
// cells included.
func TestExportImportsBack(t *testing.T) {
	list := []Holding{
		{Metal: "silver", ProductName: "=HYPERLINK(\"x\")", Quantity: 20, WeightOz: d("0.77344"), PurchasePrice: d("32.5"), Fees: d("0"), Dealer: "+dealer", Notes: "a, \"quoted\"\nnote", PurchaseDate: day("2026-11-02")},
		{Metal: "gold", ProductName: "'@lit", Quantity: 1, WeightOz: d("0.12345678"), PurchasePrice: d("2000"), Fees: d("1.5"), Notes: "-1"},
	}
	var buf bytes.Buffer
	if err := WriteHoldingsCSV(&buf, list); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), ",=HYPERLINK") || !strings.HasPrefix(buf.String(), "metal,product_name,quantity,weight_oz") {
		t.Fatalf("export: %s", buf.String())
	}
	p, err := ParseHoldingsCSV(buf.Bytes(), importNow)
	if err != nil || p.ErrorCount != 0 || len(p.Rows) != 2 {
		t.Fatalf("reimport: %v %+v", err, p.Errors)
	}
	for i, h := range p.Rows {
		if db.DuplicateKey(h.row(1)) != db.DuplicateKey(list[i].row(1)) || h.Notes != list[i].Notes {
			t.Errorf("row %d came back as %+v", i+1, h)
		}
	}
	for _, s := range []string{"", "plain", "=1", "+1", "-1", "@x", "'=1", "''=1", "'''@", "'", "''", "'x", "\tx", "\r"} {
		if got := UncsvCell(CSVCell(s)); got != s {
			t.Errorf("cell %q came back as %q", s, got)
		}
	}
}

// FuzzParseHoldingsCSV: any file is refused as a whole with a domain error, or parsed into one
// entry per data row; rows without problems are valid holdings that export and import back
// unchanged; it never panics.
func FuzzParseHoldingsCSV(f *testing.F) {
	for _, s := range []string{
		"metal,quantity,weight_oz,purchase_price\ngold,1,1,2000\n",
		"metal,product_name,quantity,weight_oz,purchase_price,fees,dealer,purchase_date,notes\nsilver,'=x,20,0.7734,18.40,12,APMEX,2024-03-15,\"a\nb\"\n",
		"\xef\xbb\xbfMetal,Quantity,Weight Oz,Purchase-Price\ntin,0,-1,x\ngold,1\n",
		"metal,quantity,weight_oz,purchase_price\n\"gold,1,1,1\n",
		"", ",", "metal\n", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseHoldingsCSV(data, importNow)
		if err != nil {
			if k := apperr.KindOf(err); k != apperr.Invalid && k != apperr.TooLarge {
				t.Fatalf("a %v error: %v", k, err)
			}
			return
		}
		if len(p.Rows) != len(p.Bad) || len(p.Errors) > p.ErrorCount || len(p.Errors) > MaxImportErrors || p.BadRows > len(p.Rows) || (p.ErrorCount > 0) != (p.BadRows > 0) {
			t.Fatalf("inconsistent parse: %d rows, %d bad flags, %d/%d errors, %d bad rows", len(p.Rows), len(p.Bad), len(p.Errors), p.ErrorCount, p.BadRows)
		}
		var good []Holding
		for i, h := range p.Rows {
			if p.Bad[i] {
				continue
			}
			if !h.Metal.Valid() || h.Quantity < 1 || h.Quantity > MaxQuantity || !h.WeightOz.IsPositive() || h.PurchasePrice.IsNegative() || h.Fees.IsNegative() {
				t.Fatalf("row %d accepted out of range: %+v", i+1, h)
			}
			good = append(good, h)
		}
		for _, e := range p.Errors {
			if e.Row < 1 || e.Row > len(p.Rows) || e.Field == "" || e.Message == "" {
				t.Fatalf("row error %+v", e)
			}
		}
		var buf bytes.Buffer
		if err := WriteHoldingsCSV(&buf, good); err != nil {
			t.Fatal(err)
		}
		back, err := ParseHoldingsCSV(buf.Bytes(), importNow)
		if err != nil || back.ErrorCount != 0 || len(back.Rows) != len(good) {
			t.Fatalf("export of good rows does not import back: %v %+v", err, back.Errors)
		}
		for i := range good {
			a, b := back.Rows[i], good[i]
			if db.DuplicateKey(a.row(0)) != db.DuplicateKey(b.row(0)) || a.Notes != b.Notes {
				t.Fatalf("row %d changed on the way back: %+v → %+v", i+1, b, a)
			}
		}
	})
}
