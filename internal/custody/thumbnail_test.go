package custody

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// TestThumbnail: a tall transparent PNG comes back as a JPEG at most ThumbPx high, its
// transparency on white; a small image keeps its size.
func TestThumbnail(t *testing.T) {
	enc := func(w, h int, c color.Color) []byte {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				img.Set(x, y, c)
			}
		}
		var b bytes.Buffer
		_ = png.Encode(&b, img)
		return b.Bytes()
	}
	for _, tc := range []struct {
		w, h, tw, th int
		c            color.Color
		white        bool
	}{
		{300, 600, 48, 96, color.NRGBA{0, 0, 0, 0}, true},
		{500, 100, 96, 19, color.NRGBA{200, 10, 10, 255}, false},
		{40, 30, 40, 30, color.NRGBA{10, 10, 200, 255}, false},
	} {
		out, err := thumbnail(enc(tc.w, tc.h, tc.c))
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("not a JPEG: %v", err)
		}
		if b := img.Bounds(); b.Dx() != tc.tw || b.Dy() != tc.th {
			t.Errorf("%dx%d → %dx%d, want %dx%d", tc.w, tc.h, b.Dx(), b.Dy(), tc.tw, tc.th)
		}
		r, _, _, _ := img.At(0, 0).RGBA()
		if white := r>>8 > 240; white != tc.white {
			t.Errorf("%dx%d: top-left red %d, white %v", tc.w, tc.h, r>>8, tc.white)
		}
	}
	if _, err := thumbnail([]byte("not an image")); err == nil {
		t.Error("a non-image made a thumbnail")
	}
}
