package db

import (
	"context"
	"database/sql"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// PerformanceCurrencyDay is one metal's money in and out on one day in one currency: the
// cost of the lots bought that day in Currency (fees included), the net proceeds of the
// sales made that day of lots bought in it (a sale is recorded in its lot's currency: cost
// basis plus realized profit, i.e. after sale fees) and that realized profit. It is the
// money of a PerformanceDay split by purchase currency, so a stack bought in several
// currencies can be measured in one (each flow at its own day's rate). Undated lots count on
// the UTC day they were recorded, as in the ledger.
type PerformanceCurrencyDay struct {
	Metal                      metals.Metal
	Currency                   string
	Day                        Date
	Bought, Proceeds, Realized decimal.Decimal
}

// PerformanceCurrencyDays lists the member's purchases and sales summed per metal, currency
// and day, oldest first (on a day, metals then currencies in name order). It reads the lots
// and sales through their (user, currency, metal, day) indexes; the performance service asks
// for it only when a stack has lots outside the currency it is measured in.
func (s *Store) PerformanceCurrencyDays(ctx context.Context, userID int64) ([]PerformanceCurrencyDay, error) {
	type key struct {
		metal, currency string
		day             Date
	}
	sums := map[key]*[6]int64{} // cost, proceeds and realized, each as whole units and cents
	read := func(label, q string, undated, sale bool) error {
		return s.eachRow(ctx, label, q, func(rows *sql.Rows) error {
			var k key
			var created sql.NullTime
			var a, b, c, d int64
			dayDest := any(&k.day)
			if undated {
				dayDest = &created
			}
			if err := rows.Scan(&k.metal, &k.currency, dayDest, &a, &b, &c, &d); err != nil {
				return err
			}
			if created.Valid {
				k.day = NewDate(created.Time.UTC())
			}
			if k.currency == "" {
				k.currency = "USD"
			}
			v := sums[k]
			if v == nil {
				v = new([6]int64)
				sums[k] = v
			}
			if sale {
				// Proceeds = cost basis + realized profit; realized alone beside it.
				v[2], v[3], v[4], v[5] = v[2]+a+c, v[3]+b+d, v[4]+c, v[5]+d
			} else {
				v[0], v[1] = v[0]+a, v[1]+b
			}
			return nil
		}, userID)
	}
	if err := read("purchases per currency", `SELECT metal, purchase_currency, purchase_date, SUM(cost_int), SUM(cost_c), 0, 0
		FROM holdings WHERE user_id = ? AND purchase_date IS NOT NULL GROUP BY purchase_currency, metal, purchase_date`, false, false); err != nil {
		return nil, err
	}
	if err := read("undated purchases per currency", `SELECT metal, purchase_currency, created_at, cost_int, cost_c, 0, 0
		FROM holdings WHERE user_id = ? AND purchase_date IS NULL`, true, false); err != nil {
		return nil, err
	}
	if err := read("sales per currency", `SELECT metal, currency, sold_on, SUM(cost_int), SUM(cost_c), SUM(pl_int), SUM(pl_c)
		FROM sales WHERE user_id = ? GROUP BY currency, metal, sold_on`, false, true); err != nil {
		return nil, err
	}
	out := make([]PerformanceCurrencyDay, 0, len(sums))
	for k, v := range sums {
		out = append(out, PerformanceCurrencyDay{Metal: metals.Metal(k.metal), Currency: k.currency, Day: k.day,
			Bought: joinInts(v[0], v[1], moneyPlaces), Proceeds: joinInts(v[2], v[3], moneyPlaces), Realized: joinInts(v[4], v[5], moneyPlaces)})
	}
	slices.SortFunc(out, func(a, b PerformanceCurrencyDay) int {
		if c := a.Day.Compare(b.Day.Time); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Metal), string(b.Metal)); c != 0 {
			return c
		}
		return strings.Compare(a.Currency, b.Currency)
	})
	return out, nil
}
