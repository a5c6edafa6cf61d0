// Package account is the account service: members and their passwords, the user behind a
// browser session, API keys and the membership rules every other area asks about. It returns
// domain values (db rows for now) and internal/apperr errors; it knows nothing about HTTP, so
// the sign-in page, the /v1 bearer check and the CLI all run the same rules.
package account

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Limiter counts hits in fixed windows; web provides a shared (PostgreSQL) or in-memory one.
// It has the method set of handlers.Limiter, so the same value serves both.
type Limiter interface {
	// Allow records a hit on bucket and reports whether it is within limit per window, and
	// how long until the window resets.
	Allow(ctx context.Context, bucket string, limit int, window time.Duration) (bool, time.Duration, error)
}

// Config is the part of the service configuration the account rules depend on.
type Config struct {
	// NewUsersGold makes new accounts start on the gold tier (self-hosted, no payment provider).
	NewUsersGold bool
	// SignUpsPerIP is how many sign-ups one client address may try per hour (0 = no limit;
	// OUNCE_SIGNUP_LIMIT_PER_IP, 5 by default).
	SignUpsPerIP int
}

// Deps are what the service is built from.
type Deps struct {
	Store *db.Store
	// Limiter counts sign-ups per address; nil means no limit (tools and tests). Sign-in
	// failures are counted in the store, whatever the limiter.
	Limiter Limiter
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// OnKeyUsed is told each time an API key authenticates, so last use can be coalesced and
	// written in batches instead of on every request; nil ignores use.
	OnKeyUsed func(keyID int64, at time.Time)
	Config    Config
}

// Service is the account use cases.
type Service struct {
	store   Store
	limiter Limiter
	now     func() time.Time
	log     *slog.Logger
	keyUsed func(int64, time.Time)
	cfg     Config
	notices Notices
}

// New builds the service.
func New(d Deps) *Service {
	d.Now = wallclock.Or(d.Now)
	d.Logger = cmp.Or(d.Logger, slog.Default())
	if d.OnKeyUsed == nil {
		d.OnKeyUsed = func(int64, time.Time) {}
	}
	return &Service{store: d.Store, limiter: d.Limiter, now: d.Now, log: d.Logger, keyUsed: d.OnKeyUsed, cfg: d.Config}
}
