package db

import (
	"context"
	"time"
)

// RunAsLeader runs lead whenever this instance holds the PostgreSQL advisory lock key, so
// exactly one of several instances sharing the database does the work. The lock is held on a
// dedicated connection that is pinged; losing it cancels lead's context, and another instance
// takes over within retry. The lock is the key within the schema the store works in (see
// schemaLock). It returns when ctx ends. On SQLite (one process owns the file)
// lead simply runs.
func (s *Store) RunAsLeader(ctx context.Context, key int64, retry time.Duration, lead func(ctx context.Context)) {
	if s.Engine != Postgres {
		lead(ctx)
		return
	}
	for ctx.Err() == nil {
		s.leadOnce(ctx, key, lead)
		select {
		case <-ctx.Done():
		case <-time.After(retry):
		}
	}
}

func (s *Store) leadOnce(ctx context.Context, key int64, lead func(ctx context.Context)) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	var got bool
	err = conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(`+schemaLock+`)`, key).Scan(&got)
	if s.LeaderAttempt != nil && err == nil {
		s.LeaderAttempt(key, got)
	}
	if err != nil || !got {
		return
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-lctx.Done():
				return
			case <-t.C:
				if err := conn.PingContext(lctx); err != nil {
					cancel()
					return
				}
			}
		}
	}()
	lead(lctx)
	_, _ = conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(`+schemaLock+`)`, key)
}

// schemaLock is the advisory lock of key within the connection's schema. Advisory locks are
// shared by the whole database, so without the schema two deployments (or two test runs) kept in
// separate schemas of one database would share one leader: an instance of one would wait on the
// other's job and never do its own.
const schemaLock = `hashtextextended(current_schema() || '/' || $1::text, 0)`
