package account

import (
	"context"
	"errors"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// The operator's commands (ounce user reset-password, ounce user set-admin): the way back
// into an account whose password is lost, and the one way to make or unmake an administrator.

// SetPasswordByEmail sets a new password on the account with that address, after the same
// rules as any new password; every browser session of the member is signed out.
func (s *Service) SetPasswordByEmail(ctx context.Context, email, password string) (db.User, error) {
	if err := ValidatePassword(password); err != nil {
		return db.User{}, apperr.InvalidField("password", err.Error())
	}
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return db.User{}, err
	}
	hash, err := hashPassword(ctx, password)
	if err != nil {
		return db.User{}, err
	}
	gen, err := s.store.SetUserPassword(ctx, u.ID, hash)
	if err != nil {
		return db.User{}, err
	}
	u.PasswordHash, u.SessionGen = hash, gen
	return u, nil
}

// SetAdmin makes the account with that address an administrator (on) or not.
func (s *Service) SetAdmin(ctx context.Context, email string, on bool) (db.User, error) {
	u, err := s.store.SetUserAdmin(ctx, email, on)
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, apperr.NotFoundf("account " + db.NormalizeEmail(email))
	}
	return u, err
}
