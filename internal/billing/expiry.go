package billing

import (
	"context"
	"time"

	"github.com/ouncehq/ounce/db"
)

// graceLockKey is the advisory lock of the grace-period job among instances sharing one
// PostgreSQL (prices use 7302002, intel 7302003; 17 is this number).
const graceLockKey = 7302017

// graceInterval is how often the leader re-checks past_due subscriptions.
const graceInterval = time.Hour

// Run re-checks grace periods every hour on the one instance that holds the lock, until ctx
// ends. Without Stripe configured there is nothing to check and it returns at once.
func (s *Service) Run(ctx context.Context) {
	if !s.Enabled() {
		return
	}
	s.store.RunAsLeader(ctx, graceLockKey, 30*time.Second, func(ctx context.Context) {
		t := time.NewTicker(graceInterval)
		defer t.Stop()
		for {
			if n, err := s.ExpireGrace(ctx); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "checking past_due grace periods", "err", err)
			} else if n > 0 {
				s.log.InfoContext(ctx, "past_due grace periods ended", "members", n)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// ExpireGrace takes Stripe-granted Gold from members whose only Gold came from a past_due
// subscription whose grace (end of period + PastDueGrace) has ended at the service's clock,
// writing each change to the history. It returns how many members changed.
func (s *Service) ExpireGrace(ctx context.Context) (int, error) {
	subs, err := s.store.BillingSubscriptionsByStatus(ctx, StatusPastDue)
	if err != nil {
		return 0, err
	}
	now := s.now()
	seen := map[int64]bool{}
	n := 0
	for _, b := range subs {
		if seen[b.UserID] || grantsStored(b, now) {
			continue
		}
		seen[b.UserID] = true
		cause := "past_due grace ended for " + b.ID
		res, err := s.store.UpdateMembership(ctx, b.UserID, nil, func(m db.Membership) (db.MembershipUpdate, error) {
			tier, source := decideTier(m, s.now())
			return db.MembershipUpdate{Tier: tier, TierSource: source, Source: "expiry", Cause: cause}, nil
		})
		if err != nil {
			return n, err
		}
		if res.Change != nil {
			n++
		}
	}
	return n, nil
}
