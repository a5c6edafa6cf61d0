package db_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// TestReceiptFileKept: a scan's file is kept for its member only, until used, a day at most,
// the newest few per member, and goes with its scan and with the account (both engines).
func TestReceiptFileKept(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		u, err := s.InsertUser(ctx, "keep@example.com", "x", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.InsertUser(ctx, "other@example.com", "x", db.TierGold, false)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		scan := func(userID int64, at time.Time) int64 {
			t.Helper()
			id, ok, _, err := s.ReserveReceiptScan(ctx, userID, at, time.Hour, 1000)
			if err != nil || !ok {
				t.Fatalf("reserve: %v %v", ok, err)
			}
			return id
		}
		body := []byte("%PDF-1.4\x00\xff binary receipt")
		a := scan(u.ID, t0)
		if err := s.SaveReceiptFile(ctx, u.ID, a, body, t0); err != nil {
			t.Fatal(err)
		}
		got, err := s.ReceiptFile(ctx, u.ID, a, t0.Add(time.Hour))
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("kept file: %q %v", got, err)
		}
		if _, err := s.ReceiptFile(ctx, other.ID, a, t0); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("another member read the file: %v", err)
		}
		if _, err := s.ReceiptFile(ctx, u.ID, a, t0.Add(db.ReceiptFileRetention)); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("a file past its day is still served: %v", err)
		}
		if err := s.DeleteReceiptFile(ctx, other.ID, a); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReceiptFile(ctx, u.ID, a, t0); err != nil {
			t.Fatalf("another member's delete removed it: %v", err)
		}
		if err := s.DeleteReceiptFile(ctx, u.ID, a); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReceiptFile(ctx, u.ID, a, t0); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("used file still kept: %v", err)
		}

		// The newest MaxPendingReceiptFiles of a member are kept; older ones (and anyone's past
		// a day) are dropped when another is saved.
		old := scan(other.ID, t0)
		if err := s.SaveReceiptFile(ctx, other.ID, old, body, t0); err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for i := range db.MaxPendingReceiptFiles + 2 {
			at := t0.Add(db.ReceiptFileRetention + time.Duration(i)*time.Minute)
			id := scan(u.ID, at)
			if err := s.SaveReceiptFile(ctx, u.ID, id, []byte(fmt.Sprint(i)), at); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		now := t0.Add(db.ReceiptFileRetention + time.Hour)
		for i, id := range ids {
			_, err := s.ReceiptFile(ctx, u.ID, id, now)
			if kept := i >= len(ids)-db.MaxPendingReceiptFiles; kept != (err == nil) {
				t.Errorf("file %d: kept %v, err %v", i, kept, err)
			}
		}
		if _, err := s.ReceiptFile(ctx, other.ID, old, t0); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("a day-old file of another member was not dropped: %v", err)
		}

		// Released with its scan, and with the account.
		last := ids[len(ids)-1]
		if err := s.ReleaseReceiptScan(ctx, u.ID, last); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReceiptFile(ctx, u.ID, last, now); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("file outlived its scan: %v", err)
		}
		keep := ids[len(ids)-2]
		if err := s.DeleteUser(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReceiptFile(ctx, u.ID, keep, now); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("file outlived the account: %v", err)
		}
	})
}
