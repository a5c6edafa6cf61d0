package account

import (
	"context"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

func TestProfileSettings(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := New(Deps{Store: s})
		u, err := s.InsertUser(ctx, "p@example.com", "x", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		if u.TimeZone != db.DefaultTimeZone || Location(u).String() != "America/New_York" {
			t.Fatalf("default zone: %q", u.TimeZone)
		}
		name := DisplayName(u)
		if !strings.HasPrefix(name, "Member ") || len(name) != len("Member ABCD") || name != DisplayName(u) {
			t.Fatalf("default name %q", name)
		}
		if other := DisplayName(db.User{ID: u.ID + 1}); other == name {
			t.Fatalf("two members share the tag %q", name)
		}
		u, err = svc.SetProfile(ctx, u, "  Silver   Stacker ", "Europe/London")
		if err != nil || u.DisplayName != "Silver Stacker" {
			t.Fatalf("set: %+v %v", u, err)
		}
		got, _ := s.UserByID(ctx, u.ID)
		if got.DisplayName != "Silver Stacker" || got.TimeZone != "Europe/London" || DisplayName(got) != "Silver Stacker" {
			t.Fatalf("stored: %+v", got)
		}
		for _, c := range []struct{ name, zone, field string }{
			{strings.Repeat("é", 41), "UTC", "display_name"},
			{"<b>me</b>", "UTC", "display_name"},
			{"ok", "Mars/Olympus", "time_zone"},
			{"ok", "Local", "time_zone"},
		} {
			_, err := svc.SetProfile(ctx, got, c.name, c.zone)
			if f := apperr.FieldsOf(err); len(f) != 1 || f[0].Field != c.field {
				t.Errorf("%q %q: %v", c.name, c.zone, err)
			}
		}
		if again, _ := s.UserByID(ctx, u.ID); again.DisplayName != "Silver Stacker" {
			t.Fatalf("a refused change altered the profile: %+v", again)
		}
	})
}
