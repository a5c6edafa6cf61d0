package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ouncehq/ounce/bench/benchkit"
	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// BenchmarkEndpoints runs the service calls behind the slow rows of the bench in process, for
// profiling without HTTP in the way:
//
//	go test -run X -bench . -cpuprofile cpu.out ./bench/portfolio/
func BenchmarkEndpoints(b *testing.B) {
	ctx := context.Background()
	for _, eng := range benchkit.Engines(ctx, os.Getenv("OUNCE_TEST_POSTGRES_URL"), "ounce-prof") {
		s, raw, done := eng.Open()
		_, err := s.Migrate(ctx)
		benchkit.Must(err)
		market := benchkit.LiveMarket(ctx, s)
		u, err := s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
		benchkit.Must(err)
		benchkit.Seed(ctx, s, u.ID, 10000)
		svc := portfolio.New(portfolio.Deps{Store: s, Prices: market})
		if s.Engine == db.Postgres {
			_, err = raw.ExecContext(ctx, `VACUUM ANALYZE holdings, sales, position_days, position_totals`)
			benchkit.Must(err)
		}
		all, err := s.AllHoldings(ctx, u.ID)
		benchkit.Must(err)
		edited := all[1]
		// An edit through the store, as in the bench's "right after an edit" rows.
		touch := func() {
			edited.Quantity = 3 - edited.Quantity%2 // 2 and 3 in turn: the sums change
			_, err := s.UpdateHolding(ctx, portfolio.WithTotals(edited))
			benchkit.Must(err)
		}
		_ = raw
		since := db.NewDate(prices.Range5Y.Start(time.Now().UTC()))
		b.Run(eng.Name+"/HistoryChanges5Y", func(b *testing.B) {
			for b.Loop() {
				_, err := s.HistoryChanges(ctx, u.ID, since)
				benchkit.Must(err)
			}
		})
		changes, _ := s.HistoryChanges(ctx, u.ID, since)
		b.Logf("%s: %d changes", eng.Name, len(changes))
		b.Run(eng.Name+"/Replay5Y", func(b *testing.B) {
			for b.Loop() {
				portfolio.ReplayHistory(market, changes, prices.Range5Y, time.Now())
			}
		})
		b.Run(eng.Name+"/History5Y", func(b *testing.B) {
			for b.Loop() {
				_, err := svc.History(ctx, u, "5Y")
				benchkit.Must(err)
			}
		})
		b.Run(eng.Name+"/History5YAfterEdit", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				touch()
				b.StartTimer()
				_, err := svc.History(ctx, u, "5Y")
				benchkit.Must(err)
			}
		})
		b.Run(eng.Name+"/AnalyticsAfterEdit", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				touch()
				b.StartTimer()
				_, err := svc.Analytics(ctx, u)
				benchkit.Must(err)
			}
		})
		done()
	}
}
