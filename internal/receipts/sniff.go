package receipts

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	_ "image/jpeg" // header reader for DecodeConfig
	_ "image/png"  // header reader for DecodeConfig
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ouncehq/ounce/internal/apperr"
)

// Kind is what an upload is, as its bytes say (never as its name or Content-Type claims).
type Kind string

// The kinds of upload a scan reads.
const (
	KindPDF  Kind = "pdf"
	KindPNG  Kind = "png"
	KindJPEG Kind = "jpeg"
	KindText Kind = "text"
)

// Upload limits.
const (
	// MaxFileBytes is the largest upload: 10 MB.
	MaxFileBytes = 10 << 20
	// MaxMegapixels bounds an image's pixel count, read from its header before any decoding.
	MaxMegapixels = 40
	// MaxExpansion bounds decoded size ÷ file size: past it a small file would unpack into a
	// huge one (a decompression bomb). Real scans and photos stay far below.
	MaxExpansion = 100
	// MaxPDFPages is the longest PDF read.
	MaxPDFPages = 20
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// Sniff tells the kind of an upload from its first bytes. Anything other than PNG, JPEG, PDF or
// UTF-8 text is refused with a message that names what it looks like.
func Sniff(b []byte) (Kind, error) {
	switch {
	case len(b) == 0:
		return "", apperr.InvalidField("file", "is empty")
	case bytes.HasPrefix(b, pngMagic):
		return KindPNG, nil
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return KindJPEG, nil
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return KindPDF, nil
	}
	if what := otherFormat(b); what != "" {
		return "", apperr.InvalidField("file", "is "+what+"; send a PNG or JPEG image, a PDF, or plain text")
	}
	if isText(b) {
		return KindText, nil
	}
	return "", apperr.InvalidField("file", "is not a PNG or JPEG image, a PDF, or UTF-8 text")
}

// otherFormat names common formats people send by mistake.
func otherFormat(b []byte) string {
	switch {
	case len(b) >= 12 && string(b[4:8]) == "ftyp" && (strings.HasPrefix(string(b[8:12]), "hei") || strings.HasPrefix(string(b[8:12]), "mif")):
		return "a HEIC photo (on an iPhone choose Settings › Camera › Formats › Most Compatible, or send a screenshot)"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "a WebP image"
	case bytes.HasPrefix(b, []byte("GIF8")):
		return "a GIF image"
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return "a TIFF image"
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		return "a ZIP archive (or an Office document)"
	case bytes.HasPrefix(b, []byte{0x1F, 0x8B}):
		return "a gzip archive"
	}
	return ""
}

// isText: valid UTF-8 without control characters other than tabs, line and form feeds.
func isText(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' && r != '\f' {
			return false
		}
	}
	return true
}

// checkImage reads an image's header (never its pixels) and refuses what would be costly or
// dangerous to decode: over MaxMegapixels, or a decoded size over MaxExpansion × the file.
// A PNG's chunks are walked too: a damaged or truncated file, or bytes hidden after its end
// (a file that is two formats at once), are refused here rather than handed to the tools.
func checkImage(kind Kind, b []byte) (w, h int, err error) {
	cfg, _, derr := image.DecodeConfig(bytes.NewReader(b))
	if derr != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, apperr.New(apperr.Unprocessable, "the image's header could not be read: the file is damaged or truncated")
	}
	w, h = cfg.Width, cfg.Height
	px := int64(w) * int64(h)
	if px > MaxMegapixels*1_000_000 {
		return w, h, apperr.New(apperr.Unprocessable, "the image is %d × %d pixels (%.1f megapixels); at most %d megapixels are read — resize it", w, h, float64(px)/1e6, MaxMegapixels)
	}
	bitsPerPixel := int64(bitsPer(cfg.ColorModel))
	if kind == KindPNG {
		bpp, perr := walkPNG(b)
		if perr != nil {
			return w, h, perr
		}
		bitsPerPixel = bpp
	}
	decoded := (px*bitsPerPixel + 7) / 8
	if decoded > int64(len(b))*MaxExpansion {
		return w, h, apperr.New(apperr.Unprocessable, "the image would expand %d× when decoded (at most %d×): a mostly empty or deliberately crafted file is not read", decoded/int64(len(b)), MaxExpansion)
	}
	return w, h, nil
}

// bitsPer is the decoded bits per pixel of a JPEG's colour model.
func bitsPer(m color.Model) int {
	switch m {
	case color.GrayModel:
		return 8
	case color.CMYKModel:
		return 32
	}
	return 24
}

// walkPNG checks a PNG's chunk structure (lengths, CRCs, IHDR first, IDAT present, IEND last
// with nothing after it) and returns its bits per pixel from IHDR.
func walkPNG(b []byte) (int64, error) {
	bad := func(why string) error {
		return apperr.New(apperr.Unprocessable, "the PNG is damaged: %s", why)
	}
	p := len(pngMagic)
	var bpp int64
	idat, first := false, true
	for {
		if p+8 > len(b) {
			return 0, bad("it ends before its last chunk (truncated)")
		}
		n := int64(binary.BigEndian.Uint32(b[p:]))
		typ := string(b[p+4 : p+8])
		if n > int64(len(b)) || int64(p)+12+n > int64(len(b)) {
			return 0, bad("a chunk runs past the end of the file (truncated)")
		}
		data := b[p+8 : p+8+int(n)]
		if crc32.ChecksumIEEE(b[p+4:p+8+int(n)]) != binary.BigEndian.Uint32(b[p+8+int(n):]) {
			return 0, bad(fmt.Sprintf("the %q chunk's checksum is wrong", sanitize(typ)))
		}
		switch {
		case first && typ != "IHDR":
			return 0, bad("it does not start with a header chunk")
		case typ == "IHDR":
			if n != 13 {
				return 0, bad("its header chunk has the wrong length")
			}
			depth, ctype := int64(data[8]), data[9]
			channels := map[byte]int64{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
			if channels == 0 || depth == 0 {
				return 0, bad("its colour type is unknown")
			}
			bpp = depth * channels
		case typ == "IDAT":
			idat = true
		case typ == "IEND":
			if !idat {
				return 0, bad("it has no image data")
			}
			if rest := b[p+12+int(n):]; len(bytes.TrimRight(rest, "\x00")) > 0 {
				return 0, apperr.New(apperr.Unprocessable, "the PNG has %d bytes after its end: a file that is two formats at once is not read", len(rest))
			}
			return bpp, nil
		}
		first = false
		p += 12 + int(n)
	}
}

// sanitize keeps a chunk name printable for a message.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '?'
		}
		return r
	}, s)
}

var (
	htmlTagRe   = regexp.MustCompile(`(?is)<(script|style)[^>]*>.*?</(script|style)>|<!--.*?-->`)
	htmlBreakRe = regexp.MustCompile(`(?i)<(br|/tr|/p|/div|/li|/h[1-6]|/table)\b[^>]*>`)
	htmlCellRe  = regexp.MustCompile(`(?i)</t[dh]>`)
	htmlAnyRe   = regexp.MustCompile(`<[^>]*>`)
	htmlHintRe  = regexp.MustCompile(`(?i)<(html|body|table|div|p|br)\b`)
)

// textOf is the readable text of a text upload: an order e-mail saved as HTML loses its markup
// (rows become lines, cells wide gaps) so it reads like the rest.
func textOf(b []byte) string {
	s := string(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if !htmlHintRe.MatchString(s) {
		return s
	}
	// In HTML a line break is just a space; rows and cells say where lines end.
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	s = htmlTagRe.ReplaceAllString(s, " ")
	s = htmlBreakRe.ReplaceAllString(s, "\n")
	s = htmlCellRe.ReplaceAllString(s, "   ")
	s = htmlAnyRe.ReplaceAllString(s, " ")
	return strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&#36;", "$", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'").Replace(s)
}
