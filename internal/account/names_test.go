package account

import (
	"context"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// TestReservedDisplayNames (issue 22 item 11): staff words (any case, split by separators or
// spelled with lookalikes), another member's default name and text-direction controls are
// refused as Unprocessable naming display_name, and nothing is stored; ordinary names, also
// ones that hold a staff word inside another word, are kept. Both engines.
func TestReservedDisplayNames(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := New(Deps{Store: s})
		u, err := s.InsertUser(ctx, "names@example.com", "x", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}
		other := DisplayName(db.User{ID: u.ID + 7})
		for _, name := range []string{
			"Admin", "ADMIN", "admin", "Administrator", "Moderator", "Staff", "Support", "Ounce", "System", "root",
			"A.d.m.i.n", "a d m i n", "Adm1n", "4dmin", "@dmin", "Аdmin" /* Cyrillic А */, "Ad\u200bmin", "admin_42", "Admin Bob",
			"Ounce Support", "ounce-staff", "TheRealAdministrator", "Mod", "M0derator", "Official",
			other, "Member 8F3A", "member-8f3a", "MEMBER ZZ99", "Memb3r 1234", "Member",
			"Bob\u202Etxt.exe", "\u2066Bob\u2069", "Bob\u200F", "Bob\u061C", "\u202AAnn",
		} {
			_, err := svc.SetProfile(ctx, u, name, "UTC")
			e, ok := apperr.As(err)
			if !ok || e.Kind != apperr.Unprocessable || len(e.Fields) != 1 || e.Fields[0].Field != "display_name" {
				t.Errorf("%q: %v", name, err)
			}
		}
		if got, _ := s.UserByID(ctx, u.ID); got.DisplayName != "" {
			t.Fatalf("a refused name was stored: %q", got.DisplayName)
		}
		for _, name := range []string{"Silver Stacker", "Badminton Fan", "Bob", "Members Only Club", "Systematic Saver", "Gold Member", "Ann 1999", "Ζωή", "محمد"} {
			if _, err := svc.SetProfile(ctx, u, name, "UTC"); err != nil {
				t.Errorf("%q refused: %v", name, err)
			}
		}
	})
}
