package account

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// countingLimiter allows limit hits per bucket and records every call.
type countingLimiter struct {
	hits  map[string]int
	calls []string
	retry time.Duration
	err   error
}

func (l *countingLimiter) Allow(_ context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error) {
	l.calls = append(l.calls, fmt.Sprintf("%s/%d/%s", bucket, limit, window))
	if l.err != nil {
		return false, 0, l.err
	}
	l.hits[bucket]++
	return l.hits[bucket] <= limit, l.retry, nil
}

func TestSignUpAndAuthenticate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		acct := New(Deps{Store: s})
		if _, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: "nobody", Password: "short"}); apperr.KindOf(err) != apperr.Invalid || len(apperr.FieldsOf(err)) != 2 {
			t.Fatalf("invalid sign-up: %v", err)
		}
		u, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: " Ann@Example.com", Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		if u.Email != "ann@example.com" || u.Tier != db.TierFree || u.IsAdmin || u.PasswordHash == "correct horse battery" {
			t.Fatalf("signed-up user = %+v", u)
		}
		if _, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: "ANN@example.com", Password: "another good password"}); apperr.KindOf(err) != apperr.Conflict {
			t.Fatalf("taken email: %v", err)
		}

		got, err := acct.Authenticate(ctx, "192.0.2.1", Credentials{Email: "ann@EXAMPLE.com ", Password: "correct horse battery"})
		if err != nil || got.ID != u.ID {
			t.Fatalf("authenticate = %+v, %v", got, err)
		}
		_, wrong := acct.Authenticate(ctx, "192.0.2.1", Credentials{Email: "ann@example.com", Password: "correct horse batterx"})
		_, unknown := acct.Authenticate(ctx, "192.0.2.1", Credentials{Email: "bob@example.com", Password: "correct horse battery"})
		for _, err := range []error{wrong, unknown} {
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.Unauthorized || e.Msg != "email or password is incorrect" {
				t.Fatalf("failed sign-in = %v; want the one unauthorized answer", err)
			}
		}
		if !dummy.computed() {
			t.Fatal("an unknown email did not cost a password check")
		}

		gold := New(Deps{Store: s, Config: Config{NewUsersGold: true}})
		g, err := gold.SignUp(ctx, "192.0.2.1", Credentials{Email: "gail@example.com", Password: "correct horse battery"})
		if err != nil || g.Tier != db.TierGold {
			t.Fatalf("sign-up on a gold server = %+v, %v", g, err)
		}

		if su, ok := acct.SessionUser(ctx, u.ID); !ok || su.Email != u.Email {
			t.Fatalf("session user = %+v, %v", su, ok)
		}
		for _, id := range []int64{0, -1, u.ID + 1000} {
			if _, ok := acct.SessionUser(ctx, id); ok {
				t.Fatalf("session of user %d is signed in", id)
			}
		}
	})
}

func TestCreateUserAndSetTier(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		acct := New(Deps{Store: s, Config: Config{NewUsersGold: true}})
		u, err := acct.CreateUser(ctx, NewUser{Credentials: Credentials{Email: "root@example.com", Password: "correct horse battery"}, Tier: db.TierFree, Admin: true})
		if err != nil || u.Tier != db.TierFree || !u.IsAdmin {
			t.Fatalf("operator-made user = %+v, %v", u, err)
		}
		if _, err := acct.CreateUser(ctx, NewUser{Credentials: Credentials{Email: "x@example.com", Password: "correct horse battery"}, Tier: "platinum"}); apperr.FieldsOf(err) == nil || apperr.FieldsOf(err)[0].Field != "tier" {
			t.Fatalf("bad tier: %v", err)
		}
		if err := acct.SetTier(ctx, "ROOT@example.com", db.TierGold); err != nil {
			t.Fatal(err)
		}
		if got, _ := acct.UserByEmail(ctx, "root@example.com"); !IsGold(got) {
			t.Fatalf("tier not changed: %+v", got)
		}
		if err := acct.SetTier(ctx, "nobody@example.com", db.TierGold); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("set tier of unknown: %v", err)
		}
		if err := acct.SetTier(ctx, "root@example.com", "platinum"); apperr.KindOf(err) != apperr.Invalid {
			t.Fatalf("set unknown tier: %v", err)
		}
		if _, err := acct.UserByEmail(ctx, "nobody@example.com"); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("unknown email: %v", err)
		}
	})
}

func TestMembershipRules(t *testing.T) {
	free := db.User{Tier: db.TierFree}
	gold := db.User{Tier: db.TierGold}
	admin := db.User{Tier: db.TierFree, IsAdmin: true}
	if IsGold(free) || !IsGold(gold) || IsAdmin(gold) || !IsAdmin(admin) {
		t.Fatal("tier facts wrong")
	}
	if err := RequireGold(gold, "analytics"); err != nil {
		t.Fatal(err)
	}
	if err := RequireGold(free, "analytics"); !errors.Is(err, apperr.ErrMembershipRequired) || err.Error() != "membership required: analytics needs Gold membership" {
		t.Fatalf("free member: %v", err)
	}
	if err := RequireAdmin(admin); err != nil {
		t.Fatal(err)
	}
	if err := RequireAdmin(gold); !errors.Is(err, apperr.ErrForbidden) {
		t.Fatalf("non-admin: %v", err)
	}
	for tier, ok := range map[string]bool{"free": true, "gold": true, "": false, "Gold": false, "platinum": false} {
		if ValidTier(tier) != ok {
			t.Errorf("ValidTier(%q) = %v", tier, !ok)
		}
	}
}
