package db

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"strings"
	"time"
)

// Membership tiers.
const (
	TierFree = "free"
	TierGold = "gold"
)

// User is an account.
type User struct {
	ID           int64  `db:"id"`
	Email        string `db:"email"`
	PasswordHash string `db:"password_hash"`
	Tier         string `db:"tier"`
	IsAdmin      bool   `db:"is_admin"`
	// DisplayName is shown beside the member's comments; empty means the default name.
	DisplayName string `db:"display_name"`
	// TimeZone is an IANA zone name; daily briefs follow the member's day in it.
	TimeZone string `db:"time_zone"`
	// DisplayCurrency is the ISO 4217 code money is shown in (USD unless the member chose).
	DisplayCurrency string `db:"display_currency"`
	// WeightUnit is what weights and prices per weight are shown in: oz, g, kg or tola.
	WeightUnit string `db:"weight_unit"`
	// LotMethod is how a disposal picks lots by default (fifo unless the member chose).
	LotMethod string `db:"lot_method"`
	// TaxJurisdiction is whose rules the gains report labels: us, uk, de or none.
	TaxJurisdiction string `db:"tax_jurisdiction"`
	// SessionGen moves on every password change: browser sessions made under an older value
	// are signed out.
	SessionGen int64     `db:"session_gen"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
}

// DefaultTimeZone is a new account's time zone (the US market's).
const DefaultTimeZone = "America/New_York"

// A new account's display currency and weight unit.
const (
	DefaultDisplayCurrency = "USD"
	DefaultWeightUnit      = "oz"
	DefaultLotMethod       = "fifo"
	DefaultTaxJurisdiction = "none"
)

// NormalizeEmail is the one form of an address that is stored and compared.
func NormalizeEmail(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

const userCols = `id, email, password_hash, tier, is_admin, display_name, time_zone, display_currency, weight_unit, lot_method, tax_jurisdiction, session_gen, created_at, updated_at`

// InsertUser creates an account; a taken email is ErrConflict.
func (s *Store) InsertUser(ctx context.Context, email, passwordHash, tier string, admin bool) (User, error) {
	now := s.now()
	u := User{Email: NormalizeEmail(email), PasswordHash: passwordHash, Tier: tier, IsAdmin: admin, TimeZone: DefaultTimeZone,
		DisplayCurrency: DefaultDisplayCurrency, WeightUnit: DefaultWeightUnit, LotMethod: DefaultLotMethod, TaxJurisdiction: DefaultTaxJurisdiction, CreatedAt: now, UpdatedAt: now}
	err := s.db.GetContext(ctx, &u.ID, s.rebind(`INSERT INTO users (email, password_hash, tier, is_admin, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`), u.Email, u.PasswordHash, u.Tier, u.IsAdmin, now, now)
	if isUniqueViolation(err) {
		return User{}, fmt.Errorf("email already registered: %w", ErrConflict)
	}
	if err != nil {
		return User{}, fmt.Errorf("insert user: %w", err)
	}
	return u, nil
}

// UserByEmail finds an account by address (case-insensitive).
func (s *Store) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	err := s.db.GetContext(ctx, &u, s.rebind(`SELECT `+userCols+` FROM users WHERE lower(email) = ?`), NormalizeEmail(email))
	return u, notFound(err)
}

// UserByID finds an account by id.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	var u User
	err := s.db.GetContext(ctx, &u, s.rebind(`SELECT `+userCols+` FROM users WHERE id = ?`), id)
	return u, notFound(err)
}

// SetUserTier changes the membership tier of the account with that email.
func (s *Store) SetUserTier(ctx context.Context, email, tier string) error {
	return oneRow(s.db.ExecContext(ctx, s.rebind(`UPDATE users SET tier = ?, updated_at = ? WHERE lower(email) = ?`), tier, s.now(), NormalizeEmail(email)))
}

// SetUserProfile stores a member's display name and time zone.
func (s *Store) SetUserProfile(ctx context.Context, id int64, displayName, timeZone string) error {
	return oneRow(s.db.ExecContext(ctx, s.rebind(`UPDATE users SET display_name = ?, time_zone = ?, updated_at = ? WHERE id = ?`), displayName, timeZone, s.now(), id))
}

// SetUserUnits stores what a member reads money, weights and times in.
func (s *Store) SetUserUnits(ctx context.Context, id int64, displayCurrency, weightUnit, timeZone string) error {
	return oneRow(s.db.ExecContext(ctx, s.rebind(`UPDATE users SET display_currency = ?, weight_unit = ?, time_zone = ?, updated_at = ? WHERE id = ?`),
		displayCurrency, weightUnit, timeZone, s.now(), id))
}

// SetUserPassword stores a new password hash and moves the account's session generation on,
// which signs out every browser session made before; it returns the new generation. The
// notices are queued in the same transaction.
func (s *Store) SetUserPassword(ctx context.Context, id int64, passwordHash string, notices ...OutMail) (int64, error) {
	var gen int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &gen, tx.Rebind(`UPDATE users SET password_hash = ?, session_gen = session_gen + 1, updated_at = ? WHERE id = ? RETURNING session_gen`),
			passwordHash, s.now(), id); err != nil {
			return notFound(err)
		}
		return s.insertMails(ctx, tx, notices)
	})
	return gen, err
}

// SetUserEmail changes the account's email; an address another account has is ErrConflict.
// The notices, and any tokens they carry, are queued in the same transaction.
func (s *Store) SetUserEmail(ctx context.Context, id int64, email string, notices ...OutMail) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE users SET email = ?, updated_at = ? WHERE id = ?`), NormalizeEmail(email), s.now(), id)
		if isUniqueViolation(err) {
			return fmt.Errorf("email already registered: %w", ErrConflict)
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return s.insertMails(ctx, tx, notices)
	})
}

// DeleteUser removes the account and, through the foreign keys, every row that refers to it:
// each table with a user reference declares ON DELETE CASCADE (or SET NULL where a shared
// record, such as a dealer price report, outlives its reporter without naming them). The
// migrations are the one place that lists them; TestDeleteUserRemovesEveryRow reads the
// schema to prove no table was missed.
//
// The one kind of row that names a member without a foreign key, the day's article viewers
// ("u:<id>", "k:<key id>"), is removed here in the same transaction.
func (s *Store) DeleteUser(ctx context.Context, id int64) error {
	defer s.dropOrphanBlobs(ctx, id) // document files under the data directory (documents.go)
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		viewer := fmt.Sprintf("u:%d", id)
		if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM article_views WHERE viewer = ?
			OR viewer IN (SELECT 'k:' || CAST(id AS TEXT) FROM api_keys WHERE user_id = ?)`), viewer, id); err != nil {
			return fmt.Errorf("delete viewer rows: %w", err)
		}
		res, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM users WHERE id = ?`), id)
		if err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// SetUserTaxSettings stores a member's default lot method and tax jurisdiction.
func (s *Store) SetUserTaxSettings(ctx context.Context, id int64, lotMethod, jurisdiction string) error {
	return oneRow(s.db.ExecContext(ctx, s.rebind(`UPDATE users SET lot_method = ?, tax_jurisdiction = ?, updated_at = ? WHERE id = ?`),
		lotMethod, jurisdiction, s.now(), id))
}
