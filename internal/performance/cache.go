package performance

import (
	"sync"
	"time"
)

// A member's answer depends on their ledger, the stored closes, the day and (when live) the
// board, nothing else; so the latest answer per question is kept and served again until one
// of them moves. The first request after a write recomputes it.
type cacheKey struct {
	user  int64
	q     question
	spans string // the periods asked for
}

type cacheState struct {
	rev, day int64
	gen, seq uint64 // seq is the live board's, zero when not live
	fx       int64  // the exchange rates' factor epoch (zero without rates)
}

// cacheState is what a kept answer of ledger revision rev depends on at now: the day, the
// stored closes and, when live, the board; and the exchange rates, which may be refreshed or
// corrected, so an answer through them lives as long as its factors.
func (s *Service) cacheState(rev int64, now time.Time) cacheState {
	state := cacheState{rev: rev, day: now.Unix() / 86400}
	if s.rates != nil {
		state.fx = s.factors.epoch(s.now())
	}
	if s.market != nil {
		state.gen = s.market.Generation()
		if b := s.market.Snapshot(); len(b.Prices) > 0 {
			state.seq = b.Seq
		}
	}
	return state
}

type cacheEntry struct {
	state cacheState
	out   []Result
}

// maxAnswers bounds the cache (an answer is a few kilobytes; with flows, up to a few hundred).
const maxAnswers = 4096

type answerCache struct {
	mu sync.Mutex
	m  map[cacheKey]cacheEntry
}

func (c *answerCache) get(k cacheKey, st cacheState) ([]Result, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || e.state != st {
		return nil, false
	}
	return e.out, true
}

func (c *answerCache) put(k cacheKey, st cacheState, out []Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxAnswers {
		c.m = make(map[cacheKey]cacheEntry) // crude but bounded
	}
	c.m[k] = cacheEntry{state: st, out: out}
}
