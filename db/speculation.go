package db

import (
	"context"

	"github.com/shopspring/decimal"
)

// FineOuncesByMetal sums the fine ounces a user holds per metal. The sum runs over exact
// decimals in Go so SQLite's text-stored numbers never pass through floating point.
func (s *Store) FineOuncesByMetal(ctx context.Context, userID int64) (map[string]decimal.Decimal, error) {
	rows, err := s.DB.QueryxContext(ctx, s.rebind(`SELECT metal, quantity, weight_oz FROM holdings WHERE user_id = ?`), userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]decimal.Decimal{}
	for rows.Next() {
		var metal string
		var qty int64
		var w decimal.Decimal
		if err := rows.Scan(&metal, &qty, &w); err != nil {
			return nil, err
		}
		out[metal] = out[metal].Add(w.Mul(decimal.NewFromInt(qty)))
	}
	return out, rows.Err()
}
