package db

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
	// The metals are listed so both engines seek the primary key (user, metal, day) once per
	// metal; the rows are put in day order here rather than sorted by the database.
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT metal, day, oz_int - sold_oz_int, oz_e8 - sold_oz_e8, cost_int, cost_c,
		sold_cost_int + pl_int, sold_cost_c + pl_c, pl_int, pl_c FROM position_days WHERE user_id = ? AND metal IN ('gold', 'silver', 'platinum', 'palladium')`), userID)
	if err != nil {
		return nil, fmt.Errorf("performance days: %w", err)
	}
	defer rows.Close()
	out := make([]PerformanceDay, 0, 1024)
	for rows.Next() {
		var metal string
		var d PerformanceDay
		var v [8]int64
		if err := rows.Scan(&metal, &d.Day, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]); err != nil {
			return nil, fmt.Errorf("performance days: %w", err)
		}
		d.Metal = metals.Metal(metal)
		d.Oz, d.Bought = joinInts(v[0], v[1], ozPlaces), joinInts(v[2], v[3], moneyPlaces)
		d.Proceeds, d.Realized = joinInts(v[4], v[5], moneyPlaces), joinInts(v[6], v[7], moneyPlaces)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b PerformanceDay) int {
		if c := a.Day.Compare(b.Day.Time); c != 0 {
			return c
		}
		return strings.Compare(string(a.Metal), string(b.Metal))
	})
	return out, nil
}
