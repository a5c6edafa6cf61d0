package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/shopspring/decimal"
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
// are serialised, so they cannot both insert the same purchase. A stored row without its
// totals (Oz, Cost) fails the import with ErrMissingTotals.
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
	// DisposalFees are the fees of the whole disposal (the sum over its slices), on its first
	// slice: the portfolio service sums them (portfolio.SumDisposalFees).
	DisposalFees decimal.Decimal
	// Currency is the disposal's currency (its price and fees), or "" for the lots' own.
	Currency string
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
		now := s.now()
		fresh, err := freshRows(ctx, tx, userID, rows, ids, &res, now)
		if err != nil {
			return err
		}
		if err := insertHoldingRows(ctx, tx, fresh); err != nil {
			return err
		}
		res.Imported = len(fresh)
		d := ledgerDelta{}
		for _, h := range fresh {
			d.addLot(stateOfNew(h), 1)
		}
		if err := s.applyLedger(ctx, tx, userID, d); err != nil {
			return err
		}
		n, err := s.importSales(ctx, tx, userID, importBatch{rows, ids, now}, sales, decide, replay)
		res.Sales = n
		return err
	}()
	if err != nil {
		return ImportResult{}, nil, err
	}
	return res, ids, nil
}

// freshRows are the rows to store, with their ids and times filled in: every row that does
// not exactly repeat one of the user's holdings or an earlier row (those are listed in
// res.Duplicates). ids gets each stored row's id.
func freshRows(ctx context.Context, tx *sqlx.Tx, userID int64, rows []Holding, ids []string, res *ImportResult, now time.Time) ([]Holding, error) {
	var existing []Holding
	if err := tx.SelectContext(ctx, &existing, tx.Rebind(`SELECT `+holdingCols+` FROM holdings WHERE user_id = ?`), userID); err != nil {
		return nil, fmt.Errorf("existing holdings: %w", err)
	}
	seen := make(map[string]bool, len(existing)+len(rows))
	for _, h := range existing {
		seen[DuplicateKey(h)] = true
	}
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
	return fresh, nil
}

// insertHoldingRows writes holdings in multi-row inserts: 10,000 rows in a few dozen statements.
func insertHoldingRows(ctx context.Context, tx *sqlx.Tx, fresh []Holding) error {
	for _, h := range fresh {
		if err := checkTotals(h); err != nil {
			return err
		}
	}
	if err := insertBatches(ctx, tx, `INSERT INTO holdings (`+holdingInsertCols+`) VALUES `, fresh, 200, holdingInsertPlaceholders, holdingInsertArgs, ""); err != nil {
		return fmt.Errorf("insert imported holdings: %w", err)
	}
	return nil
}

// importBatch is an import's rows, the ids they were stored with ("" for a duplicate) and
// the time they were stored at.
type importBatch struct {
	rows []Holding
	ids  []string
	now  time.Time
}

// importSales records the sales of an import in the order given, a microsecond apart so the
// order they were given is the order they are listed in, and answers how many it recorded.
func (s *Store) importSales(ctx context.Context, tx *sqlx.Tx, userID int64, b importBatch, sales []ImportedSale, decide SaleRule, replay DisposalReplay) (int, error) {
	ids, now := b.ids, b.now
	n := 0
	for i := 0; i < len(sales); i++ {
		x := sales[i]
		if x.Row < 0 || x.Row >= len(ids) {
			return n, fmt.Errorf("imported sale %d refers to row %d of %d", i, x.Row, len(ids))
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
			recorded, err := s.importDisposal(ctx, tx, userID, b, group, replay, at)
			if err != nil {
				return n, err
			}
			n += recorded
			continue
		}
		if ids[x.Row] == "" {
			continue // its holding was a duplicate
		}
		if _, err := s.insertSale(ctx, tx, userID, ids[x.Row], x.Sale, at, decide); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// importDisposal records again the slices of one imported disposal as one disposal, and
// answers how many slices it recorded (none when a slice is of a duplicate row: that
// holding's disposals already stand).
func (s *Store) importDisposal(ctx context.Context, tx *sqlx.Tx, userID int64, b importBatch, group []ImportedSale, replay DisposalReplay, at time.Time) (int, error) {
	rows, ids := b.rows, b.ids
	x := group[0]
	d := Disposal{Metal: rows[x.Row].Metal, ProductName: rows[x.Row].ProductName, Kind: x.Kind, Method: x.Method,
		PricePerUnit: x.Sale.PricePerUnit, SoldOn: x.Sale.SoldOn, Fees: x.DisposalFees, Currency: x.Currency}
	if x.ReceivedRow > 0 && x.ReceivedRow <= len(ids) {
		d.Received = ids[x.ReceivedRow-1]
	}
	picks := make([]LotPick, 0, len(group))
	for _, g := range group {
		if g.Row < 0 || g.Row >= len(ids) || ids[g.Row] == "" {
			return 0, nil
		}
		picks = append(picks, LotPick{HoldingID: ids[g.Row], Quantity: g.Sale.Quantity})
		d.Quantity += g.Sale.Quantity
	}
	_, slices, err := s.insertDisposalTx(ctx, tx, userID, d, replay(x.Method, picks), at)
	if err != nil {
		return 0, err
	}
	return len(slices), nil
}

// AllHoldings returns every holding of the user in purchase order (oldest first, undated
// last), for export.
func (s *Store) AllHoldings(ctx context.Context, userID int64) ([]Holding, error) {
	out := []Holding{}
	err := s.db.SelectContext(ctx, &out, s.rebind(`SELECT `+holdingCols+` FROM holdings WHERE user_id = ?
		ORDER BY purchase_date ASC NULLS LAST, created_at ASC, id ASC`), userID)
	return out, err
}
