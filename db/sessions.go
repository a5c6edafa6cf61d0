package db

import (
	"context"

	"github.com/alexedwards/scs/postgresstore"
	"github.com/alexedwards/scs/sqlite3store"
	"github.com/alexedwards/scs/v2"
)

// SessionStore returns the scs store for this engine over the sessions table that the
// migrations create. It is built here, not in web, because the table's shape (a julianday
// REAL on SQLite, a timestamptz on PostgreSQL) belongs to these migrations and the pool does
// not leave the package. It starts no cleanup goroutine of its own: DeleteExpiredSessions is
// run by the server's job runner, so it stops with the server.
func (s *Store) SessionStore() scs.Store {
	if s.Engine == Postgres {
		return postgresstore.NewWithCleanupInterval(s.db.DB, 0)
	}
	return sqlite3store.NewWithCleanupInterval(s.db.DB, 0)
}

// DeleteExpiredSessions removes sessions past their expiry. The expiry is compared with the
// database clock, as the scs stores that write and read these rows do.
func (s *Store) DeleteExpiredSessions(ctx context.Context) error {
	q := `DELETE FROM sessions WHERE expiry < julianday('now')`
	if s.Engine == Postgres {
		q = `DELETE FROM sessions WHERE expiry < current_timestamp`
	}
	_, err := s.db.ExecContext(ctx, q)
	return err
}

// CountSessions is how many session rows are stored, expired ones included (metrics, tests).
func (s *Store) CountSessions(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM sessions`)
	return n, err
}
