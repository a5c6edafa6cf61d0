package db

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// LotSort is a holdings list's order (issue 28, the ledger table). Only these exist: the
// ORDER BY is built from them, never from text a request sent.
type LotSort string

const (
	// SortDate is by purchase date (undated lots after every dated one, newest first).
	SortDate LotSort = "date"
	// SortMetal, SortForm and SortLocation order by HoldingFilter.Ranks of the lot's metal,
	// product name and location id ("" for unassigned): the service decides the order.
	SortMetal    LotSort = "metal"
	SortForm     LotSort = "form"
	SortLocation LotSort = "location"
	// SortCost is by the cost basis left (the held cost), in the lot's own currency.
	SortCost LotSort = "cost"
	// SortValue is by the fine ounces left × HoldingFilter.Prices of the lot's metal; a lot
	// whose metal has no price comes last either way.
	SortValue LotSort = "value"
)

// defaultOrder is the holdings list's order since the first release: newest purchase first,
// undated lots last, then newest recorded; every other sort falls back to it for equal keys.
const defaultOrder = `purchase_date DESC NULLS LAST, created_at DESC, id DESC`

// where is f's WHERE clause for one member's holdings.
func (f HoldingFilter) where(userID int64) (string, []any, error) {
	where := `WHERE user_id = ?`
	args := []any{userID}
	if f.Metal != "" {
		where += ` AND metal = ?`
		args = append(args, f.Metal)
	}
	where, args = f.custodyWhere(where, args)
	if f.Products != nil {
		if len(f.Products) == 0 {
			where += ` AND 1 = 0`
		} else {
			where += ` AND product_name IN (?` + strings.Repeat(", ?", len(f.Products)-1) + `)`
			for _, p := range f.Products {
				args = append(args, p)
			}
		}
	}
	if !f.From.IsZero() {
		where += ` AND purchase_date >= ?`
		args = append(args, f.From)
	}
	if !f.To.IsZero() {
		where += ` AND purchase_date <= ?`
		args = append(args, f.To)
	}
	return where, args, nil
}

// orderBy is f's ORDER BY list and the values of its placeholders. Every order ends with
// the default one, whose last key is the unique id, so a page boundary never splits or
// repeats lots with equal keys.
func (f HoldingFilter) orderBy() (string, []any, error) {
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	switch f.Sort {
	case "":
		return defaultOrder, nil, nil
	case SortDate:
		if f.Desc {
			return defaultOrder, nil, nil
		}
		// The exact reverse of the default.
		return `purchase_date ASC NULLS FIRST, created_at ASC, id ASC`, nil, nil
	case SortMetal, SortForm, SortLocation:
		col := map[LotSort]string{SortMetal: "metal", SortForm: "product_name", SortLocation: "location_id"}[f.Sort]
		expr, args := rankCase(col, f.Ranks)
		return expr + dir + `, ` + defaultOrder, args, nil
	case SortCost:
		return `held_cost_int` + dir + `, held_cost_c` + dir + `, ` + defaultOrder, nil, nil
	case SortValue:
		whole, frac := valueCase(f.Prices)
		return whole + dir + ` NULLS LAST, ` + frac + dir + ` NULLS LAST, ` + defaultOrder, nil, nil
	}
	return "", nil, fmt.Errorf("holdings: unknown sort %q", f.Sort)
}

// rankCase is a CASE giving each value of col its rank; "" in ranks stands for NULL, and
// a value without a rank (or NULL without "") sorts after every ranked one.
func rankCase(col string, ranks map[string]int) (string, []any) {
	keys := make([]string, 0, len(ranks))
	for k := range ranks {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same SQL text for the same ranks
	var b strings.Builder
	var args []any
	last := len(ranks)
	b.WriteString("CASE")
	if r, ok := ranks[""]; ok {
		b.WriteString(" WHEN " + col + " IS NULL THEN " + strconv.Itoa(r))
	}
	for _, k := range keys {
		if k == "" {
			continue
		}
		b.WriteString(" WHEN " + col + " = ? THEN " + strconv.Itoa(ranks[k]))
		args = append(args, k)
	}
	b.WriteString(" ELSE " + strconv.Itoa(last) + " END")
	return b.String(), args
}

// valuePlaces are the decimals of a price the value sort keeps (sources quote at most 4).
const valuePlaces = 4

// valueCase is the value sort's two keys: the whole and the fractional part of held ounces
// × price, exact in integers (held ounces are held_oz_int + held_oz_e8/1e8, the price
// p/10^4), so lots compare as their values do with no floating point. Both are NULL for a
// metal without a price.
func valueCase(prices map[string]decimal.Decimal) (whole, frac string) {
	metalsSorted := make([]string, 0, len(prices))
	for m := range prices {
		if validMetalName(m) {
			metalsSorted = append(metalsSorted, m)
		}
	}
	if len(metalsSorted) == 0 {
		return "CAST(NULL AS BIGINT)", "CAST(NULL AS BIGINT)"
	}
	slices.Sort(metalsSorted)
	var w, f strings.Builder
	w.WriteString("CASE metal")
	f.WriteString("CASE metal")
	for _, m := range metalsSorted {
		p := strconv.FormatInt(prices[m].Shift(valuePlaces).Floor().IntPart(), 10)
		fmt.Fprintf(&w, " WHEN '%s' THEN held_oz_int * %s + (held_oz_e8 * %s) / 100000000", m, p, p)
		fmt.Fprintf(&f, " WHEN '%s' THEN (held_oz_e8 * %s) %% 100000000", m, p)
	}
	w.WriteString(" END")
	f.WriteString(" END")
	return w.String(), f.String()
}

// validMetalName is whether m may be written into SQL text: lower-case letters only.
func validMetalName(m string) bool {
	if m == "" || len(m) > 20 {
		return false
	}
	for _, r := range m {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// ProductNamesOf lists the distinct product names of the member's lots (a few dozen however
// many lots): the portfolio service reads each one's form from it.
func (s *Store) ProductNamesOf(ctx context.Context, userID int64) ([]string, error) {
	out := []string{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT DISTINCT product_name FROM holdings WHERE user_id = ? ORDER BY product_name`), userID)
	return out, err
}

// TagSetsOf lists the distinct tag lists (joined by commas) of the member's tagged lots.
func (s *Store) TagSetsOf(ctx context.Context, userID int64) ([]string, error) {
	out := []string{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT DISTINCT tags FROM holdings WHERE user_id = ? AND tags <> '' ORDER BY tags`), userID)
	return out, err
}

// SalesOfHoldings lists the sales of the member's lots ids (a page of the ledger), in the
// order they were recorded.
func (s *Store) SalesOfHoldings(ctx context.Context, userID int64, ids []string) ([]Sale, error) {
	out := []Sale{}
	if len(ids) == 0 {
		return out, nil
	}
	args := []any{userID}
	for _, id := range ids {
		args = append(args, id)
	}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+saleCols+` FROM sales WHERE user_id = ? AND holding_id IN (?`+strings.Repeat(", ?", len(ids)-1)+`)
		ORDER BY created_at, id`), args...)
	return out, err
}
