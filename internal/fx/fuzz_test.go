package fx

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func FuzzParseECB(f *testing.F) {
	rec, err := os.ReadFile("testdata/ecb-eurofxref-daily-2025-05-09.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(rec)
	f.Add([]byte("<gesmes:Envelope><Cube><Cube time='2025-05-09'><Cube currency='USD' rate='1.1252'/></Cube></Cube></gesmes:Envelope>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := ParseECB(bytes.NewReader(b), "x")
		if err != nil {
			return
		}
		for _, r := range rows {
			if !isCode(r.Currency) || r.Day.IsZero() {
				t.Fatalf("bad row accepted: %+v", r)
			}
			if _, err := parseValue(r.PerEUR); err != nil {
				t.Fatalf("bad rate accepted: %+v", r)
			}
		}
	})
}

func FuzzParseImport(f *testing.F) {
	s := New(Deps{})
	f.Add("date,currency,per_eur\n2026-05-04,USD,1.1712\n")
	f.Add("date,currency,per_eur\n2026-05-04,EUR,1\n\"x\n")
	f.Add("\ufeffDate, Currency, Per_EUR\n2016-06-24,GBP,0.8076\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := s.ParseImport(context.Background(), strings.NewReader(in), "x")
		var bad RowErrors
		switch {
		case err == nil && len(rows) == 0:
			t.Fatal("no error and no rows")
		case err != nil && (!errors.As(err, &bad) || len(bad) == 0 || rows != nil):
			t.Fatalf("error not row errors, or rows beside it: %v %v", err, rows)
		}
		for _, r := range rows {
			if r.Currency == "EUR" || r.Day.Before(ECBStart) {
				t.Fatalf("bad row accepted: %+v", r)
			}
		}
	})
}
