package db

import (
	"context"
	"database/sql"
	"time"

	"github.com/jmoiron/sqlx"
)

// ReceiptScanRetention is how long a scan's time is kept: the longest window a scan limit counts.
const ReceiptScanRetention = 30 * 24 * time.Hour

// ReserveReceiptScan counts one receipt scan of the user at now when fewer than limit were
// made in the window before it, and returns the new scan's id. When the limit is reached it
// records nothing and returns ok false with the time the oldest counted scan leaves the window.
// Scans of one user are serialised (the user's row is locked on PostgreSQL; SQLite transactions
// take the write lock up front), so parallel requests cannot both take the last scan. Rows past
// ReceiptScanRetention are dropped on the way.
func (s *Store) ReserveReceiptScan(ctx context.Context, userID int64, now time.Time, window time.Duration, limit int) (id int64, ok bool, reset time.Time, err error) {
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if s.Engine == Postgres {
			var one int
			if err := tx.GetContext(ctx, &one, `SELECT 1 FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.rebind(`DELETE FROM receipt_scans WHERE user_id = ? AND scanned_at <= ?`),
			userID, now.Add(-ReceiptScanRetention).Unix()); err != nil {
			return err
		}
		var st struct {
			N      int           `db:"n"`
			Oldest sql.NullInt64 `db:"oldest"`
		}
		if err := tx.GetContext(ctx, &st, s.rebind(`SELECT COUNT(*) AS n, MIN(scanned_at) AS oldest FROM receipt_scans WHERE user_id = ? AND scanned_at > ?`),
			userID, now.Add(-window).Unix()); err != nil {
			return err
		}
		if st.N >= limit {
			reset = time.Unix(st.Oldest.Int64, 0).Add(window)
			return nil
		}
		ok = true
		return tx.GetContext(ctx, &id, s.rebind(`INSERT INTO receipt_scans (user_id, scanned_at) VALUES (?, ?) RETURNING id`), userID, now.Unix())
	})
	return id, ok, reset, err
}

// ReleaseReceiptScan forgets a reserved scan, for a scan that failed on our side (a missing
// tool), which should not use up the member's allowance.
func (s *Store) ReleaseReceiptScan(ctx context.Context, userID, id int64) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM receipt_scans WHERE id = ? AND user_id = ?`), id, userID)
	return err
}

// ReceiptScansSince counts the user's scans after since (for showing what is left).
func (s *Store) ReceiptScansSince(ctx context.Context, userID int64, since time.Time) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT COUNT(*) FROM receipt_scans WHERE user_id = ? AND scanned_at > ?`), userID, since.Unix())
	return n, err
}
