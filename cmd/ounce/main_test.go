package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
)

func runCLI(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return out.String(), err
}

func TestUserAndAPIKeyCommands(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OUNCE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	t.Setenv("OUNCE_REQUIRE_MEMBERSHIP", "true")

	if out, err := runCLI(t, "correct horse battery\n", "user", "add", "--email", "Ann@Example.com"); err != nil || !strings.Contains(out, "ann@example.com (tier free)") {
		t.Fatalf("user add: %q %v", out, err)
	}
	if _, err := runCLI(t, "correct horse battery\n", "user", "add", "--email", "ann@example.com"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate user: %v", err)
	}
	if _, err := runCLI(t, "short\n", "user", "add", "--email", "bob@example.com"); !isUsage(err) {
		t.Fatalf("short password: %v", err)
	}
	if _, err := runCLI(t, "", "user", "add", "--email", "bob@example.com", "--tier", "platinum"); !isUsage(err) {
		t.Fatalf("bad tier: %v", err)
	}
	if out, err := runCLI(t, "", "user", "set-tier", "--email", "ann@example.com", "--tier", "gold"); err != nil || !strings.Contains(out, "now gold") {
		t.Fatalf("set-tier: %q %v", out, err)
	}
	if _, err := runCLI(t, "", "user", "set-tier", "--email", "nobody@example.com", "--tier", "gold"); err == nil {
		t.Fatal("set-tier of unknown account succeeded")
	}
	out, err := runCLI(t, "", "apikey", "new", "--email", "ann@example.com", "--name", "laptop")
	if err != nil || !regexp.MustCompile(`^ounce_[0-9a-f]{64}\n$`).MatchString(out) {
		t.Fatalf("apikey new must print only the key: %q %v", out, err)
	}
	s, err := db.Open(context.Background(), "", dir+"/ounce.db")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ko, err := s.ActiveAPIKeyByHash(context.Background(), account.HashAPIKey(strings.TrimSpace(out)))
	if err != nil || ko.Email != "ann@example.com" || !account.IsGold(ko.User) {
		t.Fatalf("stored key: %+v %v", ko, err)
	}
	if _, err := runCLI(t, "", "apikey", "new", "--email", "nobody@example.com"); err == nil {
		t.Fatal("key for unknown account")
	}
	if _, err := runCLI(t, "", "frobnicate"); !isUsage(err) {
		t.Fatalf("unknown command: %v", err)
	}
	if out, err := runCLI(t, "", "version"); err != nil || !strings.HasPrefix(out, "ounce ") {
		t.Fatalf("version: %q %v", out, err)
	}
}

func TestConfigValidation(t *testing.T) {
	t.Setenv("OUNCE_ADDR", "nonsense")
	if _, err := loadConfig(nil, nil); err == nil {
		t.Fatal("bad OUNCE_ADDR accepted")
	}
	t.Setenv("OUNCE_ADDR", "127.0.0.1:9999")
	t.Setenv("OUNCE_RATE_LIMIT_PER_KEY", "-3")
	if _, err := loadConfig(nil, nil); err == nil {
		t.Fatal("negative rate limit accepted")
	}
	t.Setenv("OUNCE_RATE_LIMIT_PER_KEY", "")
	t.Setenv("OUNCE_REQUIRE_MEMBERSHIP", "")
	t.Setenv("OUNCE_STRIPE_SECRET_KEY", "")
	c, err := loadConfig(nil, nil)
	if err != nil || c.App.Site.BaseURL != "http://127.0.0.1:9999" || !c.App.Account.NewUsersGold || c.App.HTTP.RateLimitPerKey != 120 || c.App.HTTP.RateLimitPerIP != 60 {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	t.Setenv("OUNCE_STRIPE_SECRET_KEY", "sk_test_x")
	if c, _ := loadConfig(nil, nil); c.App.Account.NewUsersGold {
		t.Fatal("with Stripe configured new accounts must start free")
	}
}

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}
