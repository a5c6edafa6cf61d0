// Package reach reports whether the outside sources of one kind (price providers, news feeds,
// CME reports) can be reached, in as few log lines as that takes. Offline, or with no network
// at all, every poll of every source fails the same way; one line per kind saying so, and
// that stored data is served marked stale, tells an operator everything, where a warning per
// source per poll buries the log.
package reach

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
)

// Reporter tracks one kind of source.
type Reporter struct {
	kind, serving string
	log           *slog.Logger
	mu            sync.Mutex
	down          map[string]bool
}

// New returns a reporter for kind ("price providers") that, while they cannot be reached,
// serves what serving says ("the last stored prices, marked stale").
func New(log *slog.Logger, kind, serving string) *Reporter {
	if log == nil {
		log = slog.Default()
	}
	return &Reporter{kind: kind, serving: serving, log: log, down: map[string]bool{}}
}

// Failed reports a failed attempt on source. When err means the network or host cannot be
// reached it is handled here and Failed returns true: the first unreachable source of the kind
// is one INFO line, later ones are debug lines. Other failures return false, for the caller to
// log as the real errors they are.
func (r *Reporter) Failed(ctx context.Context, source string, err error) bool {
	if !Unreachable(err) {
		return false
	}
	r.mu.Lock()
	first := len(r.down) == 0
	r.down[source] = true
	r.mu.Unlock()
	level := slog.LevelDebug
	if first {
		level = slog.LevelInfo
	}
	r.log.Log(ctx, level, r.kind+" unreachable; serving "+r.serving, "source", source, "err", firstLine(err))
	return true
}

// OK reports a successful attempt on source; when it was the last one down, the kind is
// reachable again, which is one INFO line.
func (r *Reporter) OK(ctx context.Context, source string) {
	r.mu.Lock()
	was := r.down[source]
	delete(r.down, source)
	back := was && len(r.down) == 0
	r.mu.Unlock()
	if back {
		r.log.InfoContext(ctx, r.kind+" reachable again")
	}
}

// Unreachable reports whether err means the source could not be reached at all: a name that
// does not resolve, a refused or unroutable connection, or a timeout.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	for _, errno := range []error{syscall.ECONNREFUSED, syscall.ENETUNREACH, syscall.EHOSTUNREACH, syscall.ECONNRESET, syscall.ENETDOWN} {
		if errors.Is(err, errno) {
			return true
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// firstLine keeps an error to its first line (joined errors repeat the same cause per metal).
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
