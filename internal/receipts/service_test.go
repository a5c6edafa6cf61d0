package receipts

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
)

var testNow = time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)

func newTestService(t *testing.T, s *db.Store, cfg Config, look func(string) (string, error)) *Service {
	t.Helper()
	testService(t) // the tools must be here
	cfg.TempDir = t.TempDir()
	return New(Deps{Store: s, Portfolio: portfolio.New(portfolio.Deps{Store: s, Now: func() time.Time { return testNow }}),
		Config: cfg, Now: func() time.Time { return testNow }, LookPath: look})
}

func member(t *testing.T, s *db.Store, email, tier string) db.User {
	t.Helper()
	u, err := s.InsertUser(context.Background(), email, "x", tier, false)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/rendered", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestScanAndConfirm is the promise at the service: a text PDF and a rendered image of
// the same receipt each propose the right lots, and confirming adds exactly those.
func TestScanAndConfirm(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, st *db.Store) {
		ctx := t.Context()
		svc := newTestService(t, st, Config{}, nil)
		u := member(t, st, "gold@example.com", db.TierGold)
		w := loadWant(t, "apmex")
		for _, f := range []string{"apmex.pdf", "apmex-150.png"} {
			r, err := svc.Scan(ctx, u, fixture(t, f))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var misses []string
			var sc fieldScore
			score(w, r, &sc, &misses)
			if len(misses) > 0 || len(r.Warnings) > 0 {
				t.Fatalf("%s: %v warnings %+v", f, misses, r.Warnings)
			}
			if r.ScansLeft != 60-1 && f == "apmex.pdf" {
				t.Errorf("scans left %d", r.ScansLeft)
			}
		}
		r, _ := svc.Scan(ctx, u, fixture(t, "apmex.pdf"))
		in := ConfirmInput{Dealer: r.Dealer, OrderNumber: r.OrderNumber, OrderDate: r.OrderDate.String()}
		for _, it := range r.Items {
			in.Lines = append(in.Lines, ConfirmLine{Metal: string(it.Metal), ProductName: it.ProductName, Quantity: fmt.Sprint(it.Quantity),
				WeightOz: it.WeightOz.String(), UnitPrice: "$" + it.UnitPrice.Decimal.StringFixed(2), Fees: it.Fees.StringFixed(2)})
		}
		res, err := svc.Confirm(ctx, u, in)
		if err != nil || res.Imported != 3 {
			t.Fatalf("confirm: %+v %v", res, err)
		}
		rows, err := st.AllHoldings(ctx, u.ID)
		if err != nil || len(rows) != 3 {
			t.Fatalf("holdings %d %v", len(rows), err)
		}
		got := map[string]string{}
		for _, h := range rows {
			got[h.ProductName] = fmt.Sprintf("%s %d %s %s %s %s %s", h.Metal, h.Quantity, h.WeightOz, h.PurchasePrice.StringFixed(2), h.Dealer, h.PurchaseDate, h.Notes)
		}
		want := map[string]string{
			"2026 1 oz American Silver Eagle BU":    "silver 20 1 34.10 APMEX 2026-03-14 From a scanned receipt, order 71230045",
			"1/10 oz Gold Maple Leaf (Random Year)": "gold 5 0.1 312.40 APMEX 2026-03-14 From a scanned receipt, order 71230045",
			"10 oz Silver Bar - APMEX .999 Fine":    "silver 2 10 338.50 APMEX 2026-03-14 From a scanned receipt, order 71230045",
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: got %q want %q", k, got[k], v)
			}
		}
		// Confirming the same receipt again adds nothing twice.
		if res, err := svc.Confirm(ctx, u, in); err != nil || res.Imported != 0 || res.SkippedDuplicates != 3 {
			t.Fatalf("second confirm: %+v %v", res, err)
		}
		// One bad line stores nothing of the receipt.
		in.Lines = append(in.Lines, ConfirmLine{Metal: "tin", ProductName: "x", Quantity: "1", WeightOz: "1", UnitPrice: "1"})
		in.Lines[0].Quantity = "21"
		_, err = svc.Confirm(ctx, u, in)
		if apperr.KindOf(err) != apperr.Unprocessable {
			t.Fatalf("bad line: %v", err)
		}
		if rows, _ := st.AllHoldings(ctx, u.ID); len(rows) != 3 {
			t.Fatalf("a refused confirm stored %d rows", len(rows)-3)
		}
		// Free members may scan but holdings are Gold's.
		free := member(t, st, "free@example.com", db.TierFree)
		if _, err := svc.Confirm(ctx, free, in); apperr.KindOf(err) != apperr.MembershipRequired {
			t.Fatalf("free confirm: %v", err)
		}
	})
}

func TestScanLimits(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, st *db.Store) {
		ctx := t.Context()
		svc := newTestService(t, st, Config{GoldScansPerHour: 2}, nil)
		text := []byte(emailReceipt)
		free := member(t, st, "free@example.com", db.TierFree)
		for i := range 5 {
			r, err := svc.Scan(ctx, free, text)
			if err != nil || r.ScansLeft != 4-i {
				t.Fatalf("free scan %d: left %d err %v", i+1, r.ScansLeft, err)
			}
		}
		_, err := svc.Scan(ctx, free, text)
		e, ok := apperr.As(err)
		if !ok || e.Kind != apperr.RateLimited || e.RetryAfter != 30*24*time.Hour || !strings.Contains(e.Msg, "1 May 2026") {
			t.Fatalf("sixth free scan: %v", err)
		}
		// A refused file costs nothing.
		if _, err := svc.Scan(ctx, member(t, st, "f2@example.com", db.TierFree), []byte("GIF89a")); apperr.KindOf(err) != apperr.Invalid {
			t.Fatalf("gif: %v", err)
		}
		gold := member(t, st, "gold@example.com", db.TierGold)
		for range 2 {
			if _, err := svc.Scan(ctx, gold, text); err != nil {
				t.Fatal(err)
			}
		}
		_, err = svc.Scan(ctx, gold, text)
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.RateLimited || e.RetryAfter != time.Hour {
			t.Fatalf("gold over the hourly cap: %v", err)
		}
		a, err := svc.AllowanceFor(ctx, gold)
		if err != nil || a.Left != 0 || a.Limit != 2 || !a.Gold {
			t.Fatalf("allowance %+v %v", a, err)
		}
	})
}

// TestMissingTool: a scan needing a tool the machine lacks is a 503 naming the package, and
// does not use up the member's allowance.
func TestMissingTool(t *testing.T) {
	st := dbtest.SQLite(t)
	look := func(name string) (string, error) {
		if name == toolTesseract {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(name)
	}
	svc := newTestService(t, st, Config{}, look)
	u := member(t, st, "free@example.com", db.TierFree)
	_, err := svc.Scan(t.Context(), u, fixture(t, "hero-150.png"))
	if e, ok := apperr.As(err); !ok || e.Kind != apperr.Unavailable || !strings.Contains(e.Msg, "tesseract-ocr") {
		t.Fatalf("want 503 naming tesseract-ocr, got %v", err)
	}
	if a, _ := svc.AllowanceFor(t.Context(), u); a.Left != 5 {
		t.Fatalf("a failed scan on our side counted: %d left", a.Left)
	}
}

func pngOf(t *testing.T, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pdfWith builds a minimal PDF with n pages and the given content stream on each.
func pdfWith(n int, stream []byte, filter string) []byte {
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n")
	var offs []int
	obj := func(s string) {
		offs = append(offs, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", len(offs), s)
	}
	kids := ""
	for i := range n {
		kids += fmt.Sprintf("%d 0 R ", 4+i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, n))
	obj(fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(stream), filter, stream))
	for range n {
		obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>")
	}
	x := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, x)
	return out.Bytes()
}

// TestHostileFiles: damaged, truncated, bomb-like and two-format files are the member's 4xx,
// never a 5xx, and nothing is left behind in the temp dir.
func TestHostileFiles(t *testing.T) {
	st := dbtest.SQLite(t)
	svc := newTestService(t, st, Config{GoldScansPerHour: 1000}, nil)
	u := member(t, st, "gold@example.com", db.TierGold)
	good := fixture(t, "apmex-150.png")
	photo := fixture(t, "apmex-photo.jpg")
	pdf := fixture(t, "apmex.pdf")

	// 36 megapixels of one gray: under the pixel cap, but thousands of times its file size.
	bomb := pngOf(t, image.NewGray(image.Rect(0, 0, 6000, 6000)))
	// A header claiming 50,000 × 50,000 pixels in front of a tiny image.
	huge := pngOf(t, image.NewGray(image.Rect(0, 0, 8, 8)))
	huge = append([]byte{}, huge...)
	copy(huge[16:24], []byte{0, 0, 0xC3, 0x50, 0, 0, 0xC3, 0x50})
	var zeros bytes.Buffer
	zw := zlib.NewWriter(&zeros)
	_, _ = zw.Write(make([]byte, 64<<20))
	_ = zw.Close()

	cases := []struct {
		name string
		data []byte
		kind apperr.Kind
	}{
		{"empty", nil, apperr.Invalid},
		{"gif", []byte("GIF89a\x01\x00\x01\x00"), apperr.Invalid},
		{"heic", append([]byte("\x00\x00\x00\x18ftypheic"), make([]byte, 64)...), apperr.Invalid},
		{"zip", []byte("PK\x03\x04rest of a zip"), apperr.Invalid},
		{"binary", []byte{0x00, 0x01, 0x02, 0xfe, 0xff}, apperr.Invalid},
		{"over 10 MB", append([]byte("%PDF-1.4\n"), make([]byte, MaxFileBytes)...), apperr.TooLarge},
		{"truncated png", good[:len(good)/2], apperr.Unprocessable},
		{"png header only", good[:40], apperr.Unprocessable},
		{"png bad checksum", flip(good, 60), apperr.Unprocessable},
		{"png + zip polyglot", append(append([]byte{}, good...), []byte("PK\x03\x04 a hidden archive")...), apperr.Unprocessable},
		{"png decompression bomb", bomb, apperr.Unprocessable},
		{"png claims 2.5 gigapixels", huge, apperr.Unprocessable},
		{"jpeg header only", photo[:200], apperr.Unprocessable},
		{"jpeg truncated", photo[:len(photo)/3], 0},
		{"pdf garbage", []byte("%PDF-1.7\nthis is not a pdf at all\n"), apperr.Unprocessable},
		{"pdf truncated", pdf[:len(pdf)/2], 0},
		{"pdf 21 pages", pdfWith(21, []byte("BT ET"), ""), apperr.Unprocessable},
		{"pdf flate bomb", pdfWith(1, zeros.Bytes(), "/Filter /FlateDecode"), 0},
		{"pdf html polyglot", append([]byte("%PDF-1.4\n<html><script>alert(1)</script>"), pdf[9:]...), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.Scan(t.Context(), u, c.data)
			k := apperr.KindOf(err)
			if err != nil && (k == apperr.Internal || k == apperr.Unavailable) {
				t.Fatalf("a file's problem became a 5xx: %v", err)
			}
			if c.kind != 0 && k != c.kind {
				t.Fatalf("want %v, got %v (%v)", c.kind, k, err)
			}
		})
	}
	left, _ := filepath.Glob(filepath.Join(svc.cfg.TempDir, "*"))
	if len(left) > 0 {
		t.Fatalf("files left behind: %v", left)
	}
}

func flip(b []byte, at int) []byte {
	c := append([]byte{}, b...)
	c[at] ^= 0xFF
	return c
}

func TestSniffNeverTrustsNames(t *testing.T) {
	for in, want := range map[string]Kind{"\x89PNG\r\n\x1a\nxx": KindPNG, "\xff\xd8\xff\xe0": KindJPEG, "%PDF-1.4": KindPDF, "Order 1\n$5.00": KindText, "\xef\xbb\xbfBOM text": KindText} {
		if k, err := Sniff([]byte(in)); err != nil || k != want {
			t.Errorf("%q: %v %v", in, k, err)
		}
	}
	if _, err := Sniff([]byte("text with a NUL\x00 byte")); !errors.Is(err, apperr.ErrInvalid) {
		t.Errorf("NUL: %v", err)
	}
}
