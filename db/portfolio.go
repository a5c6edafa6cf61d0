package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// lotTotals are the integer columns the store keeps beside each holding.
type lotTotals struct {
	OzInt, OzE8, CostInt, CostC, FeesC          int64
	HeldOzInt, HeldOzE8, HeldCostInt, HeldCostC int64
	// RefInt + RefE8/1e8 is the lot's ounces at its spot at purchase (Holding.Ref).
	RefInt, RefE8 int64
}

// ErrMissingTotals means a holding was written without the totals the portfolio service
// computes for it (Holding.Oz and Holding.Cost).
var ErrMissingTotals = errors.New("holding written without its totals")

// checkTotals refuses a holding whose writer did not give its totals.
func checkTotals(h Holding) error {
	if !h.Oz.Valid || !h.Cost.Valid {
		return fmt.Errorf("holding %q: %w", h.ProductName, ErrMissingTotals)
	}
	return nil
}

// lotTotalsOf stores the totals of a holding with nothing sold yet (checked by checkTotals)
// in the integer columns.
func lotTotalsOf(h Holding) lotTotals {
	var t lotTotals
	t.OzInt, t.OzE8 = split(h.Oz.Decimal, ozPlaces)
	t.CostInt, t.CostC = split(h.Cost.Decimal, moneyPlaces)
	t.FeesC = scaledInt(h.Fees, moneyPlaces)
	t.HeldOzInt, t.HeldOzE8, t.HeldCostInt, t.HeldCostC = t.OzInt, t.OzE8, t.CostInt, t.CostC
	t.RefInt, t.RefE8 = split(h.Ref, ozPlaces)
	return t
}

// MetalTotals are one metal's exact sums over a user's holdings and sales.
type MetalTotals struct {
	Metal metals.Metal
	// Lots counts holdings with units still held; Purchases counts every holding.
	Lots, Purchases int64
	// HeldOz and HeldCost are the fine ounces still held and their remaining cost basis.
	HeldOz, HeldCost decimal.Decimal
	// HeldOzSince is the part of HeldOz bought on or after the day given to PortfolioTotals
	// (undated holdings: recorded on or after it); the rest was held before that day
	// (portfolio.Value works it out).
	HeldOzSince decimal.Decimal
	// Realized is the realized profit or loss of the metal's sales; Sales counts them.
	Realized decimal.Decimal
	Sales    int64

	// The rest is filled only WithPurchases.

	// BoughtOz and BoughtCost are over every purchase, sold units included; BoughtFees is
	// the part of BoughtCost that was fees.
	BoughtOz, BoughtCost, BoughtFees decimal.Decimal
	// FirstPurchase and LastPurchase are the earliest and latest purchase dates (zero when
	// no holding of the metal is dated).
	FirstPurchase, LastPurchase Date
	// LastChange is the latest update of any of the metal's holdings (a sale updates its
	// holding too): with the sums it tells whether anything derived from them is stale.
	LastChange string
	// Paid is quantity × price (fees left out) over the lots with a spot at purchase, and Ref
	// what their ounces were worth at those spots: the premium's two sides.
	Paid, Ref decimal.Decimal
}

// TotalsDetail chooses how much PortfolioTotals computes.
type TotalsDetail int

// Details of PortfolioTotals.
const (
	// HeldOnly sums what is still held and what was realized: enough to value the stack.
	HeldOnly TotalsDetail = iota
	// WithPurchases adds the sums over every purchase, the first and last purchase dates and
	// LastChange.
	WithPurchases
)

type metalSums struct {
	Metal       string
	Purchases   int64
	Lots        int64
	HeldOzInt   decimal.Decimal
	HeldOzE8    decimal.Decimal
	HeldCostInt decimal.Decimal
	HeldCostC   decimal.Decimal
	NewOzInt    decimal.Decimal
	NewOzE8     decimal.Decimal
	OzInt       decimal.Decimal
	OzE8        decimal.Decimal
	CostInt     decimal.Decimal
	CostC       decimal.Decimal
	FeesC       decimal.Decimal
	First, Last Date
	LastChange  sql.NullString
	PaidInt     decimal.Decimal
	PaidC       decimal.Decimal
	RefInt      decimal.Decimal
	RefE8       decimal.Decimal
}

// PortfolioTotals aggregates the user's holdings and sales per metal in SQL (an index holds
// every column it reads), so its cost does not grow with the number of holdings beyond the
// queries themselves. It always returns the four metals, in metals.All order, with zeros for
// metals the user has never held. before is the day "held before today" is measured against,
// for the day's change.
func (s *Store) PortfolioTotals(ctx context.Context, userID int64, before Date, detail TotalsDetail) ([]MetalTotals, error) {
	// PostgreSQL returns SUM(bigint) as NUMERIC, so sums are scanned as decimals on both
	// engines. Ounces bought on or after the day (undated: recorded on or after it) are few,
	// so they are summed and subtracted rather than the many bought before.
	q := `SELECT metal, COUNT(*), COUNT(*) FILTER (WHERE sold_quantity < quantity),
			COALESCE(SUM(held_oz_int), 0), COALESCE(SUM(held_oz_e8), 0), COALESCE(SUM(held_cost_int), 0), COALESCE(SUM(held_cost_c), 0),
			COALESCE(SUM(held_oz_int) FILTER (WHERE purchase_date >= ? OR (purchase_date IS NULL AND created_at >= ?)), 0),
			COALESCE(SUM(held_oz_e8) FILTER (WHERE purchase_date >= ? OR (purchase_date IS NULL AND created_at >= ?)), 0)`
	if detail == WithPurchases {
		q += `, COALESCE(SUM(oz_int), 0), COALESCE(SUM(oz_e8), 0), COALESCE(SUM(cost_int), 0), COALESCE(SUM(cost_c), 0), COALESCE(SUM(fees_c), 0),
			MIN(purchase_date), MAX(purchase_date), MAX(updated_at),
			COALESCE(SUM(CASE WHEN ref_int > 0 OR ref_e8 > 0 THEN cost_int ELSE 0 END), 0),
			COALESCE(SUM(CASE WHEN ref_int > 0 OR ref_e8 > 0 THEN cost_c - fees_c ELSE 0 END), 0),
			COALESCE(SUM(ref_int), 0), COALESCE(SUM(ref_e8), 0)`
	}
	q += ` FROM holdings WHERE user_id = ? GROUP BY metal`
	rows, err := s.db.QueryContext(ctx, s.rebind(q), before, before.Time, before, before.Time, userID)
	if err != nil {
		return nil, fmt.Errorf("portfolio totals: %w", err)
	}
	defer rows.Close()
	var sums []metalSums
	for rows.Next() {
		var r metalSums
		dest := []any{&r.Metal, &r.Purchases, &r.Lots, &r.HeldOzInt, &r.HeldOzE8, &r.HeldCostInt, &r.HeldCostC, &r.NewOzInt, &r.NewOzE8}
		if detail == WithPurchases {
			dest = append(dest, &r.OzInt, &r.OzE8, &r.CostInt, &r.CostC, &r.FeesC, &r.First, &r.Last, &r.LastChange, &r.PaidInt, &r.PaidC, &r.RefInt, &r.RefE8)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("portfolio totals: %w", err)
		}
		sums = append(sums, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var sales []saleSums
	err = s.db.SelectContext(ctx, &sales, s.rebind(`SELECT metal, COUNT(*) AS sales,
			COALESCE(SUM(pl_int), 0) AS pl_int, COALESCE(SUM(pl_c), 0) AS pl_c
		FROM sales WHERE user_id = ? GROUP BY metal`), userID)
	if err != nil {
		return nil, fmt.Errorf("realized totals: %w", err)
	}
	out, idx := zeroTotals()
	for _, r := range sums {
		i, ok := idx[r.Metal]
		if !ok {
			continue
		}
		t := &out[i]
		t.Purchases, t.Lots = r.Purchases, r.Lots
		t.HeldOz = join(r.HeldOzInt, r.HeldOzE8, ozPlaces)
		t.HeldCost = join(r.HeldCostInt, r.HeldCostC, moneyPlaces)
		t.HeldOzSince = join(r.NewOzInt, r.NewOzE8, ozPlaces)
		if detail == WithPurchases {
			t.BoughtOz = join(r.OzInt, r.OzE8, ozPlaces)
			t.BoughtCost = join(r.CostInt, r.CostC, moneyPlaces)
			t.BoughtFees = join(decimal.Zero, r.FeesC, moneyPlaces)
			t.FirstPurchase, t.LastPurchase, t.LastChange = r.First, r.Last, r.LastChange.String
			t.Paid = join(r.PaidInt, r.PaidC, moneyPlaces)
			t.Ref = join(r.RefInt, r.RefE8, ozPlaces)
		}
	}
	for _, r := range sales {
		if i, ok := idx[r.Metal]; ok {
			out[i].Sales = r.Sales
			out[i].Realized = join(r.PLInt, r.PLC, moneyPlaces)
		}
	}
	return out, nil
}

// zeroTotals are the four metals' totals, in metals.All order, all zero, and each metal's
// index in them.
func zeroTotals() ([]MetalTotals, map[string]int) {
	out := make([]MetalTotals, len(metals.All))
	idx := map[string]int{}
	for i, m := range metals.All {
		out[i] = MetalTotals{Metal: m, HeldOz: decimal.Zero, HeldCost: decimal.Zero, HeldOzSince: decimal.Zero,
			BoughtOz: decimal.Zero, BoughtCost: decimal.Zero, BoughtFees: decimal.Zero, Realized: decimal.Zero, Paid: decimal.Zero, Ref: decimal.Zero}
		idx[string(m)] = i
	}
	return out, idx
}

type saleSums struct {
	Metal string          `db:"metal"`
	Sales int64           `db:"sales"`
	PLInt decimal.Decimal `db:"pl_int"`
	PLC   decimal.Decimal `db:"pl_c"`
}

// PositionChange is how a user's holdings of one metal changed on one day: fine ounces and
// cost basis bought (positive) or sold (negative), and for purchases the part of the cost that
// was paid per unit (fees excluded) and the ounces bought at a price above zero.
type PositionChange struct {
	Metal metals.Metal
	Day   Date
	Oz    decimal.Decimal
	Cost  decimal.Decimal
	// Paid and PricedOz are for purchases only (zero on sales): quantity × price, and the
	// ounces of the lots that had a price (gifts excluded), for premium over spot.
	Paid     decimal.Decimal
	PricedOz decimal.Decimal
	// Dated is false for holdings without a purchase date, placed on the day they were recorded.
	Dated bool
}

// PositionChanges returns the user's purchases and sales summed per metal and day, oldest
// first (purchases before sales on the same day). Dated purchases and sales are grouped in
// SQL; undated holdings come one by one, on the day they were recorded.
func (s *Store) PositionChanges(ctx context.Context, userID int64) ([]PositionChange, error) {
	// A lot "had a price" when its cost is more than its fees: quantity × price > 0.
	const priced = `CASE WHEN cost_int * 100 + cost_c > fees_c THEN %s ELSE 0 END`
	pricedInt, pricedE8 := fmt.Sprintf(priced, "oz_int"), fmt.Sprintf(priced, "oz_e8")
	var out []PositionChange
	scan := func(label, q string, sale bool, args ...any) error {
		return s.eachRow(ctx, label, q, func(rows *sql.Rows) error {
			// Integers scan far faster than decimals; PostgreSQL's NUMERIC sums parse into them.
			var metal string
			var day Date
			var created sql.NullTime
			var ozInt, ozE8, costInt, costC, paidC, pInt, pE8 int64
			dest := []any{&metal, &day, &ozInt, &ozE8, &costInt, &costC, &paidC, &pInt, &pE8}
			if label == "undated purchases" {
				dest[1] = &created
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			// Sales come with their columns negated by the query, and paidC is cost_c − fees_c:
			// the integer parts are only joined here.
			ch := PositionChange{Metal: metals.Metal(metal), Day: day, Dated: label != "undated purchases",
				Oz: joinInts(ozInt, ozE8, ozPlaces), Cost: joinInts(costInt, costC, moneyPlaces), Paid: decimal.Zero, PricedOz: decimal.Zero}
			if created.Valid {
				ch.Day = NewDate(created.Time)
			}
			if !sale {
				ch.Paid = joinInts(costInt, paidC, moneyPlaces)
				ch.PricedOz = joinInts(pInt, pE8, ozPlaces)
			}
			out = append(out, ch)
			return nil
		}, args...)
	}
	if err := scan("purchases by day", `SELECT metal, purchase_date, SUM(oz_int), SUM(oz_e8), SUM(cost_int), SUM(cost_c), SUM(cost_c - fees_c),
			SUM(`+pricedInt+`), SUM(`+pricedE8+`)
		FROM holdings WHERE user_id = ? AND purchase_date IS NOT NULL GROUP BY metal, purchase_date`, false, userID); err != nil {
		return nil, err
	}
	if err := scan("undated purchases", `SELECT metal, created_at, oz_int, oz_e8, cost_int, cost_c, cost_c - fees_c, `+pricedInt+`, `+pricedE8+`
		FROM holdings WHERE user_id = ? AND purchase_date IS NULL`, false, userID); err != nil {
		return nil, err
	}
	if err := scan("sales by day", `SELECT metal, sold_on, -SUM(oz_int), -SUM(oz_e8), -SUM(cost_int), -SUM(cost_c), 0, 0, 0
		FROM sales WHERE user_id = ? GROUP BY metal, sold_on`, true, userID); err != nil {
		return nil, err
	}
	// Stable: on one day, purchases (read first) stay before sales.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Day.Before(out[j].Day.Time) })
	return out, nil
}

// HeldLot is a holding with units still held, with the fine ounces and cost basis left.
type HeldLot struct {
	Holding
	HeldOz   decimal.Decimal
	HeldCost decimal.Decimal
}

// Orders HeldLots accepts.
const (
	LotsByValue   = "value"
	LotsByPL      = "pl"
	LotsByCost    = "cost"
	LotsByOz      = "oz"
	LotsByDate    = "date"
	LotsByProduct = "product"
	LotsByMetal   = "metal"
)

// HeldLots returns up to limit of the user's holdings that still hold units, sorted in SQL by
// order (one of the LotsBy constants), with the count of all of them. Ordering by value or
// profit uses spot (per metal; a missing metal counts as zero) in floating point: it only
// chooses the order, and every amount returned is exact.
func (s *Store) HeldLots(ctx context.Context, userID int64, order string, desc bool, spot map[metals.Metal]float64, limit int) ([]HeldLot, int, error) {
	dir := ` ASC`
	if desc {
		dir = ` DESC`
	}
	ozF := `(CAST(held_oz_int AS DOUBLE PRECISION) + CAST(held_oz_e8 AS DOUBLE PRECISION) / 100000000)`
	costF := `(CAST(held_cost_int AS DOUBLE PRECISION) + CAST(held_cost_c AS DOUBLE PRECISION) / 100)`
	price := `(CASE metal WHEN 'gold' THEN CAST(? AS DOUBLE PRECISION) WHEN 'silver' THEN CAST(? AS DOUBLE PRECISION)
		WHEN 'platinum' THEN CAST(? AS DOUBLE PRECISION) ELSE CAST(? AS DOUBLE PRECISION) END)`
	var args []any
	var by string
	switch order {
	case LotsByValue, LotsByPL:
		args = append(args, spot[metals.Gold], spot[metals.Silver], spot[metals.Platinum], spot[metals.Palladium])
		by = ozF + ` * ` + price
		if order == LotsByPL {
			by += ` - ` + costF
		}
		by += dir
	case LotsByCost:
		by = `held_cost_int` + dir + `, held_cost_c` + dir
	case LotsByOz:
		by = `held_oz_int` + dir + `, held_oz_e8` + dir
	case LotsByDate:
		by = `purchase_date` + dir + ` NULLS LAST`
	case LotsByProduct:
		by = `lower(product_name)` + dir
	case LotsByMetal:
		by = `metal` + dir
	default:
		return nil, 0, fmt.Errorf("unknown order %q", order)
	}
	var total int
	if err := s.db.GetContext(ctx, &total, s.rebind(`SELECT count(*) FROM holdings WHERE user_id = ? AND sold_quantity < quantity`), userID); err != nil {
		return nil, 0, err
	}
	var rows []struct {
		Holding
		HeldOzInt   int64 `db:"held_oz_int"`
		HeldOzE8    int64 `db:"held_oz_e8"`
		HeldCostInt int64 `db:"held_cost_int"`
		HeldCostC   int64 `db:"held_cost_c"`
	}
	args = append([]any{userID}, args...)
	// The ORDER BY placeholders come after the WHERE one.
	q := `SELECT ` + holdingCols + `, held_oz_int, held_oz_e8, held_cost_int, held_cost_c FROM holdings
		WHERE user_id = ? AND sold_quantity < quantity ORDER BY ` + by + `, created_at DESC, id DESC LIMIT ?`
	if err := s.db.SelectContext(ctx, &rows, s.rebind(q), append(args, limit)...); err != nil {
		return nil, 0, fmt.Errorf("held lots: %w", err)
	}
	out := make([]HeldLot, len(rows))
	for i, r := range rows {
		out[i] = HeldLot{Holding: r.Holding,
			HeldOz:   join(decimal.NewFromInt(r.HeldOzInt), decimal.NewFromInt(r.HeldOzE8), ozPlaces),
			HeldCost: join(decimal.NewFromInt(r.HeldCostInt), decimal.NewFromInt(r.HeldCostC), moneyPlaces)}
	}
	return out, total, nil
}

// HistoryChanges is what a value-over-time chart needs of PositionChanges, cheaper: the net
// change of fine ounces and cost basis held (purchases less the cost basis of sales) per metal
// and day, oldest first, read from the position ledger. Everything before since (when not zero)
// is collapsed into one change per metal on the day before it, so a 5-year chart of a
// long-held stack reads only the days it shows. Paid and PricedOz are left zero (premiums come
// from the stored spot at purchase now), and so is Dated: the ledger places an undated holding
// on the day it was recorded, and the chart does not tell them apart.
func (s *Store) HistoryChanges(ctx context.Context, userID int64, since Date) ([]PositionChange, error) {
	// One statement, so the totals and the days are one snapshot: what came before the range
	// is the totals less the days in it, with no scan of the days before it. The metals are
	// listed so both engines seek the primary key (user, metal, day) once per metal. Each row
	// is reduced to its net in SQL: the drivers' cost is per column read.
	cols := `purchases + sales, oz_int - sold_oz_int, oz_e8 - sold_oz_e8, cost_int - sold_cost_int, cost_c - sold_cost_c`
	q := `SELECT 1, metal, day, ` + cols + ` FROM position_days WHERE user_id = ? AND metal IN ('gold', 'silver', 'platinum', 'palladium') AND day >= ?`
	args := []any{userID, since}
	if since.IsZero() {
		q = `SELECT 1, metal, day, ` + cols + ` FROM position_days WHERE user_id = ?`
		args = args[:1]
	} else {
		q = `SELECT 0, metal, NULL, ` + cols + ` FROM position_totals WHERE user_id = ? UNION ALL ` + q
		args = append([]any{userID}, args...)
	}
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("position days: %w", err)
	}
	defer rows.Close()
	// net is one metal's change on a day, or its total, in the ledger's integer parts.
	type net struct {
		metal int
		day   Date
		// dayNo orders cheaply: days since 1970.
		dayNo, events, oz, ozE8, cost, cost2 int64
	}
	metalIdx := map[string]int{}
	for i, m := range metals.All {
		metalIdx[string(m)] = i
	}
	var totals [4]net
	days := make([]net, 0, 1024)
	for rows.Next() {
		var kind int
		var metal string
		var n net
		if err := rows.Scan(&kind, &metal, &n.day, &n.events, &n.oz, &n.ozE8, &n.cost, &n.cost2); err != nil {
			return nil, fmt.Errorf("position days: %w", err)
		}
		i, ok := metalIdx[metal]
		if !ok {
			continue
		}
		n.metal, n.dayNo = i, n.day.Unix()/86400
		sign := int64(-1)
		if kind == 0 {
			sign = 1
		} else {
			days = append(days, n)
		}
		t := &totals[i]
		t.events, t.oz, t.ozE8, t.cost, t.cost2 = t.events+sign*n.events, t.oz+sign*n.oz, t.ozE8+sign*n.ozE8, t.cost+sign*n.cost, t.cost2+sign*n.cost2
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !since.IsZero() {
		// One row per metal for all that came before the range, on the day before it.
		fixed := NewDate(since.AddDate(0, 0, -1))
		for i := range totals {
			if t := totals[i]; t.events > 0 {
				t.metal, t.day, t.dayNo = i, fixed, fixed.Unix()/86400
				days = append(days, t)
			}
		}
	}
	// Rows come per metal; the chart wants them by day (on a day, in metals.All order).
	slices.SortFunc(days, func(a, b net) int {
		if a.dayNo != b.dayNo {
			return int(a.dayNo - b.dayNo)
		}
		return a.metal - b.metal
	})
	out := make([]PositionChange, len(days))
	for i, n := range days {
		out[i] = PositionChange{Metal: metals.All[n.metal], Day: n.day, Oz: joinInts(n.oz, n.ozE8, ozPlaces),
			Cost: joinInts(n.cost, n.cost2, moneyPlaces), Paid: decimal.Zero, PricedOz: decimal.Zero}
	}
	return out, nil
}
