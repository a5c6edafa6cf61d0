package custody

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"

	// The decoders of the types a document may be (documents.go registers them too).
	_ "image/png"

	"github.com/ouncehq/ounce/db"
)

// ThumbPx is the longest side of a statement's photo thumbnail, in pixels: about 12 mm at
// 200 dpi, small enough that a statement of many lots stays a small file.
const ThumbPx = 96

// thumbnail scales an image down to at most ThumbPx on its longest side, averaging the
// source pixels each thumbnail pixel covers, onto white (a PNG's transparency), and encodes
// it as a JPEG. Stored images were checked on upload (size, megapixels), so decoding is safe.
func thumbnail(b []byte) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	r := src.Bounds()
	sw, sh := r.Dx(), r.Dy()
	if sw <= 0 || sh <= 0 {
		return nil, image.ErrFormat
	}
	tw, th := sw, sh
	if sw >= sh && sw > ThumbPx {
		tw, th = ThumbPx, max(1, sh*ThumbPx/sw)
	} else if sh > sw && sh > ThumbPx {
		tw, th = max(1, sw*ThumbPx/sh), ThumbPx
	}
	dst := image.NewRGBA(image.Rect(0, 0, tw, th))
	for y := 0; y < th; y++ {
		y0, y1 := r.Min.Y+y*sh/th, r.Min.Y+max((y+1)*sh/th, y*sh/th+1)
		for x := 0; x < tw; x++ {
			x0, x1 := r.Min.X+x*sw/tw, r.Min.X+max((x+1)*sw/tw, x*sw/tw+1)
			var rs, gs, bs, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					cr, cg, cb, ca := src.At(sx, sy).RGBA()
					// Premultiplied: add white for the transparent part.
					rs += uint64(cr + 0xffff - ca)
					gs += uint64(cg + 0xffff - ca)
					bs += uint64(cb + 0xffff - ca)
					n++
				}
			}
			dst.SetRGBA(x, y, color.RGBA{uint8(rs / n >> 8), uint8(gs / n >> 8), uint8(bs / n >> 8), 255})
		}
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, dst, &jpeg.Options{Quality: 80}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// thumbnails makes one thumbnail per lot named in want from its first image document (the
// documents listed in the order they were attached). A photo that cannot be read is left out:
// the statement still lists the lot.
func (s *Service) thumbnails(ctx context.Context, userID int64, docs []db.Document, want map[string]bool) map[string][]byte {
	out := map[string][]byte{}
	for _, d := range docs {
		if !want[d.HoldingID] || out[d.HoldingID] != nil || (d.ContentType != "image/jpeg" && d.ContentType != "image/png") {
			continue
		}
		body, err := s.docs.DocumentBody(ctx, userID, d.ID)
		if err != nil {
			s.log.Warn("inventory thumbnail", "document", d.ID, "err", err)
			continue
		}
		t, err := thumbnail(body)
		if err != nil {
			s.log.Warn("inventory thumbnail", "document", d.ID, "err", err)
			continue
		}
		out[d.HoldingID] = t
	}
	return out
}

// Thumbnails are the photo thumbnails (JPEG, by holding id) of the statement's lots that have
// an image attached, for its PDF.
func (s *Service) Thumbnails(ctx context.Context, u db.User, inv Inventory) (map[string][]byte, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, sec := range inv.Sections {
		for _, l := range sec.Lines {
			if l.Documents > 0 {
				want[l.HoldingID] = true
			}
		}
	}
	if len(want) == 0 {
		return map[string][]byte{}, nil
	}
	docs, err := s.docs.DocumentsByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return s.thumbnails(ctx, u.ID, docs, want), nil
}
