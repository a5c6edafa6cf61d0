package web_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// taxAt reads a dotted path whose parts may index arrays.
func taxAt(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// taxCheck is pfCheck over paths with array indexes.
func taxCheck(t *testing.T, body map[string]any, path, want string) {
	t.Helper()
	got, ok := taxAt(body, path)
	if !ok {
		t.Errorf("%s is missing", path)
		return
	}
	pfCheck(t, map[string]any{"v": got}, "v", want)
}

// taxLot creates a lot of product on day and returns its id.
func taxLot(t *testing.T, e *env, key, metal, product string, qty int, price, day string) string {
	t.Helper()
	h := pfH(metal, qty, "1", price, "0", day)
	h["product_name"] = product
	return pfCreate(t, e, key, h)
}

func TestTaxSettingsAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("settings-tax@example.com", db.TierGold)
		r := e.api("GET", "/v1/account/settings", key, nil)
		if m := r.JSON(t); m["lot_method"] != "fifo" || m["tax_jurisdiction"] != "none" {
			t.Fatalf("defaults: %s", r.Body)
		}
		for field, bad := range map[string]string{"lot_method": "random", "tax_jurisdiction": "fr"} {
			r := e.api("PATCH", "/v1/account/settings", key, map[string]any{field: bad})
			if r.Status != 422 || pfProblemField(t, r) != field {
				t.Errorf("%s=%s: %d %s", field, bad, r.Status, r.Body)
			}
		}
		r = e.api("PATCH", "/v1/account/settings", key, map[string]any{"lot_method": "HIFO", "tax_jurisdiction": "us"})
		if m := r.JSON(t); r.Status != 200 || m["lot_method"] != "hifo" || m["tax_jurisdiction"] != "us" {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		if m := e.api("GET", "/v1/account/settings", key, nil).JSON(t); m["lot_method"] != "hifo" || m["tax_jurisdiction"] != "us" || m["display_currency"] != "USD" {
			t.Fatalf("after patch: %v", m)
		}
	})
}

func TestDisposalsAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("dispose@example.com", db.TierGold)
		a := taxLot(t, e, key, "silver", "Eagle", 10, "20.00", "2024-01-10")
		b := taxLot(t, e, key, "silver", "Eagle", 10, "30.00", "2025-06-01")
		taxLot(t, e, key, "silver", "Maple", 10, "25.00", "2024-01-10")
		body := map[string]any{"product_name": "Eagle", "metal": "silver", "quantity": 15, "price_per_unit": json.Number("32.00"), "fees": json.Number("3.00"), "sold_on": "2026-11-01"}

		// Preview: nothing stored; lifo and hifo both take the 30.00 lot first and gain least
		// (the tie goes to the earlier method in fifo, lifo, hifo, average).
		r := e.api("POST", "/v1/sales/preview", key, body)
		if r.Status != 200 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		p := pfJSON(t, r)
		taxCheck(t, p, "least_gain_method", "lifo")
		taxCheck(t, p, "methods.fifo.gain", "127.00") // 480 − 3 − (200 + 150)
		taxCheck(t, p, "methods.lifo.gain", "77.00")  // 480 − 3 − (300 + 100)
		taxCheck(t, p, "methods.hifo.gain", "77.00")
		taxCheck(t, p, "methods.average.gain", "102.00") // 480 − 3 − 15 × 25
		if n := pfJSON(t, e.api("GET", "/v1/sales", key, nil))["total"]; n != json.Number("0") {
			t.Fatalf("the preview stored sales: %v", n)
		}

		// More than held is 422 naming quantity; the old per-lot shape still answers 201.
		over := map[string]any{"product_name": "Eagle", "metal": "silver", "quantity": 21, "price_per_unit": 30}
		if r := e.api("POST", "/v1/sales", key, over); r.Status != 422 || pfProblemField(t, r) != "quantity" {
			t.Fatalf("oversold: %d %s", r.Status, r.Body)
		}
		r = e.api("POST", "/v1/sales", key, body)
		if r.Status != 201 {
			t.Fatalf("disposal: %d %s", r.Status, r.Body)
		}
		d := pfJSON(t, r)
		for path, want := range map[string]string{"disposal.method": "fifo", "disposal.kind": "sold", "disposal.quantity": "15", "disposal.proceeds": "480.00",
			"disposal.fees": "3.00", "disposal.cost_basis": "350.00", "disposal.gain": "127.00", "disposal.slices.0.holding_id": a,
			"disposal.slices.0.term": "long", "disposal.slices.1.holding_id": b, "disposal.slices.1.quantity": "5", "disposal.slices.1.term": "long",
			"disposal.slices.1.cost_basis": "150.00", "disposal.notes.0": "Not tax advice: figures follow the rules as Ounce understands them; ask a tax adviser."} {
			taxCheck(t, d, path, want)
		}
		id := d["disposal"].(map[string]any)["id"].(string)
		if rs := pfJSON(t, e.api("GET", "/v1/sales", key, nil)); rs["total"] != json.Number("2") || rs["realized_pl"] != json.Number("127.00") {
			t.Fatalf("sales after disposal: %v", rs)
		}
		if r := e.api("DELETE", "/v1/sales/"+id, key, nil); r.Status != 204 {
			t.Fatalf("undo: %d %s", r.Status, r.Body)
		}
		if rs := pfJSON(t, e.api("GET", "/v1/sales", key, nil)); rs["total"] != json.Number("0") {
			t.Fatalf("undo left slices: %v", rs)
		}
	})
}

// TestDisposalsAPIConcurrent: 30 concurrent requests of 1 unit each against 20 units held.
func TestDisposalsAPIConcurrent(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("race-api@example.com", db.TierGold)
		taxLot(t, e, key, "gold", "Buffalo", 10, "2000", "2024-01-10")
		taxLot(t, e, key, "gold", "Buffalo", 10, "2100", "2024-02-10")
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		for range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.api("POST", "/v1/sales", key, map[string]any{"product_name": "Buffalo", "metal": "gold", "quantity": 1, "price_per_unit": 2500, "method": "lifo"})
				mu.Lock()
				codes[r.Status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if codes[201] != 20 || codes[422] != 10 {
			t.Fatalf("statuses %v, want 20×201 and 10×422", codes)
		}
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		taxCheck(t, p, "metals.gold.oz", "0")
	})
}

func TestTaxReportJurisdictions(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("report@example.com", db.TierGold)
		sell := func(product, metal string, qty int, day string) {
			t.Helper()
			r := e.api("POST", "/v1/sales", key, map[string]any{"product_name": product, "metal": metal, "quantity": qty, "price_per_unit": 40, "sold_on": day})
			if r.Status != 201 {
				t.Fatalf("sell %s: %d %s", product, r.Status, r.Body)
			}
		}
		taxLot(t, e, key, "silver", "Eagle", 2, "30", "2025-01-10")
		taxLot(t, e, key, "silver", "British Silver Britannia 1 oz", 1, "30", "2025-01-10")
		sell("Eagle", "silver", 1, "2026-01-10")                         // 365 days: short
		sell("Eagle", "silver", 1, "2026-01-11")                         // 366 days: long
		sell("British Silver Britannia 1 oz", "silver", 1, "2026-01-11") // a UK legal-tender coin
		report := func(jur string) map[string]any {
			t.Helper()
			if r := e.api("PATCH", "/v1/account/settings", key, map[string]any{"tax_jurisdiction": jur}); r.Status != 200 {
				t.Fatalf("set %s: %d", jur, r.Status)
			}
			r := e.api("GET", "/v1/tax/report?year=2026", key, nil)
			if r.Status != 200 {
				t.Fatalf("report: %d %s", r.Status, r.Body)
			}
			return pfJSON(t, r)
		}
		us := report("us")
		for path, want := range map[string]string{"rows.0.term": "short", "rows.0.category": "short_term", "rows.1.term": "long", "rows.1.category": "collectible",
			"rows.0.acquired_on": "2025-01-10", "rows.0.disposed_on": "2026-01-10", "rows.0.proceeds": "40.00", "rows.0.cost_basis": "30.00",
			"totals.short_term": "10.00", "totals.collectible": "20.00", "totals.total": "30.00", "currency": "USD", "jurisdiction": "us"} {
			taxCheck(t, us, path, want)
		}
		if notes, _ := json.Marshal(us["notes"]); !strings.Contains(string(notes), "Not tax advice") || strings.Contains(string(notes), "1099-B") { // single Eagles: no dealer report
			t.Errorf("US notes: %s", notes)
		}
		uk := report("uk")
		taxCheck(t, uk, "rows.2.category", "exempt")
		taxCheck(t, uk, "totals.exempt", "10.00")
		de := report("de")
		taxCheck(t, de, "rows.0.category", "short_term")
		taxCheck(t, de, "rows.1.category", "tax_free") // one year and a day
		taxCheck(t, de, "totals.tax_free", "20.00")
		// Truth: the total is the realized P/L of the same sales.
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/sales", key, nil)), "realized_pl", "30.00")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)), "realized_pl", "30.00")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "metals.silver.realized_pl", "30.00")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "totals.realized_pl", "30.00")

		// Form 8949 CSV.
		r := e.api("GET", "/v1/tax/report?year=2026&format=csv", key, nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("csv: %d %s", r.Status, r.Header.Get("Content-Type"))
		}
		recs, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != "description,acquired,sold,proceeds,cost,code,adjustment,gain,currency" {
			t.Fatalf("csv: %v %q", err, recs)
		}
		if strings.Join(recs[2], ",") != "1 × Eagle,2025-01-10,2026-01-11,40.00,30.00,,0.00,10.00,USD" {
			t.Errorf("csv row: %q", recs[2])
		}
		// PDF: its text holds the totals and the label.
		r = e.api("GET", "/v1/tax/report?year=2026&format=pdf", key, nil)
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" {
			t.Fatalf("pdf: %d %s", r.Status, r.Header.Get("Content-Type"))
		}
		if _, err := exec.LookPath("pdftotext"); err != nil {
			t.Fatal("pdftotext is needed to read the PDF (poppler-utils)")
		}
		f := filepath.Join(t.TempDir(), "r.pdf")
		if err := os.WriteFile(f, r.Body, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", "-layout", f, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		text := string(out)
		for _, want := range []string{"Gains report 2026", "Not tax advice", "Tax-free", "20.00 USD", "Total", "30.00 USD", "Prepared 20 November 2026"} {
			if !strings.Contains(text, want) {
				t.Errorf("the PDF lacks %q:\n%s", want, text)
			}
		}
		if r := e.api("GET", "/v1/tax/report?year=abc", key, nil); r.Status != 400 || pfProblemField(t, r) != "year" {
			t.Errorf("bad year: %d %s", r.Status, r.Body)
		}
	})
}

func TestTaxPage(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("taxpage@example.com")
		u, err := e.store.UserByEmail(t.Context(), "taxpage@example.com")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, l := range []struct{ price, day string }{{"20", "2024-01-10"}, {"30", "2025-06-01"}} {
			if h, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "silver", ProductName: "Eagle", Quantity: 10, WeightOz: pfD("1"),
				PurchasePrice: pfD(l.price), Fees: pfD("0"), PurchaseDate: pfDate(l.day)})); err != nil {
				t.Fatal(err)
			} else {
				ids = append(ids, h.ID)
			}
		}
		r := b.get("/tax")
		if r.Status != 200 || !strings.Contains(string(r.Body), "Not tax advice") || !strings.Contains(string(r.Body), "Eagle · Silver") {
			t.Fatalf("tax page: %d", r.Status)
		}
		form := url.Values{"product": {"silver|Eagle"}, "quantity": {"15"}, "price_per_unit": {"32.00"}, "fees": {"3.00"}, "sold_on": {"2026-11-01"}, "method": {"fifo"}}
		r = b.post("/tax/preview", form, true)
		body := string(r.Body)
		if r.Status != 200 || !strings.Contains(body, "Record with lifo (least gain)") || !strings.Contains(body, "not tax advice") {
			t.Fatalf("preview: %d %s", r.Status, body)
		}
		// The least-gain button records with its method.
		form.Set("use_method", "lifo")
		r = b.post("/tax/sell", form, false)
		if r.Status != 303 && r.Status != 302 {
			t.Fatalf("sell: %d %s", r.Status, r.Body)
		}
		r = b.get("/tax?year=2026&sold=1")
		if body := string(r.Body); !strings.Contains(body, "Sale recorded") || !strings.Contains(body, "10 × Eagle") || !strings.Contains(body, "5 × Eagle") {
			t.Fatalf("report after the sale: %s", body)
		}
		// Lots chosen by hand: 2 units of the earlier lot (lifo above sold all of the later one).
		if !strings.Contains(body, "Or choose the lots yourself") || !strings.Contains(body, `name="lot_`+ids[1]+`"`) {
			t.Fatalf("the preview offers no lots: %s", body)
		}
		pick := url.Values{"product": {"silver|Eagle"}, "price_per_unit": {"32.00"}, "sold_on": {"2026-11-02"}, "method": {"fifo"}, "use_method": {"specific"}, "lot_" + ids[0]: {"2"}, "lot_" + ids[1]: {""}}
		if r := b.post("/tax/sell", pick, false); r.Status != 303 && r.Status != 302 {
			t.Fatalf("specific sell: %d %s", r.Status, r.Body)
		}
		if body := string(b.get("/tax?year=2026").Body); !strings.Contains(body, "2 × Eagle") || !strings.Contains(body, "2024-01-10") {
			t.Fatalf("the specific sale is not in the report: %s", body)
		}
		// The tax settings form on the page.
		if r := b.post("/settings/account/tax", url.Values{"lot_method": {"hifo"}, "tax_jurisdiction": {"de"}}, false); r.Status != 303 && r.Status != 302 {
			t.Fatalf("tax settings: %d %s", r.Status, r.Body)
		}
		if body := string(b.get("/tax?settings=1").Body); !strings.Contains(body, "Settings saved") || !strings.Contains(body, "Jurisdiction: de") {
			t.Fatalf("after tax settings: %s", body)
		}
		form.Set("quantity", "99")
		if r := b.post("/tax/sell", form, true); r.Status != 422 || !strings.Contains(string(r.Body), "units of Eagle are held") {
			t.Fatalf("oversold form: %d %s", r.Status, r.Body)
		}
	})
}

func TestDisposalsAPIBadFields(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("bad-disposal@example.com", db.TierGold)
		taxLot(t, e, key, "silver", "Eagle", 10, "20.00", "2024-01-10")
		ok := map[string]any{"product_name": "Eagle", "metal": "silver", "quantity": 1, "price_per_unit": 30}
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for a, b := range ok {
				m[a] = b
			}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		for _, c := range []struct {
			body  any
			field string
		}{
			{with("metal", 5), "metal"},
			{with("metal", "tin"), "metal"},
			{with("price_per_unit", "30"), "price_per_unit"},
			{with("price_per_unit", nil), "price_per_unit"},
			{with("quantity", 0), "quantity"},
			{with("method", "random"), "method"},
			{with("kind", "burnt"), "kind"},
			{with("kind", "traded"), "received"},
			{with("lots", "h_1"), "lots"},
			{with("sold_on", "2099-01-01"), "sold_on"},
			{with("userId", 3), "userId"},
			{`[1]`, "body"},
		} {
			r := e.api("POST", "/v1/sales", key, c.body)
			if r.Status != 400 || pfProblemField(t, r) != c.field {
				t.Errorf("%v: %d %s", c.body, r.Status, r.Body)
			}
		}
		if r := e.api("POST", "/v1/sales", key, with("lots", []map[string]any{{"holding_id": "h_none", "quantity": 1}})); r.Status != 422 || pfProblemField(t, r) != "lots" {
			t.Errorf("a lot not of the product: %d %s", r.Status, r.Body)
		}
	})
}
