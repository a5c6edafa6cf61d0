package web

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/ouncehq/ounce/handlers/kit"
)

// streamRetryAfter is what a refused stream is told to wait, in seconds: a stream's slot is
// freed within a heartbeat of its reader leaving.
const streamRetryAfter = 30

// streamGate counts live event streams (/events/prices, /notifications/stream, advisor
// replies: every kit.StartSSE) in all and per client address, so one address cannot hold
// them all and streams never take the descriptors plain requests need.
type streamGate struct {
	mu        sync.Mutex
	max       int
	perClient int
	total     int
	by        map[string]int
}

func newStreamGate(l ConnLimits) *streamGate {
	return &streamGate{max: l.MaxStreams, perClient: l.MaxStreamsPerClient, by: map[string]int{}}
}

// Admit implements kit.StreamGate.
func (g *streamGate) Admit(client string) (func(), *kit.Problem) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.total >= g.max {
		p := kit.NewProblem(http.StatusServiceUnavailable, kit.ProbUnavailable,
			"the server is serving its limit of "+strconv.Itoa(g.max)+" live streams; try again shortly")
		p.RetryAfter = streamRetryAfter
		return nil, p
	}
	if g.by[client] >= g.perClient {
		p := kit.NewProblem(http.StatusTooManyRequests, kit.ProbRateLimited,
			"this address already holds "+strconv.Itoa(g.perClient)+" live streams, the most one address may; close one or try again later")
		p.RetryAfter = streamRetryAfter
		return nil, p
	}
	g.total++
	g.by[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.total--
			if g.by[client]--; g.by[client] <= 0 {
				delete(g.by, client)
			}
		})
	}, nil
}
