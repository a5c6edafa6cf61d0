package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// failOn makes the engine refuse, mid-transaction, the statement event on table for rows that
// match when (SQL on NEW), as a crash or a full disk would; the returned func lifts it.
func failOn(t *testing.T, s *db.Store, event, table, when string) func() {
	t.Helper()
	ctx := context.Background()
	stmts := []string{`CREATE TRIGGER inject_failure BEFORE ` + event + ` ON ` + table + ` WHEN ` + when +
		` BEGIN SELECT RAISE(ABORT, 'injected failure'); END`}
	drop := []string{`DROP TRIGGER inject_failure`}
	if s.Engine == db.Postgres {
		stmts = []string{
			`CREATE OR REPLACE FUNCTION inject_failure() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''injected failure''; END'`,
			`CREATE TRIGGER inject_failure BEFORE ` + event + ` ON ` + table + ` FOR EACH ROW WHEN (` + when + `) EXECUTE FUNCTION inject_failure()`,
		}
		drop = []string{`DROP TRIGGER inject_failure ON ` + table}
	}
	for _, q := range stmts {
		if _, err := s.ExecForTest(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return func() {
		t.Helper()
		for _, q := range drop {
			if _, err := s.ExecForTest(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
}

// TestEmailChangeAndItsMailAreOneTransaction (issue 29): a change of sign-in address writes
// the notice to the old address, the confirmation link's token and its mail to the new one in
// the change's own transaction. A failure at any step (the address itself, the token, the
// notice, the confirmation mail after the token and notice are written) leaves neither the new
// address nor any of its mail or tokens; with the failure lifted, the same call writes all.
// Both engines.
func TestEmailChangeAndItsMailAreOneTransaction(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		s.Now = func() time.Time { return time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC) }
		u, err := s.InsertUser(ctx, "old@example.test", "hash", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}
		msgs := func() []db.OutMail {
			return []db.OutMail{
				{UserID: u.ID, Kind: "email-changed", To: "old@example.test", Subject: "changed", Body: "to new@example.test"},
				{UserID: u.ID, Kind: "verify", To: "new@example.test", Subject: "confirm", Body: "link",
					Token: &db.MailToken{UserID: u.ID, Purpose: db.TokenVerify, Email: "new@example.test", TokenHash: strings.Repeat("ab", 32),
						ExpiresAt: s.Now().Add(48 * time.Hour).UnixMilli()}},
			}
		}
		state := func() (email string, mails, tokens int) {
			t.Helper()
			got, err := s.UserByID(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			rows, err := s.MailRows(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			n, err := s.MailTokensSince(ctx, u.ID, db.TokenVerify, 0)
			if err != nil {
				t.Fatal(err)
			}
			return got.Email, len(rows), n
		}

		for _, c := range []struct{ name, event, table, when string }{
			{"the address", "UPDATE", "users", "NEW.email = 'new@example.test'"},
			{"the token", "INSERT", "mail_tokens", "NEW.purpose = 'verify'"},
			{"the notice", "INSERT", "mail_outbox", "NEW.kind = 'email-changed'"},
			{"the confirmation mail, after its token", "INSERT", "mail_outbox", "NEW.kind = 'verify'"},
		} {
			lift := failOn(t, s, c.event, c.table, c.when)
			err := s.SetUserEmail(ctx, u.ID, "new@example.test", msgs()...)
			lift()
			if err == nil || !strings.Contains(err.Error(), "injected failure") {
				t.Fatalf("failing %s: err %v, want the injected failure", c.name, err)
			}
			if email, mails, tokens := state(); email != "old@example.test" || mails != 0 || tokens != 0 {
				t.Fatalf("failing %s left address %q, %d mails, %d tokens; want the old address and nothing queued", c.name, email, mails, tokens)
			}
		}

		if err := s.SetUserEmail(ctx, u.ID, "new@example.test", msgs()...); err != nil {
			t.Fatal(err)
		}
		if email, mails, tokens := state(); email != "new@example.test" || mails != 2 || tokens != 1 {
			t.Fatalf("after the change: address %q, %d mails, %d tokens; want the new address, 2 mails, 1 token", email, mails, tokens)
		}
	})
}
