package portfolio

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// Import limits.
const (
	MaxImportRows  = 10_000
	MaxImportBytes = 5 << 20
	// MaxImportErrors is how many row problems an import lists (it counts them all).
	MaxImportErrors = 1000
)

// requiredColumns must appear in an import's header row.
var requiredColumns = []string{"metal", "quantity", "weight_oz", "purchase_price"}

// ImportRowError names one problem of an import: the data row (counted from 1 after the
// header), the column (or "row" for a malformed line), and what is wrong.
type ImportRowError struct {
	Row     int
	Field   string
	Message string
}

// ImportParse is a validated CSV: one holding per data row, and every problem found.
type ImportParse struct {
	Columns []string
	Rows    []Holding
	// Errors lists at most MaxImportErrors problems; ErrorCount counts them all, and
	// BadRows the rows with at least one.
	Errors     []ImportRowError
	ErrorCount int
	BadRows    int
	// Bad marks the rows (by index into Rows) with at least one problem.
	Bad []bool
	// Sales are the rows of the sales section (see SalesHeader), in file order.
	Sales []db.ImportedSale
}

// SaleColumns are the columns of a CSV's sales section, which starts with a header row whose
// first cell is sale_of_row (export pads its rows with empty cells to the holdings' width): the data row (counted from 1 after the holdings header) of the
// holding sold, then the sale's fields. An export writes it after the holdings, so a sold lot
// imports back with its sales.
var SaleColumns = []string{"sale_of_row", "quantity", "price_per_unit", "fees", "sold_on"}

// DisposalColumns follow SaleColumns when a ledger has disposals across lots: disposal numbers
// the disposal a row is a slice of (consecutive rows with one number are one disposal; empty
// for a per-lot sale), kind and method are the disposal's, received_row the data row of the
// lot a trade became. Import records each such disposal again as one, so its slices, kind
// and method come back.
var DisposalColumns = []string{"disposal", "kind", "method", "received_row"}

// SaleCurrencyColumn follows them when a disposal was recorded in another currency than a lot
// it took from: the currency of the row's price and fees (every row's, its lot's for a per-lot
// sale). Import records such a disposal again in that currency, each lot's cost at the rate of
// its purchase day.
const SaleCurrencyColumn = "sale_currency"

// ImportResult says what an import stored.
type ImportResult struct {
	Imported          int
	SkippedDuplicates int
	// Sales counts the sales recorded with the holdings.
	Sales int
}

// tooLarge is the error of an upload over the limits.
func tooLarge(format string, args ...any) error { return apperr.New(apperr.TooLarge, format, args...) }

// formulaStart are the first characters that make a spreadsheet treat a cell as a formula.
const formulaStart = "=+-@\t\r"

// CSVCell protects a text cell from being run as a formula when an export is opened in a
// spreadsheet: one leading apostrophe, which import removes again. Text that already starts
// with apostrophes before a formula character gets one more, so every text comes back exactly.
func CSVCell(s string) string {
	if formulaAfterQuotes(s) {
		return "'" + s
	}
	return s
}

// UncsvCell undoes CSVCell.
func UncsvCell(s string) string {
	if strings.HasPrefix(s, "'") && formulaAfterQuotes(s) {
		return s[1:]
	}
	return s
}

// formulaAfterQuotes reports whether s, past any leading apostrophes, starts with a character
// that makes a spreadsheet treat the cell as a formula.
func formulaAfterQuotes(s string) bool {
	rest := strings.TrimLeft(s, "'")
	return rest != "" && strings.ContainsRune(formulaStart, rune(rest[0]))
}

// column accepts "Product Name", "product-name" and "product_name" alike.
func column(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	if s == CSVCurrencyColumn {
		return "purchase_currency"
	}
	return s
}

// CSVCurrencyColumn is the CSV name of a lot's purchase_currency (either name is read).
const CSVCurrencyColumn = "currency"

// CSVColumns are the columns export writes, in order: HoldingFields with purchase_currency
// named currency.
func CSVColumns() []string {
	out := slices.Clone(HoldingFields)
	out[slices.Index(out, "purchase_currency")] = CSVCurrencyColumn
	return out
}

// ParseHoldingsCSV reads a holdings CSV and validates every row exactly as a new holding is
// validated. Problems with the file as a whole (size, encoding, header) are errors; row
// problems are collected in the result so they can all be shown at once.
func ParseHoldingsCSV(data []byte, now time.Time) (ImportParse, error) {
	var out ImportParse
	if len(data) > MaxImportBytes {
		return out, tooLarge("the file is larger than %d MiB", MaxImportBytes>>20)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return out, apperr.InvalidField("file", "must be UTF-8 text")
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return out, apperr.InvalidField("file", "is empty: the first row must name the columns, e.g. metal,quantity,weight_oz,purchase_price")
	}
	if err != nil {
		return out, apperr.InvalidField("header", "is not valid CSV: "+csvErr(err))
	}
	col, err := out.holdingColumns(header)
	if err != nil {
		return out, err
	}
	var saleCol map[string]int // set once the sales section begins
	sold := map[int]int64{}    // units sold per holding row index
	for row := 1; ; row++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if row > MaxImportRows {
			return ImportParse{}, tooLarge("the file has more than %d data rows; split it into smaller files", MaxImportRows)
		}
		switch {
		case err == nil && saleCol == nil && len(rec) > 0 && column(rec[0]) == SaleColumns[0]:
			if saleCol, err = saleColumns(rec); err != nil {
				return out, err
			}
		case saleCol != nil:
			out.addSaleRow(row, rec, err, saleCol, sold, now)
		default:
			out.addHoldingRow(row, rec, err, len(header), col, now)
		}
	}
	return out, nil
}

// holdingColumns reads the header of the holdings section into the column of each field,
// recording the columns in out.
func (out *ImportParse) holdingColumns(header []string) (map[string]int, error) {
	col := map[string]int{}
	for i, name := range header {
		n := column(name)
		switch {
		case n == "" && len(header) > 1:
			return nil, apperr.InvalidField("header", fmt.Sprintf("column %d has no name", i+1))
		case !slices.Contains(HoldingFields, n):
			return nil, apperr.InvalidField("header", fmt.Sprintf("unknown column %q: columns are %s", strings.TrimSpace(name), strings.Join(CSVColumns(), ", ")))
		}
		if _, dup := col[n]; dup {
			return nil, apperr.InvalidField("header", fmt.Sprintf("column %q appears twice", n))
		}
		col[n] = i
		out.Columns = append(out.Columns, n)
	}
	var missing []string
	for _, f := range requiredColumns {
		if _, ok := col[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return nil, apperr.InvalidField("header", "missing required column(s): "+strings.Join(missing, ", "))
	}
	return col, nil
}

// saleColumns reads the header row that begins the sales section.
func saleColumns(rec []string) (map[string]int, error) {
	saleCol := map[string]int{}
	for i, name := range rec {
		n := column(name)
		if n == "" {
			continue // padding, so the file stays rectangular
		}
		if !slices.Contains(SaleColumns, n) && !slices.Contains(DisposalColumns, n) && n != SaleCurrencyColumn {
			return nil, apperr.InvalidField("header", fmt.Sprintf("unknown column %q in the sales section: columns are %s", strings.TrimSpace(name), strings.Join(append(append(slices.Clone(SaleColumns), DisposalColumns...), SaleCurrencyColumn), ", ")))
		}
		saleCol[n] = i
	}
	for _, f := range []string{"sale_of_row", "quantity", "price_per_unit"} {
		if _, ok := saleCol[f]; !ok {
			return nil, apperr.InvalidField("header", "the sales section lacks the column "+f)
		}
	}
	return saleCol, nil
}

// addErr counts a row problem and keeps the first MaxImportErrors of them.
func (out *ImportParse) addErr(row int, field, msg string) {
	out.ErrorCount++
	if len(out.Errors) < MaxImportErrors {
		out.Errors = append(out.Errors, ImportRowError{Row: row, Field: field, Message: msg})
	}
}

// addSaleRow validates one row of the sales section against the holding row it sells from
// and the units earlier rows sold of it (sold, updated).
func (out *ImportParse) addSaleRow(row int, rec []string, err error, saleCol map[string]int, sold map[int]int64, now time.Time) {
	if err != nil {
		out.BadRows++
		out.addErr(row, "row", "is not valid CSV: "+csvErr(err))
		return
	}
	get := func(f string) string {
		if i, ok := saleCol[f]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	of, perr := strconv.Atoi(strings.TrimSpace(get("sale_of_row")))
	if perr != nil || of < 1 || of > len(out.Rows) {
		out.BadRows++
		out.addErr(row, "sale_of_row", fmt.Sprintf("must be the row number of a holding above (1 to %d)", len(out.Rows)))
		return
	}
	if out.Bad[of-1] {
		out.BadRows++
		out.addErr(row, "sale_of_row", fmt.Sprintf("refers to row %d, which has problems", of))
		return
	}
	hold := out.Rows[of-1]
	// A per-lot sale is in its lot's currency (validate checks the currency given); a slice of
	// a disposal is in the disposal's, checked here.
	inDisposal := strings.TrimSpace(get("disposal")) != ""
	sale, errs := SaleInputFromForm(func(f string) string {
		if f == "currency" {
			if inDisposal {
				return ""
			}
			return get(SaleCurrencyColumn)
		}
		return get(f)
	}).validate(hold, now)
	saleCur := ""
	if c := strings.TrimSpace(get(SaleCurrencyColumn)); c != "" && inDisposal {
		code, msg := parseCurrency(c, true)
		if msg != "" {
			errs = append(errs, apperr.FieldError{Field: SaleCurrencyColumn, Message: msg})
		}
		saleCur = code
	}
	if len(errs) == 0 && sold[of-1]+sale.Quantity > hold.Quantity {
		errs = append(errs, apperr.FieldError{Field: "quantity", Message: fmt.Sprintf("sells more than the %d units of row %d", hold.Quantity, of)})
	}
	if len(errs) > 0 {
		out.BadRows++
		for _, e := range errs {
			out.addErr(row, e.Field, e.Message)
		}
		return
	}
	imp := db.ImportedSale{Row: of - 1, Sale: sale}
	if v := strings.TrimSpace(get("disposal")); v != "" {
		n, err := strconv.Atoi(v)
		kind, method := strings.ToLower(strings.TrimSpace(get("kind"))), strings.ToLower(strings.TrimSpace(get("method")))
		if kind == "" {
			kind = KindSold
		}
		recv := 0
		if r := strings.TrimSpace(get("received_row")); r != "" {
			if x, rerr := strconv.Atoi(r); rerr != nil || x < 1 || x > len(out.Rows) {
				errs = append(errs, apperr.FieldError{Field: "received_row", Message: fmt.Sprintf("must be the row number of a holding above (1 to %d)", len(out.Rows))})
			} else {
				recv = x
			}
		}
		switch {
		case err != nil || n < 1:
			errs = append(errs, apperr.FieldError{Field: "disposal", Message: "must be a positive whole number"})
		case !slices.Contains(DisposalKinds, kind):
			errs = append(errs, apperr.FieldError{Field: "kind", Message: "must be one of " + strings.Join(DisposalKinds, ", ")})
		case !slices.Contains(account.LotMethods, method):
			errs = append(errs, apperr.FieldError{Field: "method", Message: "must be one of " + strings.Join(account.LotMethods, ", ")})
		}
		imp.Disposal, imp.Kind, imp.Method, imp.ReceivedRow, imp.Currency = n, kind, method, recv, saleCur
	}
	if len(errs) > 0 {
		out.BadRows++
		for _, e := range errs {
			out.addErr(row, e.Field, e.Message)
		}
		return
	}
	sold[of-1] += sale.Quantity
	out.Sales = append(out.Sales, imp)
}

// addHoldingRow validates one row of the holdings section as a new holding; a bad row keeps
// its place (an empty holding marked bad), so sales can refer to rows by number.
func (out *ImportParse) addHoldingRow(row int, rec []string, err error, width int, col map[string]int, now time.Time) {
	badRow := func(msg string) {
		out.BadRows++
		out.addErr(row, "row", msg)
		out.Rows, out.Bad = append(out.Rows, Holding{}), append(out.Bad, true)
	}
	if err != nil {
		badRow("is not valid CSV: " + csvErr(err))
		return
	}
	if len(rec) != width {
		badRow(fmt.Sprintf("has %d cells; the header has %d", len(rec), width))
		return
	}
	in := HoldingInputFromForm(func(f string) string {
		i, ok := col[f]
		if !ok {
			return ""
		}
		switch f {
		case "product_name", "dealer", "notes":
			return UncsvCell(rec[i])
		}
		return rec[i]
	})
	var h Holding
	errs := in.apply(&h, true, now)
	if len(errs) > 0 {
		out.BadRows++
		for _, e := range errs {
			out.addErr(row, e.Field, e.Message)
		}
	}
	out.Rows, out.Bad = append(out.Rows, h), append(out.Bad, len(errs) > 0)
}

func csvErr(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// ImportProblem is the Unprocessable error of a CSV with bad rows: Details carries "errors"
// ([]ImportRowError, at most MaxImportErrors) and "error_count" (all of them).
func ImportProblem(p ImportParse) *apperr.Error {
	e := apperr.New(apperr.Unprocessable, "%d of %d rows have problems (%d in all); nothing was imported", p.BadRows, len(p.Rows), p.ErrorCount)
	errs := p.Errors
	if errs == nil {
		errs = []ImportRowError{}
	}
	e.Details = map[string]any{"errors": errs, "error_count": p.ErrorCount}
	return e
}

// ImportHoldings validates a CSV and, when every row is good, stores it for the member in
// one transaction, skipping rows that exactly repeat one of their holdings (or an earlier
// row). Any bad row stores nothing: the error lists every problem.
func (s *Service) ImportHoldings(ctx context.Context, u db.User, data []byte) (ImportResult, error) {
	rows, sales, err := s.ImportRows(ctx, u, data)
	if err != nil {
		return ImportResult{}, err
	}
	replay, err := s.ReplayFor(ctx, rows, sales)
	if err != nil {
		return ImportResult{}, err
	}
	res, err := s.store.ImportHoldingsWithSales(ctx, u.ID, rows, sales, DecideSale, replay)
	if err != nil {
		return ImportResult{}, ReplayErr(err)
	}
	return ImportResult{Imported: res.Imported, SkippedDuplicates: len(res.Duplicates), Sales: res.Sales}, nil
}

// ReplayDisposal is the disposal rule an import records a disposal's slices again with, in
// the lots' own currency (ReplayFor records one in another).
func ReplayDisposal(method string, picks []db.LotPick) db.DisposalRule {
	return DecideDisposal(method, picks)
}

// ReplayFor is the disposal rule an import of rows and sales records its disposals again
// with: a disposal in another currency than its lots' (sale_currency) converts each lot's
// cost at the rate of the lot's purchase day, the rates looked up here, before the import's
// transaction. An imported lot without a purchase date counts as bought today (UTC).
func (s *Service) ReplayFor(ctx context.Context, rows []db.Holding, sales []db.ImportedSale) (db.DisposalReplay, error) {
	today := db.NewDate(s.now().UTC())
	byCur := map[string][]db.SaleLot{}
	for _, x := range sales {
		if x.Disposal == 0 || x.Currency == "" || x.Row < 0 || x.Row >= len(rows) {
			continue
		}
		h := rows[x.Row]
		if h.PurchaseDate.IsZero() {
			h.PurchaseDate = today
		}
		// Every lot of the disposal is held on its day: the import names the units it took.
		h.SoldQuantity = 0
		byCur[x.Currency] = append(byCur[x.Currency], db.SaleLot{Holding: h})
	}
	fxs := map[string]DisposalFX{}
	for cur, lots := range byCur {
		for i := range lots {
			lots[i].Quantity = max(lots[i].Quantity, 1)
		}
		fx, err := s.disposalFX(ctx, cur, db.NewDate(time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)), lots)
		if err != nil {
			return nil, err
		}
		fxs[cur] = fx
	}
	return func(method string, picks []db.LotPick) db.DisposalRule {
		return func(lots []db.SaleLot, in db.Disposal) (db.DisposalDecision, error) {
			fx := DisposalFX{}
			if in.Currency != "" {
				fx = fxs[in.Currency]
				fx.Currency = in.Currency
			}
			return DecideDisposalIn(method, picks, fx)(lots, in)
		}
	}, nil
}

// ReplayErr is an import's refusal of a disposal it records again, as a field problem: no
// rate to convert a lot's cost names sale_currency.
func ReplayErr(err error) error {
	var mr *MissingRateError
	if errors.As(err, &mr) {
		return unprocessable(SaleCurrencyColumn, mr.Error())
	}
	return err
}

// ImportRows validates an import CSV for u and answers the holdings and sales to store, as
// ImportHoldings stores them (the ZIP import stores them with their places and documents).
func (s *Service) ImportRows(ctx context.Context, u db.User, data []byte) ([]db.Holding, []db.ImportedSale, error) {
	if err := requireGold(u); err != nil {
		return nil, nil, err
	}
	p, err := ParseHoldingsCSV(data, s.now())
	if err != nil {
		return nil, nil, err
	}
	if p.ErrorCount > 0 {
		return nil, nil, ImportProblem(p)
	}
	rows := make([]db.Holding, len(p.Rows))
	find := s.spotFinder()
	for i, h := range p.Rows {
		if h.PurchaseCurrency == "" {
			h.PurchaseCurrency = memberCurrency(u)
		}
		find.withSpot(&h)
		rows[i] = h.row(u.ID)
	}
	if err := s.checkImportCap(ctx, u, rows); err != nil {
		return nil, nil, err
	}
	SumDisposalFees(p.Sales)
	return rows, p.Sales, nil
}

// SumDisposalFees sets DisposalFees on every slice of an imported disposal (a run of
// consecutive sales with the same Disposal number) to the fees of all its slices: the
// disposal is recorded again as one, with those fees.
func SumDisposalFees(sales []db.ImportedSale) {
	for i := 0; i < len(sales); {
		j := i + 1
		if sales[i].Disposal != 0 {
			for j < len(sales) && sales[j].Disposal == sales[i].Disposal {
				j++
			}
		}
		fees := decimal.Zero
		for _, x := range sales[i:j] {
			fees = fees.Add(x.Sale.Fees)
		}
		for k := i; k < j; k++ {
			sales[k].DisposalFees = fees
		}
		i = j
	}
}

// checkImportCap refuses an import that would take u past MaxHoldings, counting only the rows
// that would be stored (exact duplicates are skipped). The 422 names the first row too many,
// in the shape of every other import problem.
func (s *Service) checkImportCap(ctx context.Context, u db.User, rows []db.Holding) error {
	have, err := s.store.CountHoldings(ctx, u.ID)
	if err != nil || have+len(rows) <= maxHoldings {
		return err
	}
	existing, err := s.store.AllHoldings(ctx, u.ID)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(existing)+len(rows))
	for _, h := range existing {
		seen[db.DuplicateKey(h)] = true
	}
	n := have
	for i, r := range rows {
		k := db.DuplicateKey(r)
		if seen[k] {
			continue
		}
		seen[k] = true
		if n++; n > maxHoldings {
			e := holdingsCapError(have)
			e.Details = map[string]any{"errors": []ImportRowError{{Row: i + 1, Field: "row", Message: fmt.Sprintf("would be holding number %d; the most you can keep is %d", n, maxHoldings)}}, "error_count": 1}
			return e
		}
	}
	return nil
}

// Row statuses of an import preview.
const (
	RowNew       = "new"
	RowDuplicate = "duplicate"
	RowError     = "error"
)

// ImportPreview is what an import would do, computed without storing anything.
type ImportPreview struct {
	ImportParse
	// Status is RowNew, RowDuplicate or RowError per row of ImportParse.Rows.
	Status []string
	// New and Duplicates count the good rows that would be stored and skipped.
	New, Duplicates int
}

// PreviewImport validates a CSV and marks each row new, duplicate (of a holding of the
// member or an earlier row) or in error.
func (s *Service) PreviewImport(ctx context.Context, u db.User, data []byte) (ImportPreview, error) {
	if err := requireGold(u); err != nil {
		return ImportPreview{}, err
	}
	p, err := ParseHoldingsCSV(data, s.now())
	if err != nil {
		return ImportPreview{}, err
	}
	existing, err := s.store.AllHoldings(ctx, u.ID)
	if err != nil {
		return ImportPreview{}, err
	}
	seen := make(map[string]bool, len(existing)+len(p.Rows))
	for _, x := range existing {
		seen[db.DuplicateKey(x)] = true
	}
	out := ImportPreview{ImportParse: p, Status: make([]string, len(p.Rows))}
	for i, x := range p.Rows {
		k := db.DuplicateKey(x.row(u.ID))
		switch {
		case p.Bad[i]:
			out.Status[i] = RowError
		case seen[k]:
			out.Status[i] = RowDuplicate
			out.Duplicates++
		default:
			seen[k] = true
			out.Status[i] = RowNew
			out.New++
		}
	}
	return out, nil
}

// ExportHoldings returns every holding of the member, oldest purchase first (undated last).
func (s *Service) ExportHoldings(ctx context.Context, u db.User) ([]Holding, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	rows, err := s.store.AllHoldings(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	return holdingsFromRows(rows), nil
}

// WriteHoldingsCSV writes the importable columns, header first, so an export imports back
// unchanged; text cells a spreadsheet would run as formulas are escaped (see CSVCell).
func WriteHoldingsCSV(w io.Writer, list []Holding) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns()); err != nil {
		return err
	}
	for _, x := range list {
		rec := []string{string(x.Metal), CSVCell(x.ProductName), strconv.FormatInt(x.Quantity, 10), x.WeightOz.String(),
			x.PurchasePrice.StringFixed(2), x.Fees.StringFixed(2), CSVCell(x.Dealer), x.PurchaseDate.String(), CSVCell(x.Notes)}
		rec = append(rec, csvLotCurrency(x)...)
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ExportSales returns every sale of the member in the order they were recorded.
func (s *Service) ExportSales(ctx context.Context, u db.User) ([]Sale, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	rows, err := s.store.AllSales(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	disposals, err := s.store.AllDisposals(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]db.Disposal, len(disposals))
	for _, d := range disposals {
		byID[d.ID] = d
	}
	out := make([]Sale, len(rows))
	for i, r := range rows {
		out[i] = saleFromRow(r)
		if d, ok := byID[r.DisposalID]; ok {
			out[i].DisposalKind, out[i].DisposalMethod, out[i].DisposalReceived = d.Kind, d.Method, d.Received
		}
	}
	return out, nil
}

// WriteLedgerCSV writes the holdings as WriteHoldingsCSV does and then, when there are any,
// the sales section: a SaleColumns header and one row per sale in the order recorded, each
// naming its holding by data row. Import reads both, so nothing sold is lost on the way back.
func WriteLedgerCSV(w io.Writer, list []Holding, sales []Sale) error {
	var buf bytes.Buffer
	if err := WriteHoldingsCSV(&buf, list); err != nil {
		return err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	if len(sales) == 0 {
		return nil
	}
	row := make(map[string]int, len(list))
	lotCur := make(map[string]string, len(list))
	for i, x := range list {
		row[x.ID] = i + 1
		lotCur[x.ID] = x.Currency()
	}
	// Rows are padded with empty cells to the holdings' width: every row of the file then has
	// the same number of cells, as spreadsheets and strict CSV readers expect.
	pad := func(cells []string) []string {
		for len(cells) < len(HoldingFields) {
			cells = append(cells, "")
		}
		return cells
	}
	// The disposal columns only when there are disposals across lots, so a ledger of per-lot
	// sales exports as it always has.
	header := slices.Clone(SaleColumns)
	withDisposals := slices.ContainsFunc(sales, func(x Sale) bool { return x.DisposalID != "" })
	if withDisposals {
		header = append(header, DisposalColumns...)
	}
	// The currency column only when a disposal was recorded in another currency than a lot's.
	withCurrency := slices.ContainsFunc(sales, func(x Sale) bool { _, ok := row[x.HoldingID]; return ok && x.Currency != lotCur[x.HoldingID] })
	if withCurrency {
		header = append(header, SaleCurrencyColumn)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(pad(header)); err != nil {
		return err
	}
	number := map[string]int{}
	for _, x := range sales {
		n, ok := row[x.HoldingID]
		if !ok {
			continue
		}
		cells := []string{strconv.Itoa(n), strconv.FormatInt(x.Quantity, 10), x.PricePerUnit.StringFixed(2), x.Fees.StringFixed(2), x.SoldOn.String()}
		if withDisposals {
			if x.DisposalID == "" {
				cells = append(cells, "", "", "", "")
			} else {
				if number[x.DisposalID] == 0 {
					number[x.DisposalID] = len(number) + 1
				}
				recv := ""
				if r, ok := row[x.DisposalReceived]; ok && x.DisposalReceived != "" {
					recv = strconv.Itoa(r)
				}
				cells = append(cells, strconv.Itoa(number[x.DisposalID]), x.DisposalKind, x.DisposalMethod, recv)
			}
		}
		if withCurrency {
			cells = append(cells, x.Currency)
		}
		if err := cw.Write(pad(cells)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvLotCurrency are a lot's currency, weight and weight_unit cells; the weight cells are
// empty for a lot entered in troy ounces (weight_oz is that weight exactly).
func csvLotCurrency(x Holding) []string {
	w := x.EnteredWeight()
	if w.Unit == metals.Ounce {
		return []string{x.Currency(), "", ""}
	}
	return []string{x.Currency(), w.Amount.String(), string(w.Unit)}
}
