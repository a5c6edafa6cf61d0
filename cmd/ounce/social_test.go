package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

func TestUserMuteCommands(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	if _, err := runCLI(t, "correct horse battery\n", "user", "add", "--email", "loud@example.com"); err != nil {
		t.Fatal(err)
	}
	muted := func() bool {
		t.Helper()
		s, err := db.Open(context.Background(), "", dir+"/ounce.db")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		u, err := s.UserByEmail(context.Background(), "loud@example.com")
		if err != nil {
			t.Fatal(err)
		}
		m, err := s.CommentMuted(context.Background(), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if out, err := runCLI(t, "", "user", "mute", "--email", "LOUD@example.com"); err != nil || !strings.Contains(out, "loud@example.com can no longer comment") || !muted() {
		t.Fatalf("mute: %q %v", out, err)
	}
	if out, err := runCLI(t, "", "user", "mute", "--email", "loud@example.com"); err != nil || !muted() {
		t.Fatalf("muting twice: %q %v", out, err)
	}
	if out, err := runCLI(t, "", "user", "unmute", "--email", "loud@example.com"); err != nil || !strings.Contains(out, "can comment again") || muted() {
		t.Fatalf("unmute: %q %v", out, err)
	}
	if _, err := runCLI(t, "", "user", "mute", "--email", "nobody@example.com"); err == nil || !strings.Contains(err.Error(), "no account") {
		t.Fatalf("mute of an unknown account: %v", err)
	}
	if _, err := runCLI(t, "", "user", "mute"); !isUsage(err) {
		t.Fatalf("mute without --email: %v", err)
	}
}

func TestSocialSecretValidation(t *testing.T) {
	t.Setenv("OUNCE_SOCIAL_SECRET", "short")
	if _, err := loadConfig(nil, nil); err == nil || !strings.Contains(err.Error(), "OUNCE_SOCIAL_SECRET") {
		t.Fatalf("short secret: %v", err)
	}
	t.Setenv("OUNCE_SOCIAL_SECRET", "a secret of more than sixteen")
	if c, err := loadConfig(nil, nil); err != nil || c.App.Social.AddressKey != "a secret of more than sixteen" {
		t.Fatalf("secret: %v", err)
	}
}
