package account

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// Credentials are an email and password as a person typed them.
type Credentials struct {
	Email    string
	Password string
}

// NewUser is an account an operator creates (ounce user add): credentials, and a tier and
// admin flag a sign-up cannot choose.
type NewUser struct {
	Credentials
	// Tier is TierFree or TierGold; empty means the tier sign-ups get on this server.
	Tier  string
	Admin bool
}

// errBadLogin is the one answer for every failed sign-in, so nobody learns which emails exist.
var errBadLogin = apperr.New(apperr.Unauthorized, "email or password is incorrect")

// ValidateSignup checks an email and password pair, returning the normalised email and the
// bad fields (none when both are acceptable).
func ValidateSignup(email, password string) (string, []apperr.FieldError) {
	var errs []apperr.FieldError
	email = db.NormalizeEmail(email)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
		errs = append(errs, apperr.FieldError{Field: "email", Message: "enter a valid email address"})
	}
	if err := ValidatePassword(password); err != nil {
		errs = append(errs, apperr.FieldError{Field: "password", Message: err.Error()})
	}
	return email, errs
}

// signUpWindow is the window of Config.SignUpsPerIP.
const signUpWindow = time.Hour

// SignUp creates an account with the tier new accounts get on this server, for someone at
// client address ip. A taken email is a Conflict whose message the sign-up page does not
// repeat, to keep accounts private. Each address may try Config.SignUpsPerIP sign-ups an hour
// (counted once the form is valid, since each costs a password hash).
func (s *Service) SignUp(ctx context.Context, ip string, c Credentials) (db.User, error) {
	if _, errs := ValidateSignup(c.Email, c.Password); len(errs) > 0 {
		return db.User{}, apperr.InvalidFields(errs)
	}
	if s.limiter != nil && s.cfg.SignUpsPerIP > 0 {
		ok, retry, err := s.limiter.Allow(ctx, "signup-ip:"+ip, s.cfg.SignUpsPerIP, signUpWindow)
		if err != nil {
			return db.User{}, err
		}
		if !ok {
			return db.User{}, apperr.Limited(time.Duration(int(retry.Seconds())+1)*time.Second, "too many new accounts from your address; try again later")
		}
	}
	return s.CreateUser(ctx, NewUser{Credentials: c})
}

// CreateUser creates an account after the sign-up checks; the operator may choose its tier
// and make it an administrator.
func (s *Service) CreateUser(ctx context.Context, in NewUser) (db.User, error) {
	email, errs := ValidateSignup(in.Email, in.Password)
	if in.Tier != "" && !ValidTier(in.Tier) {
		errs = append(errs, apperr.FieldError{Field: "tier", Message: "must be free or gold"})
	}
	if err := apperr.InvalidFields(errs); err != nil {
		return db.User{}, err
	}
	tier := in.Tier
	if tier == "" {
		tier = s.newUserTier()
	}
	hash, err := hashPassword(ctx, in.Password)
	if err != nil {
		return db.User{}, err
	}
	u, err := s.store.InsertUser(ctx, email, hash, tier, in.Admin)
	if errors.Is(err, db.ErrConflict) {
		return db.User{}, apperr.Wrap(apperr.Conflict, err, "email already registered")
	}
	return u, err
}

// newUserTier is the tier of a sign-up on this server.
func (s *Service) newUserTier() string {
	if s.cfg.NewUsersGold {
		return db.TierGold
	}
	return db.TierFree
}

// SessionUser is the account a browser session names, if it still exists. A session whose
// account is gone, or a database hiccup, reads as signed out rather than failing the page.
func (s *Service) SessionUser(ctx context.Context, userID int64) (db.User, bool) {
	if userID == 0 {
		return db.User{}, false
	}
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		if !errors.Is(err, db.ErrNotFound) {
			s.log.WarnContext(ctx, "loading the session's account", "err", err)
		}
		return db.User{}, false
	}
	return u, true
}

// UserByEmail finds an account by address (any case, surrounding space ignored).
func (s *Service) UserByEmail(ctx context.Context, email string) (db.User, error) {
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, db.ErrNotFound) {
		return db.User{}, apperr.Wrap(apperr.NotFound, err, "account not found")
	}
	return u, err
}

// SetTier changes the membership tier of the account with that email as an administrator's
// decision (ounce user set-tier): the membership history records it, and Gold set this way is
// never taken away by payment events.
func (s *Service) SetTier(ctx context.Context, email, tier string) error {
	if !ValidTier(tier) {
		return apperr.InvalidField("tier", "must be free or gold")
	}
	_, err := s.store.SetTierByAdmin(ctx, email, tier, "ounce user set-tier")
	if errors.Is(err, db.ErrNotFound) {
		return apperr.Wrap(apperr.NotFound, err, "account not found")
	}
	return err
}

// DisplayName is the name shown for a member beside what they write: their own, or "Member"
// and a short tag derived from their id that stays the same and reveals neither id nor email.
func DisplayName(u db.User) string {
	if n := strings.TrimSpace(u.DisplayName); n != "" {
		return n
	}
	return "Member " + memberTag(u.ID)
}

// memberTag is four base-32 characters of a keyed hash of the id.
func memberTag(id int64) string {
	sum := sha256.Sum256([]byte("ounce member tag " + strconv.FormatInt(id, 10)))
	return strings.ToUpper(base32.StdEncoding.EncodeToString(sum[:])[:4])
}

// Location is the member's time zone (their setting, or New York when unset or unknown).
func Location(u db.User) *time.Location {
	if loc, err := time.LoadLocation(u.TimeZone); err == nil && u.TimeZone != "" {
		return loc
	}
	loc, _ := time.LoadLocation(db.DefaultTimeZone)
	return loc
}

// SetProfile changes a member's display name (trimmed, at most 40 characters, plain text, no
// text-direction controls, not a staff word or another member's default name: Unprocessable
// naming display_name) and time zone (an IANA name such as Europe/London).
func (s *Service) SetProfile(ctx context.Context, u db.User, displayName, timeZone string) (db.User, error) {
	var errs []apperr.FieldError
	displayName = strings.Join(strings.Fields(displayName), " ")
	if HasBidiControl(displayName) {
		return u, ErrBidi("display_name")
	}
	if why := reservedName(displayName); displayName != "" && why != "" {
		return u, &apperr.Error{Kind: apperr.Unprocessable, Msg: "display_name: " + why, Fields: []apperr.FieldError{{Field: "display_name", Message: why}}}
	}
	switch {
	case utf8.RuneCountInString(displayName) > 40:
		errs = append(errs, apperr.FieldError{Field: "display_name", Message: "must be at most 40 characters"})
	case strings.ContainsAny(displayName, "<>"):
		errs = append(errs, apperr.FieldError{Field: "display_name", Message: "cannot contain < or >"})
	}
	timeZone = strings.TrimSpace(timeZone)
	if timeZone == "" {
		timeZone = db.DefaultTimeZone
	}
	if _, err := time.LoadLocation(timeZone); err != nil || timeZone == "Local" {
		errs = append(errs, apperr.FieldError{Field: "time_zone", Message: "must be a time zone name such as America/New_York or Europe/London"})
	}
	if err := apperr.InvalidFields(errs); err != nil {
		return u, err
	}
	if err := s.store.SetUserProfile(ctx, u.ID, displayName, timeZone); err != nil {
		return u, err
	}
	u.DisplayName, u.TimeZone = displayName, timeZone
	return u, nil
}

// errWrongPassword is the field error of a settings change whose current password is wrong.
func errWrongPassword(field string) error {
	return apperr.InvalidField(field, "that is not your current password")
}

// confirmPassword checks the member's current password for a sensitive change.
func (s *Service) confirmPassword(ctx context.Context, u db.User, field, password string) error {
	if password == "" {
		return apperr.InvalidField(field, "enter your current password")
	}
	ok, err := checkPassword(ctx, u.PasswordHash, password)
	if err != nil {
		return err
	}
	if !ok {
		return errWrongPassword(field)
	}
	return nil
}

// ChangePassword sets a new password after checking the current one. Every other browser
// session of the member is signed out (the session generation moves on); the caller keeps
// its own session by storing the returned user's SessionGen in it.
func (s *Service) ChangePassword(ctx context.Context, u db.User, current, next string) (db.User, error) {
	if err := s.confirmPassword(ctx, u, "current_password", current); err != nil {
		return u, err
	}
	if err := ValidatePassword(next); err != nil {
		return u, apperr.InvalidField("new_password", err.Error())
	}
	if next == current {
		return u, apperr.InvalidField("new_password", "must differ from your current password")
	}
	hash, err := hashPassword(ctx, next)
	if err != nil {
		return u, err
	}
	gen, err := s.store.SetUserPassword(ctx, u.ID, hash, s.passwordNotices(u, false)...)
	if err != nil {
		return u, err
	}
	u.PasswordHash, u.SessionGen = hash, gen
	return u, nil
}

// ChangeEmail changes the member's sign-in address after checking their password. The mail of
// the change (Notices.EmailChangedMail: the notice to the old address, the confirmation link to
// the new one) is queued in the change's transaction: a crash leaves either all or none.
func (s *Service) ChangeEmail(ctx context.Context, u db.User, password, email string) (db.User, error) {
	email = db.NormalizeEmail(email)
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 || !strings.Contains(email[strings.LastIndex(email, "@")+1:], ".") {
		return u, apperr.InvalidField("email", "enter a valid email address")
	}
	if err := s.confirmPassword(ctx, u, "password", password); err != nil {
		return u, err
	}
	if email == u.Email {
		return u, nil
	}
	nu := u
	nu.Email = email
	if err := s.store.SetUserEmail(ctx, u.ID, email, s.emailNotices(u.Email, nu)...); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return u, apperr.InvalidField("email", "is used by another account")
		}
		return u, err
	}
	u.Email = email
	return u, nil
}

// DeleteConfirmation is what a member types to confirm deleting their account.
const DeleteConfirmation = "delete my account"

// DeleteAccount removes the member and everything stored for them, after their password and
// the typed confirmation (DeleteConfirmation, any case). Nothing can be recovered after.
func (s *Service) DeleteAccount(ctx context.Context, u db.User, password, confirm string) error {
	var errs []apperr.FieldError
	if !strings.EqualFold(strings.Join(strings.Fields(confirm), " "), DeleteConfirmation) {
		errs = append(errs, apperr.FieldError{Field: "confirm", Message: "type " + DeleteConfirmation + " to confirm"})
	}
	if err := s.confirmPassword(ctx, u, "password", password); err != nil {
		if e, ok := apperr.As(err); ok && e.Kind == apperr.Invalid {
			errs = append(errs, e.Fields...)
		} else {
			return err
		}
	}
	if err := apperr.InvalidFields(errs); err != nil {
		return err
	}
	if err := s.store.DeleteUser(ctx, u.ID); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return apperr.NotFoundf("account")
		}
		return err
	}
	s.log.InfoContext(ctx, "account deleted by its member", "user_id", u.ID)
	return nil
}
