package db

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lib/pq"
)

// UnreadChannel carries the ids of members whose unread notification count changed
// (comma-separated), so every instance's notification streams learn it from the write.
const UnreadChannel = "ounce_unread"

// MaxPayload is the longest payload Publish accepts, in bytes: PostgreSQL refuses a NOTIFY
// payload of 8000 bytes or more, and SQLite keeps the same limit so code works on both.
const MaxPayload = 7999

// Publish sends payload to every current subscriber of channel. On PostgreSQL it is a
// pg_notify, so every instance sharing the database hears it; on SQLite, where one process
// owns the database, it reaches the subscribers of this process. Delivery is best effort:
// a subscriber that is reconnecting misses what is published meanwhile.
func (s *Store) Publish(ctx context.Context, channel, payload string) error {
	if err := checkChannel(channel); err != nil {
		return err
	}
	if len(payload) > MaxPayload {
		return fmt.Errorf("notification on %s: payload of %d bytes is over the %d-byte limit", channel, len(payload), MaxPayload)
	}
	if s.Engine != Postgres {
		s.local.publish(channel, payload)
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, channel, payload); err != nil {
		return fmt.Errorf("notify %s: %w", channel, err)
	}
	return nil
}

// Subscription receives the payloads published on one channel, in the order they arrive.
type Subscription struct {
	// C delivers payloads. It is closed when the subscription ends: its context was cancelled
	// or Close was called.
	C <-chan string
	// Resumed receives after the PostgreSQL listener reconnected: payloads published while it
	// was away are lost, so a receiver that keeps state from them should read it again.
	Resumed <-chan struct{}
	resumed chan struct{}

	out chan string
	mu  sync.Mutex
	// queue holds payloads the receiver has not taken yet, so a slow receiver never blocks the
	// publisher (SQLite) or the listener connection (PostgreSQL).
	queue    []string
	wake     chan struct{}
	done     chan struct{}
	stop     sync.Once
	finished chan struct{}
}

// pingEvery is how often an idle listener connection is checked, so a connection that died
// silently (no TCP reset) is noticed and replaced.
const pingEvery = 90 * time.Second

// Subscribe starts listening on channel and returns once the subscription is in place, so
// every payload published after it returns is delivered (except while reconnecting). On
// PostgreSQL it holds a connection of its own (pq.Listener) that reconnects with back-off
// and listens again by itself; connection problems go to onErr (nil ignores them), which
// must return quickly. The subscription ends when ctx ends or Close is called.
func (s *Store) Subscribe(ctx context.Context, channel string, onErr func(error)) (*Subscription, error) {
	if err := checkChannel(channel); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sub := newSubscription()
	if s.Engine != Postgres {
		s.local.add(channel, sub)
		go sub.pump()
		go func() {
			defer close(sub.finished)
			select {
			case <-ctx.Done():
				sub.end()
			case <-sub.done:
			}
			s.local.remove(channel, sub)
		}()
		return sub, nil
	}

	report := func(err error) {
		if err != nil && onErr != nil {
			onErr(err)
		}
	}
	l := pq.NewListener(s.url, time.Second, time.Minute, func(_ pq.ListenerEventType, err error) { report(err) })
	listened := make(chan error, 1)
	// Listen blocks until the server acknowledges, which may be never while the database is
	// unreachable: wait for it only as long as ctx allows.
	go func() { listened <- l.Listen(channel) }()
	select {
	case err := <-listened:
		if err != nil {
			closeListener(l)
			return nil, fmt.Errorf("listen %s: %w", channel, err)
		}
	case <-ctx.Done():
		closeListener(l)
		<-listened
		return nil, ctx.Err()
	}
	go sub.pump()
	go func() {
		defer close(sub.finished)
		defer closeListener(l)
		ping := time.NewTicker(pingEvery)
		defer ping.Stop()
		for {
			select {
			case <-ctx.Done():
				sub.end()
				return
			case <-sub.done:
				return
			case n, ok := <-l.Notify:
				if !ok {
					sub.end()
					return
				}
				// nil follows a reconnect: the listener has listened again, and whatever was
				// published while it was away is gone.
				if n == nil {
					select {
					case sub.resumed <- struct{}{}:
					default:
					}
				} else if n.Channel == channel {
					sub.push(n.Extra)
				}
			case <-ping.C:
				// Not inline: a ping waits for its reply behind undelivered notifications,
				// which only this loop drains.
				go func() { report(l.Ping()) }()
			}
		}
	}()
	return sub, nil
}

// Close ends the subscription and waits until its connection is released. C is closed.
func (sub *Subscription) Close() {
	sub.end()
	<-sub.finished
}

func newSubscription() *Subscription {
	out := make(chan string)
	resumed := make(chan struct{}, 1)
	return &Subscription{C: out, out: out, Resumed: resumed, resumed: resumed, wake: make(chan struct{}, 1), done: make(chan struct{}), finished: make(chan struct{})}
}

func (sub *Subscription) end() { sub.stop.Do(func() { close(sub.done) }) }

func (sub *Subscription) push(payload string) {
	sub.mu.Lock()
	sub.queue = append(sub.queue, payload)
	sub.mu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

// pump hands queued payloads to the receiver until the subscription ends, then closes C.
func (sub *Subscription) pump() {
	defer close(sub.out)
	for {
		sub.mu.Lock()
		batch := sub.queue
		sub.queue = nil
		sub.mu.Unlock()
		for _, p := range batch {
			select {
			case sub.out <- p:
			case <-sub.done:
				return
			}
		}
		select {
		case <-sub.wake:
		case <-sub.done:
			return
		}
	}
}

// closeListener shuts a pq.Listener down and drains its channel in the background: its
// connection loop may be blocked handing over one last notification, and only ends (closing
// Notify) once that is taken.
func closeListener(l *pq.Listener) {
	_ = l.Close()
	go func() {
		for range l.Notify {
		}
	}()
}

// checkChannel enforces PostgreSQL's identifier limit on both engines.
func checkChannel(channel string) error {
	if channel == "" || len(channel) > 63 {
		return errors.New("notification channel name must be 1 to 63 bytes")
	}
	return nil
}

// localBus relays notifications between the subscribers of one process (SQLite).
type localBus struct {
	mu   sync.Mutex
	subs map[string]map[*Subscription]struct{}
}

func newLocalBus() *localBus { return &localBus{subs: map[string]map[*Subscription]struct{}{}} }

func (b *localBus) add(channel string, sub *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs[channel] == nil {
		b.subs[channel] = map[*Subscription]struct{}{}
	}
	b.subs[channel][sub] = struct{}{}
}

func (b *localBus) remove(channel string, sub *Subscription) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.subs[channel], sub)
	if len(b.subs[channel]) == 0 {
		delete(b.subs, channel)
	}
}

func (b *localBus) publish(channel, payload string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sub := range b.subs[channel] {
		sub.push(payload)
	}
}
