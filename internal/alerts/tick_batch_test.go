package alerts_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestTickPastOneBatch: a tick that crosses more alerts than one statement fires (1000 per
// direction) fires every one exactly once, with one notification and one outbox row per
// device each; the same price again fires none; the way back re-arms exactly the re-arming
// half, and the next crossing fires only those. Both engines.
func TestTickPastOneBatch(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		fx := newFixture(t, s, alerts.Config{})
		ctx := context.Background()
		var rows []alerts.ImportRow
		var users []db.User
		for i := range 30 {
			u := fx.user(t, fmt.Sprintf("batch%d@example.com", i), db.TierGold)
			users = append(users, u)
			if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "ios", Token: fmt.Sprintf("ExpoPushToken[batch%06d]", i)}); err != nil {
				t.Fatal(err)
			}
			for j := range 50 {
				rep := alerts.Once
				if j%2 == 0 {
					rep = alerts.Rearm
				}
				target := decimal.New(int64(3901+i*50+j), -2) // 39.01 … 53.99, all above 39
				rows = append(rows, alerts.ImportRow{UserID: u.ID, Metal: metals.Silver, Direction: alerts.Above, TargetPrice: target, Repeat: rep})
			}
		}
		if err := fx.svc.Import(ctx, rows); err != nil {
			t.Fatal(err)
		}
		if r := fx.tick(t, "60"); r.Fired != 1500 || r.Outbox != 1500 {
			t.Fatalf("first crossing fired %d with %d outbox rows, want 1500 and 1500", r.Fired, r.Outbox)
		}
		if r := fx.tick(t, "60"); r.Fired != 0 || r.Outbox != 0 {
			t.Fatalf("the same price again fired %d", r.Fired)
		}
		if r := fx.tick(t, "30"); r.Fired != 0 || r.Armed != 750 {
			t.Fatalf("way back: fired %d, armed %d, want 0 and 750", r.Fired, r.Armed)
		}
		if r := fx.tick(t, "60"); r.Fired != 750 || r.Outbox != 750 {
			t.Fatalf("second crossing fired %d (%d outbox rows), want the 750 re-arming alerts", r.Fired, r.Outbox)
		}
		for _, u := range users {
			ns, err := fx.svc.Notifications(ctx, u, alerts.MaxNotifications)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int64]int{}
			for _, n := range ns {
				seen[n.AlertID]++
			}
			if len(ns) != 75 || len(seen) != 50 {
				t.Fatalf("member %d has %d notifications for %d alerts, want 75 for 50", u.ID, len(ns), len(seen))
			}
		}
	})
}
