package prices

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// The embedded history lets Ounce draw charts with no network and no database
// rows at all. history/SOURCES.md records where every number comes from.
//
//go:embed history/*.csv history/SOURCES.md
var historyFS embed.FS

// HistoryProvenance is the text of history/SOURCES.md, for pages that credit the
// data.
func HistoryProvenance() string {
	b, err := historyFS.ReadFile("history/SOURCES.md")
	if err != nil {
		return ""
	}
	return string(b)
}

type embeddedSeries struct {
	daily, monthly []Close
	err            error
}

// embeddedCache parses each metal's files on first use only, so start-up pays
// nothing for metals nobody charts.
var embeddedCache = func() map[metals.Metal]func() embeddedSeries {
	c := make(map[metals.Metal]func() embeddedSeries, len(metals.All))
	for _, m := range metals.All {
		c[m] = sync.OnceValue(func() embeddedSeries { return loadEmbedded(m) })
	}
	return c
}()

func loadEmbedded(m metals.Metal) embeddedSeries {
	var s embeddedSeries
	s.daily, s.err = parseEmbedded("history/" + string(m) + "_daily.csv")
	if s.err != nil {
		return s
	}
	s.monthly, s.err = parseEmbedded("history/" + string(m) + "_monthly.csv")
	return s
}

func parseEmbedded(name string) ([]Close, error) {
	b, err := historyFS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	out, err := ParseCSV(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Embedded returns the built-in daily closes and monthly averages of m, oldest
// first. The files are parsed once; each call returns fresh slices the caller
// may modify.
func Embedded(m metals.Metal) (daily, monthly []Close, err error) {
	load, ok := embeddedCache[m]
	if !ok {
		return nil, nil, fmt.Errorf("no embedded history for metal %q", m)
	}
	s := load()
	if s.err != nil {
		return nil, nil, s.err
	}
	return slices.Clone(s.daily), slices.Clone(s.monthly), nil
}

// ParseCSV reads a price history: a header "date,usd_per_oz" (or "date,price")
// then one "YYYY-MM-DD,price" row per line, dates strictly ascending, prices
// positive plain decimals. It is strict because these files are data we ship:
// a malformed row is a bug to surface, not to skip. Errors name the line.
func ParseCSV(r io.Reader) ([]Close, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 4096)
	line := 0
	var out []Close
	var prev time.Time
	sawBlank := 0
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
			switch strings.TrimSpace(text) {
			case "date,usd_per_oz", "date,price":
				continue
			}
			return nil, fmt.Errorf("line 1: header %q, want \"date,usd_per_oz\" or \"date,price\"", clip(text))
		}
		if text == "" {
			if sawBlank == 0 {
				sawBlank = line
			}
			continue
		}
		if sawBlank != 0 {
			return nil, fmt.Errorf("line %d: blank line inside the data", sawBlank)
		}
		ds, ps, ok := strings.Cut(text, ",")
		if !ok || strings.Contains(ps, ",") {
			return nil, fmt.Errorf("line %d: want two fields \"date,price\", got %q", line, clip(text))
		}
		d, err := time.Parse(time.DateOnly, ds)
		if err != nil || d.Format(time.DateOnly) != ds {
			return nil, fmt.Errorf("line %d: date %q is not a valid YYYY-MM-DD date", line, clip(ds))
		}
		if !plainDecimal(ps) {
			return nil, fmt.Errorf("line %d: price %q is not a plain decimal number", line, clip(ps))
		}
		p, err := decimal.NewFromString(ps)
		if err != nil || !p.IsPositive() {
			return nil, fmt.Errorf("line %d: price %q is not positive", line, clip(ps))
		}
		if len(out) > 0 && !d.After(prev) {
			if d.Equal(prev) {
				return nil, fmt.Errorf("line %d: duplicate date %s", line, ds)
			}
			return nil, fmt.Errorf("line %d: date %s is before %s: rows must be ascending", line, ds, prev.Format(time.DateOnly))
		}
		prev = d
		out = append(out, Close{Date: d, Price: p})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: line too long", line+1)
		}
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if line == 0 {
		return nil, errors.New("line 1: empty input, want a header")
	}
	return out, nil
}

// plainDecimal accepts digits with at most one decimal point and digits on both
// sides of it, e.g. "35.18" or "1200"; no signs, exponents or spaces.
func plainDecimal(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || (hasDot && frac == "") {
		return false
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return false
			}
		}
	}
	return true
}

// Since returns the suffix of points (sorted ascending) dated on or after start.
func Since(points []Close, start time.Time) []Close {
	i, _ := slices.BinarySearchFunc(points, start, func(c Close, t time.Time) int { return c.Date.Compare(t) })
	return points[i:]
}

// ExtendDaily appends to base the closes of newer dated after base's last one —
// how closes recorded by the live feed continue the embedded series. Both must
// be ascending; the result is a new slice.
func ExtendDaily(base, newer []Close) []Close {
	out := slices.Clone(base)
	if len(base) == 0 {
		return append(out, newer...)
	}
	return append(out, Since(newer, base[len(base)-1].Date.Add(time.Nanosecond))...)
}

// MergeSeries builds the ALL range: the monthly averages of the months before the first daily
// close's month, then every daily close. A month with daily closes never also carries its
// monthly average (platinum's April 1990 average, dated the 1st, a Sunday, is left out: its
// daily closes begin on the 2nd). The result is a new slice.
func MergeSeries(daily, monthly []Close) []Close {
	early := monthlyBefore(daily, monthly)
	out := make([]Close, 0, len(early)+len(daily))
	return append(append(out, early...), daily...)
}

// monthlyBefore is the prefix of monthly (ascending) that ALL uses: every monthly average
// dated before the month of the first daily close (all of them without daily closes). It
// shares monthly's backing array.
func monthlyBefore(daily, monthly []Close) []Close {
	if len(daily) == 0 {
		return monthly
	}
	y, m, _ := daily[0].Date.Date()
	first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	return monthly[:len(monthly)-len(Since(monthly, first))]
}
