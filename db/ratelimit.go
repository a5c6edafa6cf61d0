package db

import (
	"context"
	"time"
)

// HitRateLimit counts one hit in the fixed window containing now for bucket and returns the
// window's count, so every instance sharing the database enforces one limit.
func (s *Store) HitRateLimit(ctx context.Context, bucket string, window time.Duration, now time.Time) (int, time.Time, error) {
	start := now.Truncate(window)
	var hits int
	err := s.db.GetContext(ctx, &hits, s.rebind(`INSERT INTO rate_limits (bucket, window_start, hits) VALUES (?, ?, 1)
		ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limits.hits + 1 RETURNING hits`), bucket, start.Unix())
	return hits, start.Add(window), err
}

// PruneRateLimits drops windows that ended before the cutoff.
func (s *Store) PruneRateLimits(ctx context.Context, before time.Time) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM rate_limits WHERE window_start < ?`), before.Unix())
	return err
}
