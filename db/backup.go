package db

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrBackupEngine is returned by BackupTo on PostgreSQL, whose own tools (pg_dump,
// pg_restore) make consistent copies of a running database.
var ErrBackupEngine = errors.New("online backup by ounce is for SQLite; back PostgreSQL up with pg_dump")

// BackupTo writes a consistent copy of the SQLite database to path while it is in use: VACUUM
// INTO reads one snapshot (a read transaction, so writers carry on) and writes a compact,
// self-contained file with no WAL beside it. The copy goes to a temporary file in path's
// directory and is renamed into place when complete, so path is either absent or whole; an
// existing path is never overwritten.
func (s *Store) BackupTo(ctx context.Context, path string) error {
	if s.Engine != SQLite {
		return ErrBackupEngine
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s already exists: choose a new file name", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ounce-backup-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_ = tmp.Close()
	// VACUUM INTO wants a file that does not exist (or is empty); the name stays reserved by us.
	if err := os.Remove(name); err != nil {
		return err
	}
	defer os.Remove(name)
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, name); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	_ = f.Close()
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s appeared while the backup ran: choose a new file name", path)
	}
	return os.Rename(name, path)
}

// IsEmpty reports whether the database holds no tables at all (a file or schema nothing has
// been written to). A database a server has started on once is not empty: it holds the
// migrations and the seeded price history.
func (s *Store) IsEmpty(ctx context.Context) (bool, error) {
	var n int
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table'`
	if s.Engine == Postgres {
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	if err := s.db.GetContext(ctx, &n, q); err != nil {
		return false, err
	}
	return n == 0, nil
}

// CheckIntegrity runs SQLite's integrity check and makes sure the file is an Ounce database
// (it has the migrations table).
func (s *Store) CheckIntegrity(ctx context.Context) error {
	if s.Engine != SQLite {
		return ErrBackupEngine
	}
	var res string
	if err := s.db.GetContext(ctx, &res, `PRAGMA integrity_check`); err != nil {
		return fmt.Errorf("not a readable SQLite database: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity check failed: %s", res)
	}
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM schema_migrations`); err != nil || n == 0 {
		return errors.New("not an Ounce database (no applied migrations)")
	}
	return nil
}
