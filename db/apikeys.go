package db

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// MaxActiveAPIKeys caps how many unrevoked keys one user may hold.
const MaxActiveAPIKeys = 10

// APIKey is a stored key: only the SHA-256 of the secret is kept.
type APIKey struct {
	ID         int64      `db:"id"`
	UserID     int64      `db:"user_id"`
	Name       string     `db:"name"`
	Prefix     string     `db:"prefix"`
	KeyHash    string     `db:"key_hash"`
	CreatedAt  time.Time  `db:"created_at"`
	LastUsedAt *time.Time `db:"last_used_at"`
	RevokedAt  *time.Time `db:"revoked_at"`
}

// ErrTooManyKeys means the user already holds MaxActiveAPIKeys active keys.
var ErrTooManyKeys = fmt.Errorf("at most %d active API keys: %w", MaxActiveAPIKeys, ErrConflict)

// InsertAPIKey stores a new key for the user, refusing an eleventh active key. The count and the
// insert share a transaction so two concurrent requests cannot both pass the check.
func (s *Store) InsertAPIKey(ctx context.Context, userID int64, name, prefix, hash string) (APIKey, error) {
	k := APIKey{UserID: userID, Name: name, Prefix: prefix, KeyHash: hash, CreatedAt: s.now()}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if s.Engine == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT id FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
				return err
			}
		}
		var n int
		if err := tx.GetContext(ctx, &n, tx.Rebind(`SELECT count(*) FROM api_keys WHERE user_id = ? AND revoked_at IS NULL`), userID); err != nil {
			return err
		}
		if n >= MaxActiveAPIKeys {
			return ErrTooManyKeys
		}
		return tx.GetContext(ctx, &k.ID, tx.Rebind(`INSERT INTO api_keys (user_id, name, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`),
			userID, name, prefix, hash, k.CreatedAt)
	})
	if err != nil {
		return APIKey{}, err
	}
	return k, nil
}

// APIKeysByUser lists a user's keys, newest first, revoked ones included.
func (s *Store) APIKeysByUser(ctx context.Context, userID int64) ([]APIKey, error) {
	keys := []APIKey{}
	err := s.db.SelectContext(ctx, &keys, s.rebind(`SELECT id, user_id, name, prefix, key_hash, created_at, last_used_at, revoked_at
		FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id DESC`), userID)
	return keys, err
}

// KeyOwner is an active key joined with its user, what the bearer middleware needs.
type KeyOwner struct {
	KeyID      int64      `db:"key_id"`
	LastUsedAt *time.Time `db:"last_used_at"`
	User
}

// ActiveAPIKeyByHash finds an unrevoked key by the SHA-256 of its secret. The lookup is by
// hash, so its timing says nothing about how close a guess came to a real key.
func (s *Store) ActiveAPIKeyByHash(ctx context.Context, hash string) (KeyOwner, error) {
	var ko KeyOwner
	err := s.db.GetContext(ctx, &ko, s.rebind(`SELECT k.id AS key_id, k.last_used_at, u.id, u.email, u.password_hash, u.tier, u.is_admin, u.display_name, u.time_zone, u.display_currency, u.weight_unit, u.lot_method, u.tax_jurisdiction, u.created_at, u.updated_at
		FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = ? AND k.revoked_at IS NULL`), hash)
	return ko, notFound(err)
}

// RevokeAPIKey revokes one of the user's keys; someone else's key is ErrNotFound.
func (s *Store) RevokeAPIKey(ctx context.Context, userID, keyID int64) error {
	return oneRow(s.db.ExecContext(ctx, s.rebind(`UPDATE api_keys SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL`), s.now(), keyID, userID))
}

// TouchAPIKeys records last use for many keys at once; the caller coalesces uses in memory.
func (s *Store) TouchAPIKeys(ctx context.Context, used map[int64]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for id, at := range used {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`), at.UTC(), id, at.UTC()); err != nil {
				return err
			}
		}
		return nil
	})
}
