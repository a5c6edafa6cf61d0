package web_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// receiptFixture reads a rendered sample receipt of internal/receipts.
func receiptFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "receipts", "testdata", "rendered", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func scanMultipart(t *testing.T, path, name string, data []byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("file", name)
	_, _ = fw.Write(data)
	_ = w.Close()
	return &buf, w.FormDataContentType()
}

func scanAPI(e *env, key, name string, data []byte) resp {
	e.t.Helper()
	body, ct := scanMultipart(e.t, "/v1/scan-receipt", name, data)
	req := httptest.NewRequest("POST", "/v1/scan-receipt", body)
	req.Header.Set("Content-Type", ct)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.do(req)
}

// apmexWant is the APMEX sample's lines as /v1 proposes them.
var apmexWant = []string{
	"2026 1 oz American Silver Eagle BU|silver|20|1.00000|34.10|682.00|silver-american-eagle-1oz",
	"1/10 oz Gold Maple Leaf (Random Year)|gold|5|0.10000|312.40|1562.00|gold-maple-leaf-tenth-oz",
	"10 oz Silver Bar - APMEX .999 Fine|silver|2|10.00000|338.50|677.00|silver-bar-10oz",
}

type scanJSON struct {
	Dealer      string `json:"dealer"`
	OrderNumber string `json:"order_number"`
	OrderDate   string `json:"order_date"`
	Items       []struct {
		ProductName string          `json:"product_name"`
		Metal       string          `json:"metal"`
		Quantity    int             `json:"quantity"`
		WeightOz    json.RawMessage `json:"weight_oz"`
		UnitPrice   json.RawMessage `json:"unit_price"`
		LineTotal   json.RawMessage `json:"line_total"`
		ProductID   string          `json:"product_id"`
		Fees        json.RawMessage `json:"fees"`
	} `json:"items"`
	Total    json.RawMessage   `json:"total"`
	Warnings []json.RawMessage `json:"warnings"`
	Source   string            `json:"source"`
}

func decodeScan(t *testing.T, r resp) scanJSON {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("scan: %d %s", r.Status, r.Body)
	}
	var s scanJSON
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s scanJSON) lines() []string {
	var out []string
	for _, it := range s.Items {
		out = append(out, fmt.Sprintf("%s|%s|%d|%s|%s|%s|%s", it.ProductName, it.Metal, it.Quantity, it.WeightOz, it.UnitPrice, it.LineTotal, it.ProductID))
	}
	return out
}

// TestScanReceiptAPI: a text PDF (multipart) and a rendered image (JSON base64) each become
// the right proposal through /v1, and confirming adds exactly those lots.
func TestScanReceiptAPI(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("scan@example.com", db.TierGold)
		pdf := decodeScan(t, scanAPI(e, key, "order.pdf", receiptFixture(t, "apmex.pdf")))
		img := decodeScan(t, e.api("POST", "/v1/scan-receipt", key, map[string]any{
			"image_base64": base64.StdEncoding.EncodeToString(receiptFixture(t, "apmex-150.png")), "mime_type": "image/png"}))
		for _, s := range []scanJSON{pdf, img} {
			if s.Dealer != "APMEX" || s.OrderNumber != "71230045" || s.OrderDate != "2026-03-14" || string(s.Total) != "2921.00" || len(s.Warnings) != 0 {
				t.Fatalf("%s: header %+v", s.Source, s)
			}
			if got := strings.Join(s.lines(), "\n"); got != strings.Join(apmexWant, "\n") {
				t.Fatalf("%s lines:\n%s\nwant\n%s", s.Source, got, strings.Join(apmexWant, "\n"))
			}
		}
		if pdf.Source != "pdf" || img.Source != "png" {
			t.Fatalf("sources %q %q", pdf.Source, img.Source)
		}
		var items []map[string]any
		for _, it := range pdf.Items {
			items = append(items, map[string]any{"metal": it.Metal, "product_name": it.ProductName, "quantity": it.Quantity,
				"weight_oz": json.RawMessage(it.WeightOz), "unit_price": json.RawMessage(it.UnitPrice), "fees": json.RawMessage(it.Fees)})
		}
		confirm := map[string]any{"dealer": pdf.Dealer, "order_number": pdf.OrderNumber, "order_date": pdf.OrderDate, "items": items}
		r := e.api("POST", "/v1/scan-receipt/confirm", key, confirm)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"imported":3`) {
			t.Fatalf("confirm: %d %s", r.Status, r.Body)
		}
		list := e.api("GET", "/v1/holdings?limit=10", key, nil)
		var hl struct {
			Holdings []struct {
				ProductName string          `json:"product_name"`
				Quantity    int             `json:"quantity"`
				Price       json.RawMessage `json:"purchase_price"`
				Dealer      string          `json:"dealer"`
				Date        string          `json:"purchase_date"`
			} `json:"holdings"`
			Total int `json:"total"`
		}
		if err := json.Unmarshal(list.Body, &hl); err != nil || hl.Total != 3 {
			t.Fatalf("holdings: %s", list.Body)
		}
		for _, h := range hl.Holdings {
			if h.Dealer != "APMEX" || h.Date != "2026-03-14" {
				t.Fatalf("holding %+v", h)
			}
		}
		// The same receipt again adds nothing.
		if r := e.api("POST", "/v1/scan-receipt/confirm", key, confirm); !strings.Contains(string(r.Body), `"skipped_duplicates":3`) {
			t.Fatalf("second confirm: %s", r.Body)
		}
		// A bad line: 422 naming it, nothing stored.
		bad := map[string]any{"items": []map[string]any{{"metal": "tin", "quantity": 1, "weight_oz": 1, "unit_price": 5}}}
		if r := e.api("POST", "/v1/scan-receipt/confirm", key, bad); r.Status != 422 || !strings.Contains(string(r.Body), `"field":"metal"`) {
			t.Fatalf("bad confirm: %d %s", r.Status, r.Body)
		}
	})
}

func TestScanReceiptRefusals(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("gold@example.com", db.TierGold)
		_, free := e.user("free@example.com", db.TierFree)
		png := receiptFixture(t, "hero-150.png")
		cases := []struct {
			name   string
			r      resp
			status int
			field  string
		}{
			{"no key", scanAPI(e, "", "x.png", png), 401, ""},
			{"gif", scanAPI(e, key, "x.png", []byte("GIF89a....")), 400, "file"},
			{"truncated png", scanAPI(e, key, "x.png", png[:len(png)/2]), 422, ""},
			{"polyglot", scanAPI(e, key, "x.png", append(append([]byte{}, png...), "PK\x03\x04zip"...)), 422, ""},
			{"bad base64", e.api("POST", "/v1/scan-receipt", key, map[string]any{"image_base64": "!!!"}), 400, "image_base64"},
			{"bad mime", e.api("POST", "/v1/scan-receipt", key, map[string]any{"image_base64": "aGk=", "mime_type": "image/gif"}), 400, "mime_type"},
			{"unknown field", e.api("POST", "/v1/scan-receipt", key, map[string]any{"image_base64": "aGk=", "userId": 1}), 400, "body"},
			{"free confirm", e.api("POST", "/v1/scan-receipt/confirm", free, map[string]any{"items": []any{}}), 403, ""},
		}
		for _, c := range cases {
			if c.r.Status != c.status || (c.field != "" && !strings.Contains(string(c.r.Body), `"field":"`+c.field+`"`)) {
				t.Errorf("%s: %d %s", c.name, c.r.Status, c.r.Body)
			}
		}
		// Free accounts: five scans per 30 days, then 429 with the reset.
		text := []byte("JM Bullion Order Number: JMB-1 Date Placed: March 2, 2026\n1 oz Silver Eagle 2 $35.00 $70.00\nTotal $70.00\n")
		for i := range 5 {
			if r := scanAPI(e, free, "order.txt", text); r.Status != 200 || !strings.Contains(string(r.Body), fmt.Sprintf(`"scans_left":%d`, 4-i)) {
				t.Fatalf("free scan %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		r := scanAPI(e, free, "order.txt", text)
		if r.Status != 429 || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), `"reset":"`) {
			t.Fatalf("sixth free scan: %d %v %s", r.Status, r.Header, r.Body)
		}
	})
}

var scanRowsRe = `name="rows" value="`

// TestScanPage drives the page: upload, the proposal as a form with dealer and date filled in,
// a warning highlighted, and "Add to holdings" storing the ticked lines.
func TestScanPage(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("page@example.com")
		r := b.get("/portfolio/scan")
		if r.Status != 200 || !strings.Contains(string(r.Body), `capture="environment"`) || !strings.Contains(string(r.Body), `accept="image/*`) {
			t.Fatalf("page: %d", r.Status)
		}
		body, ct := scanMultipart(t, "/portfolio/scan", "mm.pdf", receiptFixture(t, "moneymetals.pdf"))
		req := httptest.NewRequest("POST", "/portfolio/scan", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.csrf)
		r = b.send(req)
		page := string(r.Body)
		if r.Status != 200 || !strings.Contains(page, `id="scan-result"`) || !strings.Contains(page, `value="Money Metals Exchange"`) ||
			!strings.Contains(page, `value="2026-01-28"`) || !strings.Contains(page, scanRowsRe+`3"`) {
			t.Fatalf("proposal: %d %s", r.Status, page)
		}
		if !strings.Contains(page, "but the total reads $6,464.20") || !strings.Contains(page, "bg-amber-100") {
			t.Fatalf("the total's mismatch is not highlighted: %s", page)
		}
		// Untick the last line and correct the first's quantity.
		form := url.Values{"dealer": {"Money Metals Exchange"}, "order_number": {"MME-2026-77120"}, "order_date": {"2026-01-28"}, "rows": {"3"}}
		for i, l := range [][]string{{"gold", "1/10 oz Gold American Eagle", "10", "0.1", "462.00"}, {"silver", "10 oz Silver Bar", "5", "10", "352.00"}, {"silver", "1 oz Silver Krugerrand", "2", "1", "37.10"}} {
			k := fmt.Sprint(i)
			if i < 2 {
				form.Set("include_"+k, "1")
			}
			form.Set("metal_"+k, l[0])
			form.Set("product_name_"+k, l[1])
			form.Set("quantity_"+k, l[2])
			form.Set("weight_oz_"+k, l[3])
			form.Set("unit_price_"+k, l[4])
			form.Set("fees_"+k, "0.00")
		}
		form.Set("quantity_0", "ten")
		r = b.post("/portfolio/scan/confirm", form, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Nothing was added") || !strings.Contains(string(r.Body), "Line 1, quantity") {
			t.Fatalf("bad line: %d %s", r.Status, r.Body)
		}
		if _, n, _ := e.store.HoldingsByUser(t.Context(), 1, db.HoldingFilter{Limit: 10}); n != 0 {
			t.Fatalf("a refused confirm stored %d holdings", n)
		}
		form.Set("quantity_0", "10")
		r = b.post("/portfolio/scan/confirm", form, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Added 2 holdings") {
			t.Fatalf("confirm: %d %s", r.Status, r.Body)
		}
	})
}
