package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func day(s string) db.Date {
	d, err := db.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestVaultReportsSeedImportAndOpenInterest(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		seed := []db.VaultReport{
			{Metal: "silver", ActivityDate: day("2026-04-24"), Registered: dec("76340008.873"), Eligible: dec("238841737.809"), Source: "seed"},
			{Metal: "silver", ActivityDate: day("2026-04-27"), Registered: dec("1"), Eligible: dec("2"), Source: "seed"},
		}
		if err := s.SeedVaultReports(ctx, seed); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.CountVaultReports(ctx); n != 2 {
			t.Fatalf("count %d", n)
		}
		if _, _, err := s.LatestVaultDepositories(ctx, "silver"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("no depositories yet: %v", err)
		}
		// An import replaces the seed row of its day, with depository rows; float noise beyond
		// CME's three places is dropped on both engines alike.
		imp := db.VaultReport{Metal: "silver", ActivityDate: day("2026-04-27"), ReportDate: day("2026-04-28"),
			Registered: dec("75715217.37299998"), Eligible: dec("239466529.30900002"), Source: "import",
			Depositories: []db.VaultDepository{
				{Name: "A VAULT", Registered: dec("75000000"), Eligible: dec("200000000"), Total: dec("275000000")},
				{Name: "B VAULT", Registered: dec("715217.373"), Eligible: dec("39466529.309"), Total: dec("40181746.682")},
			}}
		if err := s.SaveVaultReports(ctx, []db.VaultReport{imp}); err != nil {
			t.Fatal(err)
		}
		// Seeding again never overwrites the import.
		if err := s.SeedVaultReports(ctx, seed); err != nil {
			t.Fatal(err)
		}
		hist, err := s.VaultHistory(ctx, "silver")
		if err != nil || len(hist) != 2 {
			t.Fatalf("history: %+v %v", hist, err)
		}
		last := hist[1]
		if last.Registered.String() != "75715217.373" || last.Eligible.String() != "239466529.309" || last.Source != "import" || last.ReportDate.String() != "2026-04-28" || last.Pledged.Valid {
			t.Fatalf("imported row: %+v", last)
		}
		if hist[0].ActivityDate.String() != "2026-04-24" || !hist[0].ReportDate.IsZero() {
			t.Fatalf("first row: %+v", hist[0])
		}
		d, deps, err := s.LatestVaultDepositories(ctx, "silver")
		if err != nil || d.String() != "2026-04-27" || len(deps) != 2 || deps[0].Name != "A VAULT" || deps[1].Total.String() != "40181746.682" {
			t.Fatalf("depositories: %v %+v %v", d, deps, err)
		}
		// Re-importing with fewer depositories replaces the rows.
		imp.Depositories = imp.Depositories[:1]
		if err := s.SaveVaultReports(ctx, []db.VaultReport{imp}); err != nil {
			t.Fatal(err)
		}
		if _, deps, _ := s.LatestVaultDepositories(ctx, "silver"); len(deps) != 1 {
			t.Fatalf("depositories not replaced: %+v", deps)
		}
		if h, _ := s.VaultHistory(ctx, "gold"); len(h) != 0 {
			t.Fatalf("gold history: %+v", h)
		}

		if _, err := s.LatestOpenInterest(ctx, "silver"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("no open interest yet: %v", err)
		}
		for _, oi := range []db.OpenInterest{{Metal: "silver", Day: day("2026-04-20"), Contracts: 150000}, {Metal: "silver", Day: day("2026-04-27"), Contracts: 140000}, {Metal: "silver", Day: day("2026-04-27"), Contracts: 141000}} {
			if err := s.SetOpenInterest(ctx, oi); err != nil {
				t.Fatal(err)
			}
		}
		oi, err := s.LatestOpenInterest(ctx, "silver")
		if err != nil || oi.Contracts != 141000 || oi.Day.String() != "2026-04-27" || oi.UpdatedAt.Before(time.Now().Add(-time.Minute)) {
			t.Fatalf("open interest: %+v %v", oi, err)
		}
		if err := s.SetOpenInterest(ctx, db.OpenInterest{Metal: "silver", Day: day("2026-04-28"), Contracts: 0}); err == nil {
			t.Fatal("zero contracts stored")
		}
	})
}
