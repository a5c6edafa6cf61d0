package db

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// SignInFailure is the count of failed sign-ins of one bucket (an address, an account, or an
// account from one address) since its counter last started.
type SignInFailure struct {
	Failures int
	First    time.Time
	Last     time.Time
}

type signInFailureRow struct {
	Failures int   `db:"failures"`
	First    int64 `db:"first_failed"`
	Last     int64 `db:"last_failed"`
}

// SignInFailures returns the counter of bucket; a bucket that never failed is the zero value.
func (s *Store) SignInFailures(ctx context.Context, bucket string) (SignInFailure, error) {
	var r signInFailureRow
	err := s.db.GetContext(ctx, &r, s.rebind(`SELECT failures, first_failed, last_failed FROM sign_in_failures WHERE bucket = ?`), bucket)
	if errors.Is(err, sql.ErrNoRows) {
		return SignInFailure{}, nil
	}
	if err != nil {
		return SignInFailure{}, err
	}
	return SignInFailure{Failures: r.Failures, First: time.Unix(r.First, 0).UTC(), Last: time.Unix(r.Last, 0).UTC()}, nil
}

// RecordSignInFailure counts one failure of bucket at now. A counter whose last failure is
// older than resetAfter starts again from one, so old mistakes are forgotten.
func (s *Store) RecordSignInFailure(ctx context.Context, bucket string, now time.Time, resetAfter time.Duration) error {
	t, stale := now.Unix(), now.Add(-resetAfter).Unix()
	_, err := s.db.ExecContext(ctx, s.rebind(`INSERT INTO sign_in_failures (bucket, failures, first_failed, last_failed) VALUES (?, 1, ?, ?)
		ON CONFLICT (bucket) DO UPDATE SET
			failures = CASE WHEN sign_in_failures.last_failed < ? THEN 1 ELSE sign_in_failures.failures + 1 END,
			first_failed = CASE WHEN sign_in_failures.last_failed < ? THEN excluded.first_failed ELSE sign_in_failures.first_failed END,
			last_failed = excluded.last_failed`), bucket, t, t, stale, stale)
	return err
}

// ClearSignInFailures forgets the counters of the buckets (after a successful sign-in).
func (s *Store) ClearSignInFailures(ctx context.Context, buckets ...string) error {
	for _, b := range buckets {
		if _, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM sign_in_failures WHERE bucket = ?`), b); err != nil {
			return err
		}
	}
	return nil
}

// PruneSignInFailures drops counters whose last failure is before the cutoff.
func (s *Store) PruneSignInFailures(ctx context.Context, before time.Time) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM sign_in_failures WHERE last_failed < ?`), before.Unix())
	return err
}
