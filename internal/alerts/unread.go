package alerts

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/ouncehq/ounce/db"
)

// Unread counts reach the bell's stream from the write that changed them: a firing or
// "mark read" announces the members it touched on db.UnreadChannel (pg_notify on
// PostgreSQL, so every instance hears it; in-process on SQLite), and each instance holds one
// subscription that wakes only the streams of those members. No stream polls.

// unreadHub fans the announcements of one subscription out to the streams watching.
type unreadHub struct {
	mu       sync.Mutex
	watchers map[int64]map[chan struct{}]struct{}
	sub      *db.Subscription
	count    int
}

// WatchUnread returns a channel that receives whenever the member's unread count may have
// changed, and a function to stop watching. Receives coalesce: one pending signal stands for
// any number of changes.
func (s *Service) WatchUnread(ctx context.Context, u db.User) (<-chan struct{}, func(), error) {
	if err := requireMember(u); err != nil {
		return nil, nil, err
	}
	h := &s.unread
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sub == nil {
		// The subscription outlives the request that started it: it ends with the last watcher.
		sub, err := s.store.Subscribe(context.WithoutCancel(ctx), db.UnreadChannel, func(err error) { s.log.Warn("unread listener", "err", err) })
		if err != nil {
			return nil, nil, err
		}
		h.sub = sub
		h.watchers = map[int64]map[chan struct{}]struct{}{}
		go s.dispatchUnread(sub)
	}
	ch := make(chan struct{}, 1)
	if h.watchers[u.ID] == nil {
		h.watchers[u.ID] = map[chan struct{}]struct{}{}
	}
	h.watchers[u.ID][ch] = struct{}{}
	h.count++
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			h.mu.Lock()
			delete(h.watchers[u.ID], ch)
			if len(h.watchers[u.ID]) == 0 {
				delete(h.watchers, u.ID)
			}
			h.count--
			var last *db.Subscription
			if h.count == 0 {
				last, h.sub = h.sub, nil
			}
			h.mu.Unlock()
			if last != nil {
				last.Close()
			}
		})
	}, nil
}

// dispatchUnread wakes the watchers of each announced member until the subscription ends;
// after a reconnect, when announcements may have been lost, it wakes every watcher.
func (s *Service) dispatchUnread(sub *db.Subscription) {
	signal := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	for {
		select {
		case payload, ok := <-sub.C:
			if !ok {
				return
			}
			s.unread.mu.Lock()
			for _, f := range strings.Split(payload, ",") {
				id, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					continue
				}
				for ch := range s.unread.watchers[id] {
					signal(ch)
				}
			}
			s.unread.mu.Unlock()
		case <-sub.Resumed:
			s.unread.mu.Lock()
			for _, chs := range s.unread.watchers {
				for ch := range chs {
					signal(ch)
				}
			}
			s.unread.mu.Unlock()
		}
	}
}

// announceUnread tells every instance that these members' unread counts changed. It runs
// after the write committed; a failure is logged (the streams then show the new count at the
// next change or reconnect) and never undoes the write.
func (s *Service) announceUnread(ctx context.Context, userIDs []int64) {
	seen := make(map[int64]bool, len(userIDs))
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		if err := s.store.Publish(context.WithoutCancel(ctx), db.UnreadChannel, b.String()); err != nil {
			s.log.Warn("announcing unread counts", "err", err)
		}
		b.Reset()
	}
	for _, id := range userIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		f := strconv.FormatInt(id, 10)
		if b.Len()+1+len(f) > db.MaxPayload {
			flush()
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f)
	}
	flush()
}
