package db

import "context"

// Users lists every account, oldest first, for the administrator's `ounce user list`.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	var us []User
	err := s.db.SelectContext(ctx, &us, `SELECT `+userCols+` FROM users ORDER BY id`)
	return us, err
}
