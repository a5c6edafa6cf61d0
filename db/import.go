package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// ImportResult says what an import did: how many rows it stored, and which rows (0-based
// indexes into the input) it skipped as exact duplicates.
type ImportResult struct {
	Imported   int
	Duplicates []int
	// Sales counts the sales recorded with the holdings.
	Sales int
}

// DuplicateKey identifies a purchase for duplicate detection: the same metal, product,
// quantity, weight, price, fees, dealer and date. Decimals are compared by value (1.50 = 1.5).
func DuplicateKey(h Holding) string {
	return strings.Join([]string{h.Metal, h.ProductName, strconv.FormatInt(h.Quantity, 10), h.WeightOz.String(),
		h.PurchasePrice.String(), h.Fees.String(), h.Dealer, h.PurchaseDate.String()}, "\x1f") + currencyKey(h)
}

// currencyKey tells apart lots alike but for their currency (nothing for dollar lots, so keys
// of lots recorded before currencies are unchanged).
func currencyKey(h Holding) string {
	if c := lotCurrency(h); c != "USD" {
		return "\x1f" + c
	}
	return ""
}

// ImportHoldings stores validated holdings for the user in one transaction, all or nothing,
// skipping rows that exactly duplicate one of the user's existing holdings or an earlier row
// of the same import, and adds them to the position ledger. Concurrent imports of one user
// are serialised, so they cannot both insert the same purchase.
func (s *Store) ImportHoldings(ctx context.Context, userID int64, rows []Holding) (ImportResult, error) {
	return s.ImportHoldingsWithSales(ctx, userID, rows, nil, nil, nil)
}

// ImportedSale is a sale of an import: of the holding at index Row of the imported rows.
// Its quantity, price, fees and date are used; cost basis and realized profit are computed
// as for any sale, in the order given, so an export imports back to the same figures.
type ImportedSale struct {
	Row  int
	Sale Sale
	// Disposal groups the slices of one disposal across lots (consecutive rows with the same
	// number, 0 for a per-lot sale); Kind and Method are the disposal's, ReceivedRow the data
	// row (from 1) of the lot a trade became, or 0.
	Disposal     int
	Kind, Method string
	ReceivedRow  int
}

// ImportHoldingsWithSales is ImportHoldings followed, in the same transaction, by the sales of
// the imported holdings in the order given. Sales of a row skipped as a duplicate are skipped
// with it (that holding's own sales already stand); a sale of more than is held fails the
// whole import. decide is the sale rule, as for InsertSale.
func (s *Store) ImportHoldingsWithSales(ctx context.Context, userID int64, rows []Holding, sales []ImportedSale, decide SaleRule, replay DisposalReplay) (ImportResult, error) {
	var res ImportResult
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		res, _, err = s.importTx(ctx, tx, userID, rows, sales, decide, replay)
		return err
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// importTx is ImportHoldingsWithSales inside tx; ids are the stored holdings' ids by row ("" for
// a skipped duplicate).
func (s *Store) importTx(ctx context.Context, tx *sqlx.Tx, userID int64, rows []Holding, sales []ImportedSale, decide SaleRule, replay DisposalReplay) (ImportResult, []string, error) {
	res := ImportResult{Duplicates: []int{}}
	ids := make([]string, len(rows))
	err := func() error {
		if s.Engine == Postgres {
			// Lock the account row: a second import of this user waits for the first.
			if _, err := tx.ExecContext(ctx, `SELECT id FROM users WHERE id = $1 FOR UPDATE`, userID); err != nil {
				return err
			}
		}
		var existing []Holding
		if err := tx.SelectContext(ctx, &existing, tx.Rebind(`SELECT `+holdingCols+` FROM holdings WHERE user_id = ?`), userID); err != nil {
			return fmt.Errorf("existing holdings: %w", err)
		}
		seen := make(map[string]bool, len(existing)+len(rows))
		for _, h := range existing {
			seen[DuplicateKey(h)] = true
		}
		now := s.now()
		fresh := make([]Holding, 0, len(rows))
		for i, h := range rows {
			k := DuplicateKey(h)
			if seen[k] {
				res.Duplicates = append(res.Duplicates, i)
				continue
			}
			seen[k] = true
			h.ID, h.UserID, h.SoldQuantity = newID("h_"), userID, 0
			ids[i] = h.ID
			h.CreatedAt, h.UpdatedAt = now, now
			fresh = append(fresh, h)
		}
		// Multi-row inserts: 10,000 rows in a few dozen statements.
		const batch = 200
		for start := 0; start < len(fresh); start += batch {
			end := min(start+batch, len(fresh))
			var sb strings.Builder
			sb.WriteString(`INSERT INTO holdings (` + holdingInsertCols + `) VALUES `)
			args := make([]any, 0, (end-start)*22)
			for i, h := range fresh[start:end] {
				if i > 0 {
					sb.WriteString(",")
				}
				sb.WriteString("(" + holdingInsertPlaceholders + ")")
				args = append(args, holdingInsertArgs(h)...)
			}
			if _, err := tx.ExecContext(ctx, tx.Rebind(sb.String()), args...); err != nil {
				return fmt.Errorf("insert imported holdings: %w", err)
			}
		}
		res.Imported = len(fresh)
		d := ledgerDelta{}
		for _, h := range fresh {
			d.addLot(stateOfNew(h), 1)
		}
		if err := s.applyLedger(ctx, tx, userID, d); err != nil {
			return err
		}
		for i := 0; i < len(sales); i++ {
			x := sales[i]
			if x.Row < 0 || x.Row >= len(ids) {
				return fmt.Errorf("imported sale %d refers to row %d of %d", i, x.Row, len(ids))
			}
			at := now.Add(time.Duration(i) * time.Microsecond)
			if x.Disposal != 0 && replay != nil {
				// The slices of one disposal, recorded again as one.
				j := i
				for j+1 < len(sales) && sales[j+1].Disposal == x.Disposal {
					j++
				}
				group := sales[i : j+1]
				i = j
				d := Disposal{Metal: rows[x.Row].Metal, ProductName: rows[x.Row].ProductName, Kind: x.Kind, Method: x.Method,
					PricePerUnit: x.Sale.PricePerUnit, SoldOn: x.Sale.SoldOn}
				if x.ReceivedRow > 0 && x.ReceivedRow <= len(ids) {
					d.Received = ids[x.ReceivedRow-1]
				}
				picks := make([]LotPick, 0, len(group))
				skip := false
				for _, g := range group {
					if g.Row < 0 || g.Row >= len(ids) || ids[g.Row] == "" {
						skip = true // a slice of a duplicate row: that holding's disposals already stand
						break
					}
					picks = append(picks, LotPick{HoldingID: ids[g.Row], Quantity: g.Sale.Quantity})
					d.Quantity += g.Sale.Quantity
					d.Fees = d.Fees.Add(g.Sale.Fees)
				}
				if skip {
					continue
				}
				_, slices, err := s.insertDisposalTx(ctx, tx, userID, d, replay(x.Method, picks), at)
				if err != nil {
					return err
				}
				res.Sales += len(slices)
				continue
			}
			if ids[x.Row] == "" {
				continue // its holding was a duplicate
			}
			// A microsecond apart, so the order they were given is the order they are listed in.
			if _, err := s.insertSale(ctx, tx, userID, ids[x.Row], x.Sale, at, decide); err != nil {
				return err
			}
			res.Sales++
		}
		return nil
	}()
	if err != nil {
		return ImportResult{}, nil, err
	}
	return res, ids, nil
}

// AllHoldings returns every holding of the user in purchase order (oldest first, undated
// last), for export.
func (s *Store) AllHoldings(ctx context.Context, userID int64) ([]Holding, error) {
	out := []Holding{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+holdingCols+` FROM holdings WHERE user_id = ?
		ORDER BY purchase_date ASC NULLS LAST, created_at ASC, id ASC`), userID)
	return out, err
}
