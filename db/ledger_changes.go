package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// The ledger's change log (migration 0027): for each ledger revision, the earliest day of
// position_days that write changed. A reader that kept the ledger's days at an older revision
// re-reads only the days on or after the earliest day changed since (LedgerChangedFrom).

// keptLedgerChanges is how many of a member's newest revisions the log keeps; a reader whose
// days are older reads everything again.
const keptLedgerChanges = 256

// recordLedgerChange logs, inside the transaction that raised the member's revision, the
// earliest day it changed (the keys' days are YYYY-MM-DD, so text order is day order).
func (s *Store) recordLedgerChange(ctx context.Context, tx *sqlx.Tx, userID int64, keys []ledgerKey) error {
	if len(keys) == 0 {
		return nil
	}
	from := keys[0].Day
	for _, k := range keys[1:] {
		if k.Day < from {
			from = k.Day
		}
	}
	var rev int64
	if err := tx.GetContext(ctx, &rev, tx.Rebind(`INSERT INTO ledger_changes (user_id, rev, from_day)
		SELECT id, ledger_rev, ? FROM users WHERE id = ? RETURNING rev`), from, userID); err != nil {
		return fmt.Errorf("ledger change: %w", err)
	}
	if rev%64 == 0 {
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM ledger_changes WHERE user_id = ? AND rev <= ?`), userID, rev-keptLedgerChanges); err != nil {
			return fmt.Errorf("ledger change: %w", err)
		}
	}
	return nil
}

// LedgerChangedFrom is the earliest ledger day changed by the member's revisions after since
// up to and including upTo. ok is false when the log cannot say: a revision in that range
// left no record (it was raised by a write that does not log, or the log no longer holds
// it), or the range is empty or backwards. A zero day with ok true means nothing changed.
func (s *Store) LedgerChangedFrom(ctx context.Context, userID, since, upTo int64) (from Date, ok bool, err error) {
	if upTo <= since || upTo-since > keptLedgerChanges {
		return Date{}, upTo == since, nil
	}
	dayNum := `CAST(unixepoch(MIN(from_day)) / 86400 AS INTEGER)`
	if s.Engine == Postgres {
		dayNum = `(MIN(from_day) - DATE '1970-01-01')`
	}
	var n int64
	var day sql.NullInt64
	if err := s.db.QueryRowContext(ctx, s.rebind(`SELECT COUNT(*), `+dayNum+` FROM ledger_changes WHERE user_id = ? AND rev > ? AND rev <= ?`),
		userID, since, upTo).Scan(&n, &day); err != nil {
		return Date{}, false, fmt.Errorf("ledger changes: %w", err)
	}
	if n != upTo-since || !day.Valid {
		return Date{}, false, nil
	}
	return Date{time.Unix(day.Int64*86400, 0).UTC()}, true, nil
}
