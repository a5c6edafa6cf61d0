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
}

// keepDays keeps a member's ledger days read at revision rev.
func (s *Service) keepDays(user, rev int64, days []db.PerformanceDay) {
	s.days.put(user, keptDays{rev: rev, days: days}, rev, len(days), maxKeptDays)
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
			s.keepDays(userID, rev, days)
			return days, dayChange{since: k.rev, from: from, known: true}, nil
		}
	}
	days, err := s.store.PerformanceDays(ctx, userID)
	if err != nil {
		return nil, dayChange{}, err
	}
	s.keepDays(userID, rev, days)
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

// lruCache keeps a value per key, each read at a ledger revision and of a size, at most most
// in size over all: the least recently used goes first, a value larger than most is not kept,
// and a value of an older revision does not replace a newer one kept meanwhile.
type lruCache[K comparable, V any] struct {
	mu    sync.Mutex
	m     map[K]*lruEntry[V]
	total int
	tick  uint64
}

type lruEntry[V any] struct {
	val  V
	rev  int64
	size int
	used uint64
}

func (c *lruCache[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		var none V
		return none, false
	}
	c.tick++
	e.used = c.tick
	return e.val, true
}

func (c *lruCache[K, V]) put(k K, v V, rev int64, size, most int) {
	if size > most {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[K]*lruEntry[V]{}
	}
	if old, ok := c.m[k]; ok {
		if old.rev > rev {
			return // a newer one was kept meanwhile
		}
		c.total -= old.size
		delete(c.m, k)
	}
	for c.total+size > most && len(c.m) > 0 {
		var lru K
		var least uint64
		first := true
		for id, e := range c.m {
			if first || e.used < least {
				lru, least, first = id, e.used, false
			}
		}
		c.total -= c.m[lru].size
		delete(c.m, lru)
	}
	c.tick++
	c.m[k] = &lruEntry[V]{val: v, rev: rev, size: size, used: c.tick}
	c.total += size
}
