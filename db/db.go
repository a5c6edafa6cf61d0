// Package db is Ounce's storage: one Store over *sqlx.DB that speaks both embedded SQLite
// (modernc, no cgo) and PostgreSQL (lib/pq), with embedded migrations per engine.
package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq" // PostgreSQL driver
	"github.com/lib/pq/pqerror"
	"modernc.org/sqlite" // embedded SQLite driver, pure Go
	sqlite3 "modernc.org/sqlite/lib"
)

// Engine names the database engine behind a Store.
type Engine string

// The two supported engines.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// Sentinel errors every caller maps to a status in one place.
var (
	// ErrNotFound means no row matched (or it belongs to someone else).
	ErrNotFound = errors.New("not found")
	// ErrConflict means the write would break a uniqueness or state rule.
	ErrConflict = errors.New("conflict")
)

//go:embed migrations
var migrationsFS embed.FS

// Store is the one storage handle of the service. The pool stays inside the package so every
// query lives beside a method here; what other packages need of the connection (notifications,
// sessions, pool statistics) is a method too.
type Store struct {
	db     *sqlx.DB
	Engine Engine
	// url is the PostgreSQL connection string (empty for SQLite), for LISTEN connections.
	url string
	// local fans notifications out within this process on SQLite, where one process owns the
	// database and there is no server to relay them.
	local *localBus
	// Now is the clock; tests replace it.
	Now func() time.Time
	// LeaderAttempt, when set (tests), is told of every ask for a leader lock and its answer,
	// a synchronisation point for tests of what a follower must not do.
	LeaderAttempt func(key int64, got bool)
	// ckpt checkpoints SQLite's write-ahead log in the background (checkpoint.go).
	ckpt *checkpointer
	// dir is the SQLite file's directory (documents are files under it); "" otherwise.
	dir string
}

// Open connects to PostgreSQL when url starts with postgres:// or postgresql://, and
// otherwise opens (creating if needed) the SQLite file at sqlitePath.
func Open(ctx context.Context, url, sqlitePath string) (*Store, error) {
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		x, err := sqlx.ConnectContext(ctx, "postgres", url)
		if err != nil {
			return nil, Redacted(fmt.Errorf("connect postgres: %w", err))
		}
		x.SetMaxOpenConns(20)
		x.SetMaxIdleConns(10)
		x.SetConnMaxIdleTime(5 * time.Minute)
		return &Store{db: x, Engine: Postgres, url: url, Now: time.Now}, nil
	}
	if url != "" {
		return nil, fmt.Errorf("DATABASE_URL must start with postgres:// (got scheme of %q)", strings.SplitN(url, ":", 2)[0])
	}
	if sqlitePath != ":memory:" && !strings.HasPrefix(sqlitePath, "file:") {
		if err := os.MkdirAll(filepath.Dir(sqlitePath), 0o750); err != nil {
			return nil, fmt.Errorf("create data dir: %w", err)
		}
	}
	dsn := sqlitePath
	if !strings.HasPrefix(dsn, "file:") {
		dsn = "file:" + dsn
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	// WAL lets readers proceed during a write; busy_timeout turns lock contention into waiting.
	// The log is checkpointed in the background (checkpoint.go); wal_autocheckpoint is only its
	// safety net. Statement journals stay in memory (temp_store) instead of spilling to a temp
	// file past 64 KiB, and the page cache (16 MiB a connection, allocated as used) holds what
	// one heavy write touches, so it neither re-reads nor spills pages mid-transaction.
	dsn += sep + "_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate" +
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-16384)", walSafetyNetPages)
	x, err := sqlx.ConnectContext(ctx, "sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", sqlitePath, err)
	}
	x.SetMaxOpenConns(4)
	x.SetMaxIdleConns(4)
	s := &Store{db: x, Engine: SQLite, local: newLocalBus(), Now: time.Now, dir: sqliteDir(sqlitePath)}
	s.startCheckpointer()
	return s, nil
}

// Close releases the connection pool.
func (s *Store) Close() error {
	s.stopCheckpointer()
	return s.db.Close()
}

// Ping checks the database answers, for /readyz.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// Stats reports the connection pool's state, for metrics.
func (s *Store) Stats() sql.DBStats { return s.db.Stats() }

// Q is the query surface shared by *sqlx.DB and *sqlx.Tx.
type Q interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
}

// txKey carries an open transaction in a context (see InTx).
type txKey struct{}

// InTx runs fn in one transaction carried in the context fn is given: every store write made
// with that context (each goes through WithTx) joins it, and all of them commit together
// when fn returns nil, or none do. A service uses it to make several writes one unit without
// seeing the driver. Reads that do not go through WithTx see what is committed; on SQLite,
// where the transaction holds the write lock, call only writing methods inside fn.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(*sqlx.Tx); ok {
		return fn(ctx)
	}
	return s.WithTx(ctx, func(tx *sqlx.Tx) error { return fn(context.WithValue(ctx, txKey{}, tx)) })
}

// WithTx runs fn in one transaction, committing when it returns nil. Inside InTx it runs fn
// in InTx's transaction, which commits when InTx's fn returns.
func (s *Store) WithTx(ctx context.Context, fn func(tx *sqlx.Tx) error) (err error) {
	if tx, ok := ctx.Value(txKey{}).(*sqlx.Tx); ok {
		return fn(tx)
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			panic(p)
		}
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err = fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// rebind turns ? placeholders into the engine's own.
func (s *Store) rebind(q string) string { return s.db.Rebind(q) }

func (s *Store) now() time.Time { return s.Now().UTC().Truncate(time.Microsecond) }

// Migrate applies every embedded migration of the engine not yet applied, each in its own
// transaction, and returns how many ran.
func (s *Store) Migrate(ctx context.Context) (int, error) {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return 0, fmt.Errorf("migrations table: %w", err)
	}
	dir := "migrations/" + string(s.Engine)
	entries, err := fs.ReadDir(migrationsFS, dir)
	if err != nil {
		return 0, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var applied []string
	if err := s.db.SelectContext(ctx, &applied, `SELECT version FROM schema_migrations`); err != nil {
		return 0, err
	}
	done := map[string]bool{}
	for _, v := range applied {
		done[v] = true
	}
	n := 0
	for _, name := range names {
		version := strings.TrimSuffix(name, ".sql")
		if done[version] {
			continue
		}
		body, err := migrationsFS.ReadFile(dir + "/" + name)
		if err != nil {
			return n, err
		}
		err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
			if s.Engine == Postgres {
				// Several instances may start at once: serialise migrations.
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7302001)`); err != nil {
					return err
				}
				var exists bool
				if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version); err != nil {
					return err
				}
				if exists {
					return nil
				}
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migration %s: %w", name, err)
			}
			_, err := tx.ExecContext(ctx, tx.Rebind(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), version, time.Now().UTC().Format(time.RFC3339))
			return err
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// isUniqueViolation recognises a unique-constraint failure on either engine by the driver's
// typed code: PostgreSQL's SQLSTATE 23505, SQLite's extended codes for a UNIQUE or PRIMARY KEY
// constraint. Error text is never matched: it changes with driver versions and locales.
func isUniqueViolation(err error) bool {
	return isViolation(err, pqerror.UniqueViolation, sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// isForeignKeyViolation recognises a foreign-key failure on either engine by the driver's
// typed code: SQLSTATE 23503, or SQLite's SQLITE_CONSTRAINT_FOREIGNKEY.
func isForeignKeyViolation(err error) bool {
	return isViolation(err, pqerror.ForeignKeyViolation, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY)
}

// isViolation reports whether err is a constraint failure by the driver's typed code:
// PostgreSQL's SQLSTATE pgCode, or one of SQLite's extended codes sqliteCodes.
func isViolation(err error, pgCode pqerror.Code, sqliteCodes ...int) bool {
	if err == nil {
		return false
	}
	if pe, ok := errors.AsType[*pq.Error](err); ok {
		return pe.Code == pgCode
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		return slices.Contains(sqliteCodes, se.Code())
	}
	return false
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
