package db

import (
	"context"
	"database/sql"
	"errors"
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

// ReceiptFileRetention is how long a scan's file waits for the member to confirm the scan,
// and MaxPendingReceiptFiles how many of a member's scans keep their file at once (the newest).
const (
	ReceiptFileRetention   = 24 * time.Hour
	MaxPendingReceiptFiles = 5
)

// SaveReceiptFile keeps the file of the user's scan scanID until the scan is confirmed, so it
// can be attached to the lots the confirmation creates. Files older than ReceiptFileRetention
// (anyone's) and the user's beyond the newest MaxPendingReceiptFiles are deleted on the way.
func (s *Store) SaveReceiptFile(ctx context.Context, userID, scanID int64, body []byte, now time.Time) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, s.rebind(`DELETE FROM receipt_files WHERE created_at <= ?`), now.Add(-ReceiptFileRetention).Unix()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.rebind(`DELETE FROM receipt_files WHERE user_id = ? AND scan_id NOT IN
			(SELECT scan_id FROM receipt_files WHERE user_id = ? ORDER BY created_at DESC, scan_id DESC LIMIT ?)`),
			userID, userID, MaxPendingReceiptFiles-1); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO receipt_files (scan_id, user_id, body, created_at) VALUES (?, ?, ?, ?)`),
			scanID, userID, body, now.Unix())
		return err
	})
}

// ReceiptFile is the kept file of the user's scan; ErrNotFound when there is none (never kept,
// already used, expired, or another member's scan).
func (s *Store) ReceiptFile(ctx context.Context, userID, scanID int64, now time.Time) ([]byte, error) {
	var body []byte
	err := s.db.GetContext(ctx, &body, s.rebind(`SELECT body FROM receipt_files WHERE scan_id = ? AND user_id = ? AND created_at > ?`),
		scanID, userID, now.Add(-ReceiptFileRetention).Unix())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return body, err
}

// DeleteReceiptFile forgets the kept file of the user's scan (once the confirmation used it).
func (s *Store) DeleteReceiptFile(ctx context.Context, userID, scanID int64) error {
	_, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM receipt_files WHERE scan_id = ? AND user_id = ?`), scanID, userID)
	return err
}

// ImportReceiptHoldings is ImportHoldingsWithSales answering also the ids of the holdings it
// created, by row ("" for a row skipped as a duplicate), so a confirmed receipt can be
// attached to them.
func (s *Store) ImportReceiptHoldings(ctx context.Context, userID int64, rows []Holding, sales []ImportedSale, decide SaleRule, replay DisposalReplay) (ImportResult, []string, error) {
	var res ImportResult
	var ids []string
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		res, ids, err = s.importTx(ctx, tx, userID, rows, sales, decide, replay)
		return err
	})
	if err != nil {
		return ImportResult{}, nil, err
	}
	return res, ids, nil
}
