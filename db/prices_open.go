package db

import "context"

// DeleteClosesFrom removes every stored close whose source ends with suffix, and returns how
// many went. The price service uses it to take the licensed embedded history out of a
// database that is to hold only openly licensed series (OUNCE_HISTORY=open).
func (s *Store) DeleteClosesFrom(ctx context.Context, suffix string) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.rebind(`DELETE FROM price_closes WHERE source LIKE ?`), "%"+suffix)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
