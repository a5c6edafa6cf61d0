package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestSignInFailureCounters(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		if f, err := s.SignInFailures(ctx, "acct:a@example.com"); err != nil || f.Failures != 0 {
			t.Fatalf("never failed: %+v %v", f, err)
		}
		for i := 0; i < 3; i++ {
			if err := s.RecordSignInFailure(ctx, "acct:a@example.com", t0.Add(time.Duration(i)*time.Minute), time.Hour); err != nil {
				t.Fatal(err)
			}
		}
		f, err := s.SignInFailures(ctx, "acct:a@example.com")
		if err != nil || f.Failures != 3 || !f.First.Equal(t0) || !f.Last.Equal(t0.Add(2*time.Minute)) {
			t.Fatalf("three failures: %+v %v", f, err)
		}
		// Quiet for longer than the reset interval: the count starts again.
		if err := s.RecordSignInFailure(ctx, "acct:a@example.com", t0.Add(3*time.Hour), time.Hour); err != nil {
			t.Fatal(err)
		}
		if f, _ := s.SignInFailures(ctx, "acct:a@example.com"); f.Failures != 1 || !f.First.Equal(t0.Add(3*time.Hour)) {
			t.Fatalf("after a quiet hour: %+v", f)
		}
		if err := s.RecordSignInFailure(ctx, "ip:192.0.2.1", t0, time.Hour); err != nil {
			t.Fatal(err)
		}
		if err := s.ClearSignInFailures(ctx, "acct:a@example.com"); err != nil {
			t.Fatal(err)
		}
		if f, _ := s.SignInFailures(ctx, "acct:a@example.com"); f.Failures != 0 {
			t.Fatalf("cleared: %+v", f)
		}
		if err := s.PruneSignInFailures(ctx, t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if f, _ := s.SignInFailures(ctx, "ip:192.0.2.1"); f.Failures != 0 {
			t.Fatalf("pruned: %+v", f)
		}
	})
}

func TestSecretIsSharedAndStable(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		calls := 0
		fresh := func() string { calls++; return strings.Repeat("k", calls) }
		a, err := s.Secret(ctx, "csrf", fresh)
		if err != nil || a != "k" {
			t.Fatalf("first: %q %v", a, err)
		}
		b, err := s.Secret(ctx, "csrf", fresh)
		if err != nil || b != a {
			t.Fatalf("second read changed the secret: %q %v", b, err)
		}
		if c, _ := s.Secret(ctx, "other", fresh); c == a {
			t.Fatal("two names share a value")
		}
		if n, err := s.CountSessions(ctx); err != nil || n != 0 {
			t.Fatalf("sessions: %d %v", n, err)
		}
	})
}
