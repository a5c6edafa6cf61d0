package web_test

import (
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/format"
)

// pdfText reads a PDF's text back with pdftotext (poppler-utils).
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatal("pdftotext is needed to read the PDF back (poppler-utils; .ci/tools installs it)")
	}
	p := filepath.Join(t.TempDir(), "s.pdf")
	if err := os.WriteFile(p, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-layout", p, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// TestCustodyInventoryStatement: the statement of a location lists every lot kept there and
// no other, and its totals are the sums of its lines (at spot and at replacement), in the
// PDF as read back by pdftotext and in the CSV (both engines).
func TestCustodyInventoryStatement(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("inv@example.com", db.TierGold)
		_, other := e.user("inv2@example.com", db.TierGold)
		bank := e.api("POST", "/v1/locations", key, map[string]any{"name": "Bank box", "kind": "bank_box", "insured_value": 50000}).JSON(t)["id"].(string)
		home := e.api("POST", "/v1/locations", key, map[string]any{"name": "Home safe", "kind": "home"}).JSON(t)["id"].(string)
		lots := []map[string]any{
			{"metal": "gold", "product_name": "American Gold Eagle 1 oz", "quantity": 3, "weight_oz": 1, "purchase_price": 2400, "purchase_date": "2026-01-10", "location_id": bank},
			{"metal": "silver", "product_name": "Silver Bar 10 oz", "quantity": 4, "weight_oz": 10, "purchase_price": 310.5, "purchase_date": "2026-03-02", "location_id": bank},
			{"metal": "silver", "product_name": "Junk 90% dimes", "quantity": 50, "weight_oz": 0.0723, "purchase_price": 2.2, "location_id": bank},
			{"metal": "platinum", "product_name": "Platinum Maple", "quantity": 1, "weight_oz": 1, "purchase_price": 990, "purchase_date": "2026-05-05", "location_id": home},
		}
		for _, l := range lots {
			if r := e.api("POST", "/v1/holdings", key, l); r.Status != 201 {
				t.Fatalf("lot: %d %s", r.Status, r.Body)
			}
		}
		r := e.api("GET", "/v1/reports/inventory?format=csv&location_id="+bank, key, nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("csv: %d %s", r.Status, r.Body)
		}
		rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
		if err != nil || len(rows) != 4 {
			t.Fatalf("csv rows %d: %v\n%s", len(rows), err, r.Body)
		}
		spot, repl := decimal.Zero, decimal.Zero
		for _, row := range rows[1:] {
			if row[0] != "Bank box" {
				t.Errorf("a lot of another location: %v", row)
			}
			spot = spot.Add(decimal.RequireFromString(row[9]))
			repl = repl.Add(decimal.RequireFromString(row[10]))
		}
		// 3 oz gold at 2,650.40 + 40 oz silver at 31.25 + 3.615 oz silver at 31.25.
		if want := decimal.RequireFromString("9314.17"); !spot.Equal(want) {
			t.Errorf("csv value at spot %s, want %s", spot, want)
		}

		r = e.api("GET", "/v1/reports/inventory?location_id="+bank, key, nil)
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment") {
			t.Fatalf("pdf: %d %v", r.Status, r.Header)
		}
		text := pdfText(t, r.Body)
		for _, want := range []string{"Inventory statement", "Bank box", "American Gold Eagle 1 oz", "Silver Bar 10 oz", "Junk 90% dimes", "insured for $50,000.00",
			"Total Bank box", format.USD(spot), format.USD(repl), "Gold spot $2,650.40", "Silver spot $31.25", "typical coin premium", "typical bar premium"} {
			if !strings.Contains(text, want) {
				t.Errorf("the PDF lacks %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "Platinum Maple") {
			t.Error("the bank box statement lists the home safe's lot")
		}
		all := pdfText(t, e.api("GET", "/v1/reports/inventory", key, nil).Body)
		if !strings.Contains(all, "Platinum Maple") || !strings.Contains(all, "Total Home safe") {
			t.Errorf("the whole statement lacks the home safe:\n%s", all)
		}
		if r := e.api("GET", "/v1/reports/inventory?location_id="+home, other, nil); r.Status != 404 {
			t.Errorf("another member's location: %d", r.Status)
		}
		if r := e.api("GET", "/v1/reports/inventory?format=xls", key, nil); r.Status != 400 {
			t.Errorf("bad format: %d", r.Status)
		}
	})
}
