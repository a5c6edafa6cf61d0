package db

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// The ledger's change log (migration 0027): for each ledger revision, the earliest day of
// position_days that write changed. A reader that kept the ledger's days at an older revision
// re-reads only the days on or after the earliest day changed since (LedgerChangedFrom).

// keptLedgerChanges is how many of a member's newest revisions the log keeps; a reader whose
// days are older reads everything again.
const keptLedgerChanges = 256

// maxLoggedDays is how many changed days a revision's log row lists (migration 0029); a write
// that changed more (an import) logs only its earliest.
const maxLoggedDays = 32

// recordLedgerChange logs, inside the transaction that raised the member's revision, the
// days it changed (the keys' days are YYYY-MM-DD, so text order is day order).
func (s *Store) recordLedgerChange(ctx context.Context, tx *sqlx.Tx, userID int64, keys []ledgerKey) error {
	if len(keys) == 0 {
		return nil
	}
	days := make([]string, len(keys))
	for i, k := range keys {
		days[i] = k.Day
	}
	slices.Sort(days)
	days = slices.Compact(days)
	var list sql.NullString
	if len(days) <= maxLoggedDays {
		list = sql.NullString{String: strings.Join(days, ","), Valid: true}
	}
	var rev int64
	if err := tx.GetContext(ctx, &rev, tx.Rebind(`INSERT INTO ledger_changes (user_id, rev, from_day, days)
		SELECT id, ledger_rev, ?, ? FROM users WHERE id = ? RETURNING rev`), days[0], list, userID); err != nil {
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
	dayNum := s.dayNumber(`MIN(from_day)`)
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

// LedgerChange is what a member's revisions after one changed in the ledger: the earliest day,
// and every day when each revision listed its days (nil when one did not: then every day on or
// after From may have changed).
type LedgerChange struct {
	From Date
	Days []Date // oldest first
}

// LedgerChangedDays is LedgerChangedFrom with the days changed, when the log lists them. ok is
// false when the log cannot say (as LedgerChangedFrom); a zero From with ok true means nothing
// changed.
func (s *Store) LedgerChangedDays(ctx context.Context, userID, since, upTo int64) (LedgerChange, bool, error) {
	if upTo <= since || upTo-since > keptLedgerChanges {
		return LedgerChange{}, upTo == since, nil
	}
	dayNum := s.dayNumber(`from_day`)
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT `+dayNum+`, days FROM ledger_changes WHERE user_id = ? AND rev > ? AND rev <= ?`), userID, since, upTo)
	if err != nil {
		return LedgerChange{}, false, fmt.Errorf("ledger changes: %w", err)
	}
	defer rows.Close()
	var n, from int64
	listed := true
	var days []string
	for rows.Next() {
		var day int64
		var list sql.NullString
		if err := rows.Scan(&day, &list); err != nil {
			return LedgerChange{}, false, fmt.Errorf("ledger changes: %w", err)
		}
		if n == 0 || day < from {
			from = day
		}
		n++
		listed = listed && list.Valid && list.String != ""
		if listed {
			days = append(days, strings.Split(list.String, ",")...)
		}
	}
	if err := rows.Err(); err != nil {
		return LedgerChange{}, false, fmt.Errorf("ledger changes: %w", err)
	}
	if n != upTo-since {
		return LedgerChange{}, false, nil
	}
	out := LedgerChange{From: Date{time.Unix(from*86400, 0).UTC()}}
	if !listed {
		return out, true, nil
	}
	slices.Sort(days)
	days = slices.Compact(days)
	out.Days = make([]Date, 0, len(days))
	for _, d := range days {
		t, err := ParseDate(d)
		if err != nil {
			return LedgerChange{From: out.From}, true, nil // not a day list this store wrote: read from the earliest
		}
		out.Days = append(out.Days, t)
	}
	return out, true, nil
}
