package advisor

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// TestQuotaUnderConcurrency: the check and the count are one statement, so twenty requests at
// once take exactly the five messages a free member has, and the next day starts afresh.
func TestQuotaUnderConcurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		u, err := s.InsertUser(ctx, "quota@example.test", "x", db.TierFree, false)
		if err != nil {
			t.Fatal(err)
		}
		day := db.NewDate(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
		var wg sync.WaitGroup
		var mu sync.Mutex
		granted := 0
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.UseAdvisorQuota(ctx, u.ID, day, FreeDailyQuota)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					granted++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if granted != FreeDailyQuota {
			t.Fatalf("granted %d, want %d", granted, FreeDailyQuota)
		}
		if used, _ := s.AdvisorUsed(ctx, u.ID, day); used != FreeDailyQuota {
			t.Fatalf("used %d", used)
		}
		if ok, _ := s.UseAdvisorQuota(ctx, u.ID, db.NewDate(day.AddDate(0, 0, 1)), FreeDailyQuota); !ok {
			t.Fatal("the next day has no quota")
		}
	})
}
