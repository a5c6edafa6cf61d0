package account

import (
	"context"
	"runtime"
	"time"

	"github.com/ouncehq/ounce/internal/apperr"
)

// An argon2id hash holds 19 MiB and a core for tens of milliseconds. Without a bound, a burst
// of sign-ups or sign-ins runs them all at once: memory grows by 19 MiB per request in flight
// and every other request waits for a core. The process therefore hashes at most one password
// per core; the rest wait briefly for a turn and are then told to come back.
var hashSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

// hashWait is how long a request waits for a free hashing slot before it is refused (a
// variable so tests need not wait as long).
var hashWait = 2 * time.Second

// errHashBusy is the answer when no slot frees up in time: 503 with Retry-After.
var errHashBusy = &apperr.Error{Kind: apperr.Unavailable, Msg: "too many sign-ins and sign-ups at once; try again in a few seconds", RetryAfter: 2 * time.Second}

// withHashSlot runs fn while holding one of the process's hashing slots.
func withHashSlot(ctx context.Context, fn func()) error {
	select {
	case hashSlots <- struct{}{}:
	default:
		t := time.NewTimer(hashWait)
		defer t.Stop()
		select {
		case hashSlots <- struct{}{}:
		case <-t.C:
			return errHashBusy
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-hashSlots }()
	fn()
	// The hash's 19 MiB block is garbage now. Collecting it before the slot is handed on lets
	// the next hash reuse that memory instead of growing the heap to twice the live data, which
	// is what bounds a burst's peak to about one block per slot.
	runtime.GC()
	return nil
}

// hashPassword is HashPassword within a hashing slot.
func hashPassword(ctx context.Context, pw string) (hash string, err error) {
	if serr := withHashSlot(ctx, func() { hash, err = HashPassword(pw) }); serr != nil {
		return "", serr
	}
	return hash, err
}

// checkPassword is CheckPassword within a hashing slot.
func checkPassword(ctx context.Context, encoded, pw string) (ok bool, err error) {
	err = withHashSlot(ctx, func() { ok = CheckPassword(encoded, pw) })
	return ok, err
}
