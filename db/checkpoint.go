package db

import (
	"context"
	"sync"
	"time"
)

// SQLite's write-ahead log is copied into the database file (checkpointed) in the background,
// not by the commit that happens to take it past SQLite's default of 1000 pages: a price tick
// that fires and re-arms a few hundred alerts writes about 1000 pages by itself, and copying
// them back on its own commit was a quarter of its time (issue 22 item 15). Open sets
// wal_autocheckpoint to walSafetyNetPages, so a commit checkpoints only if the background has
// fallen that far behind (a burst of writes with no pause between them, during which a
// passive checkpoint cannot finish and the log cannot restart); the log is then bounded at
// about 40 MB. A checkpoint runs when a heavy writer asks (CheckpointSoon, after a tick that
// changed alerts) and every checkpointEvery for everything else. Passive checkpoints never
// block readers or writers, and durability is unchanged: with synchronous=NORMAL a commit in
// WAL mode survives an application crash either way.
const walSafetyNetPages = 10000

// checkpointEvery is how often the background checkpoints what no heavy writer asked for; a
// variable so a test can keep it out of the way.
var checkpointEvery = 5 * time.Second

type checkpointer struct {
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// startCheckpointer runs the background checkpoints of a SQLite store until Close.
func (s *Store) startCheckpointer() {
	c := &checkpointer{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.ckpt = c
	go func() {
		defer close(c.done)
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-c.kick:
			case <-t.C:
			}
			s.checkpointWAL()
		}
	}()
}

// checkpointWAL copies the log into the database file, chasing a writer that appended
// meanwhile a few times; what is left waits for the next round.
func (s *Store) checkpointWAL() {
	for range 3 {
		var busy, logPages, copied int
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logPages, &copied)
		cancel()
		if err != nil || logPages <= 0 || copied >= logPages {
			return
		}
	}
}

// CheckpointSoon asks the background checkpointer of a SQLite store to run now, after a
// write of many pages; it never waits. On PostgreSQL it does nothing.
func (s *Store) CheckpointSoon() {
	if s.ckpt == nil {
		return
	}
	select {
	case s.ckpt.kick <- struct{}{}:
	default:
	}
}

// stopCheckpointer ends the background checkpoints (Close).
func (s *Store) stopCheckpointer() {
	if s.ckpt == nil {
		return
	}
	s.ckpt.once.Do(func() { close(s.ckpt.stop) })
	<-s.ckpt.done
}
