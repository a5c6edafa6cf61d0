package web_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// taxEURStack is the stack of internal/portfolio's TestTaxReportInEUR over HTTP, for a member
// whose display currency is EUR: two Maple Leaf lots (USD on 2024-02-05, EUR on 2024-06-12),
// a silver bar in USD (2025-06-03), one unit of each sold in 2025.
func taxEURStack(t *testing.T, e *env, key string) {
	t.Helper()
	if r := e.api("PATCH", "/v1/account/settings", key, map[string]any{"display_currency": "EUR", "tax_jurisdiction": "de"}); r.Status != 200 {
		t.Fatalf("settings: %d %s", r.Status, r.Body)
	}
	lot := func(metal, product string, qty int, w, price, fees, cur, day string) string {
		h := pfH(metal, qty, w, price, fees, day)
		h["product_name"], h["purchase_currency"] = product, cur
		return pfCreate(t, e, key, h)
	}
	a := lot("gold", "Maple Leaf 1 oz", 2, "1", "2000.00", "10.00", "USD", "2024-02-05")
	b := lot("gold", "Maple Leaf 1 oz", 2, "1", "1900.00", "0", "EUR", "2024-06-12")
	c := lot("silver", "Silver bar 10 oz", 1, "10", "300.00", "0", "USD", "2025-06-03")
	pfSell(t, e, key, a, map[string]any{"quantity": 1, "price_per_unit": json.Number("2600.00"), "fees": json.Number("5.00"), "sold_on": "2025-03-12"})
	pfSell(t, e, key, b, map[string]any{"quantity": 1, "price_per_unit": json.Number("2500.00"), "fees": json.Number("10.00"), "sold_on": "2025-09-17"})
	pfSell(t, e, key, c, map[string]any{"quantity": 1, "price_per_unit": json.Number("320.00"), "sold_on": "2025-09-17"})
}

// TestTaxReportInMemberCurrencyAPI: the gains report answers in the member's display currency
// (each slice at its dates' embedded ECB rates, figures worked out in TestTaxReportInEUR),
// ?currency= overrides it, an unknown code is 400 naming currency and listing the codes; the
// CSV and the PDF name the currency; the realized P/L of /v1/portfolio and /v1/analytics in
// the same currency equals the report's total.
func TestTaxReportInMemberCurrencyAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("tax-eur@example.com", db.TierGold)
		taxEURStack(t, e, key)
		r := pfJSON(t, e.api("GET", "/v1/tax/report?year=2025", key, nil))
		taxCheck(t, r, "currency", "EUR")
		taxCheck(t, r, "rows.0.proceeds", "2388.39")
		taxCheck(t, r, "rows.0.cost_basis", "1870.40")
		taxCheck(t, r, "rows.0.gain", "517.99")
		taxCheck(t, r, "totals.total", "1114.84")
		taxCheck(t, r, "totals.tax_free", "1107.99")
		taxCheck(t, r, "totals.short_term", "6.86")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)), "realized_pl", "1114.84")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "totals.realized_pl", "1114.84")

		usd := pfJSON(t, e.api("GET", "/v1/tax/report?year=2025&currency=usd", key, nil))
		taxCheck(t, usd, "currency", "USD")
		taxCheck(t, usd, "rows.0.proceeds", "2600.00")
		taxCheck(t, usd, "totals.total", "1512.06")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio?currency=USD", key, nil)), "realized_pl", "1512.06")

		if r := e.api("GET", "/v1/tax/report?year=2025&currency=XYZ", key, nil); r.Status != 400 || pfProblemField(t, r) != "currency" || !strings.Contains(string(r.Body), "GBP") {
			t.Errorf("unknown currency: %d %s", r.Status, r.Body)
		}

		rc := e.api("GET", "/v1/tax/report?year=2025&format=csv", key, nil)
		recs, err := csv.NewReader(bytes.NewReader(rc.Body)).ReadAll()
		if err != nil || len(recs) != 4 || recs[0][8] != "currency" {
			t.Fatalf("csv: %v %q", err, recs)
		}
		if got := strings.Join(recs[1], ","); got != "1 × Maple Leaf 1 oz,2024-02-05,2025-03-12,2388.39,1870.40,,0.00,517.99,EUR" {
			t.Errorf("csv row: %s", got)
		}

		rp := e.api("GET", "/v1/tax/report?year=2025&format=pdf", key, nil)
		if rp.Status != 200 {
			t.Fatalf("pdf: %d", rp.Status)
		}
		if _, err := exec.LookPath("pdftotext"); err != nil {
			t.Fatal("pdftotext is needed to read the PDF (poppler-utils)")
		}
		f := filepath.Join(t.TempDir(), "r.pdf")
		if err := os.WriteFile(f, rp.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", "-layout", f, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Amounts in EUR", "1114.84 EUR", "Not tax advice"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("the PDF lacks %q:\n%s", want, out)
			}
		}

		b := e.browser()
		b.get("/login")
		b.post("/login", url.Values{"email": {"tax-eur@example.com"}, "password": {"correct horse battery"}}, false)
		page := b.get("/tax?year=2025")
		for _, want := range []string{"Amounts in EUR", "€1,114.84", "Not tax advice"} {
			if !strings.Contains(string(page.Body), want) {
				t.Errorf("/tax (%d) lacks %q", page.Status, want)
			}
		}
	})
}
