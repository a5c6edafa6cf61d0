package web_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
)

// pfCSV posts a CSV body to the import endpoint.
func pfCSV(e *env, key, body string) resp {
	e.t.Helper()
	req := httptest.NewRequest("POST", "/v1/holdings/import", strings.NewReader(body))
	req.Header.Set("Content-Type", "text/csv")
	req.Header.Set("Authorization", "Bearer "+key)
	return e.do(req)
}

const pfGoodCSV = "metal,product_name,quantity,weight_oz,purchase_price,fees,dealer,purchase_date,notes\n" +
	"silver,1 oz Silver Eagle,20,1,32.50,12.40,APMEX,2026-11-02,tube\n" +
	"gold,\"1/10 oz Maple, 2024\",5,0.1,285.00,0,,2025-06-30,\n" +
	"platinum,\"=HYPERLINK(\"\"x\"\")\",1,1,950,0,,2025-02-01,\n"

func TestImportAndExportRoundTrip(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("imp@example.com", db.TierGold)
		_, other := e.user("other@example.com", db.TierGold)
		// One holding already there, the same as the first row.
		pfCreate(t, e, key, map[string]any{"metal": "silver", "product_name": "1 oz Silver Eagle", "quantity": 20, "weight_oz": 1, "purchase_price": 32.5, "fees": 12.4, "dealer": "APMEX", "purchase_date": "2026-11-02"})
		r := pfCSV(e, key, "\xef\xbb\xbf"+pfGoodCSV)
		if r.Status != 200 {
			t.Fatalf("import: %d %s", r.Status, r.Body)
		}
		pfCheck(t, pfJSON(t, r), "imported", "2")
		pfCheck(t, pfJSON(t, r), "skipped_duplicates", "1")
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, p, "metals.gold.cost", "1425")
		pfCheck(t, p, "holdings_count", "3")
		if p := pfJSON(t, e.api("GET", "/v1/portfolio", other, nil)); p["holdings_count"].(fmt.Stringer).String() != "0" {
			t.Fatal("import leaked into another account")
		}

		// CSV export: the importable columns, formula cells defused, and it imports back as all duplicates.
		r = e.api("GET", "/v1/holdings/export", key, nil)
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") || !strings.Contains(r.Header.Get("Content-Disposition"), "ounce-holdings-2026-11-20.csv") {
			t.Fatalf("export: %d %v", r.Status, r.Header)
		}
		recs, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != "metal,product_name,quantity,weight_oz,purchase_price,fees,dealer,purchase_date,notes,currency,weight,weight_unit" {
			t.Fatalf("export CSV: %v %v", recs, err)
		}
		// Oldest purchase first.
		if recs[3][0] != "silver" || recs[3][4] != "32.50" || recs[3][5] != "12.40" || recs[1][1] != `'=HYPERLINK("x")` || recs[2][1] != "1/10 oz Maple, 2024" {
			t.Fatalf("export rows: %q", recs)
		}
		back := pfCSV(e, key, string(r.Body))
		if back.Status != 200 {
			t.Fatalf("re-import: %d %s", back.Status, back.Body)
		}
		pfCheck(t, pfJSON(t, back), "imported", "0")
		pfCheck(t, pfJSON(t, back), "skipped_duplicates", "3")

		// JSON export carries ids and sold quantities.
		r = e.api("GET", "/v1/holdings/export?format=json", key, nil)
		if r.Status != 200 {
			t.Fatalf("json export: %d %s", r.Status, r.Body)
		}
		j := pfJSON(t, r)
		pfCheck(t, j, "count", "3")
		first := j["holdings"].([]any)[0].(map[string]any)
		if first["purchase_date"] != "2025-02-01" || first["product_name"] != `=HYPERLINK("x")` || first["sold_quantity"].(fmt.Stringer).String() != "0" {
			t.Fatalf("json export first: %v", first)
		}
		if r := e.api("GET", "/v1/holdings/export?format=xml", key, nil); r.Status != 400 || pfProblemField(t, r) != "format" {
			t.Fatalf("bad format: %d %s", r.Status, r.Body)
		}
	})
}

func TestImportRejectsBadRowsAtomically(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("bad@example.com", db.TierGold)
		body := "Metal,Quantity,Weight OZ,purchase_price,purchase_date\n" +
			"gold,1,1,2000,2025-01-01\n" + // fine
			"copper,1,1,2000,2025-01-01\n" + // row 2: metal
			"silver,0,abc,-1,2999-01-01\n" + // row 3: four problems
			"silver,1,1\n" + // row 4: short
			"gold,2,0.5,1000,\n" // fine
		r := pfCSV(e, key, body)
		if r.Status != 422 || r.JSON(t)["type"] != "/problems/unprocessable" {
			t.Fatalf("bad rows: %d %s", r.Status, r.Body)
		}
		errs := r.JSON(t)["errors"].([]any)
		var got []string
		for _, x := range errs {
			m := x.(map[string]any)
			got = append(got, fmt.Sprintf("%v:%v", m["row"], m["field"]))
		}
		want := "2:metal 3:quantity 3:weight_oz 3:purchase_price 3:purchase_date 4:row"
		if strings.Join(got, " ") != want {
			t.Fatalf("errors %v, want %s", got, want)
		}
		if !strings.Contains(r.JSON(t)["detail"].(string), "3 of 5 rows") {
			t.Errorf("detail: %v", r.JSON(t)["detail"])
		}
		// Nothing was stored, not even the good rows.
		if p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)); p["holdings_count"].(fmt.Stringer).String() != "0" {
			t.Fatal("a failed import stored rows")
		}
		// The file as a whole: header problems and wrong content types are 400 naming what is wrong.
		for _, c := range []struct{ name, body, field string }{
			{"empty", "", "file"},
			{"unknown column", "metal,quantity,weight_oz,purchase_price,colour\n", "header"},
			{"missing column", "metal,quantity,weight_oz\n", "header"},
			{"twice", "metal,quantity,weight_oz,purchase_price,Metal\n", "header"},
			{"not utf-8", "metal,quantity,weight_oz,purchase_price\n\xff,1,1,1\n", "file"},
		} {
			if r := pfCSV(e, key, c.body); r.Status != 400 || pfProblemField(t, r) != c.field {
				t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
			}
		}
		if r := e.api("POST", "/v1/holdings/import", key, map[string]any{"metal": "gold"}); r.Status != 400 || pfProblemField(t, r) != "Content-Type" {
			t.Errorf("JSON body: %d %s", r.Status, r.Body)
		}
		// A header alone imports nothing, successfully.
		if r := pfCSV(e, key, "metal,quantity,weight_oz,purchase_price\n"); r.Status != 200 {
			t.Errorf("header only: %d %s", r.Status, r.Body)
		}
	})
}

func TestImportLimits(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("big@example.com", db.TierGold)
		var b strings.Builder
		b.WriteString("metal,product_name,quantity,weight_oz,purchase_price,fees,purchase_date\n")
		for i := 0; i < 10_000; i++ {
			fmt.Fprintf(&b, "%s,coin %d,%d,0.1,%d.25,0.50,2024-%02d-%02d\n", []string{"gold", "silver", "platinum", "palladium"}[i%4], i, 1+i%9, 20+i%500, 1+i%12, 1+i%28)
		}
		start := time.Now()
		r := pfCSV(e, key, b.String())
		if r.Status != 200 {
			t.Fatalf("10,000 rows: %d %.300s", r.Status, r.Body)
		}
		t.Logf("imported 10,000 rows in %v", time.Since(start))
		pfCheck(t, pfJSON(t, r), "imported", "10000")
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, p, "holdings_count", "10000")

		// One row more, or more than 5 MiB, is 413.
		fmt.Fprintf(&b, "gold,one too many,1,1,1,0,2024-01-01\n")
		if r := pfCSV(e, key, b.String()); r.Status != 413 {
			t.Fatalf("10,001 rows: %d %.200s", r.Status, r.Body)
		}
		huge := "metal,quantity,weight_oz,purchase_price,notes\n" + strings.Repeat("gold,1,1,1,"+strings.Repeat("n", 1000)+"\n", 5300)
		if r := pfCSV(e, key, huge); r.Status != 413 || r.JSON(t)["type"] != "/problems/payload-too-large" {
			t.Fatalf("over 5 MiB: %d %.200s", r.Status, r.Body)
		}
		// Many bad rows: every problem counted, the list capped.
		var bad strings.Builder
		bad.WriteString("metal,quantity,weight_oz,purchase_price\n")
		for i := 0; i < 2000; i++ {
			bad.WriteString("gold,0,1,1\n")
		}
		r = pfCSV(e, key, bad.String())
		if r.Status != 422 || len(r.JSON(t)["errors"].([]any)) != 1000 || r.JSON(t)["error_count"].(float64) != 2000 {
			t.Fatalf("2,000 bad rows: %d", r.Status)
		}
	})
}

// TestImportMultipart sends the CSV as a multipart file field. The request goes to the app
// directly: the route documents its text/csv body only (see portfolioRoutes).
func TestImportMultipart(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("mp@example.com", db.TierGold)
		send := func(field string) resp {
			var buf bytes.Buffer
			w := multipart.NewWriter(&buf)
			fw, _ := w.CreateFormFile(field, "stack.csv")
			_, _ = io.WriteString(fw, pfGoodCSV)
			_ = w.Close()
			req := httptest.NewRequest("POST", "/v1/holdings/import", &buf)
			req.Header.Set("Content-Type", w.FormDataContentType())
			req.Header.Set("Authorization", "Bearer "+key)
			return e.do(req) // contract-checked: multipart is documented beside text/csv
		}
		if res := send("file"); res.Status != 200 {
			t.Fatalf("multipart import: %d %s", res.Status, res.Body)
		}
		if res := send("upload"); res.Status != 400 {
			t.Fatalf("multipart without the file field: %d", res.Status)
		}
	})
}

var pfPayloadRe = regexp.MustCompile(`name="payload" value="([^"]+)"`)

// TestImportPagePreviewThenCommit drives the browser flow: upload, preview, confirm.
func TestImportPagePreviewThenCommit(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("page@example.com")
		r := b.get("/portfolio/import")
		if r.Status != 200 {
			t.Fatalf("import page: %d", r.Status)
		}
		d := doc(t, r)
		if d.Find(`form[hx-encoding="multipart/form-data"] input[type=file][name=file]`).Length() != 1 || d.Find("#import-progress progress").Length() != 1 || d.Find("label[for=f-file]").Length() != 1 {
			t.Fatal("upload form, label or progress indicator missing")
		}
		// Paste a CSV with a bad row: the preview lists it and offers no import.
		form := url.Values{"csv": {"metal,quantity,weight_oz,purchase_price\ngold,1,1,2000\ngold,x,1,2000\n"}}
		r = b.post("/portfolio/import/preview", form, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Enter a quantity as a whole number.") || strings.Contains(string(r.Body), `name="payload"`) {
			t.Fatalf("preview with errors: %d %s", r.Status, r.Body)
		}
		// A good file: preview first, nothing stored yet.
		r = b.post("/portfolio/import/preview", url.Values{"csv": {pfGoodCSV}}, true)
		m := pfPayloadRe.FindSubmatch(r.Body)
		if r.Status != 200 || m == nil || doc(t, r).Find("tbody tr").Length() != 3 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		u, _ := e.store.UserByEmail(t.Context(), "page@example.com")
		if _, n, _ := e.store.HoldingsByUser(t.Context(), u.ID, db.HoldingFilter{Limit: 1}); n != 0 {
			t.Fatal("preview stored holdings")
		}
		r = b.post("/portfolio/import", url.Values{"payload": {string(m[1])}}, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Imported 3 holdings; skipped 0 duplicates") {
			t.Fatalf("commit: %d %s", r.Status, r.Body)
		}
		// Confirming twice imports nothing more.
		r = b.post("/portfolio/import", url.Values{"payload": {string(m[1])}}, true)
		if !strings.Contains(string(r.Body), "Imported 0 holdings; skipped 3 duplicates") {
			t.Fatalf("second commit: %s", r.Body)
		}
		if r := b.post("/portfolio/import", url.Values{"payload": {"%%%"}}, true); r.Status != 400 {
			t.Fatalf("bad payload: %d", r.Status)
		}
		// The browser export.
		r = b.get("/portfolio/export")
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), "metal,product_name") || strings.Count(string(r.Body), "\n") != 4 {
			t.Fatalf("browser export: %d %s", r.Status, r.Body)
		}
	})
}
