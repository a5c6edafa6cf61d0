package custody

import (
	"testing"

	"github.com/ouncehq/ounce/internal/apperr"
)

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"../../etc/passwd":        "passwd.pdf",
		`C:\Users\me\receipt.PDF`: "receipt.pdf",
		"  \x00bad\"name<>.jpg ":  "badname.pdf",
		"":                        "document.pdf",
	} {
		if got := cleanName(in, ".pdf"); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSniffAndPolyglot(t *testing.T) {
	if ct, _, err := sniffDocument([]byte("%PDF-1.7 ...")); err != nil || ct != "application/pdf" {
		t.Errorf("pdf: %q %v", ct, err)
	}
	for name, b := range map[string]string{"zip": "PK\x03\x04rest", "webp": "RIFF\x00\x00\x00\x00WEBPVP8 ", "gif": "GIF89a", "empty": ""} {
		_, _, err := sniffDocument([]byte(b))
		if e, ok := apperr.As(err); !ok || len(e.Fields) == 0 || e.Fields[0].Field != "file" {
			t.Errorf("%s accepted or not naming file: %v", name, err)
		}
	}
	if w := polyglot([]byte("%PDF-1.4 stream PK\x03\x04"), "application/pdf"); w == "" {
		t.Error("a PDF holding a ZIP passed")
	}
	if w := polyglot([]byte("%PDF-1.4 plain text stream"), "application/pdf"); w != "" {
		t.Errorf("a plain PDF refused as %s", w)
	}
	if w := polyglot([]byte("\xff\xd8\xff...<HTML><body>"), "image/jpeg"); w == "" {
		t.Error("a JPEG holding a web page passed")
	}
}
