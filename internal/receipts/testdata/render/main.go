// Command render turns the receipt layouts in ../receipts/*.txt into text PDFs: a tiny PDF
// writer using the standard Helvetica and Courier fonts (no embedding), so pdftotext reads the
// text back exactly as a dealer's e-mailed PDF would carry it. render.sh calls it; it lives
// under testdata so `go build ./...` never builds it.
//
// Layout lines: "#font H|HB|C|CB size", "#cols 40l 360r …" (column stops; cells split on
// " | "), "#cols" (no stops: one left-aligned cell), "#gap points", "#rule", "##" comments;
// every other line is text. The page is US Letter wide and as tall as its content.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// helvetica are the Helvetica advance widths (1/1000 em) of ASCII 32–126, from the font's
// published metrics; only right-aligned cells need them.
var helvetica = []int{278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015,
	667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611,
	278, 278, 278, 469, 556, 333,
	556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500,
	334, 260, 334, 584}

var fonts = map[string]string{"H": "Helvetica", "HB": "Helvetica-Bold", "C": "Courier", "CB": "Courier-Bold"}

type stop struct {
	x     float64
	right bool
}

func width(font string, size float64, s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case font == "C" || font == "CB":
			w += 600
		case r >= 32 && r <= 126:
			adv := float64(helvetica[r-32])
			if font == "HB" {
				adv *= 1.06 // near enough for right-aligned headings
			}
			w += adv
		default:
			w += 556
		}
	}
	return w * size / 1000
}

func esc(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
	// Beyond ASCII, the few WinAnsiEncoding characters the European samples print.
	var b strings.Builder
	for _, r := range s {
		if r < 128 {
			b.WriteRune(r)
		} else if c, ok := winAnsi[r]; ok {
			fmt.Fprintf(&b, "\\%03o", c)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String()
}

var winAnsi = map[rune]byte{'€': 0x80, '£': 0xA3, '§': 0xA7, 'ä': 0xE4, 'ö': 0xF6, 'ü': 0xFC, 'Ä': 0xC4, 'Ö': 0xD6, 'Ü': 0xDC, 'ß': 0xDF}

// op is one drawing operation at a height measured from the top.
type op struct {
	y    float64
	text string
	font string
	size float64
	x    float64
	rule bool
}

func layout(src string) ([]op, float64, error) {
	const left, pageW = 40.0, 612.0
	font, size := "H", 10.0
	var stops []stop
	y := 40.0
	var ops []op
	sc := bufio.NewScanner(strings.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t")
		switch {
		case strings.HasPrefix(line, "##"):
		case strings.HasPrefix(line, "#font "):
			f := strings.Fields(line)
			if len(f) != 3 || fonts[f[1]] == "" {
				return nil, 0, fmt.Errorf("line %d: bad #font", n)
			}
			font = f[1]
			size, _ = strconv.ParseFloat(f[2], 64)
		case strings.HasPrefix(line, "#cols"):
			stops = nil
			for _, f := range strings.Fields(line)[1:] {
				x, err := strconv.ParseFloat(strings.TrimRight(f, "lr"), 64)
				if err != nil {
					return nil, 0, fmt.Errorf("line %d: bad stop %q", n, f)
				}
				stops = append(stops, stop{x, strings.HasSuffix(f, "r")})
			}
		case strings.HasPrefix(line, "#gap "):
			g, _ := strconv.ParseFloat(strings.TrimSpace(line[5:]), 64)
			y += g
		case line == "#rule":
			// Below the last baseline, clear of descenders.
			ops = append(ops, op{y: y + size*0.45, rule: true})
			y += 6
		case line == "":
			y += size * 0.8
		default:
			y += size * 1.4
			cells := []string{line}
			if len(stops) > 0 {
				cells = strings.Split(line, " | ")
			}
			for i, c := range cells {
				c = strings.TrimSpace(c)
				if c == "" {
					continue
				}
				x := left
				if len(stops) > 0 {
					if i >= len(stops) {
						return nil, 0, fmt.Errorf("line %d: more cells than stops", n)
					}
					x = stops[i].x
					if stops[i].right {
						x -= width(font, size, c)
					}
				}
				ops = append(ops, op{y: y, text: c, font: font, size: size, x: x})
			}
		}
	}
	return ops, y + 40, sc.Err()
}

func pdf(ops []op, h float64) []byte {
	var content bytes.Buffer
	for _, o := range ops {
		if o.rule {
			fmt.Fprintf(&content, "0.5 w 40 %.2f m 572 %.2f l S\n", h-o.y, h-o.y)
			continue
		}
		fmt.Fprintf(&content, "BT /%s %.1f Tf %.2f %.2f Td (%s) Tj ET\n", o.font, o.size, o.x, h-o.y, esc(o.text))
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 %.0f] /Resources << /Font << /H 5 0 R /HB 6 0 R /C 7 0 R /CB 8 0 R >> >> /Contents 4 0 R >>", h),
		fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", content.Len(), content.String()),
	}
	for _, k := range []string{"H", "HB", "C", "CB"} {
		objs = append(objs, "<< /Type /Font /Subtype /Type1 /BaseFont /"+fonts[k]+" /Encoding /WinAnsiEncoding >>")
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return out.Bytes()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: render <layouts dir> <out dir>")
		os.Exit(2)
	}
	files, _ := filepath.Glob(filepath.Join(os.Args[1], "*.txt"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		ops, h, err := layout(string(src))
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			os.Exit(1)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		if err := os.WriteFile(filepath.Join(os.Args[2], name+".pdf"), pdf(ops, h), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
