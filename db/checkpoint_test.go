package db

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// A commit that writes more pages than SQLite's default checkpoint threshold (1000) leaves
// them in the log instead of copying them into the database file itself; the background
// copies them when asked (issue 22 item 15: a heavy price tick no longer pays for it).
func TestSQLiteCommitLeavesCheckpointToTheBackground(t *testing.T) {
	defer func(d time.Duration) { checkpointEvery = d }(checkpointEvery)
	checkpointEvery = time.Hour // only the explicit request below checkpoints
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ounce.db")
	s, err := Open(ctx, "", path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE ckpt_probe (b BLOB NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	s.checkpointWAL()
	size := func() int64 {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	blob := strings.Repeat("x", 3000) // about one page a row
	err = s.WithTx(ctx, func(tx *sqlx.Tx) error {
		for range 1500 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO ckpt_probe (b) VALUES (?)`, blob); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := size(); got != before {
		t.Fatalf("the commit of 1500 pages checkpointed itself: database file %d → %d bytes", before, got)
	}
	s.CheckpointSoon()
	deadline := time.Now().Add(30 * time.Second)
	for size() < before+1500*3000 {
		if time.Now().After(deadline) {
			t.Fatalf("the background did not checkpoint: database file %d bytes", size())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
