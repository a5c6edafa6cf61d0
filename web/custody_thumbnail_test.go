package web_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// pdfImages lists a PDF's images with pdfimages -list (poppler-utils): one line per image
// after the two header lines.
func pdfImages(t *testing.T, pdf []byte) []string {
	t.Helper()
	bin, err := exec.LookPath("pdfimages")
	if err != nil {
		t.Fatal("pdfimages is needed to list the PDF's images (poppler-utils; .ci/tools installs it)")
	}
	p := filepath.Join(t.TempDir(), "s.pdf")
	if err := os.WriteFile(p, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-list", p).Output()
	if err != nil {
		t.Fatalf("pdfimages: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		t.Fatalf("pdfimages -list: %q", out)
	}
	return lines[2:]
}

// TestInventoryPDFThumbnail: a lot with a PNG attached shows a thumbnail in the inventory PDF,
// scaled down (the PDF stays small); a statement of lots without photos (or with only a PDF
// attached) holds no image (both engines).
func TestInventoryPDFThumbnail(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("thumb@example.com", db.TierGold)
		loc := func(name string) string {
			t.Helper()
			r := e.api("POST", "/v1/locations", key, map[string]any{"name": name, "kind": "home"})
			if r.Status != 201 {
				t.Fatalf("location: %d %s", r.Status, r.Body)
			}
			return r.JSON(t)["id"].(string)
		}
		withPhoto, without := loc("Photo safe"), loc("Plain safe")
		lot := func(where string) string {
			return pfCreate(t, e, key, map[string]any{"metal": "silver", "product_name": "1 oz Eagle", "quantity": 2, "weight_oz": 1, "purchase_price": 32,
				"purchase_date": "2026-10-02", "location_id": where})
		}
		a, b := lot(withPhoto), lot(without)
		// A large, noisy PNG: the thumbnail must be far smaller than it.
		rnd := rand.New(rand.NewPCG(1, 2))
		img := image.NewNRGBA(image.Rect(0, 0, 400, 300))
		for y := 0; y < 300; y++ {
			for x := 0; x < 400; x++ {
				img.Set(x, y, color.NRGBA{uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), 255})
			}
		}
		var pb bytes.Buffer
		_ = png.Encode(&pb, img)
		if r := e.upload(key, a, "coin.png", pb.Bytes()); r.Status != 201 {
			t.Fatalf("upload png: %d %s", r.Status, r.Body)
		}
		pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
		if r := e.upload(key, b, "receipt.pdf", pdf); r.Status != 201 {
			t.Fatalf("upload pdf: %d %s", r.Status, r.Body)
		}

		stmt := func(q string) []byte {
			t.Helper()
			r := e.api("GET", "/v1/reports/inventory?format=pdf&"+q, key, nil)
			if r.Status != 200 {
				t.Fatalf("statement %s: %d %.200s", q, r.Status, r.Body)
			}
			return r.Body
		}
		got := stmt("location_id=" + withPhoto)
		imgs := pdfImages(t, got)
		if len(imgs) != 1 {
			t.Fatalf("the statement of a lot with a photo lists %d images: %v", len(imgs), imgs)
		}
		// page num type width height …: the thumbnail is at most 96 px wide.
		if f := strings.Fields(imgs[0]); len(f) < 5 || f[2] != "image" || f[3] != "96" || f[4] != "72" {
			t.Errorf("thumbnail: %q", imgs[0])
		}
		if len(got) > 60<<10 || len(got) >= pb.Len() {
			t.Errorf("the statement is %d bytes for a %d-byte photo", len(got), pb.Len())
		}
		if !strings.Contains(pdfText(t, got), "1 oz Eagle") {
			t.Errorf("the lot with a photo is not listed")
		}
		if imgs := pdfImages(t, stmt("location_id="+without)); len(imgs) != 0 {
			t.Errorf("a statement without photos lists images: %v", imgs)
		}
		if imgs := pdfImages(t, stmt("")); len(imgs) != 1 {
			t.Errorf("the whole statement lists %d images", len(imgs))
		}
	})
}
