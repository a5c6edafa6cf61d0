package web_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// upload posts a file to a lot's documents as multipart field file.
func (e *env) upload(key, holdingID, name string, body []byte) resp {
	e.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, _ := w.CreateFormFile("file", name)
	_, _ = fw.Write(body)
	_ = w.Close()
	req := httptest.NewRequest("POST", "/v1/holdings/"+holdingID+"/documents", &buf)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	return e.do(req)
}

// photo is a small JPEG with an EXIF segment carrying a GPS position right after its start.
func photoWithGPS(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for x := 0; x < 64; x++ {
		for y := 0; y < 48; y++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 5), 90, 255})
		}
	}
	var j bytes.Buffer
	if err := jpeg.Encode(&j, img, nil); err != nil {
		t.Fatal(err)
	}
	exif := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08GPSLatitude=51.5007N;GPSLongitude=0.1246W")
	seg := append([]byte{0xFF, 0xE1, 0, 0}, exif...)
	binary.BigEndian.PutUint16(seg[2:], uint16(len(exif)+2))
	b := j.Bytes()
	return append(append(append([]byte{}, b[:2]...), seg...), b[2:]...)
}

// pngBomb is a PNG whose header claims 6,000 × 6,000 pixels around a few bytes of data.
func pngBomb(t *testing.T) []byte {
	var p bytes.Buffer
	if err := png.Encode(&p, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := p.Bytes()
	// IHDR data starts at 16: width, height; its CRC covers type and data (12..29).
	binary.BigEndian.PutUint32(b[16:], 6000)
	binary.BigEndian.PutUint32(b[20:], 6000)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// TestCustodyDocuments: a photo comes back without its EXIF GPS position; archives, bombs,
// polyglots and other types are refused; a PDF is served as an attachment, never cached;
// another member's document is not found; documents go with their lot (both engines).
func TestCustodyDocuments(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("docs@example.com", db.TierGold)
		_, other := e.user("nosy@example.com", db.TierGold)
		id := e.api("POST", "/v1/holdings", key, validHolding()).JSON(t)["id"].(string)

		photo := photoWithGPS(t)
		if !bytes.Contains(photo, []byte("GPSLatitude")) {
			t.Fatal("the test photo has no GPS position")
		}
		r := e.upload(key, id, "../../IMG_0001.JPG", photo)
		if r.Status != 201 {
			t.Fatalf("upload photo: %d %s", r.Status, r.Body)
		}
		doc := r.JSON(t)["document"].(map[string]any)
		if doc["content_type"] != "image/jpeg" || doc["name"] != "IMG_0001.jpg" {
			t.Errorf("photo document: %v", doc)
		}
		g := e.api("GET", "/v1/documents/"+doc["id"].(string), key, nil)
		if g.Status != 200 || g.Header.Get("Cache-Control") != "no-store" || g.Header.Get("Content-Type") != "image/jpeg" {
			t.Fatalf("get photo: %d %v", g.Status, g.Header)
		}
		if bytes.Contains(g.Body, []byte("GPSLatitude")) || bytes.Contains(g.Body, []byte("Exif")) {
			t.Error("the photo came back with its EXIF GPS position")
		}
		if _, err := jpeg.Decode(bytes.NewReader(g.Body)); err != nil {
			t.Errorf("the photo came back unreadable: %v", err)
		}

		pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
		r = e.upload(key, id, "receipt.pdf", pdf)
		if r.Status != 201 {
			t.Fatalf("upload pdf: %d %s", r.Status, r.Body)
		}
		pid := r.JSON(t)["document"].(map[string]any)["id"].(string)
		g = e.api("GET", "/v1/documents/"+pid, key, nil)
		if !bytes.Equal(g.Body, pdf) || !strings.HasPrefix(g.Header.Get("Content-Disposition"), "attachment") || g.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("pdf: %d %v", g.Status, g.Header)
		}

		var zipBomb bytes.Buffer
		zipBomb.WriteString("PK\x03\x04\x14\x00\x00\x00\x08\x00")
		zipBomb.Write(bytes.Repeat([]byte{0}, 2000))
		jpegZip := append(append([]byte{}, photo...), []byte("PK\x03\x04\x14\x00payload.exe")...)
		for name, body := range map[string][]byte{
			"zip bomb":       zipBomb.Bytes(),
			"png bomb":       pngBomb(t),
			"jpeg+zip":       jpegZip,
			"pdf+html":       append(append([]byte{}, pdf...), []byte("<html><script>alert(1)</script>")...),
			"scripted pdf":   []byte("%PDF-1.4\n<< /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >>"),
			"gif":            []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"),
			"text":           []byte("just some text"),
			"truncated jpeg": photo[:40],
		} {
			if r := e.upload(key, id, "x.jpg", body); r.Status != 422 || !strings.Contains(string(r.Body), `"field":"file"`) {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		if r := e.upload(key, id, "big.pdf", append([]byte("%PDF-1.4\n"), make([]byte, 10<<20)...)); r.Status != 413 {
			t.Errorf("11 MB: %d", r.Status)
		}

		list := e.api("GET", "/v1/holdings/"+id+"/documents", key, nil).JSON(t)["documents"].([]any)
		if len(list) != 2 {
			t.Errorf("documents: %v", list)
		}
		for _, path := range []string{"/v1/documents/" + pid, "/v1/holdings/" + id + "/documents"} {
			if r := e.api("GET", path, other, nil); r.Status != 404 {
				t.Errorf("another member GET %s: %d", path, r.Status)
			}
		}
		if r := e.api("DELETE", "/v1/documents/"+pid, other, nil); r.Status != 404 {
			t.Errorf("another member DELETE: %d", r.Status)
		}
		if r := e.upload(other, id, "x.pdf", pdf); r.Status != 404 {
			t.Errorf("another member uploading to my lot: %d", r.Status)
		}
		if r := e.api("DELETE", "/v1/documents/"+pid, key, nil); r.Status != 204 {
			t.Errorf("delete: %d", r.Status)
		}
		if r := e.api("GET", "/v1/documents/"+pid, key, nil); r.Status != 404 {
			t.Errorf("deleted document: %d", r.Status)
		}
		if r := e.api("DELETE", "/v1/holdings/"+id, key, nil); r.Status != 204 {
			t.Fatalf("delete lot: %d", r.Status)
		}
		if r := e.api("GET", "/v1/documents/"+doc["id"].(string), key, nil); r.Status != 404 {
			t.Errorf("document outlived its lot: %d", r.Status)
		}
	})
}
