package db_test

import (
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestReceiptScanLimit(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		u, err := s.InsertUser(ctx, "scan@example.com", "x", "free", false)
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.InsertUser(ctx, "other@example.com", "x", "free", false)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		window := 30 * 24 * time.Hour
		var ids []int64
		for i := range 5 {
			id, ok, _, err := s.ReserveReceiptScan(ctx, u.ID, t0.Add(time.Duration(i)*time.Hour), window, 5)
			if err != nil || !ok {
				t.Fatalf("scan %d: ok %v err %v", i+1, ok, err)
			}
			ids = append(ids, id)
		}
		_, ok, reset, err := s.ReserveReceiptScan(ctx, u.ID, t0.Add(10*time.Hour), window, 5)
		if err != nil || ok {
			t.Fatalf("sixth scan: ok %v err %v", ok, err)
		}
		if want := t0.Add(window); !reset.Equal(want) {
			t.Fatalf("reset %v, want %v (the first scan leaving the window)", reset, want)
		}
		// Another member's allowance is their own.
		if _, ok, _, err := s.ReserveReceiptScan(ctx, other.ID, t0, window, 5); err != nil || !ok {
			t.Fatalf("other member: ok %v err %v", ok, err)
		}
		// A released scan gives its place back; a refused one took none.
		if err := s.ReleaseReceiptScan(ctx, u.ID, ids[4]); err != nil {
			t.Fatal(err)
		}
		if n, err := s.ReceiptScansSince(ctx, u.ID, t0.Add(-time.Hour)); err != nil || n != 4 {
			t.Fatalf("count after release %d %v, want 4", n, err)
		}
		if _, ok, _, err := s.ReserveReceiptScan(ctx, u.ID, t0.Add(11*time.Hour), window, 5); err != nil || !ok {
			t.Fatalf("after release: ok %v err %v", ok, err)
		}
		// Once the first scan is 30 days old, one more fits; rows past retention are dropped.
		if _, ok, _, err := s.ReserveReceiptScan(ctx, u.ID, t0.Add(window+time.Second), window, 5); err != nil || !ok {
			t.Fatalf("after the window: ok %v err %v", ok, err)
		}
		if n, err := s.ReceiptScansSince(ctx, u.ID, time.Unix(0, 0)); err != nil || n != 5 {
			t.Fatalf("rows kept %d %v, want 5 (the oldest pruned)", n, err)
		}
	})
}
