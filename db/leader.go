package db

import (
	"context"
	"time"
)

// RunAsLeader runs lead whenever this instance holds the PostgreSQL advisory lock key, so
// exactly one of several instances sharing the database does the work. The lock is held on a
// dedicated connection that is pinged; losing it cancels lead's context, and another instance
// takes over within retry. It returns when ctx ends. On SQLite (one process owns the file)
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
	err = conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, key).Scan(&got)
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
	_, _ = conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, key)
}
