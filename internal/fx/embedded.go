package fx

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"
)

// The embedded history (data/SOURCES.md): the ECB's euro reference rates since 1999 and the
// Federal Reserve's H.10 dollar rates before, gzipped, values exactly as published.
//
//go:embed data/ecb_eurofxref_hist.csv.gz data/fed_h10_pre1999.csv.gz
var dataFS embed.FS

// value is a published rate kept as its digits: mant × 10^exp ("0.84770" is 84770 × 10⁻⁵),
// so the source's precision, trailing zeros included, survives, in 16 bytes a row.
type value struct {
	mant int64
	exp  int32
}

func parseValue(s string) (value, error) {
	var v value
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if v.mant > 0 || c != '0' {
				digits++
			}
			if digits > 15 {
				return value{}, fmt.Errorf("%q has too many digits", s)
			}
			v.mant = v.mant*10 + int64(c-'0')
			if dot {
				v.exp--
			}
		case c == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return value{}, fmt.Errorf("%q is not a positive decimal number", s)
		}
	}
	if v.mant == 0 {
		return value{}, fmt.Errorf("%q is not a positive decimal number", s)
	}
	return v, nil
}

func (v value) decimal() decimal.Decimal { return decimal.New(v.mant, v.exp) }

// digits is how many significant digits the source gave.
func (v value) digits() int {
	n := 0
	for m := v.mant; m > 0; m /= 10 {
		n++
	}
	return n
}

// String writes the value with the digits it was published with.
func (v value) String() string { return v.decimal().StringFixed(-v.exp) }

// point is one day's rate; day counts days since 1970-01-01.
type point struct {
	day int32
	v   value
}

func dayNumber(t time.Time) int32 {
	y, m, d := t.Date()
	return int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func dayTime(n int32) time.Time { return time.Unix(int64(n)*86400, 0).UTC() }

// series is one currency's rates, oldest first.
type series []point

// onOrBefore is the last point on or before day.
func (s series) onOrBefore(day int32) (point, bool) {
	i := sort.Search(len(s), func(i int) bool { return s[i].day > day })
	if i == 0 {
		return point{}, false
	}
	return s[i-1], true
}

// table is the embedded history, parsed once and never changed.
type table struct {
	// ecb is units of currency per 1 EUR.
	ecb map[string]series
	// fed is the H.10 value of each currency as FRED serves it; usdPer marks the currencies
	// quoted as US dollars per unit (GBP, AUD, NZD), the others are units per US dollar.
	fed    map[string]series
	usdPer map[string]bool
	// ecbLast is the newest ECB day; current are the currencies quoted on it.
	ecbLast int32
	current []string
	// lastDate and lastDay memoise the date being read.
	lastDate string
	lastDay  int32
}

// embedded parses the history once per process: it is immutable data, like the files it
// comes from, and takes a few hundred milliseconds to read.
var embedded = sync.OnceValues(func() (*table, error) {
	t := &table{ecb: map[string]series{}, fed: map[string]series{}, usdPer: map[string]bool{}}
	if err := readGz("data/ecb_eurofxref_hist.csv.gz", "date,currency,per_eur", func(f []string) error {
		return t.add(t.ecb, f[0], f[1], f[2])
	}); err != nil {
		return nil, err
	}
	if err := readGz("data/fed_h10_pre1999.csv.gz", "date,currency,value,quote", func(f []string) error {
		switch f[3] {
		case "usd_per":
			t.usdPer[f[1]] = true
		case "per_usd":
		default:
			return fmt.Errorf("quote %q", f[3])
		}
		return t.add(t.fed, f[0], f[1], f[2])
	}); err != nil {
		return nil, err
	}
	for _, s := range t.ecb {
		sort.Slice(s, func(i, j int) bool { return s[i].day < s[j].day })
		t.ecbLast = max(t.ecbLast, s[len(s)-1].day)
	}
	for _, s := range t.fed {
		sort.Slice(s, func(i, j int) bool { return s[i].day < s[j].day })
	}
	for c, s := range t.ecb {
		if s[len(s)-1].day == t.ecbLast {
			t.current = append(t.current, c)
		}
	}
	sort.Strings(t.current)
	return t, nil
})

func (t *table) add(m map[string]series, date, currency, val string) error {
	// The files are sorted by date: most rows repeat the previous row's.
	if date != t.lastDate {
		d, err := time.Parse(time.DateOnly, date)
		if err != nil {
			return err
		}
		t.lastDate, t.lastDay = date, dayNumber(d)
	}
	v, err := parseValue(val)
	if err != nil {
		return err
	}
	m[currency] = append(m[currency], point{day: t.lastDay, v: v})
	return nil
}

// readGz reads one embedded CSV, checking its header, handing each row's fields to row.
func readGz(name, header string, row func([]string) error) error {
	raw, err := dataFS.ReadFile(name)
	if err != nil {
		return err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	sc := bufio.NewScanner(zr)
	line := 0
	want := strings.Count(header, ",") + 1
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			if text != header {
				return fmt.Errorf("%s: header %q, want %q", name, text, header)
			}
			continue
		}
		f := strings.Split(text, ",")
		if len(f) != want {
			return fmt.Errorf("%s line %d: %d fields", name, line, len(f))
		}
		if err := row(f); err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
