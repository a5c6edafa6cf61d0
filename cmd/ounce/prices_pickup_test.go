package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestPricesImportReachesRunningServer: `ounce prices import`, run beside a running price
// service on the same database through its own store, reaches the service without a restart:
// on SQLite through the revision the service reads every ImportCheck, on PostgreSQL through
// the import's notification (the service's fallback poll is left at a minute, longer than the
// test waits).
func TestPricesImportReachesRunningServer(t *testing.T) {
	engines := map[string]func(t *testing.T) (*db.Store, time.Duration){
		"sqlite": func(t *testing.T) (*db.Store, time.Duration) {
			dir := t.TempDir()
			t.Setenv("OUNCE_DATA_DIR", dir)
			t.Setenv("DATABASE_URL", "")
			s, err := db.Open(context.Background(), "", filepath.Join(dir, "ounce.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			if _, err := s.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			return s, 20 * time.Millisecond
		},
	}
	if base, ok := dbtest.PostgresURL(t); ok {
		engines["postgres"] = func(t *testing.T) (*db.Store, time.Duration) {
			u := dbtest.PostgresSchema(t, base)
			t.Setenv("DATABASE_URL", u)
			return dbtest.OpenPostgres(t, u), 0
		}
	}
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := engines[name]
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s, every := open(t)
			ctx, cancel := context.WithCancel(context.Background())
			svc, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, ImportCheck: every})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { defer close(done); svc.Run(ctx) }()
			defer func() { cancel(); <-done }()

			csv := filepath.Join(t.TempDir(), "palladium.csv")
			if err := os.WriteFile(csv, []byte("date,usd_per_oz\n2023-12-22,1250.50\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			day := time.Date(2023, 12, 22, 0, 0, 0, 0, time.UTC)
			deadline := time.After(20 * time.Second)
			// The listener may not be in place yet when the first import notifies: import again
			// (each import notifies) until the service has re-read, or the deadline passes.
			for picked := false; !picked; {
				reloaded := svc.Reloaded()
				if _, err := runCLI(t, "", "prices", "import", "--metal", "palladium", csv); err != nil {
					t.Fatal(err)
				}
				select {
				case <-reloaded:
					picked = true
				case <-time.After(2 * time.Second):
				case <-deadline:
					t.Fatal("the running service did not pick up the import")
				}
			}
			if c, ok := svc.CloseOn(metals.Palladium, day); !ok || !c.Equal(decimal.RequireFromString("1250.50")) {
				t.Fatalf("running service's close of 2023-12-22 = %s, want 1250.50", c)
			}
		})
	}
}
