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
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// BenchmarkTickQuotes measures what alerts in other currencies cost a tick: the same 20,000
// silver alerts near the price (the same crossings, targets at the same dollar equivalents)
// all in USD per ounce, or a third each in USD/oz, EUR/oz and GBP/g, walked by the same 300
// ticks. Each tick is converted once per quote (one rate look-up per currency) and each
// quote's alerts read through the index. Run once per engine:
//
//	OUNCE_TEST_POSTGRES_URL=… go test -run XXX -bench TickQuotes -benchtime 1x ./internal/alerts/
func BenchmarkTickQuotes(b *testing.B) {
	engines := map[string]func(b *testing.B) *db.Store{"sqlite": func(b *testing.B) *db.Store { return dbtest.SQLite(b) }}
	if u, ok := dbtest.PostgresURL(b); ok {
		engines["postgres"] = func(b *testing.B) *db.Store { return dbtest.Postgres(b, u) }
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		open, ok := engines[engine]
		if !ok {
			continue
		}
		for _, mixed := range []bool{false, true} {
			name := map[bool]string{false: "usd-only", true: "usd-eur-gbp"}[mixed]
			b.Run(engine+"/"+name, func(b *testing.B) {
				s := open(b)
				f := newFixture(b, s, alerts.Config{})
				rates := fx.New(fx.Deps{Store: s, Now: f.clock.now})
				f.svc = alerts.New(alerts.Deps{Store: s, Market: f.market, FX: rates, Now: f.clock.now})
				ctx := context.Background()
				f.market.set(metals.Silver, "40.00")
				u, err := s.InsertUser(ctx, "quotes@example.com", "h", db.TierGold, false)
				if err != nil {
					b.Fatal(err)
				}
				quotes := []struct {
					cur  string
					unit metals.Unit
				}{{"USD", metals.Ounce}}
				if mixed {
					quotes = append(quotes, struct {
						cur  string
						unit metals.Unit
					}{"EUR", metals.Ounce}, struct {
						cur  string
						unit metals.Unit
					}{"GBP", metals.Gram})
				}
				rng := rand.New(rand.NewPCG(1, 2))
				rows := make([]alerts.ImportRow, 0, 20_000)
				for i := 0; i < 20_000; i++ {
					usd := decimal.NewFromFloat(38 + rng.Float64()*4).Round(2)
					dir, rep := alerts.Above, alerts.Once
					if rng.IntN(2) == 0 {
						dir = alerts.Below
					}
					if rng.IntN(2) == 0 {
						rep = alerts.Rearm
					}
					q := quotes[i%len(quotes)]
					target, err := f.svc.PriceIn(ctx, usd, q.cur, q.unit)
					if err != nil {
						b.Fatal(err)
					}
					rows = append(rows, alerts.ImportRow{UserID: u.ID, Metal: metals.Silver, Direction: dir, TargetPrice: target, Repeat: rep, Currency: q.cur, Unit: q.unit})
				}
				if err := f.svc.Import(ctx, rows); err != nil {
					b.Fatal(err)
				}
				walk := rand.New(rand.NewPCG(3, 4))
				price := decimal.NewFromInt(40)
				var times []time.Duration
				fired := 0
				b.ResetTimer()
				for i := 0; i < 300; i++ {
					step := decimal.New(int64(1+walk.IntN(10)), -2)
					if walk.IntN(2) == 0 {
						step = step.Neg()
					}
					price = price.Add(step)
					f.clock.add(time.Minute)
					t0 := time.Now()
					r, err := f.svc.Evaluate(ctx, alerts.Tick{Metal: metals.Silver, Price: price, AsOf: f.clock.now()})
					times = append(times, time.Since(t0))
					if err != nil {
						b.Fatal(err)
					}
					fired += r.Fired
				}
				b.StopTimer()
				slices.Sort(times)
				q := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
				b.ReportMetric(float64(q(0.5).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
				b.Logf("%s %s: 20000 alerts, 300 ticks: p50 %s p99 %s max %s; fired %.1f/tick", engine, name, q(0.5), q(0.99), times[len(times)-1], float64(fired)/300)
				_ = fmt.Sprint()
			})
		}
	}
}
