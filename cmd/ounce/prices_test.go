package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

func TestPricesImportAddsAndCorrectsCloses(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	csv := filepath.Join(dir, "gold.csv")
	if err := os.WriteFile(csv, []byte("date,usd_per_oz\n2026-11-18,4100.50\n2026-11-19,4123.25\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "", "prices", "import", "--metal", "gold", csv)
	if err != nil || !strings.Contains(out, "imported 2 gold daily closes (2026-11-18 to 2026-11-19)") {
		t.Fatalf("import: %q %v", out, err)
	}
	// A correction of the same day replaces it.
	if err := os.WriteFile(csv, []byte("date,usd_per_oz\n2026-11-19,4120.00\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "", "prices", "import", "--metal", "gold", csv); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := db.Open(ctx, "", filepath.Join(dir, "ounce.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := svc.CloseOn(metals.Gold, time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC))
	if !ok || c.String() != "4120" {
		t.Fatalf("corrected close = %s", c)
	}
	// The embedded history is still there beside the import.
	if c, ok := svc.CloseOn(metals.Gold, time.Date(1980, 1, 21, 0, 0, 0, 0, time.UTC)); !ok || c.String() != "850" {
		t.Fatalf("embedded history lost: %s", c)
	}
	for _, bad := range []struct{ content, want string }{
		{"date,usd_per_oz\n2026-11-19,abc\n", "line 2"},
		{"date,usd_per_oz\n2026-11-19,4.10\n", "gold"}, // outside gold's plausible band: a per-gram or per-kilo mix-up
	} {
		_ = os.WriteFile(csv, []byte(bad.content), 0o600)
		if _, err := runCLI(t, "", "prices", "import", "--metal", "gold", csv); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err %v, want mention of %q", bad.content, err, bad.want)
		}
	}
	if _, err := runCLI(t, "", "prices", "import", "--metal", "tin", csv); !isUsage(err) {
		t.Fatalf("bad metal: %v", err)
	}
}
