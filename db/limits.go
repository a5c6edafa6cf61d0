package db

import "context"

// CountHoldings is how many holdings the user has (sold ones included), for the per-member cap.
func (s *Store) CountHoldings(ctx context.Context, userID int64) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT count(*) FROM holdings WHERE user_id = ?`), userID)
	return n, err
}
