package performance

import (
	"context"
	"slices"
	"sync"

	"github.com/ouncehq/ounce/db"
)

// incrementalStore is what lets the service re-read only the ledger days a write changed:
// the store's change log (the earliest day changed by the revisions after one it kept) and
// the days on or after a day. *db.Store provides it; a store without it is read whole.
type incrementalStore interface {
	LedgerChangedFrom(ctx context.Context, userID, since, upTo int64) (db.Date, bool, error)
	PerformanceDaysFrom(ctx context.Context, userID int64, from db.Date) ([]db.PerformanceDay, error)
}

var _ incrementalStore = (*db.Store)(nil)

// maxKeptDays bounds the ledger days kept over all members (a day is about 200 bytes): about
// twenty-five 11-year stacks of daily buys. The least recently used member goes first.
const maxKeptDays = 200_000

// keptDays is a member's ledger days as of a revision. The slice is never written after it
// is kept: a splice builds a new one.
type keptDays struct {
	rev  int64
	days []db.PerformanceDay
	used uint64
}

type dayCache struct {
	mu    sync.Mutex
	m     map[int64]*keptDays
	total int
	tick  uint64
}

func (c *dayCache) get(user int64) (keptDays, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.m[user]
	if !ok {
		return keptDays{}, false
	}
	c.tick++
	k.used = c.tick
	return *k, true
}

func (c *dayCache) put(user, rev int64, days []db.PerformanceDay) {
	if len(days) > maxKeptDays {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[int64]*keptDays{}
	}
	if old, ok := c.m[user]; ok {
		if old.rev > rev {
			return // a newer read was kept meanwhile
		}
		c.total -= len(old.days)
		delete(c.m, user)
	}
	for c.total+len(days) > maxKeptDays && len(c.m) > 0 {
		var lru int64
		var least uint64
		first := true
		for id, k := range c.m {
			if first || k.used < least {
				lru, least, first = id, k.used, false
			}
		}
		c.total -= len(c.m[lru].days)
		delete(c.m, lru)
	}
	c.tick++
	c.m[user] = &keptDays{rev: rev, days: days, used: c.tick}
	c.total += len(days)
}

// ledgerDays is the member's ledger days at revision rev (read just before). With days kept
// at an older revision, it asks the store's change log for the earliest day changed since,
// re-reads the days on or after it and splices them onto the kept ones before it; it reads
// everything when nothing is kept or the log cannot say.
func (s *Service) ledgerDays(ctx context.Context, userID, rev int64) ([]db.PerformanceDay, error) {
	inc, ok := s.store.(incrementalStore)
	if !ok {
		return s.store.PerformanceDays(ctx, userID)
	}
	if k, ok := s.days.get(userID); ok && k.rev <= rev {
		if k.rev == rev {
			return k.days, nil
		}
		from, ok, err := inc.LedgerChangedFrom(ctx, userID, k.rev, rev)
		if err != nil {
			return nil, err
		}
		if ok {
			fresh, err := inc.PerformanceDaysFrom(ctx, userID, from)
			if err != nil {
				return nil, err
			}
			i, _ := slices.BinarySearchFunc(k.days, from, func(d db.PerformanceDay, t db.Date) int { return d.Day.Compare(t.Time) })
			days := append(k.days[:i:i], fresh...)
			s.days.put(userID, rev, days)
			return days, nil
		}
	}
	days, err := s.store.PerformanceDays(ctx, userID)
	if err != nil {
		return nil, err
	}
	s.days.put(userID, rev, days)
	return days, nil
}
