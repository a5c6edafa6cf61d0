package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/fx"
)

func TestFXImportAllOrNothingSeenByARunningService(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	ctx := context.Background()
	// A running server's rate service, open on the database before the import.
	if _, err := runCLI(t, "", "migrate"); err != nil {
		t.Fatal(err)
	}
	s, err := db.Open(ctx, "", filepath.Join(dir, "ounce.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	running := fx.New(fx.Deps{Store: s})
	monday := time.Date(2026, 5, 4, 0, 0, 0, 0, time.UTC)
	if r, err := running.Lookup(ctx, "GBP", monday); err != nil || !r.Stale || r.RateDate.Format(time.DateOnly) != "2026-04-13" {
		t.Fatalf("before: %+v %v", r, err)
	}

	file := filepath.Join(dir, "rates.csv")
	bad := "date,currency,per_eur\n2026-05-04,USD,1.1712\n2026-05-04,GBP,abc\n2026-05-04,QQQ,1\n1998-01-02,GBP,0.7\n"
	if err := os.WriteFile(file, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := report(&errb, run(ctx, []string{"fx", "import", file}, strings.NewReader(""), &out, &errb))
	lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
	if code != 2 || len(lines) != 4 || !strings.Contains(lines[0], "row 2 (line 3): per_eur") || !strings.Contains(lines[1], `row 3 (line 4): currency "QQQ"`) ||
		!strings.Contains(lines[2], "row 4 (line 5): date 1998-01-02") || !strings.Contains(lines[3], "3 bad row(s); nothing was imported") {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	if d, err := s.LatestFXDay(ctx); err != nil || !d.IsZero() {
		t.Fatalf("a bad file stored rows: %v %v", d, err)
	}

	good := "date,currency,per_eur\n2026-05-04,USD,1.1712\n2026-05-04,GBP,0.86010\n"
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "", "fx", "import", file); err != nil || !strings.Contains(out, "imported 2 exchange rates (2026-05-04 to 2026-05-04)") {
		t.Fatalf("import: %q %v", out, err)
	}
	r, err := running.Lookup(ctx, "GBP", monday)
	if err != nil || r.Stale || r.RateDate != monday || r.PerEUR == nil || r.PerEUR.String() != "0.8601" || r.Source != "import:"+file {
		t.Fatalf("the running service does not see the import: %+v %v", r, err)
	}
	if _, err := runCLI(t, "", "fx", "import"); !isUsage(err) {
		t.Fatalf("no file: %v", err)
	}
}
