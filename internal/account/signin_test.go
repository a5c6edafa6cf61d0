package account

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/ratelimit"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time       { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration)  { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newClock() *clock                { return &clock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)} }
func retryOf(err error) time.Duration { e, _ := apperr.As(err); return e.RetryAfter }
func limited(err error) bool          { return apperr.KindOf(err) == apperr.RateLimited }
func badLogin(err error) bool         { return apperr.KindOf(err) == apperr.Unauthorized }
func creds(pw string) Credentials     { return Credentials{Email: "ann@example.com", Password: pw} }

// TestSignInCountsFailuresOnly: successes never count, strangers cannot lock a member out, and
// an address that keeps failing backs off.
func TestSignInCountsFailuresOnly(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		clk := newClock()
		acct := New(Deps{Store: s, Now: clk.now})
		if _, err := acct.SignUp(ctx, "192.0.2.1", creds("correct horse battery")); err != nil {
			t.Fatal(err)
		}
		good := creds("correct horse battery")

		// Twenty good sign-ins in a row from one address: none is refused.
		for i := 0; i < 20; i++ {
			if _, err := acct.Authenticate(ctx, "192.0.2.1", good); err != nil {
				t.Fatalf("good sign-in %d: %v", i+1, err)
			}
		}

		// Strangers at twelve addresses guess ann's password: the account is under attack, and
		// ann, at an address that has not failed, still signs in.
		for i := 0; i < 12; i++ {
			if _, err := acct.Authenticate(ctx, fmt.Sprintf("198.51.100.%d", i), creds(fmt.Sprintf("guess number %d", i))); !badLogin(err) {
				t.Fatalf("stranger %d: %v", i, err)
			}
		}
		if _, err := acct.Authenticate(ctx, "192.0.2.1", good); err != nil {
			t.Fatalf("the member is locked out by strangers: %v", err)
		}
		// Under attack, an address that failed on the account waits from its first failure.
		if _, err := acct.Authenticate(ctx, "198.51.100.3", creds("another guess!")); !limited(err) || retryOf(err) != backoffBase {
			t.Fatalf("failing address during an attack: %v (retry %v)", err, retryOf(err))
		}

		// Once the attack is an hour old, one address gets five free failures, then waits
		// 5 s, 10 s, 20 s… even with the right password, until the wait is over.
		clk.add(2 * time.Hour)
		ip := "203.0.113.7"
		for i := 0; i < pairFreeFailures; i++ {
			if _, err := acct.Authenticate(ctx, ip, creds("typo typo typo")); !badLogin(err) {
				t.Fatalf("free failure %d: %v", i+1, err)
			}
		}
		for _, wait := range []time.Duration{backoffBase, 2 * backoffBase, 4 * backoffBase} {
			if _, err := acct.Authenticate(ctx, ip, good); !limited(err) || retryOf(err) != wait {
				t.Fatalf("during backoff: %v (retry %v, want %v)", err, retryOf(err), wait)
			}
			clk.add(wait)
			if _, err := acct.Authenticate(ctx, ip, creds("typo typo typo")); !badLogin(err) {
				t.Fatalf("after waiting %v: %v", wait, err)
			}
		}
		// Another address is not held back by this one.
		if _, err := acct.Authenticate(ctx, "203.0.113.8", good); err != nil {
			t.Fatalf("another address: %v", err)
		}
		// A success forgets the failing address's count.
		clk.add(8 * backoffBase)
		if _, err := acct.Authenticate(ctx, ip, good); err != nil {
			t.Fatalf("after the backoff: %v", err)
		}
		if _, err := acct.Authenticate(ctx, ip, creds("typo typo typo")); !badLogin(err) {
			t.Fatalf("first failure after a success is free again: %v", err)
		}
	})
}

// TestSignInLimitPerAddress: thirty failures from one address, over any accounts, stop that
// address (not others) until it has been quiet for fifteen minutes.
func TestSignInLimitPerAddress(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	clk := newClock()
	acct := New(Deps{Store: s, Now: clk.now})
	if _, err := acct.SignUp(ctx, "192.0.2.1", creds("correct horse battery")); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= signInPerIP; i++ {
		if _, err := acct.Authenticate(ctx, "203.0.113.9", Credentials{Email: fmt.Sprintf("u%d@example.com", i), Password: "whatever it is"}); !badLogin(err) {
			t.Fatalf("attempt %d from one address: %v", i, err)
		}
	}
	if _, err := acct.Authenticate(ctx, "203.0.113.9", creds("correct horse battery")); !limited(err) || retryOf(err) != signInQuiet {
		t.Fatalf("31st attempt from one address: %v %v", err, retryOf(err))
	}
	if _, err := acct.Authenticate(ctx, "203.0.113.10", creds("correct horse battery")); err != nil {
		t.Fatalf("another address is not limited: %v", err)
	}
	clk.add(signInQuiet)
	if _, err := acct.Authenticate(ctx, "203.0.113.9", creds("correct horse battery")); err != nil {
		t.Fatalf("after fifteen quiet minutes: %v", err)
	}
}

func TestSignUpLimitPerAddress(t *testing.T) {
	s := dbtest.SQLite(t)
	ctx := context.Background()
	clk := newClock()
	acct := New(Deps{Store: s, Now: clk.now, Limiter: ratelimit.NewMemory(clk.now), Config: Config{SignUpsPerIP: 5}})
	// Forms with mistakes cost no hash and do not count.
	for i := 0; i < 10; i++ {
		if _, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: "x@example.com", Password: "short"}); apperr.KindOf(err) != apperr.Invalid {
			t.Fatalf("invalid form: %v", err)
		}
	}
	for i := 0; i < 5; i++ {
		if _, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: fmt.Sprintf("n%d@example.com", i), Password: "correct horse battery"}); err != nil {
			t.Fatalf("sign-up %d: %v", i+1, err)
		}
	}
	_, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: "six@example.com", Password: "correct horse battery"})
	if !limited(err) || retryOf(err) <= 0 {
		t.Fatalf("sixth sign-up in an hour: %v", err)
	}
	if _, err := acct.SignUp(ctx, "192.0.2.2", Credentials{Email: "six@example.com", Password: "correct horse battery"}); err != nil {
		t.Fatalf("another address: %v", err)
	}
	clk.add(time.Hour)
	if _, err := acct.SignUp(ctx, "192.0.2.1", Credentials{Email: "seven@example.com", Password: "correct horse battery"}); err != nil {
		t.Fatalf("an hour later: %v", err)
	}
}

// TestHashSlotsBoundConcurrency: no more hashes run at once than there are slots; a request
// that finds none free within the wait is Unavailable with a Retry-After.
func TestHashSlotsBoundConcurrency(t *testing.T) {
	defer func(d time.Duration) { hashWait = d }(hashWait)
	hashWait = 200 * time.Millisecond
	ctx := context.Background()
	n := cap(hashSlots)
	var mu sync.Mutex
	running, peak := 0, 0
	var wg sync.WaitGroup
	for i := 0; i < 4*n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = withHashSlot(ctx, func() {
				mu.Lock()
				running++
				peak = max(peak, running)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
				mu.Lock()
				running--
				mu.Unlock()
			})
		}()
	}
	wg.Wait()
	if peak > n || peak == 0 {
		t.Fatalf("%d hashes ran at once with %d slots", peak, n)
	}
	// Every slot busy for longer than the wait: the next request is refused.
	release := make(chan struct{})
	for i := 0; i < n; i++ {
		go func() { _ = withHashSlot(ctx, func() { <-release }) }()
	}
	for len(hashSlots) < n {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	_, err := hashPassword(ctx, "correct horse battery")
	close(release)
	if e, ok := apperr.As(err); !ok || e.Kind != apperr.Unavailable || e.RetryAfter <= 0 {
		t.Fatalf("all slots busy: %v", err)
	}
	if d := time.Since(start); d < hashWait || d > 5*hashWait {
		t.Fatalf("waited %v for a slot, want about %v", d, hashWait)
	}
}
