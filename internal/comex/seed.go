package comex

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// seedCSV is the public-archive history described in seed/SOURCES.md. CME only ever
// publishes the current day's file, so without it a fresh install would have no
// history to chart until weeks of live fetches had piled up.
//
//go:embed seed/comex_warehouse_stocks.csv
var seedCSV []byte

// SeedHeader is the exact header line ParseSeedCSV requires.
const SeedHeader = "date,metal,registered_oz,eligible_oz"

// ozRe admits plain non-negative decimals with at most CME's three places; exponent
// forms and signs are refused so a spreadsheet's reformatting cannot slip through.
var ozRe = regexp.MustCompile(`^[0-9]{1,13}(\.[0-9]{1,3})?$`)

// ParseSeedCSV reads warehouse history in the seed format: the header SeedHeader,
// then one row per (date, metal) with ISO dates in ascending order, a lower-case
// metal identifier and ounce figures. It is strict and every error names the line,
// because a silently skipped row would show up as a fake drain on the chart.
func ParseSeedCSV(r io.Reader) ([]Snapshot, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // counted below, so the error can name the line
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("comex seed: empty input, want header " + SeedHeader)
	}
	if err != nil {
		return nil, fmt.Errorf("comex seed: %w", err)
	}
	if len(header) > 0 {
		header[0] = string(bytes.TrimPrefix([]byte(header[0]), []byte("\xef\xbb\xbf")))
	}
	if got := strings.Join(header, ","); got != SeedHeader {
		return nil, fmt.Errorf("comex seed: line 1: header is %q, want %q", got, SeedHeader)
	}
	var (
		out  []Snapshot
		seen = make(map[string]bool)
		last time.Time
	)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("comex seed: %w", err)
		}
		line, _ := cr.FieldPos(0)
		fail := func(format string, args ...any) error {
			return fmt.Errorf("comex seed: line %d: %s", line, fmt.Sprintf(format, args...))
		}
		if len(rec) != 4 {
			return nil, fail("%d fields, want 4", len(rec))
		}
		d, err := time.Parse(time.DateOnly, rec[0])
		if err != nil {
			return nil, fail("date %q is not YYYY-MM-DD", rec[0])
		}
		if d.Before(last) {
			return nil, fail("date %s comes after %s; rows must be in date order", rec[0], day(last))
		}
		last = d
		m := metals.Metal(rec[1])
		if !known(m) {
			return nil, fail("metal %q is not one of %v", rec[1], metals.Names())
		}
		key := rec[0] + "/" + rec[1]
		if seen[key] {
			return nil, fail("second row for %s on %s", rec[1], rec[0])
		}
		seen[key] = true
		var oz [2]decimal.Decimal
		for i, f := range rec[2:] {
			if !ozRe.MatchString(f) {
				return nil, fail("%s %q is not a non-negative number of ounces with at most 3 decimals", []string{"registered_oz", "eligible_oz"}[i], f)
			}
			oz[i] = decimal.RequireFromString(f)
		}
		out = append(out, Snapshot{Date: d, Metal: m, Registered: oz[0], Eligible: oz[1]})
	}
}

// Seed returns the embedded history, all metals, in file order. Each call parses
// afresh so callers may modify what they get.
func Seed() ([]Snapshot, error) {
	return ParseSeedCSV(bytes.NewReader(seedCSV))
}

// History picks one metal's snapshots out of a mixed list and orders them by date,
// which is the shape Compute expects.
func History(all []Snapshot, m metals.Metal) []Snapshot {
	var out []Snapshot
	for _, s := range all {
		if s.Metal == m {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Date.Before(out[j].Date) })
	return out
}
