package web_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// zipExport downloads the member's ZIP export and unpacks it.
func zipExport(t *testing.T, e *env, key string) ([]byte, map[string][]byte) {
	t.Helper()
	r := e.api("GET", "/v1/holdings/export?format=zip", key, nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/zip" || !strings.Contains(r.Header.Get("Cache-Control"), "no-store") ||
		!strings.Contains(r.Header.Get("Content-Disposition"), ".zip") {
		t.Fatalf("zip export: %d %v %.200s", r.Status, r.Header, r.Body)
	}
	return r.Body, unzipAll(t, r.Body)
}

func unzipAll(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("export is not a ZIP: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	return out
}

// zipImport posts a ZIP as the import body.
func zipImport(e *env, key string, body []byte) resp {
	e.t.Helper()
	req := httptest.NewRequest("POST", "/v1/holdings/import", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/zip")
	req.Header.Set("Authorization", "Bearer "+key)
	return e.do(req)
}

// makeZip builds a ZIP of the named files, in the order given.
func makeZip(t *testing.T, files ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f[0], Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(w, f[1])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withoutIDColumn drops locations.csv's id column (ids change on import).
func withoutIDColumn(t *testing.T, b []byte) string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, strings.Join(r[1:], "\x1f"))
	}
	return strings.Join(out, "\n")
}

// TestHoldingsZipExportImport (issue 28): member A's ZIP export — locations, lots with notes
// and tags, a sale, a PDF and a PNG — imported into empty member B gives B an export with the
// same CSV, locations, manifest and document bytes; traversal, too many or too large entries
// are refused naming file, and a bad document stores nothing (both engines).
func TestHoldingsZipExportImport(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, a := e.user("zipa@example.com", db.TierGold)
		_, b := e.user("zipb@example.com", db.TierGold)
		loc := func(body map[string]any) string {
			t.Helper()
			r := e.api("POST", "/v1/locations", a, body)
			if r.Status != 201 {
				t.Fatalf("location: %d %s", r.Status, r.Body)
			}
			return r.JSON(t)["id"].(string)
		}
		home := loc(map[string]any{"name": "Home safe", "kind": "home", "notes": "=behind the boiler"})
		bank := loc(map[string]any{"name": "Bank box", "kind": "bank_box", "insured_value": 25000, "notes": "box 12"})
		lot1 := pfCreate(t, e, a, map[string]any{"metal": "silver", "product_name": "1 oz Eagle", "quantity": 20, "weight_oz": 1, "purchase_price": 32.5,
			"fees": 12.4, "dealer": "APMEX", "purchase_date": "2026-10-02", "notes": "tube, mint sealed", "location_id": home, "tags": []string{"tube", "eagles"}})
		lot2 := pfCreate(t, e, a, map[string]any{"metal": "gold", "product_name": "1 oz Bar", "quantity": 1, "weight_oz": 1, "purchase_price": 2650,
			"purchase_date": "2026-10-05", "notes": "assay card", "location_id": bank, "tags": []string{"bar"}})
		pfCreate(t, e, a, map[string]any{"metal": "silver", "product_name": "Junk dimes", "quantity": 50, "weight_oz": 0.0723, "purchase_price": 2.1, "purchase_date": "2026-10-09"})
		pfSell(t, e, a, lot1, map[string]any{"quantity": 5, "price_per_unit": 34, "fees": 1, "sold_on": "2026-11-01"})
		// The bar moves twice: its history travels in transfers.csv.
		for _, m := range []map[string]any{{"to_location_id": home, "date": "2026-11-03", "note": "=home for a week"}, {"to_location_id": bank, "date": "2026-11-10"}} {
			if r := e.api("POST", "/v1/holdings/"+lot2+"/move", a, m); r.Status != 201 {
				t.Fatalf("move: %d %s", r.Status, r.Body)
			}
		}

		pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
		img := image.NewNRGBA(image.Rect(0, 0, 8, 6))
		for x := 0; x < 8; x++ {
			img.Set(x, x%6, color.NRGBA{200, uint8(x * 30), 40, 255})
		}
		var pb bytes.Buffer
		_ = png.Encode(&pb, img)
		for _, up := range []struct {
			lot, name string
			body      []byte
		}{{lot1, "receipt.pdf", pdf}, {lot1, "coin.png", pb.Bytes()}, {lot2, "card.pdf", append(append([]byte{}, pdf...), "% card\n"...)}, {lot2, "bar.jpg", photoWithGPS(t)}} {
			if r := e.upload(a, up.lot, up.name, up.body); r.Status != 201 {
				t.Fatalf("upload %s: %d %s", up.name, r.Status, r.Body)
			}
		}

		raw, fa := zipExport(t, e, a)
		csvA := e.api("GET", "/v1/holdings/export?format=csv", a, nil).Body
		if !bytes.Equal(fa["holdings.csv"], csvA) {
			t.Fatalf("holdings.csv differs from format=csv:\n%s\n%s", fa["holdings.csv"], csvA)
		}
		docs := 0
		for name := range fa {
			if strings.HasPrefix(name, "documents/") {
				docs++
			}
		}
		if docs != 4 || !strings.Contains(string(fa["manifest.json"]), `"content_type": "image/png"`) || !strings.Contains(string(fa["locations.csv"]), "'=behind the boiler") {
			t.Fatalf("archive: %d documents\n%s\n%s", docs, fa["manifest.json"], fa["locations.csv"])
		}

		// A bad document in an otherwise good archive: nothing at all is stored.
		bad := map[string][]byte{}
		for k, v := range fa {
			bad[k] = v
		}
		for k := range bad {
			if strings.HasSuffix(k, "coin.png") {
				bad[k] = []byte("not a picture")
			}
		}
		var files [][2]string
		for k, v := range bad {
			files = append(files, [2]string{k, string(v)})
		}
		if r := zipImport(e, b, makeZip(t, files...)); r.Status != 422 || !strings.Contains(string(r.Body), `"field":"file"`) || !strings.Contains(string(r.Body), "coin.png") {
			t.Fatalf("bad document: %d %s", r.Status, r.Body)
		}
		if p := pfJSON(t, e.api("GET", "/v1/portfolio", b, nil)); p["holdings_count"].(interface{ String() string }).String() != "0" {
			t.Fatal("a failed ZIP import stored holdings")
		}
		if l := e.api("GET", "/v1/locations", b, nil).JSON(t)["locations"].([]any); len(l) != 0 {
			t.Fatalf("a failed ZIP import stored locations: %v", l)
		}

		// The real import, then B's export equals A's.
		r := zipImport(e, b, raw)
		if r.Status != 200 {
			t.Fatalf("zip import: %d %s", r.Status, r.Body)
		}
		pfCheck(t, pfJSON(t, r), "imported", "3")
		pfCheck(t, pfJSON(t, r), "sales", "1")
		_, fb := zipExport(t, e, b)
		if len(fb) != len(fa) {
			t.Fatalf("B's archive has %d files, A's %d", len(fb), len(fa))
		}
		for name, body := range fa {
			got, ok := fb[name]
			switch {
			case !ok:
				t.Errorf("B's archive lacks %s", name)
			case name == "locations.csv":
				if withoutIDColumn(t, got) != withoutIDColumn(t, body) {
					t.Errorf("locations differ:\n%s\n%s", got, body)
				}
			case !bytes.Equal(got, body):
				t.Errorf("%s differs:\n%.300q\n%.300q", name, got, body)
			}
		}

		// B's bar lists both transfers, between B's own locations of the same names.
		if !strings.Contains(string(fa["transfers.csv"]), "Home safe") {
			t.Errorf("transfers.csv: %s", fa["transfers.csv"])
		}
		bLocs := map[string]any{}
		for _, l := range e.api("GET", "/v1/locations", b, nil).JSON(t)["locations"].([]any) {
			l := l.(map[string]any)
			bLocs[l["name"].(string)] = l["id"]
		}
		var bar map[string]any
		for _, h := range pfJSON(t, e.api("GET", "/v1/holdings?q=1+oz+Bar", b, nil))["holdings"].([]any) {
			bar = e.api("GET", "/v1/holdings/"+h.(map[string]any)["id"].(string), b, nil).JSON(t)
		}
		tr, _ := bar["transfers"].([]any)
		if len(tr) != 2 {
			t.Fatalf("B's bar lists %d transfers: %v", len(tr), bar["transfers"])
		}
		first, second := tr[0].(map[string]any), tr[1].(map[string]any)
		if first["from_location_id"] != bLocs["Bank box"] || first["to_location_id"] != bLocs["Home safe"] || first["date"] != "2026-11-03" || first["note"] != "=home for a week" ||
			second["from_location_id"] != bLocs["Home safe"] || second["to_location_id"] != bLocs["Bank box"] || second["date"] != "2026-11-10" || second["note"] != "" {
			t.Errorf("B's transfers: %v", tr)
		}

		// An archive from before transfers were exported (no transfers.csv) still imports.
		var old [][2]string
		for k, v := range fa {
			if k != "transfers.csv" {
				old = append(old, [2]string{k, string(v)})
			}
		}
		_, d := e.user("zipd@example.com", db.TierGold)
		if r := zipImport(e, d, makeZip(t, old...)); r.Status != 200 {
			t.Fatalf("archive without transfers.csv: %d %s", r.Status, r.Body)
		}
		if _, fd := zipExport(t, e, d); string(fd["transfers.csv"]) != "row,from_location,to_location,date,note\n" {
			t.Errorf("transfers from an archive without them: %q", fd["transfers.csv"])
		}
		bogus := append(old, [2]string{"transfers.csv", "row,from_location,to_location,date,note\n2,Nowhere,,2026-11-03,\n"})
		if r := zipImport(e, b, makeZip(t, bogus...)); r.Status != 422 || !strings.Contains(string(r.Body), "Nowhere") {
			t.Errorf("a transfer naming an unlisted location: %d %s", r.Status, r.Body)
		}

		// The import page takes the ZIP too, and restores it at once.
		br := e.browser()
		br.signUp("zipc@example.com")
		br.get("/portfolio/import")
		var mp bytes.Buffer
		mw := multipart.NewWriter(&mp)
		_ = mw.WriteField("_csrf", br.csrf)
		fw, _ := mw.CreateFormFile("file", "ounce-holdings.zip")
		_, _ = fw.Write(raw)
		_ = mw.Close()
		req := httptest.NewRequest("POST", "/portfolio/import/preview", &mp)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("HX-Request", "true")
		if r := br.send(req); r.Status != 200 || !strings.Contains(string(r.Body), "Imported 3 holdings; skipped 0 duplicates") {
			t.Fatalf("page zip import: %d %.500s", r.Status, r.Body)
		}
		uc, _ := e.store.UserByEmail(t.Context(), "zipc@example.com")
		if ds, _ := e.store.DocumentsByUser(t.Context(), uc.ID); len(ds) != 4 {
			t.Fatalf("page zip import stored %d documents", len(ds))
		}

		// Refused archives: path traversal, too many entries, an entry too large.
		csvOnly := string(fa["holdings.csv"])
		many := [][2]string{{"holdings.csv", csvOnly}}
		for i := 0; i < 5001; i++ {
			many = append(many, [2]string{"documents/1/" + strconv.Itoa(i) + "-x.pdf", ""})
		}
		for name, body := range map[string][]byte{
			"traversal": makeZip(t, [2]string{"holdings.csv", csvOnly}, [2]string{"../../etc/passwd", "x"}),
			"absolute":  makeZip(t, [2]string{"holdings.csv", csvOnly}, [2]string{"/etc/passwd", "x"}),
			"too many":  makeZip(t, many...),
			"too large": makeZip(t, [2]string{"holdings.csv", csvOnly}, [2]string{"documents/1/1-big.pdf", "%PDF-1.4\n" + strings.Repeat("0", 11<<20)}),
			"no csv":    makeZip(t, [2]string{"notes.txt", "hello"}),
		} {
			if r := zipImport(e, b, body); r.Status != 422 || !strings.Contains(string(r.Body), `"field":"file"`) {
				t.Errorf("%s: %d %.300s", name, r.Status, r.Body)
			}
		}
		if p := pfJSON(t, e.api("GET", "/v1/portfolio", b, nil)); p["holdings_count"].(interface{ String() string }).String() != "3" {
			t.Errorf("refused archives changed B's holdings: %v", p["holdings_count"])
		}
	})
}
