package db

import (
	"context"
	"database/sql"
)

// ExecForTest runs raw SQL (? placeholders) on the store's pool, for store tests that build
// states no Store method makes (legacy rows, deleting an account). Test builds only.
func (s *Store) ExecForTest(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.rebind(query), args...)
}
