package comex_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func clock(t time.Time) func() time.Time { return func() time.Time { return t } }

func workbook(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "xls", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// field is the single bad field of an Invalid error ("" when err is not one).
func field(err error) string {
	if f := apperr.FieldsOf(err); len(f) == 1 {
		return f[0].Field
	}
	return ""
}

func TestVaultWatchFromTheSeed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := comex.New(comex.Deps{Store: s, Now: clock(day("2026-08-21").Add(15 * time.Hour))})
		if _, err := svc.VaultWatch(ctx, comex.WatchQuery{}); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("before the seed: %v, want not found", err)
		}
		if seeded, err := svc.Seed(ctx); err != nil || !seeded {
			t.Fatalf("first seed: %v %v", seeded, err)
		}
		if seeded, err := svc.Seed(ctx); err != nil || seeded {
			t.Fatalf("second seed stored again: %v %v", seeded, err)
		}

		// The defaults: silver, 30 calendar days back from the newest report.
		w, err := svc.VaultWatch(ctx, comex.WatchQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if w.Metal != metals.Silver || !w.AsOf.Equal(day("2026-08-19")) || w.Stale || w.Source != comex.SourceSeed {
			t.Fatalf("silver: metal %s as of %s stale %v source %q", w.Metal, w.AsOf, w.Stale, w.Source)
		}
		if len(w.History) == 0 || w.History[0].Date.Before(day("2026-07-21")) || !w.History[len(w.History)-1].Date.Equal(w.AsOf) {
			t.Fatalf("30-day window: %d reports from %v", len(w.History), w.History)
		}
		if !w.Combined.Equal(w.Registered.Add(w.Eligible)) {
			t.Fatalf("combined %s != %s + %s", w.Combined, w.Registered, w.Eligible)
		}
		// The seed has totals only, and no open interest was recorded: unknown, not zero.
		if len(w.Depositories) != 0 || !w.DepositoriesAsOf.IsZero() || w.OpenInterestOz != nil || !w.OpenInterestAsOf.IsZero() || w.OversubscribedRatio != nil {
			t.Fatalf("unknowns: %+v", w)
		}
		one, err := svc.VaultWatch(ctx, comex.WatchQuery{Metal: metals.Gold, Days: 1})
		if err != nil || len(one.History) != 1 {
			t.Fatalf("gold, 1 day: %v %v", one.History, err)
		}
		year, _ := svc.VaultWatch(ctx, comex.WatchQuery{Metal: metals.Gold, Days: comex.MaxDays})
		if len(year.History) != 112 {
			t.Fatalf("gold, a year: %d reports, want the seed's 112", len(year.History))
		}

		// A week later the same report is stale, and says so.
		late := comex.New(comex.Deps{Store: s, Now: clock(day("2026-08-27"))})
		if w, _ := late.VaultWatch(ctx, comex.WatchQuery{}); !w.Stale {
			t.Fatal("a week-old report is not flagged stale")
		}

		for _, c := range []struct {
			q     comex.WatchQuery
			field string
		}{
			{comex.WatchQuery{Days: -1}, "days"},
			{comex.WatchQuery{Days: comex.MaxDays + 1}, "days"},
			{comex.WatchQuery{Metal: "copper"}, "metal"},
			{comex.WatchQuery{Metal: "Silver"}, "metal"},
		} {
			if _, err := svc.VaultWatch(ctx, c.q); field(err) != c.field {
				t.Errorf("%+v: %v, want invalid %s", c.q, err, c.field)
			}
		}
		if _, err := svc.VaultWatch(ctx, comex.WatchQuery{Metal: metals.Platinum}); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("platinum is not in the seed: %v", err)
		}
	})
}

func TestImportAndOpenInterest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := comex.New(comex.Deps{Store: s, Now: clock(day("2026-04-28").Add(12 * time.Hour))})

		// Not a workbook: refused as unprocessable, nothing stored.
		if _, err := svc.ImportXLS(ctx, []byte("<html>Access denied</html>"), "page.xls"); apperr.KindOf(err) != apperr.Unprocessable ||
			!strings.Contains(err.Error(), "not a usable CME depository report") {
			t.Fatalf("html: %v", err)
		}
		if n, _ := s.CountVaultReports(ctx); n != 0 {
			t.Fatalf("a refused file stored %d reports", n)
		}

		got, err := svc.ImportXLS(ctx, workbook(t, "Silver_2026-04-27.xls"), "Silver_2026-04-27.xls")
		if err != nil || len(got) != 1 || got[0].Metal != metals.Silver || !got[0].ActivityDate.Equal(day("2026-04-27")) {
			t.Fatalf("import: %+v %v", got, err)
		}
		w, err := svc.VaultWatch(ctx, comex.WatchQuery{Metal: metals.Silver})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(w.Source, "imported from Silver_2026-04-27.xls") || !w.Registered.Equal(got[0].Registered) {
			t.Fatalf("stored report: source %q registered %s", w.Source, w.Registered)
		}
		if len(w.Depositories) != len(got[0].Depositories) || !w.DepositoriesAsOf.Equal(day("2026-04-27")) {
			t.Fatalf("depositories: %d as of %v, want %d", len(w.Depositories), w.DepositoriesAsOf, len(got[0].Depositories))
		}

		for _, c := range []struct {
			in    comex.OpenInterest
			field string
		}{
			{comex.OpenInterest{Metal: "copper", Contracts: 1}, "metal"},
			{comex.OpenInterest{Metal: metals.Silver, Contracts: 0}, "contracts"},
			{comex.OpenInterest{Metal: metals.Silver, Contracts: -5}, "contracts"},
			{comex.OpenInterest{Metal: metals.Silver, Contracts: 10, Day: day("2026-04-29")}, "date"},
		} {
			if _, err := svc.SetOpenInterest(ctx, c.in); field(err) != c.field {
				t.Errorf("%+v: %v, want invalid %s", c.in, err, c.field)
			}
		}
		today, err := svc.SetOpenInterest(ctx, comex.OpenInterest{Metal: metals.Silver, Contracts: 100})
		if err != nil || !today.Day.Equal(day("2026-04-28")) {
			t.Fatalf("open interest without a day is today's: %+v %v", today, err)
		}
		// The newest day counts, whichever was recorded last.
		if _, err := svc.SetOpenInterest(ctx, comex.OpenInterest{Metal: metals.Silver, Contracts: 140000, Day: day("2026-04-27")}); err != nil {
			t.Fatal(err)
		}
		w, _ = svc.VaultWatch(ctx, comex.WatchQuery{Metal: metals.Silver})
		oz := decimal.NewFromInt(100 * 5000)
		if w.OpenInterestOz == nil || !w.OpenInterestOz.Equal(oz) || !w.OpenInterestAsOf.Equal(day("2026-04-28")) {
			t.Fatalf("open interest: %v as of %v", w.OpenInterestOz, w.OpenInterestAsOf)
		}
		if w.OversubscribedRatio == nil || !w.OversubscribedRatio.Equal(oz.Div(w.Registered)) {
			t.Fatalf("ratio: %v", w.OversubscribedRatio)
		}
	})
}

// fakeCME answers like the exchange: the real workbook for silver, a block for the others.
type fakeCME struct {
	mu    sync.Mutex
	calls map[metals.Metal]int
	data  []byte
}

func (f *fakeCME) Fetch(_ context.Context, m metals.Metal) ([]comex.Report, error) {
	f.mu.Lock()
	f.calls[m]++
	f.mu.Unlock()
	if m != metals.Silver {
		return nil, errors.New("HTTP 403")
	}
	return comex.ParseXLS(f.data)
}

func TestFetchLatest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := day("2026-04-28").Add(12 * time.Hour)
		cme := &fakeCME{calls: map[metals.Metal]int{}, data: workbook(t, "Silver_2026-04-27.xls")}
		svc := comex.New(comex.Deps{Store: s, Source: cme, Now: func() time.Time { return now }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})

		res := svc.FetchLatest(ctx)
		if len(res) != len(metals.All) {
			t.Fatalf("%d results", len(res))
		}
		for _, r := range res {
			switch r.Metal {
			case metals.Silver:
				if r.Err != nil || !r.AsOf.Equal(day("2026-04-27")) {
					t.Fatalf("silver: %+v", r)
				}
			default:
				// One blocked file costs only its metal, and the message names it.
				if r.Err == nil || !strings.Contains(r.Err.Error(), "fetching the "+string(r.Metal)+" report failed") || !r.AsOf.IsZero() {
					t.Fatalf("%s: %+v", r.Metal, r)
				}
			}
		}
		w, err := svc.VaultWatch(ctx, comex.WatchQuery{Metal: metals.Silver})
		if err != nil || w.Source != comex.SourceCME {
			t.Fatalf("fetched report: %q %v", w.Source, err)
		}
		// The daily report fetched moments ago is not downloaded again…
		svc.FetchLatest(ctx)
		if cme.calls[metals.Silver] != 1 || cme.calls[metals.Gold] != 2 {
			t.Fatalf("calls after a second run: %v", cme.calls)
		}
		// …but offline nothing is fetched at all.
		off := comex.New(comex.Deps{Store: s, Source: cme, Config: comex.Config{Offline: true}})
		if res := off.FetchLatest(ctx); res != nil || cme.calls[metals.Gold] != 2 {
			t.Fatalf("offline fetched: %v %v", res, cme.calls)
		}
	})
}

// TestImportingEveryBundledWorkbookAddsNoDuplicate is issue 10, case 5: the bundled history
// was dated by capture date and the CME import by activity date, so the same report showed
// twice a day apart (gold 04-15/04-16, 04-27/04-28, 2025-11-26/2025-12-01). Importing all
// eight real workbooks, twice, over the seed must leave one report per (metal, activity date)
// and no report repeated under another date.
func TestImportingEveryBundledWorkbookAddsNoDuplicate(t *testing.T) {
	files := []string{"Gold_2025-11-26.xls", "Gold_2026-04-15.xls", "Gold_2026-04-27.xls", "PA-PL_2026-01-05.xls",
		"PA-PL_2026-04-27.xls", "Silver_2026-01-22.xls", "Silver_2026-02-18.xls", "Silver_2026-04-27.xls"}
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := comex.New(comex.Deps{Store: s, Now: clock(day("2026-08-21"))})
		if _, err := svc.Seed(ctx); err != nil {
			t.Fatal(err)
		}
		before, _ := s.CountVaultReports(ctx)
		for round := 0; round < 2; round++ {
			for _, f := range files {
				if _, err := svc.ImportXLS(ctx, workbook(t, f), f); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
			}
		}
		after, _ := s.CountVaultReports(ctx)
		// New reports: silver 2026-01-22 and the four platinum/palladium ones; the other four
		// replace the seed rows of the same activity date.
		if after-before != 5 {
			t.Errorf("imports added %d reports over the seed's %d, want 5", after-before, before)
		}
		for _, m := range metals.All {
			rows, err := s.VaultHistory(ctx, string(m))
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]string{}
			for _, r := range rows {
				k := r.Registered.String() + "/" + r.Eligible.String()
				if d, dup := seen[k]; dup {
					t.Errorf("%s: the report of %s is stored again on %s", m, d, r.ActivityDate)
				}
				seen[k] = r.ActivityDate.String()
			}
		}
		// A start with the old, capture-dated seed stored re-dates it and keeps the imports.
		old := []db.VaultReport{{Metal: "gold", ActivityDate: db.NewDate(day("2026-08-20")), Registered: decimal.RequireFromString("14514950.107"),
			Eligible: decimal.RequireFromString("1"), Source: comex.SourceSeed}}
		if err := s.SeedVaultReports(ctx, old); err != nil {
			t.Fatal(err)
		}
		if again, err := svc.Seed(ctx); err != nil || !again {
			t.Fatalf("old seed not replaced: %v %v", again, err)
		}
		if n, _ := s.CountVaultReports(ctx); n != after {
			t.Errorf("after re-dating the seed: %d reports, want %d", n, after)
		}
	})
}
