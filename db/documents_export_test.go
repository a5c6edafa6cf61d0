package db

import (
	"context"
	"path/filepath"
	"strconv"
)

// DocumentPathForTest is where an SQLite store keeps a document's file ("" on PostgreSQL).
func (s *Store) DocumentPathForTest(userID int64, id string) string {
	if s.Engine == Postgres {
		return ""
	}
	return filepath.Join(s.dir, "documents", strconv.FormatInt(userID, 10), id)
}

// CountBlobsForTest counts the member's document_blobs rows (PostgreSQL; 0 on SQLite).
func (s *Store) CountBlobsForTest(ctx context.Context, userID int64) (int, error) {
	if s.Engine != Postgres {
		return 0, nil
	}
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM document_blobs WHERE user_id = ?`), userID)
	return n, err
}
