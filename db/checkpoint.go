package db

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// checkpointInterval is how often the SQLite write-ahead log is copied back into the
// database file.
const checkpointInterval = time.Second

// checkpointEvery runs a passive WAL checkpoint every interval until the returned function is
// called (SQLite). SQLite's own automatic checkpoint runs inside the commit that pushes the
// WAL past 1000 pages, so a write that happens to cross it (a price tick firing hundreds of
// alerts) waits for thousands of page writes and an fsync it did not cause; here no commit
// checkpoints and the copy happens beside the writers. A passive checkpoint never blocks a
// reader or a writer: it copies what no open read still needs and leaves the rest for the
// next round, and the last connection to close checkpoints what is left.
func (s *Store) checkpointEvery(interval time.Duration) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		failing := false
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
			if err != nil && ctx.Err() == nil && !failing {
				slog.Warn("sqlite checkpoint failed", "err", err)
			}
			failing = err != nil
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); wg.Wait() }) }
}
