package account

import (
	"context"
	"errors"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
)

// Sign-in limits count failures only, so a stranger's guesses never lock a member out:
//
//   - per client address, whatever accounts it names: an address with signInPerIP failures
//     in a row (none more than signInQuiet apart) is refused until signInQuiet has passed;
//   - per account from one address: after pairFreeFailures failures that address waits,
//     twice as long after each further failure (5 s, 10 s, 20 s … at most backoffMax);
//   - per account, from anywhere: an account with accountAttack failures is under attack,
//     and then every address that has failed on it backs off from its first failure.
//
// An address that has not been failing still gets its password checked, so the member signs
// in while someone else guesses. A success forgets that address's failures on the account.
const (
	signInPerIP      = 30
	signInQuiet      = 15 * time.Minute
	pairFreeFailures = 5
	accountAttack    = 10
	backoffBase      = 5 * time.Second
	backoffMax       = 15 * time.Minute
	// failureMemory is how long a quiet account or pair keeps its count.
	failureMemory = time.Hour
)

// signInBuckets names the three counters of one attempt.
func signInBuckets(ip, email string) (ipB, acctB, pairB string) {
	return "ip:" + ip, "acct:" + email, "pair:" + email + "|" + ip
}

// backoff is how long after its last failure a pair must wait, given its failure count and
// how many failures it gets for free.
func backoff(failures, free int) time.Duration {
	if failures < free {
		return 0
	}
	d := backoffBase << min(failures-free, 20)
	return min(d, backoffMax)
}

// signInWait is how long the attempt must wait (0: it may go ahead).
func (s *Service) signInWait(ctx context.Context, ip, email string) (time.Duration, error) {
	now := s.now()
	ipB, acctB, pairB := signInBuckets(ip, email)
	byIP, err := s.store.SignInFailures(ctx, ipB)
	if err != nil {
		return 0, err
	}
	if byIP.Failures >= signInPerIP && now.Before(byIP.Last.Add(signInQuiet)) {
		return byIP.Last.Add(signInQuiet).Sub(now), nil
	}
	acct, err := s.store.SignInFailures(ctx, acctB)
	if err != nil {
		return 0, err
	}
	pair, err := s.store.SignInFailures(ctx, pairB)
	if err != nil {
		return 0, err
	}
	free := pairFreeFailures
	if acct.Failures >= accountAttack && now.Before(acct.Last.Add(signInQuiet)) {
		free = 1
	}
	if until := pair.Last.Add(backoff(pair.Failures, free)); pair.Failures >= free && now.Before(until) {
		return until.Sub(now), nil
	}
	return 0, nil
}

// recordSignInFailure counts a failed attempt in all three counters.
func (s *Service) recordSignInFailure(ctx context.Context, ip, email string) error {
	now := s.now()
	ipB, acctB, pairB := signInBuckets(ip, email)
	if err := s.store.RecordSignInFailure(ctx, ipB, now, signInQuiet); err != nil {
		return err
	}
	if err := s.store.RecordSignInFailure(ctx, acctB, now, failureMemory); err != nil {
		return err
	}
	return s.store.RecordSignInFailure(ctx, pairB, now, failureMemory)
}

// Authenticate checks credentials for someone at client address ip. Every failure is the same
// Unauthorized error, and an unknown email costs a password check too. Attempts that must wait
// (see the limits above) are RateLimited with the time to wait, before any password is checked.
func (s *Service) Authenticate(ctx context.Context, ip string, c Credentials) (db.User, error) {
	email := db.NormalizeEmail(c.Email)
	wait, err := s.signInWait(ctx, ip, email)
	if err != nil {
		return db.User{}, err
	}
	if wait > 0 {
		// Whole seconds, rounded up, so a client that waits that long is let in.
		return db.User{}, apperr.Limited((wait + time.Second - 1).Truncate(time.Second), "too many failed sign-in attempts; try again later")
	}
	u, err := s.store.UserByEmail(ctx, email)
	hash := u.PasswordHash
	if errors.Is(err, db.ErrNotFound) {
		hash = dummy.get()
	} else if err != nil {
		return db.User{}, err
	}
	ok, err := checkPassword(ctx, hash, c.Password)
	if err != nil {
		return db.User{}, err
	}
	if !ok || u.ID == 0 {
		if err := s.recordSignInFailure(ctx, ip, email); err != nil {
			return db.User{}, err
		}
		return db.User{}, errBadLogin
	}
	_, _, pairB := signInBuckets(ip, email)
	if err := s.store.ClearSignInFailures(ctx, pairB); err != nil {
		s.log.WarnContext(ctx, "forgetting sign-in failures", "err", err)
	}
	return u, nil
}

// PruneSignInFailures forgets failure counters nobody has added to for a day.
func (s *Service) PruneSignInFailures(ctx context.Context) error {
	return s.store.PruneSignInFailures(ctx, s.now().Add(-24*time.Hour))
}
