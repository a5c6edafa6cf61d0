// Package benchkit is what the bench programs share: the engines they run on, a live price
// board, a seeded stack of holdings, and small helpers for their tables.
package benchkit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// Engine is a database the benchmarks run on: the store and, beside it, a plain connection to
// the same database for what an operator would do by hand (VACUUM, touching a row), which the
// Store does not offer.
type Engine struct {
	Name string
	Open func() (*db.Store, *sqlx.DB, func())
}

// Engines are SQLite in a temporary directory and, when pg is set, PostgreSQL in a throwaway
// schema.
func Engines(ctx context.Context, pg, tmpPrefix string) []Engine {
	engines := []Engine{{"SQLite", func() (*db.Store, *sqlx.DB, func()) {
		dir, err := os.MkdirTemp("", tmpPrefix)
		Must(err)
		path := filepath.Join(dir, "ounce.db")
		s, err := db.Open(ctx, "", path)
		Must(err)
		raw, err := sqlx.ConnectContext(ctx, "sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
		Must(err)
		return s, raw, func() { _ = raw.Close(); _ = s.Close(); _ = os.RemoveAll(dir) }
	}}}
	if pg != "" {
		engines = append(engines, Engine{"PostgreSQL", func() (*db.Store, *sqlx.DB, func()) { return PGStore(ctx, pg) }})
	}
	return engines
}

// MeasuredBy is the first sentence of a results section: which harness (bench/name) ran,
// when, and on what machine and Go.
func MeasuredBy(name string) string {
	return fmt.Sprintf("Measured by `go run ./bench/%s` on %s, %d CPUs (%s/%s), %s.",
		name, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// EachEngine runs measure on a fresh store of each of Engines in turn (closed and removed
// after) and returns the notes for below the table: measure's own, then the machine's load
// average before and after each engine's run.
func EachEngine(ctx context.Context, pg, tmpPrefix string, measure func(name string, s *db.Store, raw *sqlx.DB) []string) []string {
	var notes []string
	for _, eng := range Engines(ctx, pg, tmpPrefix) {
		s, raw, done := eng.Open()
		before := LoadAvg()
		notes = append(notes, measure(eng.Name, s, raw)...)
		notes = append(notes, fmt.Sprintf("- %s: load average (1 min) %s before, %s after: other work on the machine competes for its two cores.", eng.Name, before, LoadAvg()))
		done()
	}
	return notes
}

// LiveMarket is an offline price service over the store's history with a fixed live board
// (gold 2,650.40, silver 31.25, platinum 1,000, palladium 1,100.55) applied now.
func LiveMarket(ctx context.Context, s *db.Store) *prices.Service {
	market, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true})
	Must(err)
	now := time.Now().UTC()
	snap := prices.Snapshot{AsOf: now, Prices: map[metals.Metal]prices.Spot{}}
	for m, q := range map[metals.Metal][2]string{metals.Gold: {"2650.40", "2630.10"}, metals.Silver: {"31.25", "31.50"}, metals.Platinum: {"1000.00", "990.00"}, metals.Palladium: {"1100.55", "1098.00"}} {
		p, prev := decimal.RequireFromString(q[0]), decimal.RequireFromString(q[1])
		snap.Prices[m] = prices.Spot{Metal: m, Symbol: m.Symbol(), Price: p, PrevClose: prev, Change: p.Sub(prev), ChangePct: metals.Percent(metals.PctChange(prev, p)), AsOf: now, Source: "bench"}
	}
	market.Feed().Apply(snap)
	return market
}

// Seed imports n holdings in one transaction, then sells part of every tenth.
func Seed(ctx context.Context, s *db.Store, userID int64, n int) {
	rng := mrand.New(mrand.NewPCG(1, 2))
	weights := []string{"1", "0.1", "0.25", "0.5", "0.7734", "0.07234", "10", "32.15074657", "0.03215"}
	products := []string{"Eagle", "Maple Leaf", "Britannia", "Krugerrand", "Philharmonic", "bar", "round", "junk dimes"}
	start := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]db.Holding, n)
	for i := range rows {
		m := metals.All[rng.IntN(4)]
		rows[i] = portfolio.WithTotals(db.Holding{Metal: string(m), ProductName: fmt.Sprintf("%s %s #%d", m.Title(), products[rng.IntN(len(products))], i),
			Quantity: int64(1 + rng.IntN(100)), WeightOz: decimal.RequireFromString(weights[rng.IntN(len(weights))]),
			PurchasePrice: decimal.New(int64(100+rng.IntN(300_000)), -2), Fees: decimal.New(int64(rng.IntN(3)*rng.IntN(5000)), -2),
			Dealer: "Dealer " + string(rune('A'+rng.IntN(6))), PurchaseDate: db.NewDate(start.AddDate(0, 0, rng.IntN(4200)))})
	}
	_, err := s.ImportHoldings(ctx, userID, rows)
	Must(err)
	all, err := s.AllHoldings(ctx, userID)
	Must(err)
	for i, h := range all {
		if i%10 != 0 || h.Quantity < 2 {
			continue
		}
		_, err := s.InsertSale(ctx, userID, h.ID, db.Sale{Quantity: 1 + int64(rng.IntN(int(h.Quantity-1))), PricePerUnit: decimal.New(int64(100+rng.IntN(300_000)), -2),
			Fees: decimal.Zero, SoldOn: db.NewDate(h.PurchaseDate.AddDate(0, 1, 0))}, portfolio.DecideSale)
		Must(err)
	}
}

// LoadAvg is the one-minute load average, or "?" where /proc is missing.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) == 0 {
		return "?"
	}
	f := strings.Fields(string(b))
	return f[0]
}

// PGStore opens a store in a fresh schema of the database at base, and a plain connection to
// it, both closed and the schema dropped by the returned func.
func PGStore(ctx context.Context, base string) (*db.Store, *sqlx.DB, func()) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	admin, err := sqlx.ConnectContext(ctx, "postgres", base)
	Must(err)
	_, err = admin.ExecContext(ctx, `CREATE SCHEMA `+schema)
	Must(err)
	u, err := url.Parse(base)
	Must(err)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	s, err := db.Open(ctx, u.String(), "")
	Must(err)
	raw, err := sqlx.ConnectContext(ctx, "postgres", u.String())
	Must(err)
	return s, raw, func() {
		_ = raw.Close()
		_ = s.Close()
		_, _ = admin.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		_ = admin.Close()
	}
}

// Must ends the program on an error, saying what it was.
func Must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// MS is a duration in milliseconds for the tables.
func MS(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
