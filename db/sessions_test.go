package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestSessionStoreAndExpiredCleanup(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		st := s.SessionStore()
		if err := st.Commit("live", []byte("data"), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := st.Commit("gone", []byte("old"), time.Now().Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if b, ok, err := st.Find("live"); err != nil || !ok || string(b) != "data" {
			t.Fatalf("live session: %q %v %v", b, ok, err)
		}
		if err := s.DeleteExpiredSessions(ctx); err != nil {
			t.Fatal(err)
		}
		if b, ok, err := st.Find("live"); err != nil || !ok || string(b) != "data" {
			t.Fatalf("cleanup took a live session: %q %v %v", b, ok, err)
		}
		// The expired row itself is gone, not merely hidden by Find.
		res, err := s.ExecForTest(ctx, `DELETE FROM sessions WHERE token = ?`, "gone")
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 0 {
			t.Fatalf("expired session still stored (%d rows)", n)
		}
	})
}
