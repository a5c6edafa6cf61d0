package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

func TestAPIKeyRules(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		used := map[int64]time.Time{}
		acct := New(Deps{Store: s, Now: func() time.Time { return now }, OnKeyUsed: func(id int64, at time.Time) { used[id] = at }})
		ann, err := s.InsertUser(ctx, "ann@example.com", "x", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		bob, err := s.InsertUser(ctx, "bob@example.com", "x", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}

		secret, k, err := acct.CreateAPIKey(ctx, ann, "  laptop ")
		if err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^ounce_[0-9a-f]{64}$`).MatchString(secret) {
			t.Fatalf("key format: %q", secret)
		}
		sum := sha256.Sum256([]byte(secret))
		if HashAPIKey(secret) != hex.EncodeToString(sum[:]) {
			t.Fatal("HashAPIKey is not the hex SHA-256 of the secret")
		}
		keys, err := acct.APIKeys(ctx, ann)
		if err != nil || len(keys) != 1 {
			t.Fatalf("keys = %v, %v", keys, err)
		}
		if got := keys[0]; got.ID != k.ID || got.Name != "laptop" || got.KeyHash != HashAPIKey(secret) || got.Prefix != secret[:12] || strings.Contains(got.Prefix+got.Name, secret[12:]) {
			t.Fatalf("stored key = %+v: only the hash and a short prefix may be kept", got)
		}

		ko, err := acct.AuthenticateKey(ctx, secret)
		if err != nil || ko.User.ID != ann.ID || ko.KeyID != k.ID {
			t.Fatalf("authenticate key = %+v, %v", ko, err)
		}
		if !used[k.ID].Equal(now) {
			t.Fatalf("key use not reported: %v", used)
		}
		for _, bad := range []string{"", "ounce_", "Bearer " + secret, secret + "0", strings.ToUpper(secret), "other_" + secret[6:], secret + strings.Repeat("a", 200)} {
			_, err := acct.AuthenticateKey(ctx, bad)
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.Unauthorized || e.Msg != "the API key is missing, malformed, unknown or revoked" {
				t.Fatalf("key %q: %v", bad, err)
			}
		}

		for _, tc := range []struct{ name, msg string }{
			{"", "is required"},
			{"   ", "is required"},
			{strings.Repeat("k", 61), "must be at most 60 characters (got 61)"},
			{"tab\there", "must not contain control characters"},
			{"bad \xff", "must be valid UTF-8 text"},
		} {
			_, _, err := acct.CreateAPIKey(ctx, ann, tc.name)
			if f := apperr.FieldsOf(err); len(f) != 1 || f[0].Field != "name" || f[0].Message != tc.msg {
				t.Fatalf("name %q: %v", tc.name, err)
			}
		}
		if _, _, err := acct.CreateAPIKey(ctx, ann, strings.Repeat("é", 60)); err != nil {
			t.Fatalf("60 characters: %v", err)
		}

		// Ten active keys at most: the eleventh is refused until one is revoked.
		for i := 3; i <= MaxActiveAPIKeys; i++ {
			if _, _, err := acct.CreateAPIKey(ctx, ann, "k"); err != nil {
				t.Fatalf("key %d: %v", i, err)
			}
		}
		_, _, err = acct.CreateAPIKey(ctx, ann, "eleventh")
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.Conflict || e.Msg != "you already have the maximum of 10 active keys; revoke one first" {
			t.Fatalf("eleventh key: %v", err)
		}

		// Revoking someone else's key is not found, and leaves it working.
		if err := acct.RevokeAPIKey(ctx, bob, k.ID); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("revoke another member's key: %v", err)
		}
		if _, err := acct.AuthenticateKey(ctx, secret); err != nil {
			t.Fatalf("key stopped working after someone else tried to revoke it: %v", err)
		}
		if err := acct.RevokeAPIKey(ctx, ann, k.ID); err != nil {
			t.Fatal(err)
		}
		if err := acct.RevokeAPIKey(ctx, ann, k.ID); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("revoke twice: %v", err)
		}
		if _, err := acct.AuthenticateKey(ctx, secret); apperr.KindOf(err) != apperr.Unauthorized {
			t.Fatalf("revoked key still works: %v", err)
		}
		if _, _, err := acct.CreateAPIKey(ctx, ann, "after revoking"); err != nil {
			t.Fatalf("a revoked key frees a place: %v", err)
		}
	})
}
