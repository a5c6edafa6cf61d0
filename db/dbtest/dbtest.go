// Package dbtest hands tests a migrated Store on every engine: a fresh SQLite file always, and
// a fresh PostgreSQL schema when OUNCE_TEST_POSTGRES_URL is set. Under CI=true a missing
// PostgreSQL URL fails the test instead of skipping the engine.
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/ouncehq/ounce/db"
)

// PostgresURL returns the test database URL, failing the test under CI when it is missing.
// ok is false when PostgreSQL tests should not run here.
func PostgresURL(t testing.TB) (string, bool) {
	u := os.Getenv("OUNCE_TEST_POSTGRES_URL")
	if u == "" && os.Getenv("CI") == "true" {
		t.Fatal("CI=true but OUNCE_TEST_POSTGRES_URL is unset: PostgreSQL tests are required in CI")
	}
	return u, u != ""
}

// SQLite returns a migrated store on a new SQLite file in the test's temp dir.
func SQLite(t testing.TB) *db.Store {
	t.Helper()
	return openMigrated(t, "", filepath.Join(t.TempDir(), "ounce.db"))
}

// Postgres returns a migrated store in a schema of its own, dropped when the test ends.
func Postgres(t testing.TB, base string) *db.Store {
	t.Helper()
	return OpenPostgres(t, PostgresSchema(t, base))
}

// PostgresSchema creates a schema of its own in the database at base, dropped when the test
// ends, and returns the URL that opens it. Tests of several instances over one database open
// that URL once per instance with OpenPostgres.
func PostgresSchema(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sqlx.ConnectContext(ctx, "postgres", base)
	if err != nil {
		t.Fatalf("postgres at OUNCE_TEST_POSTGRES_URL: %v", err)
	}
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		_ = admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// OpenPostgres opens and migrates a store at the PostgreSQL URL, closed when the test ends;
// opening the same URL twice gives two instances sharing one database.
func OpenPostgres(t testing.TB, u string) *db.Store {
	t.Helper()
	return openMigrated(t, u, "")
}

// openMigrated opens the store db.Open opens for (postgresURL, sqlitePath), closed when the
// test ends, and migrates it; any failure fails the test.
func openMigrated(t testing.TB, postgresURL, sqlitePath string) *db.Store {
	t.Helper()
	ctx := context.Background()
	s, err := db.Open(ctx, postgresURL, sqlitePath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// SkipNoPostgres is the reason a PostgreSQL subtest gives when it is skipped.
const SkipNoPostgres = "PostgreSQL not tested: OUNCE_TEST_POSTGRES_URL is unset (CI=true makes this a failure)"

// Each runs fn as a subtest once per engine. Without OUNCE_TEST_POSTGRES_URL the postgres
// subtest is still listed, skipped with SkipNoPostgres so `go test -v` shows the engine that
// did not run; under CI=true it fails instead.
func Each(t *testing.T, fn func(t *testing.T, s *db.Store)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) {
		u, ok := PostgresURL(t)
		if !ok {
			t.Skip(SkipNoPostgres)
		}
		fn(t, Postgres(t, u))
	})
}
