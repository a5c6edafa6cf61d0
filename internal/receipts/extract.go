package receipts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/apperr"
)

// The programs a scan runs, and the Debian package that installs each.
const (
	toolPDFText   = "pdftotext"
	toolPDFInfo   = "pdfinfo"
	toolPDFToPPM  = "pdftoppm"
	toolTesseract = "tesseract"
	// toolConvert is ImageMagick 6 by its Debian name: a bare "convert" may be something else.
	toolConvert = "convert-im6.q16"
	toolPrlimit = "prlimit"
)

var toolPackages = map[string]string{
	toolPDFText: "poppler-utils", toolPDFInfo: "poppler-utils", toolPDFToPPM: "poppler-utils",
	toolTesseract: "tesseract-ocr (with tesseract-ocr-eng)", toolConvert: "imagemagick",
}

// ToolPackages lists the Debian packages receipt scanning needs, for health checks and docs.
func ToolPackages() []string {
	return []string{"poppler-utils", "tesseract-ocr", "tesseract-ocr-eng", "imagemagick"}
}

// maxToolOutput bounds what a tool may print: a receipt's text is a few kilobytes, and a PDF
// whose text unpacks past this is refused like any other decompression bomb.
const maxToolOutput = MaxTextBytes

// runner runs the external tools: no shell, a fixed argument list, its own empty working
// directory, a minimal environment, a timeout, and (through prlimit, when the machine has it)
// a cap on address space, CPU seconds and written file size.
type runner struct {
	memBytes int64
	timeout  time.Duration
	// scanTimeout is the whole scan's bound, named when that is what ended a run.
	scanTimeout time.Duration
	prlimit     string // path of prlimit, or "" to run without rlimits
	look        func(string) (string, error)
}

var errTooMuchOutput = errors.New("tool output over the limit")

// errToolDeadline is the cause of one tool run's context ending at its timeout.
var errToolDeadline = errors.New("receipt tool deadline")

// capped collects output up to a limit and then fails the write, which ends the tool.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.max {
		return 0, errTooMuchOutput
	}
	return c.buf.Write(p)
}

// run runs tool with args in dir and returns what it printed.
func (r *runner) run(ctx context.Context, dir, tool string, args ...string) ([]byte, error) {
	path, err := r.look(tool)
	if err != nil {
		return nil, apperr.UnavailableF("receipt scanning is not available here: %s is not installed (Debian package %s)", tool, toolPackages[tool])
	}
	scanCtx := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, r.timeout, errToolDeadline)
	defer cancel()
	name, argv := path, args
	if r.prlimit != "" {
		cpu := int64(r.timeout/time.Second) + 1
		name = r.prlimit
		argv = append([]string{"--as=" + strconv.FormatInt(r.memBytes, 10), "--cpu=" + strconv.FormatInt(cpu, 10),
			"--fsize=" + strconv.FormatInt(512<<20, 10), "--core=0", "--", path}, args...)
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir, "LC_ALL=C.UTF-8",
		// One thread: predictable on a shared machine, and faster there than OpenMP's spinning.
		"OMP_THREAD_LIMIT=1", "MAGICK_THREAD_LIMIT=1",
		// ImageMagick's own resource limits, below the address-space cap.
		"MAGICK_MEMORY_LIMIT=256MiB", "MAGICK_MAP_LIMIT=512MiB", "MAGICK_DISK_LIMIT=1GiB", "MAGICK_AREA_LIMIT=128MP",
		"MAGICK_TIME_LIMIT=" + strconv.Itoa(int(r.timeout/time.Second)), "MAGICK_TEMPORARY_PATH=" + dir}
	out := &capped{max: maxToolOutput}
	var stderr capped
	stderr.max = 4 << 10
	cmd.Stdout, cmd.Stderr = out, &stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case context.Cause(scanCtx) == errScanDeadline:
		return nil, apperr.New(apperr.Unprocessable, "reading the file took longer than %s in all; send a smaller or simpler file", r.scanTimeout)
	case context.Cause(ctx) == errToolDeadline:
		return nil, apperr.New(apperr.Unprocessable, "reading the file took longer than %s; send a smaller or simpler file", r.timeout)
	case errors.Is(err, errTooMuchOutput) || out.buf.Len() >= maxToolOutput:
		return nil, apperr.New(apperr.Unprocessable, "the file holds more text than a receipt (over %d KiB)", maxToolOutput>>10)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, &toolError{tool: tool, err: err, stderr: strings.TrimSpace(stderr.buf.String())}
	}
	return out.buf.Bytes(), nil
}

// toolError is a tool that failed on the file: the file's fault (damaged, not what it claims),
// told as such; the stderr is for the log only.
type toolError struct {
	tool   string
	err    error
	stderr string
}

func (e *toolError) Error() string { return fmt.Sprintf("%s: %v: %.300s", e.tool, e.err, e.stderr) }

// unreadable turns a tool's failure into the member's 422.
func unreadable(err error, what string) error {
	var te *toolError
	if errors.As(err, &te) {
		return apperr.Wrap(apperr.Unprocessable, err, "the "+what+" could not be read: it may be damaged, truncated or not really a "+what)
	}
	return err
}

// extracted is the text of an upload and how sure the reading is.
type extracted struct {
	text       string
	confidence float64
	pages      int
	ocr        bool
}

// extract reads the text of a PDF or image in a temporary directory that is removed afterwards.
func (s *Service) extract(ctx context.Context, kind Kind, data []byte) (extracted, error) {
	dir, err := os.MkdirTemp(s.cfg.TempDir, "ounce-receipt-")
	if err != nil {
		return extracted{}, fmt.Errorf("receipt temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	name := map[Kind]string{KindPDF: "in.pdf", KindPNG: "in.png", KindJPEG: "in.jpg"}[kind]
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		return extracted{}, fmt.Errorf("receipt temp file: %w", err)
	}
	if kind == KindPDF {
		return s.extractPDF(ctx, dir)
	}
	text, conf, err := s.ocrImage(ctx, dir, string(kind)+":"+name)
	if err != nil {
		return extracted{}, unreadable(err, "image")
	}
	return extracted{text: text, confidence: conf, pages: 1, ocr: true}, nil
}

var pagesRe = regexp.MustCompile(`(?m)^Pages:\s+(\d+)`)

// minTextPerPage is how many letters and digits per page make a PDF's text layer worth using;
// below it the PDF is a scan and its pages are read by OCR.
const minTextPerPage = 40

func (s *Service) extractPDF(ctx context.Context, dir string) (extracted, error) {
	info, err := s.tools.run(ctx, dir, toolPDFInfo, "in.pdf")
	if err != nil {
		return extracted{}, unreadable(err, "PDF")
	}
	m := pagesRe.FindSubmatch(info)
	if m == nil {
		return extracted{}, apperr.New(apperr.Unprocessable, "the PDF's page count could not be read: it may be damaged")
	}
	pages, _ := strconv.Atoi(string(m[1]))
	if pages < 1 {
		return extracted{}, apperr.New(apperr.Unprocessable, "the PDF has no pages")
	}
	if pages > MaxPDFPages {
		return extracted{}, apperr.New(apperr.Unprocessable, "the PDF has %d pages; at most %d are read — send the pages with the order", pages, MaxPDFPages)
	}
	text, err := s.tools.run(ctx, dir, toolPDFText, "-layout", "-enc", "UTF-8", "-l", strconv.Itoa(MaxPDFPages), "in.pdf", "-")
	if err != nil {
		return extracted{}, unreadable(err, "PDF")
	}
	if alnum(text) >= minTextPerPage*pages {
		return extracted{text: string(text), confidence: 1, pages: pages}, nil
	}
	// A scanned PDF: render each page (the longest side at most 3300 px, 300 dpi on Letter,
	// whatever size the page claims) and read it like a photo.
	if _, err := s.tools.run(ctx, dir, toolPDFToPPM, "-gray", "-scale-to", "3300", "-l", strconv.Itoa(MaxPDFPages), "in.pdf", "page"); err != nil {
		return extracted{}, unreadable(err, "PDF")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "page*.pgm"))
	sort.Strings(files)
	var all strings.Builder
	confSum := 0.0
	for _, f := range files {
		t, c, err := s.ocrImage(ctx, dir, "pgm:"+filepath.Base(f))
		if err != nil {
			return extracted{}, unreadable(err, "PDF")
		}
		all.WriteString(t)
		all.WriteString("\n")
		confSum += c
	}
	if len(files) == 0 {
		return extracted{}, apperr.New(apperr.Unprocessable, "the PDF's pages could not be rendered")
	}
	return extracted{text: all.String(), confidence: confSum / float64(len(files)), pages: pages, ocr: true}, nil
}

func alnum(b []byte) int {
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			n++
		}
	}
	return n
}

// ocrImage prepares an image for OCR (first frame only; upright by its EXIF orientation; gray;
// contrast stretched; straightened on a white background) and reads it with tesseract as one
// block of text, returning the text laid out in lines and the mean word confidence (0–1).
// The input names its coder ("jpeg:in.jpg") so ImageMagick never guesses a format from content.
// The skew is measured on a quarter-size copy and the page rotated only when it is crooked:
// rotating a full page costs more than reading it, and scans and screenshots are straight.
func (s *Service) ocrImage(ctx context.Context, dir, input string) (string, float64, error) {
	base := strings.TrimSuffix(filepath.Base(input[strings.IndexByte(input, ':')+1:]), filepath.Ext(input))
	gray, prepared := base+"-gray.pgm", base+"-prep.pgm"
	// Phone photos are larger than OCR needs: fit the page in ocrMaxSide pixels (about 250 dpi
	// on Letter) before anything else, which bounds every later step's time.
	out, err := s.tools.run(ctx, dir, toolConvert, input+"[0]", "-auto-orient", "-resize", ocrMaxSide+">", "-colorspace", "Gray", "-normalize",
		"-write", "pgm:"+gray, "-resize", "25%", "-background", "white", "-deskew", "40%", "-format", "%[deskew:angle]", "info:")
	if err != nil {
		return "", 0, err
	}
	prepared = gray
	if angle, perr := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); perr == nil && math.Abs(angle) >= minSkewDegrees && math.Abs(angle) <= 45 {
		prepared = base + "-prep.pgm"
		if _, err := s.tools.run(ctx, dir, toolConvert, "pgm:"+gray, "-background", "white", "-rotate", strconv.FormatFloat(angle, 'f', 2, 64),
			"+repage", "pgm:"+prepared); err != nil {
			return "", 0, err
		}
	}
	tsv, err := s.tools.run(ctx, dir, toolTesseract, prepared, "stdout", "-l", "eng", "--psm", "6", "tsv")
	if err != nil {
		return "", 0, err
	}
	text, conf := layoutTSV(string(tsv))
	return text, conf, nil
}

// ocrMaxSide bounds the image OCR reads ("WxH" for ImageMagick's shrink-only resize).
const ocrMaxSide = "2200x2200"

// minSkewDegrees is the tilt below which a page is read as it is.
const minSkewDegrees = 0.5

// tsvWord is one word tesseract found.
type tsvWord struct {
	line         [4]int
	left, width  int
	conf         float64
	text         string
	wordPosition int
}

// layoutTSV rebuilds lines from tesseract's TSV, keeping wide gaps between words as runs of
// spaces — the column breaks the parser uses, as pdftotext -layout keeps them — and returns
// the mean confidence of the words (0–1).
func layoutTSV(tsv string) (string, float64) {
	var words []tsvWord
	for _, row := range strings.Split(tsv, "\n") {
		f := strings.Split(row, "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		n := make([]int, 10)
		for i := range n {
			n[i], _ = strconv.Atoi(f[i])
		}
		conf, _ := strconv.ParseFloat(f[10], 64)
		t := strings.TrimSpace(f[11])
		if t == "" {
			continue
		}
		words = append(words, tsvWord{line: [4]int{n[1], n[2], n[3], n[4]}, wordPosition: n[5], left: n[6], width: n[8], conf: conf, text: t})
	}
	var b strings.Builder
	confSum, confN := 0.0, 0
	for i, w := range words {
		if w.conf >= 0 {
			confSum += w.conf
			confN++
		}
		if i > 0 {
			p := words[i-1]
			if p.line != w.line {
				b.WriteByte('\n')
			} else {
				charW := float64(p.width) / float64(max(1, len([]rune(p.text))))
				if gap := float64(w.left - (p.left + p.width)); gap > 2.2*charW {
					b.WriteString("    ")
				} else {
					b.WriteByte(' ')
				}
			}
		}
		b.WriteString(w.text)
	}
	if confN == 0 {
		return b.String(), 0
	}
	return b.String(), confSum / float64(confN) / 100
}
