package custody

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"path"
	"strings"
	"unicode"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// Document is a file attached to a lot.
type Document = db.Document

// Document limits.
const (
	// MaxDocumentBytes is the largest file: 10 MB.
	MaxDocumentBytes = 10 << 20
	// MaxMemberBytes is what one member's documents may take in all: 500 MB.
	MaxMemberBytes = 500 << 20
	// MaxMegapixels bounds an image, read from its header before decoding.
	MaxMegapixels = 40
	// MaxExpansion bounds decoded size ÷ file size (a decompression bomb expands far more).
	MaxExpansion = 100
	maxDocName   = 200
)

// DocumentStore is what documents use of the storage.
type DocumentStore interface {
	DeleteDocument(ctx context.Context, userID int64, id string) error
	DocumentBody(ctx context.Context, userID int64, id string) ([]byte, error)
	DocumentByID(ctx context.Context, userID int64, id string) (db.Document, error)
	DocumentsByUser(ctx context.Context, userID int64) ([]db.Document, error)
	DocumentsOf(ctx context.Context, userID int64, holdingID string) ([]db.Document, error)
	InsertDocument(ctx context.Context, d db.Document, body []byte, quota int64) (db.Document, error)
}

var _ DocumentStore = (*db.Store)(nil)

// sniffDocument tells a document's type from its bytes and refuses every other: what it says
// it is (name, Content-Type) is never trusted.
func sniffDocument(b []byte) (contentType, ext string, err error) {
	switch {
	case len(b) == 0:
		return "", "", apperr.InvalidField("file", "is empty")
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png", ".png", nil
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg", ".jpg", nil
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return "application/pdf", ".pdf", nil
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "", "", unprocessable("is a WebP image; send a JPEG or PNG (a screenshot will do)")
	case bytes.HasPrefix(b, []byte("PK\x03\x04")), bytes.HasPrefix(b, []byte{0x1F, 0x8B}):
		return "", "", unprocessable("is an archive (ZIP or gzip); send each photo or PDF on its own")
	}
	return "", "", unprocessable("is not a JPEG or PNG image or a PDF")
}

func unprocessable(msg string) error {
	return &apperr.Error{Kind: apperr.Unprocessable, Msg: "file: " + msg, Fields: []apperr.FieldError{{Field: "file", Message: msg}}}
}

// otherFormats are signatures that have no place inside a photo or a PDF: a file carrying
// one is two formats at once (a polyglot) and is refused.
var otherFormats = []struct {
	sig  string
	what string
}{{"PK\x03\x04", "a ZIP archive"}, {"%PDF-", "a PDF"}, {"<script", "a script"}, {"<html", "a web page"}, {"<svg", "an SVG image"}}

// polyglot names the other format hidden in b, or "".
func polyglot(b []byte, contentType string) string {
	low := bytes.ToLower(b)
	for _, o := range otherFormats {
		if contentType == "application/pdf" && o.sig == "%PDF-" {
			if bytes.Count(b, []byte(o.sig)) > 1 {
				return "a second PDF"
			}
			continue
		}
		found := bytes.Contains(b, []byte(o.sig)) // binary signatures match exactly
		if o.sig[0] == '<' {
			found = bytes.Contains(low, []byte(o.sig)) // markup in any case
		}
		if found {
			return o.what
		}
	}
	if contentType == "application/pdf" && (bytes.Contains(b, []byte("/JavaScript")) || bytes.Contains(b, []byte("/JS ")) || bytes.Contains(b, []byte("/Launch"))) {
		return "a script (PDFs that run code are not kept)"
	}
	return ""
}

// cleanImage decodes an image within the limits and encodes it again: what comes back is the
// pixels only, without EXIF (GPS position, camera serial), comments or appended bytes.
func cleanImage(b []byte, contentType string) ([]byte, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, unprocessable("is a damaged or truncated image")
	}
	px := int64(cfg.Width) * int64(cfg.Height)
	if px > MaxMegapixels*1_000_000 {
		return nil, unprocessable("is over 40 megapixels; resize it")
	}
	bits := int64(32)
	if cfg.ColorModel == color.GrayModel {
		bits = 8
	}
	if px*bits/8 > int64(len(b))*MaxExpansion {
		return nil, unprocessable("would expand over 100× when decoded (a decompression bomb)")
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, unprocessable("is a damaged or truncated image")
	}
	var out bytes.Buffer
	if contentType == "image/jpeg" {
		err = jpeg.Encode(&out, img, &jpeg.Options{Quality: 90})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img)
	}
	return out.Bytes(), err
}

// cleanName keeps a file name's base, printable and short, ending in the type's extension.
func cleanName(name, ext string) string {
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || strings.ContainsRune(`"/\<>:|?*`, r) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(strings.TrimSuffix(name, path.Ext(name)))
	if name == "" || name == "." {
		name = "document"
	}
	if r := []rune(name); len(r) > maxDocName {
		name = string(r[:maxDocName])
	}
	return name + ext
}

// checkDocument tells a document's type from its bytes, refuses polyglots and strips images
// of their metadata, answering the name to keep, the type and the bytes to store. Every
// document goes through it: uploads and the ZIP import.
func checkDocument(name string, body []byte) (string, string, []byte, error) {
	ct, ext, err := sniffDocument(body)
	if err != nil {
		return "", "", nil, err
	}
	if what := polyglot(body, ct); what != "" {
		return "", "", nil, unprocessable("also holds " + what + ": a file that is two formats at once is not kept")
	}
	if ct != "application/pdf" {
		if body, err = cleanImage(body, ct); err != nil {
			return "", "", nil, err
		}
	}
	return cleanName(name, ext), ct, body, nil
}

// Upload checks a file and attaches it to the member's lot.
func (s *Service) Upload(ctx context.Context, u db.User, holdingID, name string, body []byte) (Document, error) {
	h, err := s.portfolio.GetHolding(ctx, u, holdingID)
	if err != nil {
		return Document{}, err
	}
	if len(body) > MaxDocumentBytes {
		return Document{}, apperr.New(apperr.TooLarge, "the file is over 10 MB")
	}
	name, ct, body, err := checkDocument(name, body)
	if err != nil {
		return Document{}, err
	}
	d, err := s.docs.InsertDocument(ctx, db.Document{UserID: u.ID, HoldingID: h.ID, Name: name, ContentType: ct}, body, MaxMemberBytes)
	switch {
	case errors.Is(err, db.ErrQuota):
		return Document{}, apperr.New(apperr.TooLarge, "your documents would take over 500 MB; delete some first")
	case errors.Is(err, db.ErrNotFound):
		return Document{}, apperr.NotFoundf("holding")
	}
	return d, err
}

// Documents lists the documents of the member's lot.
func (s *Service) Documents(ctx context.Context, u db.User, holdingID string) ([]Document, error) {
	if _, err := s.portfolio.GetHolding(ctx, u, holdingID); err != nil {
		return nil, err
	}
	return s.docs.DocumentsOf(ctx, u.ID, holdingID)
}

// DocumentFile is the member's document with its bytes; anyone else's is not found.
func (s *Service) DocumentFile(ctx context.Context, u db.User, id string) (Document, []byte, error) {
	if err := requireGold(u); err != nil {
		return Document{}, nil, err
	}
	d, err := s.docs.DocumentByID(ctx, u.ID, id)
	if err != nil {
		return Document{}, nil, docErr(err)
	}
	body, err := s.docs.DocumentBody(ctx, u.ID, id)
	return d, body, docErr(err)
}

// DeleteDocument removes the member's document.
func (s *Service) DeleteDocument(ctx context.Context, u db.User, id string) error {
	if err := requireGold(u); err != nil {
		return err
	}
	return docErr(s.docs.DeleteDocument(ctx, u.ID, id))
}

func docErr(err error) error {
	if errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("document")
	}
	return err
}
