package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// APIKeyPrefix starts every key so leaked keys are easy to recognise and scan for.
const APIKeyPrefix = "ounce_"

// MaxActiveAPIKeys caps how many unrevoked keys one member may hold.
const MaxActiveAPIKeys = db.MaxActiveAPIKeys

// maxKeyNameLen is the longest key name, in characters.
const maxKeyNameLen = 60

// maxSecretLen bounds what is hashed for a bearer check; real keys are 70 characters.
const maxSecretLen = 200

// displayPrefixLen is how much of a key is kept in clear to tell keys apart.
const displayPrefixLen = len(APIKeyPrefix) + 6

// errBadKey is the one answer for every failed key, so a caller learns nothing from which
// check refused it.
var errBadKey = apperr.New(apperr.Unauthorized, "the API key is missing, malformed, unknown or revoked")

// NewAPIKeySecret returns a fresh key: the prefix and 32 random bytes in hex.
func NewAPIKeySecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return APIKeyPrefix + hex.EncodeToString(b), nil
}

// HashAPIKey is the stored form of a key: the hex SHA-256 of the secret. Keys are random, so
// a fast hash is enough, and it lets the bearer check look the key up by hash.
func HashAPIKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateAPIKey makes a named key for u and returns the secret, which is shown once and never
// stored. An eleventh active key is a Conflict (the count and insert share a transaction).
func (s *Service) CreateAPIKey(ctx context.Context, u db.User, name string) (string, db.APIKey, error) {
	name, msg := keyName(name)
	if msg != "" {
		return "", db.APIKey{}, apperr.InvalidField("name", msg)
	}
	secret, err := NewAPIKeySecret()
	if err != nil {
		return "", db.APIKey{}, err
	}
	k, err := s.store.InsertAPIKey(ctx, u.ID, name, secret[:displayPrefixLen], HashAPIKey(secret))
	if errors.Is(err, db.ErrTooManyKeys) {
		return "", db.APIKey{}, apperr.Wrap(apperr.Conflict, err, fmt.Sprintf("you already have the maximum of %d active keys; revoke one first", MaxActiveAPIKeys))
	}
	if err != nil {
		return "", db.APIKey{}, err
	}
	return secret, k, nil
}

// keyName trims a key name and says what is wrong with it, if anything.
func keyName(v string) (string, string) {
	if !utf8.ValidString(v) {
		return "", "must be valid UTF-8 text"
	}
	v = strings.TrimSpace(v)
	for _, r := range v {
		if unicode.IsControl(r) {
			return "", "must not contain control characters"
		}
	}
	if n := utf8.RuneCountInString(v); n > maxKeyNameLen {
		return "", fmt.Sprintf("must be at most %d characters (got %d)", maxKeyNameLen, n)
	}
	if v == "" {
		return "", "is required"
	}
	return v, ""
}

// APIKeys lists u's keys, newest first, revoked ones included.
func (s *Service) APIKeys(ctx context.Context, u db.User) ([]db.APIKey, error) {
	return s.store.APIKeysByUser(ctx, u.ID)
}

// RevokeAPIKey revokes one of u's keys. Someone else's key, an unknown one and one already
// revoked are all NotFound, so ids say nothing about other members.
func (s *Service) RevokeAPIKey(ctx context.Context, u db.User, keyID int64) error {
	err := s.store.RevokeAPIKey(ctx, u.ID, keyID)
	if errors.Is(err, db.ErrNotFound) {
		return apperr.Wrap(apperr.NotFound, err, "API key not found")
	}
	return err
}

// AuthenticateKey resolves a bearer secret to its key and member; every failure is the same
// Unauthorized error. Each success is reported to OnKeyUsed.
func (s *Service) AuthenticateKey(ctx context.Context, secret string) (db.KeyOwner, error) {
	if !strings.HasPrefix(secret, APIKeyPrefix) || len(secret) > maxSecretLen {
		return db.KeyOwner{}, errBadKey
	}
	ko, err := s.store.ActiveAPIKeyByHash(ctx, HashAPIKey(secret))
	if errors.Is(err, db.ErrNotFound) {
		return db.KeyOwner{}, errBadKey
	}
	if err != nil {
		return db.KeyOwner{}, err
	}
	s.keyUsed(ko.KeyID, s.now())
	return ko, nil
}
