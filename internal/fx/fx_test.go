package fx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func newService(t *testing.T, d Deps) *Service {
	t.Helper()
	if d.Now == nil {
		d.Now = func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }
	}
	return New(d)
}

func lookup(t *testing.T, s *Service, code, day string) Rate {
	t.Helper()
	r, err := s.Lookup(context.Background(), code, date(day))
	if err != nil {
		t.Fatalf("%s on %s: %v", code, day, err)
	}
	return r
}

func perEUR(r Rate) string {
	if r.PerEUR == nil {
		return "null"
	}
	return r.PerEUR.String()
}

// The values below are read from data/ecb_eurofxref_hist.csv.gz and fed_h10_pre1999.csv.gz
// (the ECB's 2016-06-24: USD 1.1066, GBP 0.8075; H.10 1985-02-25 GBP 1.0545 dollars per pound),
// and the cross rates worked out by hand (Python's decimal: 0.8075 / 1.1066 = 0.729712633…).
func TestLookupEmbeddedDays(t *testing.T) {
	s := newService(t, Deps{})
	cases := []struct {
		code, day, rateDate, perUSD, perUSDExact, perEUR, source string
	}{
		// The day after the UK's referendum, an ECB day.
		{"GBP", "2016-06-24", "2016-06-24", "0.72971", "0.7297126332911621182", "0.8075", SourceECB},
		// A Sunday: Friday's rate.
		{"GBP", "2016-06-26", "2016-06-24", "0.72971", "0.7297126332911621182", "0.8075", SourceECB},
		{"gbp", "2016-06-27", "2016-06-27", "0.75832", "", "0.834", SourceECB},
		{"USD", "2008-07-15", "2008-07-15", "1", "1", "1.599", SourceECB},
		{"EUR", "2008-07-15", "2008-07-15", "0.62539", "0.6253908692933083177", "1", SourceECB},
		{"JPY", "2025-05-09", "2025-05-09", "145.18", "", "163.36", SourceECB},
		// Before the euro: H.10 dollar rates, GBP inverted from dollars per pound.
		{"GBP", "1985-02-25", "1985-02-25", "0.94832", "0.94831673779042200095", "null", SourceFed},
		{"JPY", "1998-12-31", "1998-12-31", "113.08", "113.08", "null", SourceFed},
		// New Year's Day 1999: the euro exists, its first reference rate is on the 4th.
		{"CHF", "1999-01-01", "1998-12-31", "1.3735", "1.3735", "null", SourceFed},
		{"CHF", "1999-01-04", "1999-01-04", "1.3714", "1.37144795996267707185", "1.6168", SourceECB},
	}
	for _, c := range cases {
		r := lookup(t, s, c.code, c.day)
		if r.RateDate.Format(time.DateOnly) != c.rateDate || r.PerUSD.String() != c.perUSD || perEUR(r) != c.perEUR || r.Source != c.source ||
			(c.perUSDExact != "" && r.PerUSDExact.String() != c.perUSDExact) || r.Stale {
			t.Errorf("%s on %s = %s per USD (exact %s), %s per EUR, rate of %s from %q stale=%v; want %s, %s, %s, %s",
				c.code, c.day, r.PerUSD, r.PerUSDExact, perEUR(r), r.RateDate.Format(time.DateOnly), r.Source, r.Stale, c.perUSD, c.perEUR, c.rateDate, c.source)
		}
	}
}

func TestLookupRefusesWithTheField(t *testing.T) {
	s := newService(t, Deps{})
	for _, c := range []struct{ code, day, field, says string }{
		{"XYZ", "2020-01-02", "currency", "GBP"},
		{"USD", "2026-12-01", "date", "future"},
		{"EUR", "1990-05-01", "date", "1999-01-04"},
		{"BRL", "1995-05-01", "date", "no BRL rate"},
	} {
		_, err := s.Lookup(context.Background(), c.code, date(c.day))
		f := apperr.FieldsOf(err)
		if len(f) != 1 || f[0].Field != c.field || !strings.Contains(f[0].Message, c.says) {
			t.Errorf("%s on %s: %v, want a %s error saying %q", c.code, c.day, err, c.field, c.says)
		}
	}
}

// Offline, with the embedded history ending on 2026-04-13, today's rate is that day's, stale.
func TestLookupStaleOffline(t *testing.T) {
	s := newService(t, Deps{Config: Config{Offline: true}})
	r := lookup(t, s, "CHF", "2026-11-27")
	if !r.Stale || r.RateDate.Format(time.DateOnly) != "2026-04-13" {
		t.Fatalf("stale=%v rate_date=%s", r.Stale, r.RateDate.Format(time.DateOnly))
	}
	// A currency the ECB no longer quotes is stale on later days too.
	if r := lookup(t, s, "CYP", "2010-06-01"); !r.Stale || r.RateDate.Format(time.DateOnly) != "2007-12-31" {
		t.Fatalf("CYP: stale=%v %s", r.Stale, r.RateDate)
	}
	// Easter 2026 (no rate from Friday to Monday) is within the allowance.
	if r := lookup(t, s, "CHF", "2026-04-06"); r.Stale || r.RateDate.Format(time.DateOnly) != "2026-04-02" {
		t.Fatalf("Easter Monday: stale=%v %s", r.Stale, r.RateDate)
	}
	s.Run(context.Background()) // returns at once: offline fetches nothing
	if got := len(s.DisplayCurrencies()); got != 30 || !s.IsDisplayCurrency("EUR") || !s.IsDisplayCurrency("INR") || s.IsDisplayCurrency("CYP") {
		t.Fatalf("display currencies: %d %v", got, s.DisplayCurrencies())
	}
}

func TestRefreshFromRecordedECBFile(t *testing.T) {
	recorded, err := os.ReadFile("testdata/ecb-eurofxref-daily-2025-05-09.xml")
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Each(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		hits := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits++
			w.Header().Set("Content-Type", "text/xml")
			_, _ = w.Write(recorded)
		}))
		defer srv.Close()
		// The server as it stood on 2025-05-09 at 17:00 UTC, its embedded history ending on
		// 2025-04-30 and the ECB file not fetched for a week.
		now := time.Date(2025, 5, 9, 17, 0, 0, 0, time.UTC)
		s := newService(t, Deps{Store: store, Config: Config{URL: srv.URL + "/stats/eurofxref/eurofxref-daily.xml"}, Now: func() time.Time { return now }, until: date("2025-05-01")})
		before := lookup(t, s, "GBP", "2025-05-09")
		if !before.Stale || before.RateDate.Format(time.DateOnly) != "2025-04-30" {
			t.Fatalf("before the refresh: stale=%v %s", before.Stale, before.RateDate)
		}
		newest, err := s.Refresh(ctx)
		if err != nil || newest.Format(time.DateOnly) != "2025-05-09" || hits != 1 {
			t.Fatalf("refresh: %v %v hits=%d", newest, err, hits)
		}
		r := lookup(t, s, "GBP", "2025-05-09")
		if r.Stale || r.RateDate.Format(time.DateOnly) != "2025-05-09" || perEUR(r) != "0.8477" || r.PerUSD.String() != "0.75338" || r.Source != SourceRefresh {
			t.Fatalf("after the refresh: %+v per_eur %s", r, perEUR(r))
		}
		stored, err := store.FXRateOnOrBefore(ctx, "GBP", db.NewDate(now))
		if err != nil || stored.PerEUR != "0.84770" {
			t.Fatalf("stored digits: %+v %v", stored, err)
		}
		// Unreachable: an error, nothing invented, the stored rate still answered, and stale
		// with its date once the days go by.
		srv.Close()
		now = now.AddDate(0, 0, 10)
		if _, err := s.Refresh(ctx); err == nil {
			t.Fatal("refresh from a closed server succeeded")
		}
		r = lookup(t, s, "GBP", "2025-05-19")
		if !r.Stale || r.RateDate.Format(time.DateOnly) != "2025-05-09" {
			t.Fatalf("offline later: stale=%v %s", r.Stale, r.RateDate)
		}
	})
}

func TestRefreshRefusesABrokenFile(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, store *db.Store) {
		for _, body := range []string{"<html>maintenance</html>", "<gesmes:Envelope xmlns:gesmes='x'><Cube><Cube time='2025-05-09'><Cube currency='USD' rate='abc'/></Cube></Cube></gesmes:Envelope>"} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(body)) }))
			s := newService(t, Deps{Store: store, Config: Config{URL: srv.URL}})
			if _, err := s.Refresh(context.Background()); err == nil {
				t.Errorf("accepted %q", body)
			}
			srv.Close()
		}
		if d, err := store.LatestFXDay(context.Background()); err != nil || !d.IsZero() {
			t.Fatalf("stored something: %v %v", d, err)
		}
	})
}

func TestNextRefresh(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	for _, c := range []struct {
		now    string
		failed bool
		want   string
	}{
		{"2025-05-09T09:00:00Z", false, "2025-05-09T15:30:00Z"},
		{"2025-05-09T15:30:00Z", false, "2025-05-10T15:30:00Z"},
		{"2025-05-09T17:00:00Z", false, "2025-05-10T15:30:00Z"},
		{"2025-05-09T17:00:00Z", true, "2025-05-09T18:00:00Z"},
	} {
		if got := NextRefresh(at(c.now), c.failed).Format(time.RFC3339); got != c.want {
			t.Errorf("after %s (failed %v): %s, want %s", c.now, c.failed, got, c.want)
		}
	}
}

func TestImportAllOrNothing(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, store *db.Store) {
		ctx := context.Background()
		s := newService(t, Deps{Store: store})
		bad := "date,currency,per_eur\n2026-05-04,USD,1.1712\n2026-05-05,EUR,1\n26-05-05,GBP,0.86\n2026-05-05,XXX,1\n2026-05-05,GBP,-0.86\n1998-12-31,GBP,0.7\n2026-05-04,USD,1.1713\n2026-05-06,CHF\n"
		_, err := s.ParseImport(ctx, strings.NewReader(bad), "import:bad.csv")
		var rows RowErrors
		if !errors.As(err, &rows) || len(rows) != 7 {
			t.Fatalf("want 7 row errors, got %v", err)
		}
		for i, want := range []string{"row 2 (line 3): currency EUR", "row 3 (line 4): date", "row 4 (line 5): currency \"XXX\"", "row 5 (line 6): per_eur", "row 6 (line 7): date 1998-12-31", "row 7 (line 8): USD on 2026-05-04 is already given in row 1", "row 8 (line 9): 2 fields"} {
			if !strings.HasPrefix(rows[i], want) {
				t.Errorf("error %d: %q, want it to start %q", i, rows[i], want)
			}
		}
		if _, err := s.ParseImport(ctx, strings.NewReader("day,code,rate\n"), "x"); err == nil || !strings.Contains(err.Error(), "header") {
			t.Fatalf("header: %v", err)
		}
		// A correction of an embedded day and two days after the embedded history (0.86010 ÷ 1.1712
		// is 0.734375 exactly, half-up to five figures 0.73438).
		good := "date,currency,per_eur\n2026-05-04,USD,1.1712\n2026-05-04,GBP,0.86010\n2016-06-24,GBP,0.8076\n"
		parsed, err := s.ParseImport(ctx, strings.NewReader(good), "import:rates.csv")
		if err != nil || len(parsed) != 3 {
			t.Fatalf("good file: %v %v", parsed, err)
		}
		if err := s.Import(ctx, parsed); err != nil {
			t.Fatal(err)
		}
		// Another service over the same database (a running server) answers with them at once.
		other := newService(t, Deps{Store: store})
		r := lookup(t, other, "GBP", "2026-05-05")
		if r.RateDate.Format(time.DateOnly) != "2026-05-04" || perEUR(r) != "0.8601" || r.PerUSD.String() != "0.73438" || r.Source != "import:rates.csv" || r.Stale {
			t.Fatalf("imported: %+v", r)
		}
		if r := lookup(t, other, "GBP", "2016-06-24"); perEUR(r) != "0.8076" || r.Source != "import:rates.csv" {
			t.Fatalf("correction: %+v", r)
		}
	})
}

func TestParseValueKeepsPublishedDigits(t *testing.T) {
	for in, want := range map[string]string{"0.84770": "0.84770", "1.599": "1.599", "15210.73": "15210.73", "113": "113", "0.0001": "0.0001"} {
		v, err := parseValue(in)
		if err != nil || v.String() != want {
			t.Errorf("%q → %q %v", in, v.String(), err)
		}
	}
	if v, _ := parseValue("0.84770"); v.digits() != 5 {
		t.Errorf("digits of 0.84770: %d", v.digits())
	}
	for _, in := range []string{"", "0", "0.000", "-1", "1e5", ".5", "5.", "1.2.3", "1,5", "1234567890123456"} {
		if v, err := parseValue(in); err == nil {
			t.Errorf("%q accepted as %s", in, v)
		}
	}
}

func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"0.84770", "1.599", "15210.73", "0", "1e5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseValue(s)
		if err != nil {
			return
		}
		d := v.decimal()
		if !d.IsPositive() || v.String() != s && "0"+v.String() != s && strings.TrimLeft(s, "0") != strings.TrimLeft(v.String(), "0") {
			t.Fatalf("%q → %s", s, v)
		}
	})
}

func BenchmarkParseEmbedded(b *testing.B) {
	for range b.N {
		tab := &table{ecb: map[string]series{}}
		if err := readGz("data/ecb_eurofxref_hist.csv.gz", "date,currency,per_eur", func(f []string) error { return tab.add(tab.ecb, f[0], f[1], f[2]) }); err != nil {
			b.Fatal(err)
		}
	}
}

// The job refreshes at once on the leader, then waits for the next day's publication; it
// returns when stopped.
func TestRunRefreshesOnTheLeader(t *testing.T) {
	recorded, err := os.ReadFile("testdata/ecb-eurofxref-daily-2025-05-09.xml")
	if err != nil {
		t.Fatal(err)
	}
	dbtest.Each(t, func(t *testing.T, store *db.Store) {
		fetched := make(chan struct{}, 8)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(recorded)
			fetched <- struct{}{}
		}))
		defer srv.Close()
		s := newService(t, Deps{Store: store, Config: Config{URL: srv.URL}})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.Run(ctx); close(done) }()
		select {
		case <-fetched:
		case <-time.After(30 * time.Second):
			t.Fatal("the job did not fetch")
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if d, err := store.LatestFXDay(context.Background()); err == nil && d.String() == "2025-05-09" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the fetched rates were not stored")
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		<-done
		// Without a URL (tests, tools) the job fetches nothing and returns at once.
		newService(t, Deps{Store: store}).Run(context.Background())
	})
}
