package db

import "context"

// SetUserAdmin makes the account with that email an administrator or not; an unknown address
// is ErrNotFound.
func (s *Store) SetUserAdmin(ctx context.Context, email string, admin bool) (User, error) {
	var u User
	err := s.db.GetContext(ctx, &u, s.rebind(`UPDATE users SET is_admin = ?, updated_at = ? WHERE lower(email) = ? RETURNING `+userCols),
		admin, s.now(), NormalizeEmail(email))
	return u, notFound(err)
}
