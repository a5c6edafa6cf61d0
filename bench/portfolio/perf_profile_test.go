package main

import (
	"context"
	"os"
	"testing"

	"github.com/ouncehq/ounce/bench/benchkit"
	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/performance"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// BenchmarkPerformance runs the performance summary's parts in process on SQLite (on
// PostgreSQL with OUNCE_BENCH_POSTGRES_URL), for profiling:
//
//	go test -run X -bench Performance -cpuprofile cpu.out ./bench/portfolio/
func BenchmarkPerformance(b *testing.B) {
	ctx := context.Background()
	// SQLite; PostgreSQL with OUNCE_BENCH_POSTGRES_URL set.
	engines := benchkit.Engines(ctx, os.Getenv("OUNCE_BENCH_POSTGRES_URL"), "ounce-prof")
	eng := engines[len(engines)-1]
	s, _, done := eng.Open()
	defer done()
	_, err := s.Migrate(ctx)
	benchkit.Must(err)
	market := benchkit.LiveMarket(ctx, s)
	u, err := s.InsertUser(ctx, "bench@example.com", "x", db.TierGold, false)
	benchkit.Must(err)
	benchkit.Seed(ctx, s, u.ID, 10000)
	days, err := s.PerformanceDays(ctx, u.ID)
	benchkit.Must(err)
	b.Logf("%d ledger days", len(days))
	b.Run("PerformanceDays", func(b *testing.B) {
		for b.Loop() {
			_, err := s.PerformanceDays(ctx, u.ID)
			benchkit.Must(err)
		}
	})
	b.Run("HasLotsOutside", func(b *testing.B) {
		for b.Loop() {
			_, err := s.HasLotsOutside(ctx, u.ID, "USD")
			benchkit.Must(err)
		}
	})
	b.Run("SummaryUncached", func(b *testing.B) {
		for b.Loop() {
			// A new service each time: nothing kept.
			svc := performance.New(performance.Deps{Store: s, Prices: market})
			_, err := svc.Summary(ctx, u, "", "")
			benchkit.Must(err)
		}
	})
	all, err := s.AllHoldings(ctx, u.ID) // oldest first
	benchkit.Must(err)
	newest := len(all) - 1
	for ; ; newest-- { // the latest dated lot whose quantity can change (nothing sold)
		h := all[newest]
		h.Quantity = 3 - h.Quantity%2
		if _, err := s.UpdateHolding(ctx, portfolio.WithTotals(h)); err == nil && !h.PurchaseDate.IsZero() {
			all[newest] = h
			break
		}
	}
	kept := performance.New(performance.Deps{Store: s, Prices: market})
	for _, c := range []struct {
		name string
		lot  db.Holding
	}{{"OldLot", all[1]}, {"NewestLot", all[newest]}} {
		edited := c.lot
		edit := func() {
			edited.Quantity = 3 - edited.Quantity%2
			_, err := s.UpdateHolding(ctx, portfolio.WithTotals(edited))
			benchkit.Must(err)
		}
		b.Run("SummaryAfterEdit"+c.name+"ReadWhole", func(b *testing.B) {
			for b.Loop() {
				// As before the change log: a new service after each edit reads every ledger day.
				b.StopTimer()
				edit()
				svc := performance.New(performance.Deps{Store: s, Prices: market})
				b.StartTimer()
				_, err := svc.Summary(ctx, u, "", "")
				benchkit.Must(err)
			}
		})
		b.Run("SummaryAfterEdit"+c.name+"Kept", func(b *testing.B) {
			for b.Loop() {
				// The same service after each edit: the ledger days it kept are spliced.
				b.StopTimer()
				edit()
				b.StartTimer()
				_, err := kept.Summary(ctx, u, "", "")
				benchkit.Must(err)
			}
		})
	}
}
