package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

const xlsDir = "../../internal/comex/testdata/xls"

// TestVaultImportCommand imports the real CME workbooks and checks the stored exchange totals
// against the TOTAL TODAY column published in each file (SOURCES.md).
func TestVaultImportCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")

	files, err := filepath.Glob(filepath.Join(xlsDir, "*.xls"))
	if err != nil || len(files) != 8 {
		t.Fatalf("test workbooks: %v %v", files, err)
	}
	out, err := runCLI(t, "", append([]string{"vault", "import"}, files...)...)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	for _, want := range []string{
		"Silver_2026-04-27.xls: silver 2026-04-27 registered 75715217.373 oz, eligible 239466529.309 oz, combined 315181746.682 oz",
		"Gold_2026-04-15.xls: gold 2026-04-15 registered 15777724.632 oz, eligible 14237457.381 oz, combined 30015182.013 oz",
		"PA-PL_2026-01-05.xls: platinum 2026-01-05 registered 358797.636 oz, eligible 286568.392 oz, combined 645366.028 oz",
		"PA-PL_2026-01-05.xls: palladium 2026-01-05 registered 140786.120 oz, eligible 70519.699 oz, combined 211305.819 oz",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 10 {
		t.Errorf("want one line per report (10), got %d:\n%s", n, out)
	}

	// Published totals, per SOURCES.md: registered, eligible (combined = their sum).
	want := map[string]map[string][2]string{
		"gold": {
			"2025-11-26": {"18112393.509", "18244709.434"},
			"2026-04-15": {"15777724.632", "14237457.381"},
			"2026-04-27": {"15604254.174", "13583391.73"},
		},
		"silver": {
			"2026-01-22": {"114262775.06", "302162088.182"},
			"2026-02-18": {"88191059.264", "279235569.023"},
			"2026-04-27": {"75715217.373", "239466529.309"},
		},
		"platinum":  {"2026-01-05": {"358797.636", "286568.392"}, "2026-04-27": {"271575.662", "224046.453"}},
		"palladium": {"2026-01-05": {"140786.12", "70519.699"}, "2026-04-27": {"203694.625", "35957.856"}},
	}
	ctx := context.Background()
	s, err := db.Open(ctx, "", filepath.Join(dir, "ounce.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for metal, days := range want {
		hist, err := s.VaultHistory(ctx, metal)
		if err != nil || len(hist) != len(days) {
			t.Fatalf("%s history: %d rows %v", metal, len(hist), err)
		}
		for _, r := range hist {
			w, ok := days[r.ActivityDate.String()]
			if !ok || r.Registered.String() != w[0] || r.Eligible.String() != w[1] {
				t.Errorf("%s %s: registered %s eligible %s, want %v", metal, r.ActivityDate, r.Registered, r.Eligible, w)
			}
			if !strings.Contains(r.Source, "imported from") {
				t.Errorf("source %q does not name the file", r.Source)
			}
		}
		// Depository rows add up to the exchange total of the newest report.
		_, deps, err := s.LatestVaultDepositories(ctx, metal)
		if err != nil || len(deps) == 0 {
			t.Fatalf("%s depositories: %v", metal, err)
		}
		sum := deps[0].Registered
		for _, d := range deps[1:] {
			sum = sum.Add(d.Registered)
		}
		if last := hist[len(hist)-1]; !sum.Equal(last.Registered) {
			t.Errorf("%s depositories registered sum %s != total %s", metal, sum, last.Registered)
		}
	}
	// The gold report of 2026-04-27 carries pledged gold, which is part of registered.
	for _, r := range mustHistory(t, s, "gold") {
		if r.ActivityDate.String() == "2026-04-27" && (!r.Pledged.Valid || r.Pledged.Decimal.String() != "1923030.696") {
			t.Errorf("gold pledged: %+v", r.Pledged)
		}
	}

	// Importing the same file again replaces rather than duplicates.
	if _, err := runCLI(t, "", "vault", "import", files[0]); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.CountVaultReports(ctx); n != 10 {
		t.Fatalf("reports after re-import: %d, want 10", n)
	}

	// Files that are not CME workbooks are refused and store nothing.
	bad := filepath.Join(dir, "page.xls")
	if err := os.WriteFile(bad, []byte("<html>Access denied</html>"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "", "vault", "import", bad); err == nil || !strings.Contains(err.Error(), "not a usable CME depository report") {
		t.Fatalf("html file: %v", err)
	}
	if _, err := runCLI(t, "", "vault", "import", filepath.Join(dir, "missing.xls")); err == nil {
		t.Fatal("missing file accepted")
	}
	if _, err := runCLI(t, "", "vault", "import"); !isUsage(err) {
		t.Fatalf("no files: %v", err)
	}
	if _, err := runCLI(t, "", "vault"); !isUsage(err) {
		t.Fatalf("no subcommand: %v", err)
	}
	if _, err := runCLI(t, "", "vault", "frobnicate"); !isUsage(err) {
		t.Fatalf("unknown subcommand: %v", err)
	}
}

func mustHistory(t *testing.T, s *db.Store, metal string) []db.VaultReport {
	t.Helper()
	h, err := s.VaultHistory(context.Background(), metal)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestVaultOpenInterestCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")

	out, err := runCLI(t, "", "vault", "open-interest", "--metal", "Silver", "--contracts", "140000", "--date", "2026-04-27")
	if err != nil || out != "silver open interest on 2026-04-27: 140000 contracts\n" {
		t.Fatalf("open-interest: %q %v", out, err)
	}
	for _, args := range [][]string{
		{"--metal", "copper", "--contracts", "1"},
		{"--metal", "silver", "--contracts", "0"},
		{"--metal", "silver", "--contracts", "-5"},
		{"--metal", "silver", "--contracts", "1.5"},
		{"--metal", "silver", "--contracts", "10", "--date", "27/04/2026"},
		{"--metal", "silver", "--contracts", "10", "--date", "2999-01-01"},
		{"--metal", "silver"},
		{"--contracts", "10"},
		{"--metal", "silver", "--contracts", "10", "extra"},
		{"--bogus"},
	} {
		if _, err := runCLI(t, "", append([]string{"vault", "open-interest"}, args...)...); !isUsage(err) {
			t.Errorf("%v: want a usage error, got %v", args, err)
		}
	}
	s, err := db.Open(context.Background(), "", filepath.Join(dir, "ounce.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	oi, err := s.LatestOpenInterest(context.Background(), "silver")
	if err != nil || oi.Contracts != 140000 || oi.Day.String() != "2026-04-27" {
		t.Fatalf("stored: %+v %v", oi, err)
	}
}
