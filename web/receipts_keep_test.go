package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// scanReply is the part of a scan answer these tests read.
type scanReply struct {
	scanJSON
	Currency       string  `json:"currency"`
	CurrencySource string  `json:"currency_source"`
	ScanID         *int64  `json:"scan_id"`
	FileNote       *string `json:"file_note"`
}

type confirmReply struct {
	Imported          int      `json:"imported"`
	SkippedDuplicates int      `json:"skipped_duplicates"`
	HoldingIDs        []string `json:"holding_ids"`
	Currency          *string  `json:"currency"`
	ReceiptKept       int      `json:"receipt_kept"`
	ReceiptNote       *string  `json:"receipt_note"`
}

func decodeScanReply(t *testing.T, r resp) scanReply {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("scan: %d %s", r.Status, r.Body)
	}
	var s scanReply
	if err := json.Unmarshal(r.Body, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// confirmScan confirms every proposed line of s as read, with its currency and scan_id.
func confirmScan(t *testing.T, e *env, key string, s scanReply) confirmReply {
	t.Helper()
	var items []map[string]any
	for _, it := range s.Items {
		items = append(items, map[string]any{"metal": it.Metal, "product_name": it.ProductName, "quantity": it.Quantity,
			"weight_oz": json.RawMessage(it.WeightOz), "unit_price": json.RawMessage(it.UnitPrice), "fees": json.RawMessage(it.Fees)})
	}
	body := map[string]any{"dealer": s.Dealer, "order_number": s.OrderNumber, "order_date": s.OrderDate, "currency": s.Currency, "items": items}
	if s.ScanID != nil {
		body["scan_id"] = *s.ScanID
	}
	r := e.api("POST", "/v1/scan-receipt/confirm", key, body)
	if r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	var c confirmReply
	if err := json.Unmarshal(r.Body, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func holdingCurrency(t *testing.T, e *env, key, id string) string {
	t.Helper()
	r := e.api("GET", "/v1/holdings/"+id, key, nil)
	if r.Status != 200 {
		t.Fatalf("holding %s: %d %s", id, r.Status, r.Body)
	}
	cur, _ := r.JSON(t)["purchase_currency"].(string)
	return cur
}

type docJSON struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

func holdingDocs(t *testing.T, e *env, key, id string) []docJSON {
	t.Helper()
	r := e.api("GET", "/v1/holdings/"+id+"/documents", key, nil)
	if r.Status != 200 {
		t.Fatalf("documents of %s: %d %s", id, r.Status, r.Body)
	}
	var out struct {
		Documents []docJSON `json:"documents"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Documents
}

// TestScanReceiptKeptInEUR: a receipt printing euros is proposed in EUR, read (not assumed);
// confirming it creates lots bought in EUR, each carrying the scanned PDF as a document whose
// bytes download back. A receipt printing no currency is proposed in the member's display
// currency, said to be assumed; a text receipt is not kept, and says so.
func TestScanReceiptKeptInEUR(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("eu@example.com", db.TierGold)
		pdf := receiptFixture(t, "edelmetall.pdf")
		s := decodeScanReply(t, scanAPI(e, key, "rechnung.pdf", pdf))
		if s.Currency != "EUR" || s.CurrencySource != "receipt" || s.ScanID == nil || s.FileNote != nil || len(s.Items) != 3 {
			t.Fatalf("scan: %+v", s)
		}
		if s.OrderNumber != "RE-2026-0415" || s.OrderDate != "2026-03-14" || string(s.Total) != "6609.20" || len(s.Warnings) != 0 {
			t.Fatalf("scan header: %+v", s)
		}
		c := confirmScan(t, e, key, s)
		if c.Imported != 3 || len(c.HoldingIDs) != 3 || c.Currency == nil || *c.Currency != "EUR" || c.ReceiptKept != 3 || c.ReceiptNote != nil {
			t.Fatalf("confirm: %+v", c)
		}
		for _, id := range c.HoldingIDs {
			if cur := holdingCurrency(t, e, key, id); cur != "EUR" {
				t.Fatalf("holding %s bought in %q, want EUR", id, cur)
			}
			docs := holdingDocs(t, e, key, id)
			if len(docs) != 1 || docs[0].ContentType != "application/pdf" || docs[0].Name != "Receipt RE-2026-0415 2026-03-14.pdf" || docs[0].Size != int64(len(pdf)) {
				t.Fatalf("documents of %s: %+v", id, docs)
			}
			g := e.api("GET", "/v1/documents/"+docs[0].ID, key, nil)
			if g.Status != 200 || !bytes.Equal(g.Body, pdf) {
				t.Fatalf("download: %d, %d bytes, want the %d scanned", g.Status, len(g.Body), len(pdf))
			}
		}
		// The scan's own copy is gone once used: the same scan_id keeps nothing new.
		more := confirmScan(t, e, key, s)
		if more.Imported != 0 || more.SkippedDuplicates != 3 || more.ReceiptKept != 0 {
			t.Fatalf("second confirm: %+v", more)
		}

		// No currency printed: the member's display currency, assumed; text is not kept.
		if r := e.api("PATCH", "/v1/account/settings", key, map[string]any{"display_currency": "GBP"}); r.Status != 200 {
			t.Fatalf("settings: %d %s", r.Status, r.Body)
		}
		text := []byte("Bullion Shop order 4471 Date: 2026-02-02\n1 oz Silver Britannia  10  28.40  284.00\nTotal 284.00\n")
		a := decodeScanReply(t, scanAPI(e, key, "order.txt", text))
		if a.Currency != "GBP" || a.CurrencySource != "assumed" || a.ScanID != nil || a.FileNote == nil || !strings.Contains(*a.FileNote, "text") {
			t.Fatalf("assumed: %+v", a)
		}
		ca := confirmScan(t, e, key, a)
		if ca.Imported != 1 || *ca.Currency != "GBP" || holdingCurrency(t, e, key, ca.HoldingIDs[0]) != "GBP" {
			t.Fatalf("assumed confirm: %+v", ca)
		}
		// A currency nobody quotes is refused, naming the field.
		bad := map[string]any{"currency": "XYZ", "items": []map[string]any{{"metal": "silver", "quantity": 1, "weight_oz": 1, "unit_price": 5}}}
		if r := e.api("POST", "/v1/scan-receipt/confirm", key, bad); r.Status != 400 || !strings.Contains(string(r.Body), `"field":"currency"`) {
			t.Fatalf("bad currency: %d %s", r.Status, r.Body)
		}
	})
}

// TestScanReceiptPageCurrency: the review page says the currency was read from the receipt,
// selects it, and carries the scan to the confirmation, which keeps the file.
func TestScanReceiptPageCurrency(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("page-eu@example.com")
		b.get("/portfolio/scan")
		body, ct := scanMultipart(t, "/portfolio/scan", "rechnung.pdf", receiptFixture(t, "edelmetall.pdf"))
		req := httptest.NewRequest("POST", "/portfolio/scan", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.csrf)
		r := b.send(req)
		page := string(r.Body)
		if r.Status != 200 || !strings.Contains(page, `<option value="EUR" selected>`) || !strings.Contains(page, "Read from the receipt.") ||
			!strings.Contains(page, `name="scan_id"`) || !strings.Contains(page, "€6,609.20") {
			t.Fatalf("proposal: %d %s", r.Status, page)
		}
		scanID := between(page, `name="scan_id" value="`, `"`)
		form := url.Values{"dealer": {""}, "order_number": {"RE-2026-0415"}, "order_date": {"2026-03-14"}, "currency": {"EUR"}, "scan_id": {scanID}, "rows": {"1"},
			"include_0": {"1"}, "metal_0": {"gold"}, "product_name_0": {"Krugerrand 1 oz Gold"}, "quantity_0": {"2"}, "weight_oz_0": {"1"}, "unit_price_0": {"2712,40"}, "fees_0": {"0"}}
		r = b.post("/portfolio/scan/confirm", form, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Added 1 holdings") || !strings.Contains(string(r.Body), "Bought in EUR.") ||
			!strings.Contains(string(r.Body), "The receipt is kept with each new holding") {
			t.Fatalf("confirm: %d %s", r.Status, r.Body)
		}
		u, err := e.store.UserByEmail(context.Background(), "page-eu@example.com")
		if err != nil {
			t.Fatal(err)
		}
		hs, _, err := e.store.HoldingsByUser(context.Background(), u.ID, db.HoldingFilter{Limit: 10})
		if err != nil || len(hs) != 1 || hs[0].PurchaseCurrency != "EUR" || hs[0].PurchasePrice.StringFixed(2) != "2712.40" {
			t.Fatalf("holdings %+v %v", hs, err)
		}
		docs, err := e.store.DocumentsOf(context.Background(), u.ID, hs[0].ID)
		if err != nil || len(docs) != 1 {
			t.Fatalf("documents %+v %v", docs, err)
		}
	})
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	j := strings.Index(s, to)
	if j < 0 {
		return ""
	}
	return s[:j]
}

// eachEngineRaw is eachEngine with a second connection to the same database, for a test that
// must put the store in a state no request can make quickly (500 MB of documents).
func eachEngineRaw(t *testing.T, fn func(t *testing.T, e *env, raw *sqlx.DB)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "ounce.db")
		s, err := db.Open(context.Background(), "", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if _, err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		raw, err := sqlx.Open("sqlite", path+"?_pragma=busy_timeout(10000)")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = raw.Close() })
		fn(t, newEnv(t, s, nil), raw)
	})
	t.Run("postgres", func(t *testing.T) {
		base, ok := dbtest.PostgresURL(t)
		if !ok {
			t.Skip(dbtest.SkipNoPostgres)
		}
		u := dbtest.PostgresSchema(t, base)
		s := dbtest.OpenPostgres(t, u)
		raw, err := sqlx.Open("postgres", u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = raw.Close() })
		fn(t, newEnv(t, s, nil), raw)
	})
}

// TestScanReceiptQuotaFull: when the member's documents are full, confirming a scan still
// creates its lots (in the receipt's currency), keeps no copy of the file, and the answer and
// the page say the receipt was not kept and why.
func TestScanReceiptQuotaFull(t *testing.T) {
	eachEngineRaw(t, func(t *testing.T, e *env, raw *sqlx.DB) {
		u, key := e.user("full@example.com", db.TierGold)
		// One small document, then its recorded size grown to the 500 MB allowance.
		id := e.api("POST", "/v1/holdings", key, validHolding()).JSON(t)["id"].(string)
		if r := e.upload(key, id, "filler.pdf", []byte("%PDF-1.4\nfiller\n%%EOF\n")); r.Status != 201 {
			t.Fatalf("filler: %d %s", r.Status, r.Body)
		}
		if _, err := raw.Exec(raw.Rebind(`UPDATE documents SET size = ? WHERE user_id = ?`), int64(500<<20), u.ID); err != nil {
			t.Fatal(err)
		}
		s := decodeScanReply(t, scanAPI(e, key, "rechnung.pdf", receiptFixture(t, "edelmetall.pdf")))
		if s.ScanID == nil {
			t.Fatalf("scan kept no file: %+v", s)
		}
		c := confirmScan(t, e, key, s)
		if c.Imported != 3 || len(c.HoldingIDs) != 3 || c.ReceiptKept != 0 || c.ReceiptNote == nil ||
			!strings.Contains(*c.ReceiptNote, "not kept") || !strings.Contains(*c.ReceiptNote, "500 MB") {
			t.Fatalf("confirm with full documents: %+v", c)
		}
		for _, h := range c.HoldingIDs {
			if holdingCurrency(t, e, key, h) != "EUR" || len(holdingDocs(t, e, key, h)) != 0 {
				t.Fatalf("holding %s", h)
			}
		}
		var pending int
		if err := raw.Get(&pending, `SELECT COUNT(*) FROM receipt_files`); err != nil || pending != 0 {
			t.Fatalf("the scan's copy was not deleted: %d %v", pending, err)
		}

		// The page says so too.
		b := e.browser()
		b.signUp("full-page@example.com")
		pu, err := e.store.UserByEmail(context.Background(), "full-page@example.com")
		if err != nil {
			t.Fatal(err)
		}
		b.get("/portfolio/scan")
		body, ct := scanMultipart(t, "/portfolio/scan", "apmex.pdf", receiptFixture(t, "apmex.pdf"))
		req := httptest.NewRequest("POST", "/portfolio/scan", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", b.csrf)
		page := string(b.send(req).Body)
		scanID := between(page, `name="scan_id" value="`, `"`)
		if scanID == "" || !strings.Contains(page, `<option value="USD" selected>`) {
			t.Fatalf("page proposal: %s", page)
		}
		// Fill this member's documents too: one lot with a document grown to the allowance.
		pkey, _, err := e.app.Account.CreateAPIKey(context.Background(), pu, "test")
		if err != nil {
			t.Fatal(err)
		}
		pid := e.api("POST", "/v1/holdings", pkey, validHolding()).JSON(t)["id"].(string)
		if r := e.upload(pkey, pid, "filler.pdf", []byte("%PDF-1.4\nfiller\n%%EOF\n")); r.Status != 201 {
			t.Fatalf("filler: %d %s", r.Status, r.Body)
		}
		if _, err := raw.Exec(raw.Rebind(`UPDATE documents SET size = ? WHERE user_id = ?`), int64(500<<20), pu.ID); err != nil {
			t.Fatal(err)
		}
		form := url.Values{"dealer": {"APMEX"}, "order_number": {"71230045"}, "order_date": {"2026-03-14"}, "currency": {"USD"}, "scan_id": {scanID}, "rows": {"1"},
			"include_0": {"1"}, "metal_0": {"silver"}, "product_name_0": {"2026 1 oz American Silver Eagle BU"}, "quantity_0": {"20"}, "weight_oz_0": {"1"},
			"unit_price_0": {"34.10"}, "fees_0": {"0.00"}}
		r := b.post("/portfolio/scan/confirm", form, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "Added 1 holdings") || !strings.Contains(string(r.Body), `id="scan-not-kept"`) ||
			!strings.Contains(string(r.Body), "500 MB") {
			t.Fatalf("page confirm: %d %s", r.Status, r.Body)
		}
	})
}
