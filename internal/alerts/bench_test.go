package alerts_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/metals"
)

// BenchmarkTick evaluates and outboxes one silver tick at a time over a million alerts, and,
// in the same run, over a thousand (the baseline: same ticks, same crossings per tick, a
// table a thousand times smaller). Run it once per engine:
//
//	OUNCE_TEST_POSTGRES_URL=… go test -run XXX -bench Tick -benchtime 1x -timeout 30m ./internal/alerts/
//
// Alerts are spread over the four metals within ±30 % of each price, half above and half
// below, half once and half re-arming; 1000 members hold them and each has one device, so
// every firing writes a notification and an outbox row. Silver walks ±$0.01–0.10 a tick.
func BenchmarkTick(b *testing.B) {
	engines := map[string]func(b *testing.B) *db.Store{"sqlite": func(b *testing.B) *db.Store { return dbtest.SQLite(b) }}
	if u, ok := dbtest.PostgresURL(b); ok {
		engines["postgres"] = func(b *testing.B) *db.Store { return dbtest.Postgres(b, u) }
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		open, ok := engines[engine]
		if !ok {
			continue
		}
		for _, full := range []bool{true, false} {
			name := map[bool]string{true: "1000000-alerts", false: "baseline-reachable-only"}[full]
			b.Run(engine+"/"+name, func(b *testing.B) {
				s := open(b)
				fx := newFixture(b, s, alerts.Config{})
				fx.svc = alerts.New(alerts.Deps{Store: s, Market: fx.market, Now: fx.clock.now})
				ctx := context.Background()
				start := map[metals.Metal]float64{metals.Gold: 4000, metals.Silver: 40, metals.Platinum: 1900, metals.Palladium: 1700}
				for m, p := range start {
					fx.market.set(m, fmt.Sprintf("%.2f", p))
				}
				const users = 1000
				ids := make([]int64, users)
				for i := range ids {
					u, err := s.InsertUser(ctx, fmt.Sprintf("bench%d@example.com", i), "h", db.TierGold, false)
					if err != nil {
						b.Fatal(err)
					}
					ids[i] = u.ID
					if _, err := fx.svc.Register(ctx, u, alerts.DeviceInput{Platform: "ios", Token: fmt.Sprintf("ExpoPushToken[benchdevice%010d]", i)}); err != nil {
						b.Fatal(err)
					}
				}
				rng := rand.New(rand.NewPCG(1, 2))
				walk := rand.New(rand.NewPCG(3, 4))
				seedStart := time.Now()
				// The baseline stores only the silver alerts within $2 of $40 (the walk's reach) out
				// of the same million, so both tables hold the same crossing alerts.
				rows := make([]alerts.ImportRow, 0, 50_000)
				flush := func() {
					if err := fx.svc.Import(ctx, rows); err != nil {
						b.Fatal(err)
					}
					rows = rows[:0]
				}
				stored := 0
				for i := 0; i < 1_000_000; i++ {
					m := metals.All[i%4]
					p := start[m]
					lo, hi := p*0.7, p*1.3
					target := lo + rng.Float64()*(hi-lo)
					dir, rep := alerts.Above, alerts.Once
					if rng.IntN(2) == 0 {
						dir = alerts.Below
					}
					if rng.IntN(2) == 0 {
						rep = alerts.Rearm
					}
					if !full && (m != metals.Silver || target < 38 || target > 42) {
						continue
					}
					stored++
					rows = append(rows, alerts.ImportRow{UserID: ids[i%users], Metal: m, Direction: dir, TargetPrice: decimal.NewFromFloat(target).Round(2), Repeat: rep})
					if len(rows) == cap(rows) {
						flush()
					}
				}
				flush()
				n := stored
				b.Logf("%s: %d alerts stored in %s", engine, n, time.Since(seedStart).Round(time.Millisecond))

				const ticks = 300
				price := decimal.NewFromInt(40)
				var times, light []time.Duration // light: ticks firing at most 100 alerts
				fired, outboxed, most := 0, int64(0), 0
				b.ResetTimer()
				for i := 0; i < ticks; i++ {
					step := decimal.New(int64(1+walk.IntN(10)), -2)
					if walk.IntN(2) == 0 {
						step = step.Neg()
					}
					price = price.Add(step)
					fx.clock.add(time.Minute)
					t0 := time.Now()
					r, err := fx.svc.Evaluate(ctx, alerts.Tick{Metal: metals.Silver, Price: price, AsOf: fx.clock.now()})
					times = append(times, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					if r.Fired <= 100 {
						light = append(light, times[len(times)-1])
					}
					fired += r.Fired
					outboxed += r.Outbox
					most = max(most, r.Fired)
				}
				b.StopTimer()
				slices.Sort(times)
				q := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
				b.ReportMetric(float64(q(0.5).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
				b.ReportMetric(float64(fired)/ticks, "fired/tick")
				slices.Sort(light)
				b.Logf("%s, %d alerts, %d ticks: p50 %s p95 %s p99 %s max %s; fired %.1f/tick (most %d), outbox rows %.1f/tick; the %d ticks firing ≤ 100 alerts: p99 %s",
					engine, n, ticks, q(0.5), q(0.95), q(0.99), times[len(times)-1], float64(fired)/ticks, most, float64(outboxed)/ticks,
					len(light), light[min(len(light)-1, int(0.99*float64(len(light))))])
			})
		}
	}
}
