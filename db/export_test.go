package db

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// ExecForTest runs raw SQL (? placeholders) on the store's pool, for store tests that build
// states no Store method makes (legacy rows, deleting an account). Test builds only.
func (s *Store) ExecForTest(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.rebind(query), args...)
}

// LedgerForTest lists every row of the position ledger (all members), one line each, sorted:
// what the store maintained, for comparison with a recomputation.
func (s *Store) LedgerForTest(ctx context.Context) ([]string, error) {
	var out []string
	for _, q := range []string{
		`SELECT 'day', user_id, metal, day, ` + prefixed("", ledgerCols) + ` FROM position_days`,
		`SELECT 'total', user_id, metal, NULL, ` + prefixed("", ledgerCols) + ` FROM position_totals`,
	} {
		rows, err := s.db.QueryContext(ctx, q)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var kind, metal string
			var user int64
			var day Date
			var v ledgerSums
			dest := []any{&kind, &user, &metal, &day}
			for i := range v {
				dest = append(dest, &v[i])
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, fmt.Sprintf("%s u%d %s %s %v", kind, user, metal, day.Format(DateLayout), v))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// IsUniqueViolationForTest and IsForeignKeyViolationForTest expose the typed driver-code
// checks to the engine tests.
var (
	IsUniqueViolationForTest     = isUniqueViolation
	IsForeignKeyViolationForTest = isForeignKeyViolation
)
