package db

import (
	"context"
	"database/sql"
	"fmt"
)

// CurrencyDaySums are one metal's lots bought (or sales made) in one currency on one day, in
// the exact integer parts the store keeps (whole units and hundredths or 1e-8ths): what a
// valuation in another currency converts at that day's rate. The portfolio service joins the
// parts; the store only sums them.
type CurrencyDaySums struct {
	Metal    string
	Currency string
	Day      Date
	// Sale is true for a row of sales (only PLInt, PLC are set then).
	Sale bool
	// SaleCurrency is set on a row of the cost of slices recorded in another currency than
	// their lots' (a disposal across currencies): PLInt, PLC are then minus the lots' cost in
	// Currency on Day (the purchase day) and SaleCostInt, SaleCostC minus the cost basis the
	// slices recorded in SaleCurrency, which a valuation in SaleCurrency takes exactly.
	SaleCurrency           string
	SaleCostInt, SaleCostC int64
	// Purchases counts the lots of the row.
	Purchases              int64
	HeldCostInt, HeldCostC int64
	CostInt, CostC, FeesC  int64
	PaidInt, PaidC         int64
	RefInt, RefE8          int64
	PLInt, PLC             int64
}

// groupDay is where a grouped row's day is read into day: the day itself, or for undated
// lots the time they were recorded, whose UTC day stands in for it.
type groupDay struct {
	day     *Date
	undated bool
	created sql.NullTime
}

// dest is the scan destination of the row's day column.
func (g *groupDay) dest() any {
	if g.undated {
		return &g.created
	}
	return g.day
}

// set fills day from the time recorded after the scan of an undated group.
func (g *groupDay) set() {
	if g.created.Valid {
		*g.day = NewDate(g.created.Time.UTC())
	}
}

// CurrencySums returns the user's cost (remaining, bought, fees, paid and premium reference)
// per metal, purchase currency and purchase day (undated lots on the UTC day they were
// recorded), and the realized profit of sales as its parts: proceeds less fees per metal, sale
// currency and sale day, and the cost basis sold (negative) per metal, lot currency and the
// lot's purchase day. An index on (user_id, purchase_currency, metal, purchase_date) serves the grouping.
func (s *Store) CurrencySums(ctx context.Context, userID int64) ([]CurrencyDaySums, error) {
	const cols = `COUNT(*), SUM(held_cost_int), SUM(held_cost_c), SUM(cost_int), SUM(cost_c), SUM(fees_c),
		SUM(CASE WHEN ref_int > 0 OR ref_e8 > 0 THEN cost_int ELSE 0 END), SUM(CASE WHEN ref_int > 0 OR ref_e8 > 0 THEN cost_c - fees_c ELSE 0 END),
		SUM(ref_int), SUM(ref_e8)`
	var out []CurrencyDaySums
	// read appends a query's rows: a purchase group's cost sums, or (sale) a sale group's
	// realized parts; undated groups come with the time recorded in place of the day.
	read := func(label, q string, undated, sale bool) error {
		return s.eachRow(ctx, label, q, func(rows *sql.Rows) error {
			r := CurrencyDaySums{Sale: sale}
			day := groupDay{day: &r.Day, undated: undated}
			dest := []any{&r.Metal, &r.Currency, day.dest(), &r.Purchases, &r.PLInt, &r.PLC}
			if !sale {
				dest = append(dest[:4], &r.HeldCostInt, &r.HeldCostC, &r.CostInt, &r.CostC, &r.FeesC, &r.PaidInt, &r.PaidC, &r.RefInt, &r.RefE8)
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			day.set()
			out = append(out, r)
			return nil
		}, userID)
	}
	if err := read("lot currencies", `SELECT metal, purchase_currency, purchase_date, `+cols+`
		FROM holdings WHERE user_id = ? AND purchase_date IS NOT NULL GROUP BY purchase_currency, metal, purchase_date`, false, false); err != nil {
		return nil, err
	}
	if err := read("undated lot currencies", `SELECT metal, purchase_currency, created_at, `+cols+`
		FROM holdings WHERE user_id = ? AND purchase_date IS NULL GROUP BY purchase_currency, metal, created_at`, true, false); err != nil {
		return nil, err
	}
	// A sale's realized profit in another currency is its proceeds less fees at the sale day's
	// rate, less its cost at the rate of the lot's purchase day (as the gains report and the
	// value chart count it): proceeds − fees (pl + cost) per sale currency and day, and the
	// cost, negated, per lot currency and purchase day (undated lots on the UTC day recorded).
	if err := read("sale currencies", `SELECT metal, currency, sold_on, COUNT(*), SUM(pl_int) + SUM(cost_int), SUM(pl_c) + SUM(cost_c)
		FROM sales WHERE user_id = ? GROUP BY currency, metal, sold_on`, false, true); err != nil {
		return nil, err
	}
	if err := read("sold lot currencies", `SELECT s.metal, h.purchase_currency, h.purchase_date, COUNT(*), -SUM(s.cost_int), -SUM(s.cost_c)
		FROM sales s JOIN holdings h ON h.id = s.holding_id WHERE s.user_id = ? AND h.purchase_date IS NOT NULL AND s.lot_cost_int IS NULL
		GROUP BY h.purchase_currency, s.metal, h.purchase_date`, false, true); err != nil {
		return nil, err
	}
	if err := read("sold undated lot currencies", `SELECT s.metal, h.purchase_currency, h.created_at, COUNT(*), -SUM(s.cost_int), -SUM(s.cost_c)
		FROM sales s JOIN holdings h ON h.id = s.holding_id WHERE s.user_id = ? AND h.purchase_date IS NULL AND s.lot_cost_int IS NULL
		GROUP BY h.purchase_currency, s.metal, h.created_at`, true, true); err != nil {
		return nil, err
	}
	// Slices recorded in another currency than their lots': the lots' cost (lot currency,
	// purchase day) and the cost basis recorded (the slice's currency), both negated.
	crossRows := func(label, q string, undated bool) error {
		return s.eachRow(ctx, label, q, func(rows *sql.Rows) error {
			r := CurrencyDaySums{Sale: true}
			day := groupDay{day: &r.Day, undated: undated}
			if err := rows.Scan(&r.Metal, &r.Currency, &r.SaleCurrency, day.dest(), &r.Purchases, &r.PLInt, &r.PLC, &r.SaleCostInt, &r.SaleCostC); err != nil {
				return err
			}
			day.set()
			out = append(out, r)
			return nil
		}, userID)
	}
	const crossSums = `COUNT(*), -SUM(s.lot_cost_int), -SUM(s.lot_cost_c), -SUM(s.cost_int), -SUM(s.cost_c)`
	if err := crossRows("sold lots in another currency", `SELECT s.metal, h.purchase_currency, s.currency, h.purchase_date, `+crossSums+`
		FROM sales s JOIN holdings h ON h.id = s.holding_id WHERE s.user_id = ? AND h.purchase_date IS NOT NULL AND s.lot_cost_int IS NOT NULL
		GROUP BY h.purchase_currency, s.currency, s.metal, h.purchase_date`, false); err != nil {
		return nil, err
	}
	if err := crossRows("sold undated lots in another currency", `SELECT s.metal, h.purchase_currency, s.currency, h.created_at, `+crossSums+`
		FROM sales s JOIN holdings h ON h.id = s.holding_id WHERE s.user_id = ? AND h.purchase_date IS NULL AND s.lot_cost_int IS NOT NULL
		GROUP BY h.purchase_currency, s.currency, s.metal, h.created_at`, true); err != nil {
		return nil, err
	}
	return out, nil
}

// saleLotCostInt and saleLotCostC are a sale row's cost basis in its lot's currency, as
// integer parts (the sale's own cost when it is in the lot's currency, lot_cost NULL).
const (
	saleLotCostInt = `COALESCE(s.lot_cost_int, s.cost_int)`
	saleLotCostC   = `COALESCE(s.lot_cost_c, s.cost_c)`
)

// HasLotsOutside reports whether any of the user's lots or sales is recorded in a currency
// other than currency: two index ranges on (user_id, purchase_currency, …) either side of it,
// so a member whose every lot is in currency costs no scan of their lots.
func (s *Store) HasLotsOutside(ctx context.Context, userID int64, currency string) (bool, error) {
	var n int
	// Each side its own range (an OR of the two is planned as a scan of the member's lots).
	err := s.db.GetContext(ctx, &n, s.rebind(`SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM holdings WHERE user_id = ? AND purchase_currency < ? LIMIT 1) h1)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM holdings WHERE user_id = ? AND purchase_currency > ? LIMIT 1) h2)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM sales WHERE user_id = ? AND currency < ? LIMIT 1) x1)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM sales WHERE user_id = ? AND currency > ? LIMIT 1) x2)`),
		userID, currency, userID, currency, userID, currency, userID, currency)
	if err != nil {
		return false, fmt.Errorf("lot currencies: %w", err)
	}
	return n > 0, nil
}

// CostEvent is cost basis added (a purchase) or removed (a sale) on Day, in Currency, bought
// on Bought: what a value-over-time chart in another currency converts at the purchase day's
// rate. CostInt and CostC are the store's integer parts (negative for sales).
type CostEvent struct {
	Currency       string
	Day, Bought    Date
	CostInt, CostC int64
}

// CostEvents returns the user's purchases (per currency and day) and the cost basis of sales
// (per lot currency, purchase day and sale day); undated lots count on the UTC day they were
// recorded.
func (s *Store) CostEvents(ctx context.Context, userID int64) ([]CostEvent, error) {
	var out []CostEvent
	read := func(label, q string, sale, undated bool) error {
		return s.eachRow(ctx, label, q, func(rows *sql.Rows) error {
			var e CostEvent
			var bought Date
			var created sql.NullTime
			dest := []any{&e.Currency, &bought, &e.Day, &e.CostInt, &e.CostC}
			if undated {
				dest[1] = &created
			}
			if !sale {
				dest = []any{&e.Currency, dest[1], &e.CostInt, &e.CostC}
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if created.Valid {
				bought = NewDate(created.Time.UTC())
			}
			e.Bought = bought
			if !sale {
				e.Day = bought
			} else {
				e.CostInt, e.CostC = -e.CostInt, -e.CostC
			}
			out = append(out, e)
			return nil
		}, userID)
	}
	if err := read("purchases by currency", `SELECT purchase_currency, purchase_date, SUM(cost_int), SUM(cost_c) FROM holdings
		WHERE user_id = ? AND purchase_date IS NOT NULL GROUP BY purchase_currency, purchase_date`, false, false); err != nil {
		return nil, err
	}
	if err := read("undated purchases by currency", `SELECT purchase_currency, created_at, cost_int, cost_c FROM holdings
		WHERE user_id = ? AND purchase_date IS NULL`, false, true); err != nil {
		return nil, err
	}
	if err := read("sales by lot currency", `SELECT h.purchase_currency, h.purchase_date, s.sold_on, SUM(`+saleLotCostInt+`), SUM(`+saleLotCostC+`)
		FROM sales s JOIN holdings h ON h.id = s.holding_id WHERE s.user_id = ? AND h.purchase_date IS NOT NULL
		GROUP BY h.purchase_currency, h.purchase_date, s.sold_on`, true, false); err != nil {
		return nil, err
	}
	if err := read("sales of undated lots by currency", `SELECT h.purchase_currency, h.created_at, s.sold_on, `+saleLotCostInt+`, `+saleLotCostC+`
		FROM sales s JOIN holdings h ON h.id = s.holding_id WHERE s.user_id = ? AND h.purchase_date IS NULL`, true, true); err != nil {
		return nil, err
	}
	return out, nil
}
