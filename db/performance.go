package db

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// PerformanceDay is one metal's purchases and sales on one day, read from the position
// ledger: the change of fine ounces held (bought less sold), the cost of the purchases (fees
// included), the net proceeds of the sales (their cost basis plus their realized profit or
// loss, i.e. after sale fees) and that realized profit or loss. Undated holdings count on the
// day they were recorded, as everywhere in the ledger. Each row is reduced to these sums in
// SQL, integers only: the drivers' cost is per column read.
type PerformanceDay struct {
	Metal                          metals.Metal
	Day                            Date
	Oz, Bought, Proceeds, Realized decimal.Decimal
}

// PerformanceDays lists every day of the member's position ledger, oldest first (on a day,
// metals in name order). The ledger holds only days something happened on, so this is a few
// thousand rows however many lots the member has.
func (s *Store) PerformanceDays(ctx context.Context, userID int64) ([]PerformanceDay, error) {
	return s.PerformanceDaysFrom(ctx, userID, Date{})
}

// PerformanceDaysFrom is PerformanceDays of the days on or after from (every day when from
// is zero): what a reader that kept the days before from (see LedgerChangedFrom) re-reads.
func (s *Store) PerformanceDaysFrom(ctx context.Context, userID int64, from Date) ([]PerformanceDay, error) {
	if from.IsZero() {
		return s.performanceDays(ctx, userID, "")
	}
	return s.performanceDays(ctx, userID, ` AND day >= ?`, from.Format(DateLayout))
}

// PerformanceDaysOn is PerformanceDays of the given days only (those a reader that kept the
// others re-reads, see LedgerChangedDays); no days, no rows.
func (s *Store) PerformanceDaysOn(ctx context.Context, userID int64, days []Date) ([]PerformanceDay, error) {
	if len(days) == 0 {
		return nil, nil
	}
	// One statement (a round trip) for a few days: each metal and day is a primary-key
	// lookup, in day then metal order as PerformanceDays'.
	args := []any{userID}
	for _, m := range metals.All {
		args = append(args, string(m))
	}
	for _, d := range days {
		args = append(args, d.Format(DateLayout))
	}
	return s.readPerformanceDays(ctx, "", `SELECT metal, `+s.dayNumber(`day`)+`, `+performanceCols+` FROM position_days
		WHERE user_id = ? AND metal IN (?`+strings.Repeat(", ?", len(metals.All)-1)+`) AND day IN (?`+strings.Repeat(", ?", len(days)-1)+`) ORDER BY day, metal`, args...)
}

// readPerformanceDays reads the ledger days of query: rows of the metal (when m is "", the
// first column is the metal), the day number and the performanceCols.
func (s *Store) readPerformanceDays(ctx context.Context, m metals.Metal, query string, args ...any) ([]PerformanceDay, error) {
	var out []PerformanceDay
	err := s.eachRow(ctx, "performance days", query, func(rows *sql.Rows) error {
		var metal string
		var day, oz, bought, proceeds, realized int64
		dest := []any{&day, &oz, &bought, &proceeds, &realized}
		if m == "" {
			dest = append([]any{&metal}, dest...)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if m != "" {
			metal = string(m)
		}
		out = append(out, performanceDay(metals.Metal(metal), day, oz, bought, proceeds, realized))
		return nil
	}, args...)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// performanceCols are a ledger row's sums reduced to four exact integers (1e-8 oz and cents).
const performanceCols = `(oz_int - sold_oz_int) * 100000000 + oz_e8 - sold_oz_e8, cost_int * 100 + cost_c,
	(sold_cost_int + pl_int) * 100 + sold_cost_c + pl_c, pl_int * 100 + pl_c`

func performanceDay(m metals.Metal, day, oz, bought, proceeds, realized int64) PerformanceDay {
	return PerformanceDay{Metal: m, Day: Date{time.Unix(day*86400, 0).UTC()},
		Oz: scaled(oz, ozPlaces), Bought: scaled(bought, moneyPlaces), Proceeds: scaled(proceeds, moneyPlaces), Realized: scaled(realized, moneyPlaces)}
}

// performanceDays reads the ledger days matching cond (on day, with its args), oldest first.
func (s *Store) performanceDays(ctx context.Context, userID int64, cond string, args ...any) ([]PerformanceDay, error) {
	// One primary-key range (user, metal, day) per metal, already in day order; each row is
	// reduced in SQL to four exact integers (1e-8 oz and cents), as the drivers' cost is per
	// column read. The metals' runs are then merged by day.
	runs := make([][]PerformanceDay, 0, len(metals.All))
	total := 0
	for _, m := range metals.All {
		run, err := s.performanceRun(ctx, userID, m, cond, args)
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
		total += len(run)
	}
	slices.SortFunc(runs, func(a, b []PerformanceDay) int {
		if len(a) == 0 || len(b) == 0 {
			return len(b) - len(a)
		}
		return strings.Compare(string(a[0].Metal), string(b[0].Metal))
	})
	out := make([]PerformanceDay, 0, total)
	next := make([]int, len(runs))
	for len(out) < total {
		best := -1
		for i, run := range runs {
			if next[i] < len(run) && (best < 0 || run[next[i]].Day.Before(runs[best][next[best]].Day.Time)) {
				best = i
			}
		}
		out = append(out, runs[best][next[best]])
		next[best]++
	}
	return out, nil
}

// performanceRun is one metal's ledger days, oldest first.
func (s *Store) performanceRun(ctx context.Context, userID int64, m metals.Metal, cond string, condArgs []any) ([]PerformanceDay, error) {
	args := append([]any{userID, string(m)}, condArgs...)
	return s.readPerformanceDays(ctx, m, `SELECT `+s.dayNumber(`day`)+`, `+performanceCols+` FROM position_days WHERE user_id = ? AND metal = ?`+cond+` ORDER BY day`, args...)
}
