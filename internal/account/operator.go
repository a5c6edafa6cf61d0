package account

import (
	"context"
	"errors"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// The operator's commands (ounce user reset-password, ounce user set-admin): the way back
// into an account whose password is lost, and the one way to make or unmake an administrator.

// Notices are the messages a security change sends (the mail service's): they are written
// in the transaction of the change, so a change is never without its notice.
type Notices interface {
	// PasswordChangedMail is the notice of u's new password (set by the operator or not).
	PasswordChangedMail(u db.User, byOperator bool) []db.OutMail
	// EmailChangedMail is the notice to the old address of u's new one and the confirmation
	// link (with its token) to the new address.
	EmailChangedMail(oldEmail string, u db.User) []db.OutMail
}

// SetNotices makes security changes send n's notices; call it before the service is used.
func (s *Service) SetNotices(n Notices) { s.notices = n }

func (s *Service) passwordNotices(u db.User, byOperator bool) []db.OutMail {
	if s.notices == nil {
		return nil
	}
	return s.notices.PasswordChangedMail(u, byOperator)
}

func (s *Service) emailNotices(oldEmail string, u db.User) []db.OutMail {
	if s.notices == nil {
		return nil
	}
	return s.notices.EmailChangedMail(oldEmail, u)
}

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
	gen, err := s.store.SetUserPassword(ctx, u.ID, hash, s.passwordNotices(u, true)...)
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
