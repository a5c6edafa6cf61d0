package fx

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ouncehq/ounce/db"
)

// ImportHeader is the header of an `ounce fx import` file: units of the currency per 1 EUR,
// the ECB's convention.
const ImportHeader = "date,currency,per_eur"

// maxImportRows bounds one import file (the whole ECB history is about 220,000 rows).
const maxImportRows = 1_000_000

// RowErrors are the problems of an import file, one line each ("row 3: …"); nothing of the
// file is stored while there is one.
type RowErrors []string

func (e RowErrors) Error() string { return strings.Join(e, "\n") }

// ParseImport reads an import file and checks every row: an ISO date from 1999-01-04 up to
// today, a supported currency code other than EUR, a positive per_eur as published. It
// returns the rows, or RowErrors listing every bad row (or a problem of the file as a whole).
func (s *Service) ParseImport(ctx context.Context, r io.Reader, source string) ([]db.FXRate, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, RowErrors{"the file is empty: the first line must be " + ImportHeader}
	}
	if err != nil {
		return nil, RowErrors{"line 1: " + err.Error()}
	}
	got := strings.ToLower(strings.TrimPrefix(strings.Join(header, ","), "\ufeff"))
	if strings.ReplaceAll(got, " ", "") != ImportHeader {
		return nil, RowErrors{fmt.Sprintf("line 1: header %q, want %s (units of the currency per 1 EUR)", strings.Join(header, ","), ImportHeader)}
	}
	supported := s.Supported(ctx)
	today := dayNumber(s.now().UTC())
	var rows []db.FXRate
	var bad RowErrors
	seen := map[string]int{}
	for n := 1; ; n++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				bad = append(bad, fmt.Sprintf("row %d (line %d): %v", n, pe.StartLine, pe.Err))
				continue
			}
			return nil, RowErrors{fmt.Sprintf("row %d: %v", n, err)}
		}
		line, _ := cr.FieldPos(0)
		if n > maxImportRows {
			return nil, RowErrors{fmt.Sprintf("more than %d rows: split the file", maxImportRows)}
		}
		row, why := checkImportRow(rec, supported, today)
		if why != "" {
			bad = append(bad, fmt.Sprintf("row %d (line %d): %s", n, line, why))
			continue
		}
		key := row.Currency + " " + row.Day.String()
		if first, dup := seen[key]; dup {
			bad = append(bad, fmt.Sprintf("row %d (line %d): %s on %s is already given in row %d", n, line, row.Currency, row.Day, first))
			continue
		}
		seen[key] = n
		row.Source = source
		rows = append(rows, row)
	}
	if len(bad) > 0 {
		return nil, bad
	}
	if len(rows) == 0 {
		return nil, RowErrors{"the file has no rows after its header"}
	}
	return rows, nil
}

// checkImportRow is one row as a rate, or why it is not one.
func checkImportRow(rec []string, supported []string, today int32) (db.FXRate, string) {
	if len(rec) != 3 {
		return db.FXRate{}, fmt.Sprintf("%d fields, want 3 (%s)", len(rec), ImportHeader)
	}
	date, code, per := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]), strings.TrimSpace(rec[2])
	day, err := db.ParseDate(date)
	if err != nil {
		return db.FXRate{}, fmt.Sprintf("date %q is not a date like 2025-05-09", date)
	}
	switch d := dayNumber(day.Time); {
	case d < dayNumber(ECBStart):
		return db.FXRate{}, fmt.Sprintf("date %s is before the euro's first reference rate (%s)", date, ECBStart.Format(time.DateOnly))
	case d > today:
		return db.FXRate{}, fmt.Sprintf("date %s is in the future", date)
	}
	switch {
	case code == "EUR":
		return db.FXRate{}, "currency EUR is 1 per EUR by definition"
	case !slices.Contains(supported, code):
		return db.FXRate{}, fmt.Sprintf("currency %q is not supported (one of %s)", code, strings.Join(supported, " "))
	}
	if _, err := parseValue(per); err != nil {
		return db.FXRate{}, "per_eur " + err.Error()
	}
	return db.FXRate{Currency: code, Day: day, PerEUR: per}, ""
}

// Import stores parsed rows in one transaction, adding days and correcting stored ones; a
// running server reads rates through the database, so it answers with them at once.
func (s *Service) Import(ctx context.Context, rows []db.FXRate) error {
	if s.store == nil {
		return errors.New("no store to import into")
	}
	return s.store.UpsertFXRates(ctx, rows)
}
