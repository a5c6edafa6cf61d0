package db

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

// The position ledger (migration 0014) keeps, per member, running sums of holdings and sales
// per metal and day (position_days) and per metal (position_totals). Every store method that
// writes holdings or sales applies the change to both in its own transaction, as the
// difference between the rows' contributions before and after the write, so reading the sums
// never has to aggregate the lots.

// ledgerCols are the summed columns of position_days and position_totals, in the order of
// ledgerSums.
var ledgerCols = []string{"purchases", "dated", "lots", "oz_int", "oz_e8", "cost_int", "cost_c", "fees_c",
	"held_oz_int", "held_oz_e8", "held_cost_int", "held_cost_c", "paid_int", "paid_c", "ref_int", "ref_e8",
	"sales", "sold_oz_int", "sold_oz_e8", "sold_cost_int", "sold_cost_c", "pl_int", "pl_c"}

// Indexes into ledgerSums.
const (
	lgPurchases = iota
	lgDated
	lgLots
	lgOzInt
	lgOzE8
	lgCostInt
	lgCostC
	lgFeesC
	lgHeldOzInt
	lgHeldOzE8
	lgHeldCostInt
	lgHeldCostC
	lgPaidInt
	lgPaidC
	lgRefInt
	lgRefE8
	lgSales
	lgSoldOzInt
	lgSoldOzE8
	lgSoldCostInt
	lgSoldCostC
	lgPLInt
	lgPLC
	lgN
)

// ledgerSums is one row of sums (see ledgerCols).
type ledgerSums [lgN]int64

func (a *ledgerSums) add(b ledgerSums, sign int64) {
	for i := range a {
		a[i] += sign * b[i]
	}
}

func (a ledgerSums) isZero() bool { return a == ledgerSums{} }

// ledgerKey is a metal and day of position_days.
type ledgerKey struct {
	Metal string
	Day   string // YYYY-MM-DD
}

// ledgerDelta is a change to one member's ledger, per metal and day.
type ledgerDelta map[ledgerKey]ledgerSums

func (d ledgerDelta) add(k ledgerKey, v ledgerSums, sign int64) {
	cur := d[k]
	cur.add(v, sign)
	d[k] = cur
}

// lotState is what a holding contributes to the ledger, read from its row.
type lotState struct {
	Metal        string    `db:"metal"`
	PurchaseDate Date      `db:"purchase_date"`
	CreatedAt    time.Time `db:"created_at"`
	Quantity     int64     `db:"quantity"`
	SoldQuantity int64     `db:"sold_quantity"`
	OzInt        int64     `db:"oz_int"`
	OzE8         int64     `db:"oz_e8"`
	CostInt      int64     `db:"cost_int"`
	CostC        int64     `db:"cost_c"`
	FeesC        int64     `db:"fees_c"`
	HeldOzInt    int64     `db:"held_oz_int"`
	HeldOzE8     int64     `db:"held_oz_e8"`
	HeldCostInt  int64     `db:"held_cost_int"`
	HeldCostC    int64     `db:"held_cost_c"`
	RefInt       int64     `db:"ref_int"`
	RefE8        int64     `db:"ref_e8"`
}

const lotStateCols = `metal, purchase_date, created_at, quantity, sold_quantity, oz_int, oz_e8, cost_int, cost_c, fees_c,
	held_oz_int, held_oz_e8, held_cost_int, held_cost_c, ref_int, ref_e8`

// stateOfNew is the state of a holding about to be inserted with nothing sold.
func stateOfNew(h Holding) lotState {
	t := lotTotalsOf(h)
	return lotState{Metal: h.Metal, PurchaseDate: h.PurchaseDate, CreatedAt: h.CreatedAt, Quantity: h.Quantity,
		OzInt: t.OzInt, OzE8: t.OzE8, CostInt: t.CostInt, CostC: t.CostC, FeesC: t.FeesC,
		HeldOzInt: t.HeldOzInt, HeldOzE8: t.HeldOzE8, HeldCostInt: t.HeldCostInt, HeldCostC: t.HeldCostC, RefInt: t.RefInt, RefE8: t.RefE8}
}

// key is the day a lot counts on: its purchase date, or the UTC day it was recorded.
func (l lotState) key() ledgerKey {
	day := l.PurchaseDate
	if day.IsZero() {
		day = NewDate(l.CreatedAt.UTC())
	}
	return ledgerKey{l.Metal, day.Format(DateLayout)}
}

func (l lotState) sums() ledgerSums {
	var v ledgerSums
	v[lgPurchases] = 1
	if !l.PurchaseDate.IsZero() {
		v[lgDated] = 1
	}
	if l.SoldQuantity < l.Quantity {
		v[lgLots] = 1
	}
	v[lgOzInt], v[lgOzE8], v[lgCostInt], v[lgCostC], v[lgFeesC] = l.OzInt, l.OzE8, l.CostInt, l.CostC, l.FeesC
	v[lgHeldOzInt], v[lgHeldOzE8], v[lgHeldCostInt], v[lgHeldCostC] = l.HeldOzInt, l.HeldOzE8, l.HeldCostInt, l.HeldCostC
	if l.RefInt > 0 || l.RefE8 > 0 {
		v[lgPaidInt], v[lgPaidC] = l.CostInt, l.CostC-l.FeesC
	}
	v[lgRefInt], v[lgRefE8] = l.RefInt, l.RefE8
	return v
}

// addLot adds (sign 1) or removes (sign -1) a lot's contribution.
func (d ledgerDelta) addLot(l lotState, sign int64) { d.add(l.key(), l.sums(), sign) }

// saleState is what a sale contributes to the ledger, read from its row.
type saleState struct {
	Metal   string `db:"metal"`
	SoldOn  Date   `db:"sold_on"`
	OzInt   int64  `db:"oz_int"`
	OzE8    int64  `db:"oz_e8"`
	CostInt int64  `db:"cost_int"`
	CostC   int64  `db:"cost_c"`
	PLInt   int64  `db:"pl_int"`
	PLC     int64  `db:"pl_c"`
}

// addSale adds (sign 1) or removes (sign -1) a sale's contribution, on the day it was made.
func (d ledgerDelta) addSale(x saleState, sign int64) {
	var v ledgerSums
	v[lgSales] = 1
	v[lgSoldOzInt], v[lgSoldOzE8], v[lgSoldCostInt], v[lgSoldCostC], v[lgPLInt], v[lgPLC] = x.OzInt, x.OzE8, x.CostInt, x.CostC, x.PLInt, x.PLC
	d.add(ledgerKey{x.Metal, x.SoldOn.Format(DateLayout)}, v, sign)
}

// lotStateTx reads a holding's contribution inside tx (locking its row on PostgreSQL).
func (s *Store) lotStateTx(ctx context.Context, tx *sqlx.Tx, userID int64, id string) (lotState, error) {
	var l lotState
	err := tx.GetContext(ctx, &l, tx.Rebind(`SELECT `+lotStateCols+` FROM holdings WHERE id = ? AND user_id = ?`+s.forUpdate()), id, userID)
	l.CreatedAt = l.CreatedAt.UTC()
	return l, notFound(err)
}

// ledgerBatch is how many rows one upsert statement writes (an import touches thousands of days).
const ledgerBatch = 100

// applyLedger writes a member's ledger change inside the caller's transaction: each metal and
// day, and each metal's totals, gain the delta's sums; rows left without purchases or sales
// are removed, so the ledger holds exactly the days something happened on.
func (s *Store) applyLedger(ctx context.Context, tx *sqlx.Tx, userID int64, d ledgerDelta) error {
	keys := make([]ledgerKey, 0, len(d))
	totals := map[string]ledgerSums{}
	for k, v := range d {
		if v.isZero() {
			continue
		}
		keys = append(keys, k)
		t := totals[k.Metal]
		t.add(v, 1)
		totals[k.Metal] = t
	}
	if len(keys) == 0 {
		return nil
	}
	// The member's row first: every writer of one member takes it in the same order, and a
	// reader holding a chart of the old revision knows to rebuild it.
	if _, err := tx.ExecContext(ctx, tx.Rebind(`UPDATE users SET ledger_rev = ledger_rev + 1 WHERE id = ?`), userID); err != nil {
		return fmt.Errorf("ledger revision: %w", err)
	}
	if err := s.recordLedgerChange(ctx, tx, userID, keys); err != nil {
		return err
	}
	// A stable order keeps concurrent writers of one member from deadlocking on PostgreSQL.
	slices.SortFunc(keys, func(a, b ledgerKey) int {
		return strings.Compare(a.Metal+a.Day, b.Metal+b.Day)
	})
	set := make([]string, len(ledgerCols))
	for i, c := range ledgerCols {
		set[i] = c + ` = %[1]s.` + c + ` + excluded.` + c
	}
	update := strings.Join(set, ", ")
	row := `(?, ?, ?` + strings.Repeat(", ?", lgN) + `)`
	for start := 0; start < len(keys); start += ledgerBatch {
		part := keys[start:min(start+ledgerBatch, len(keys))]
		args := make([]any, 0, len(part)*(lgN+3))
		rows := make([]string, len(part))
		for i, k := range part {
			rows[i] = row
			args = append(args, userID, k.Metal, k.Day)
			for _, x := range d[k] {
				args = append(args, x)
			}
		}
		q := `INSERT INTO position_days (user_id, metal, day, ` + strings.Join(ledgerCols, ", ") + `) VALUES ` + strings.Join(rows, ", ") +
			` ON CONFLICT (user_id, metal, day) DO UPDATE SET ` + fmt.Sprintf(update, "position_days")
		if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
			return fmt.Errorf("position days: %w", err)
		}
	}
	for _, m := range metals.All {
		t, ok := totals[string(m)]
		if !ok || t.isZero() {
			continue
		}
		args := []any{userID, string(m)}
		for _, x := range t {
			args = append(args, x)
		}
		q := `INSERT INTO position_totals (user_id, metal, ` + strings.Join(ledgerCols, ", ") + `) VALUES (?, ?` + strings.Repeat(", ?", lgN) + `)
			ON CONFLICT (user_id, metal) DO UPDATE SET ` + fmt.Sprintf(update, "position_totals")
		if _, err := tx.ExecContext(ctx, tx.Rebind(q), args...); err != nil {
			return fmt.Errorf("position totals: %w", err)
		}
	}
	for _, k := range keys {
		if v := d[k]; v[lgPurchases] < 0 || v[lgSales] < 0 {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM position_days WHERE user_id = ? AND metal = ? AND day = ? AND purchases = 0 AND sales = 0`),
				userID, k.Metal, k.Day); err != nil {
				return fmt.Errorf("empty position day: %w", err)
			}
		}
	}
	for m, t := range totals {
		if t[lgPurchases] < 0 || t[lgSales] < 0 {
			if _, err := tx.ExecContext(ctx, tx.Rebind(`DELETE FROM position_totals WHERE user_id = ? AND metal = ? AND purchases = 0 AND sales = 0`), userID, m); err != nil {
				return fmt.Errorf("empty position totals: %w", err)
			}
		}
	}
	return nil
}

// LedgerRevision is the member's ledger revision: it changes in the same transaction as
// every write that changes their position ledger, and only then.
func (s *Store) LedgerRevision(ctx context.Context, userID int64) (int64, error) {
	var rev int64
	err := s.db.GetContext(ctx, &rev, s.rebind(`SELECT ledger_rev FROM users WHERE id = ?`), userID)
	return rev, notFound(err)
}

// PositionTotals is PortfolioTotals read from the position ledger: a handful of rows however
// many holdings the member has, so it stays fast right after any write. The sums are the
// same as PortfolioTotals' (a test keeps the ledger equal to a recomputation from the
// holdings and sales); LastChange is left empty, as the ledger does not record times.
func (s *Store) PositionTotals(ctx context.Context, userID int64, before Date, detail TotalsDetail) ([]MetalTotals, error) {
	// One statement, so the totals and the days after before are one snapshot. The held
	// ounces bought on or after before (undated: recorded) are few days, summed per metal
	// from the primary key; so are the first and last dated days.
	q := `SELECT t.metal, ` + prefixed("t.", ledgerCols) + `,
		COALESCE((SELECT SUM(d.held_oz_int) FROM position_days d WHERE d.user_id = t.user_id AND d.metal = t.metal AND d.day >= ?), 0),
		COALESCE((SELECT SUM(d.held_oz_e8) FROM position_days d WHERE d.user_id = t.user_id AND d.metal = t.metal AND d.day >= ?), 0)`
	args := []any{before, before}
	if detail == WithPurchases {
		q += `, (SELECT MIN(d.day) FROM position_days d WHERE d.user_id = t.user_id AND d.metal = t.metal AND d.dated > 0),
			(SELECT MAX(d.day) FROM position_days d WHERE d.user_id = t.user_id AND d.metal = t.metal AND d.dated > 0)`
	}
	q += ` FROM position_totals t WHERE t.user_id = ?`
	rows, err := s.db.QueryContext(ctx, s.rebind(q), append(args, userID)...)
	if err != nil {
		return nil, fmt.Errorf("position totals: %w", err)
	}
	defer rows.Close()
	out, idx := zeroTotals()
	for rows.Next() {
		var metal string
		var v ledgerSums
		var newInt, newE8 int64
		var first, last Date
		dest := []any{&metal}
		for i := range v {
			dest = append(dest, &v[i])
		}
		dest = append(dest, &newInt, &newE8)
		if detail == WithPurchases {
			dest = append(dest, &first, &last)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("position totals: %w", err)
		}
		i, ok := idx[metal]
		if !ok {
			continue
		}
		t := &out[i]
		t.Purchases, t.Lots, t.Sales = v[lgPurchases], v[lgLots], v[lgSales]
		t.HeldOz = joinInts(v[lgHeldOzInt], v[lgHeldOzE8], ozPlaces)
		t.HeldCost = joinInts(v[lgHeldCostInt], v[lgHeldCostC], moneyPlaces)
		t.HeldOzSince = joinInts(newInt, newE8, ozPlaces)
		t.Realized = joinInts(v[lgPLInt], v[lgPLC], moneyPlaces)
		if detail == WithPurchases {
			t.BoughtOz = joinInts(v[lgOzInt], v[lgOzE8], ozPlaces)
			t.BoughtCost = joinInts(v[lgCostInt], v[lgCostC], moneyPlaces)
			t.BoughtFees = decimal.New(v[lgFeesC], -moneyPlaces)
			t.FirstPurchase, t.LastPurchase = first, last
			t.Paid = joinInts(v[lgPaidInt], v[lgPaidC], moneyPlaces)
			t.Ref = joinInts(v[lgRefInt], v[lgRefE8], ozPlaces)
		}
	}
	return out, rows.Err()
}

// prefixed lists columns with a table alias.
func prefixed(alias string, cols []string) string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = alias + c
	}
	return strings.Join(out, ", ")
}
