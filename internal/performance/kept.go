package performance

import (
	"context"
	"maps"
	"sort"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// A question's valued timeline and its running sums are kept too, with what they were valued
// from: after an edit only the points from the earliest ledger day changed on are valued
// again (an edit of a recent lot values a few days, not eleven years of them), after a tick
// of the live board only today's.

// timelineKey is one question's timeline: the member, the metals, the currency and the
// periods, their days resolved (so a new day is another timeline).
type timelineKey struct {
	user         int64
	metal, bench metals.Metal
	currency     string
	spans        string
}

// keptTimeline is a valued timeline and what it was valued from.
type keptTimeline struct {
	rev  int64     // the ledger revision
	gen  uint64    // the stored closes' generation
	fx   int64     // the exchange rates' factor epoch
	day  time.Time // today, when it was valued (its point may be at live prices)
	live map[metals.Metal]decimal.Decimal
	fr   *frame
	pts  []point
	ozs  ozSnap // each metal's ounces after each point
	x    *sums
}

// maxKeptPoints bounds the points kept over all timelines (a point with its sums is about
// 350 bytes): about twenty-five 11-year timelines. The least recently used goes first.
const maxKeptPoints = 100_000

// wholeValuations counts the timelines valued from their first point (tests read it).
type wholeValuations = atomic.Int64

// valuation is what a timeline is valued from.
type valuation struct {
	key     timelineKey
	rev     int64
	change  dayChange // what the ledger days say changed since they were kept
	days    []db.PerformanceDay
	conv    Converter
	bench   metals.Metal
	lo, hi  time.Time
	extra   []time.Time
	live    map[metals.Metal]decimal.Decimal
	today   time.Time
	gen     uint64
	fxEpoch int64
}

// valued is the question's timeline and sums: the kept ones, valued again from the first point
// a change since reaches, or new ones.
func (s *Service) valued(ctx context.Context, v valuation) ([]point, *sums) {
	held := heldMask(v.days, v.bench)
	k, ok := s.timelines.get(v.key)
	if ok && (k.gen != v.gen || k.fx != v.fxEpoch || !k.day.Equal(v.today) || k.fr.held != held || k.rev > v.rev) {
		ok = false
	}
	from := 0
	if ok {
		from = s.resumeAt(ctx, k, v)
	}
	if !ok || from == 0 {
		s.wholeValuations.Add(1)
		fr := k.frameIf(ok, held)
		if fr == nil {
			fr = newFrame(held, s.market, v.bench, v.lo, v.hi, v.extra)
		}
		pts, ozs, _ := fr.value(v.days, v.conv, v.live, v.today, nil, ozSnap{}, 0)
		x := prepare(pts)
		s.keep(v, &keptTimeline{rev: v.rev, gen: v.gen, fx: v.fxEpoch, day: v.today, live: v.live, fr: fr, pts: pts, ozs: ozs, x: x})
		return pts, x
	}
	if from >= len(k.pts) {
		if k.rev != v.rev {
			s.keep(v, &keptTimeline{rev: v.rev, gen: k.gen, fx: k.fx, day: k.day, live: k.live, fr: k.fr, pts: k.pts, ozs: k.ozs, x: k.x})
		}
		return k.pts, k.x
	}
	pts, ozs, from := k.fr.value(v.days, v.conv, v.live, v.today, k.pts, k.ozs, from)
	x := prepareFrom(pts, k.x, from)
	s.keep(v, &keptTimeline{rev: v.rev, gen: v.gen, fx: v.fxEpoch, day: v.today, live: v.live, fr: k.fr, pts: pts, ozs: ozs, x: x})
	return pts, x
}

// frameIf is the kept frame when there is one (the kept timeline k is of the same question
// and closes).
func (k *keptTimeline) frameIf(ok bool, held uint) *frame {
	if !ok || k == nil || k.fr.held != held {
		return nil
	}
	return k.fr
}

func (s *Service) keep(v valuation, t *keptTimeline) {
	s.timelines.put(v.key, t, t.rev, len(t.pts), maxKeptPoints)
}

// resumeAt is the first point of the kept timeline k a change since reaches: the first on or
// after the earliest ledger day changed, and today's when the live prices moved; len(k.pts)
// when nothing changed, 0 when what changed cannot be said.
func (s *Service) resumeAt(ctx context.Context, k *keptTimeline, v valuation) int {
	from := len(k.pts)
	at := func(d time.Time) int {
		return sort.Search(len(k.pts), func(i int) bool { return !k.pts[i].day.Before(d) })
	}
	if !maps.Equal(k.live, v.live) {
		from = min(from, at(v.today))
	}
	if k.rev == v.rev {
		return from
	}
	day, known := v.change.from, v.change.known && v.change.since == k.rev
	if !known {
		inc, ok := s.store.(incrementalStore)
		if !ok {
			return 0
		}
		d, ok, err := inc.LedgerChangedFrom(ctx, v.key.user, k.rev, v.rev)
		if err != nil || !ok {
			return 0
		}
		day = d.Time
	}
	if day.IsZero() {
		return from
	}
	return min(from, at(day))
}
