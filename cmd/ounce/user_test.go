package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/account"
)

// TestUserResetPasswordAndSetAdmin drives the operator's way back into an account on both
// engines: a new password from stdin signs every browser out, and set-admin makes and
// unmakes an administrator.
func TestUserResetPasswordAndSetAdmin(t *testing.T) {
	type engine struct {
		name string
		env  []string
		open func(t *testing.T) *db.Store
	}
	dir := t.TempDir()
	engines := []engine{{"sqlite", []string{"OUNCE_DATA_DIR=" + dir}, func(t *testing.T) *db.Store {
		s, err := db.Open(context.Background(), "", filepath.Join(dir, "ounce.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}}}
	if base, ok := dbtest.PostgresURL(t); ok {
		u := dbtest.PostgresSchema(t, base)
		engines = append(engines, engine{"postgres", []string{"DATABASE_URL=" + u}, func(t *testing.T) *db.Store { return dbtest.OpenPostgres(t, u) }})
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			if r := runBinary(t, "a long passphrase\n", e.env, "user", "add", "--email", "Ann@example.com"); r.code != 0 {
				t.Fatalf("user add: %+v", r)
			}
			s := e.open(t)
			ctx := context.Background()
			before, err := s.UserByEmail(ctx, "ann@example.com")
			if err != nil {
				t.Fatal(err)
			}

			r := runBinary(t, "a brand new passphrase\n", e.env, "user", "reset-password", "--email", "ANN@example.com")
			if r.code != 0 || !strings.Contains(r.stdout, "password of ann@example.com changed") {
				t.Fatalf("reset-password: %+v", r)
			}
			after, _ := s.UserByEmail(ctx, "ann@example.com")
			if !account.CheckPassword(after.PasswordHash, "a brand new passphrase") || account.CheckPassword(after.PasswordHash, "a long passphrase") {
				t.Error("the new password is not the one stored")
			}
			if after.SessionGen <= before.SessionGen {
				t.Errorf("sessions not signed out: generation %d → %d", before.SessionGen, after.SessionGen)
			}
			// Mail is off here: nothing is queued.
			if rows, _ := s.MailRows(ctx, after.ID); len(rows) != 0 {
				t.Errorf("queued with mail off: %+v", rows)
			}

			if r := runBinary(t, "", e.env, "user", "set-admin", "--email", "ann@example.com"); r.code != 0 || !strings.Contains(r.stdout, "ann@example.com is now an administrator") {
				t.Fatalf("set-admin: %+v", r)
			}
			if r := runBinary(t, "", e.env, "user", "list"); !strings.Contains(r.stdout, "ann@example.com  free  yes") && !strings.Contains(r.stdout, "ann@example.com  gold  yes") {
				t.Fatalf("list after set-admin: %q", r.stdout)
			}
			if r := runBinary(t, "", e.env, "user", "set-admin", "--email", "ann@example.com", "--off"); r.code != 0 || !strings.Contains(r.stdout, "no longer an administrator") {
				t.Fatalf("set-admin --off: %+v", r)
			}
			if u, _ := s.UserByEmail(ctx, "ann@example.com"); u.IsAdmin {
				t.Error("still an administrator after --off")
			}

			oneLine(t, "reset of an unknown account", runBinary(t, "a brand new passphrase\n", e.env, "user", "reset-password", "--email", "bob@example.com"), 2, "no account with email bob@example.com")
			oneLine(t, "weak password", runBinary(t, "short\n", e.env, "user", "reset-password", "--email", "ann@example.com"), 2, "ounce: password: ")
			oneLine(t, "set-admin of an unknown account", runBinary(t, "", e.env, "user", "set-admin", "--email", "bob@example.com"), 2, "no account with email bob@example.com")
		})
	}
	oneLine(t, "reset without --email", runBinary(t, "x\n", nil, "user", "reset-password"), 2, "--email is required")
	oneLine(t, "--off elsewhere", runBinary(t, "", nil, "user", "reset-password", "--email", "a@example.com", "--off"), 2, "--off is a flag of user set-admin only")
	oneLine(t, "set-admin with an argument", runBinary(t, "", nil, "user", "set-admin", "--email", "a@example.com", "yes"), 2, "unexpected argument")
	oneLine(t, "unknown user subcommand", runBinary(t, "", nil, "user", "promote"), 2, "reset-password, set-admin")
}
