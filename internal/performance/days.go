package performance

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ouncehq/ounce/db"
)

// incrementalStore is what lets the service re-read only the ledger days a write changed:
// the store's change log (the days changed by the revisions after one it kept, or the
// earliest of them) and the days on or after a day, or on given days. *db.Store provides it;
// a store without it is read whole.
type incrementalStore interface {
	LedgerChangedFrom(ctx context.Context, userID, since, upTo int64) (db.Date, bool, error)
	LedgerChangedDays(ctx context.Context, userID, since, upTo int64) (db.LedgerChange, bool, error)
	PerformanceDaysFrom(ctx context.Context, userID int64, from db.Date) ([]db.PerformanceDay, error)
	PerformanceDaysOn(ctx context.Context, userID int64, days []db.Date) ([]db.PerformanceDay, error)
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
	c.total = evictLRU(c.m, c.total, len(days), maxKeptDays, func(k *keptDays) (uint64, int) { return k.used, len(k.days) })
	c.tick++
	c.m[user] = &keptDays{rev: rev, days: days, used: c.tick}
	c.total += len(days)
}

// dayChange is what changed in a member's ledger between the revision the days were kept at
// (since) and the one read: from is the earliest day changed (zero when nothing did); known is
// false when it cannot be said (nothing was kept, or the change log could not say).
type dayChange struct {
	since int64
	from  time.Time
	known bool
}

// ledgerDays is the member's ledger days at revision rev (read just before), and what changed
// since the days it kept. With days kept at an older revision, it asks the store's change log
// which days changed since: it re-reads just those days when the log lists them, else the
// days on or after the earliest, and splices them onto the kept ones. It reads everything when
// nothing is kept or the log cannot say.
func (s *Service) ledgerDays(ctx context.Context, userID, rev int64) ([]db.PerformanceDay, dayChange, error) {
	inc, ok := s.store.(incrementalStore)
	if !ok {
		days, err := s.store.PerformanceDays(ctx, userID)
		return days, dayChange{}, err
	}
	if k, ok := s.days.get(userID); ok && k.rev <= rev {
		if k.rev == rev {
			return k.days, dayChange{since: rev, known: true}, nil
		}
		days, from, ok, err := s.spliceChanged(ctx, inc, userID, k, rev)
		if err != nil {
			return nil, dayChange{}, err
		}
		if ok {
			s.days.put(userID, rev, days)
			return days, dayChange{since: k.rev, from: from, known: true}, nil
		}
	}
	days, err := s.store.PerformanceDays(ctx, userID)
	if err != nil {
		return nil, dayChange{}, err
	}
	s.days.put(userID, rev, days)
	return days, dayChange{}, nil
}

// spliceChanged is the kept days k brought to revision rev through the change log, and the
// earliest day changed; ok is false when the log cannot say.
func (s *Service) spliceChanged(ctx context.Context, inc incrementalStore, userID int64, k keptDays, rev int64) ([]db.PerformanceDay, time.Time, bool, error) {
	ch, ok, err := inc.LedgerChangedDays(ctx, userID, k.rev, rev)
	if err != nil || !ok {
		return nil, time.Time{}, false, err
	}
	if ch.From.IsZero() {
		return k.days, time.Time{}, true, nil
	}
	if ch.Days != nil {
		fresh, err := inc.PerformanceDaysOn(ctx, userID, ch.Days)
		if err != nil {
			return nil, time.Time{}, false, err
		}
		return spliceDays(k.days, ch.Days, fresh), ch.From.Time, true, nil
	}
	fresh, err := inc.PerformanceDaysFrom(ctx, userID, ch.From)
	if err != nil {
		return nil, time.Time{}, false, err
	}
	i, _ := slices.BinarySearchFunc(k.days, ch.From, func(d db.PerformanceDay, t db.Date) int { return d.Day.Compare(t.Time) })
	return append(k.days[:i:i], fresh...), ch.From.Time, true, nil
}

// spliceDays is kept with the rows of each changed day (oldest first) replaced by fresh's rows
// of it (fresh holds only changed days, oldest first). kept is not written.
func spliceDays(kept []db.PerformanceDay, changed []db.Date, fresh []db.PerformanceDay) []db.PerformanceDay {
	out := make([]db.PerformanceDay, 0, len(kept)+len(fresh))
	i, f := 0, 0
	for _, d := range changed {
		j := i + sort.Search(len(kept)-i, func(n int) bool { return !kept[i+n].Day.Before(d.Time) })
		out = append(out, kept[i:j]...)
		for j < len(kept) && kept[j].Day.Equal(d.Time) {
			j++
		}
		for f < len(fresh) && !fresh[f].Day.After(d.Time) {
			out = append(out, fresh[f])
			f++
		}
		i = j
	}
	return append(out, kept[i:]...)
}

// evictLRU removes the least recently used entries of m until adding need more to total
// (the entries' summed sizes) stays within most, and returns the new total. usage gives an
// entry's last use and its size.
func evictLRU[K comparable, V any](m map[K]V, total, need, most int, usage func(V) (uint64, int)) int {
	for total+need > most && len(m) > 0 {
		var lru K
		var least uint64
		first := true
		for id, v := range m {
			if used, _ := usage(v); first || used < least {
				lru, least, first = id, used, false
			}
		}
		_, size := usage(m[lru])
		total -= size
		delete(m, lru)
	}
	return total
}
