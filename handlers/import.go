package handlers

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
)

// Import limits.
const (
	MaxImportRows     = 10_000
	MaxImportBytes    = 5 << 20
	pfMaxImportErrors = 1000
)

// pfRequiredColumns must appear in an import's header row.
var pfRequiredColumns = []string{"metal", "quantity", "weight_oz", "purchase_price"}

// ImportRowError names one problem of an import: the data row (counted from 1 after the
// header), the column, and what is wrong.
type ImportRowError struct {
	Row     int    `json:"row"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ImportParse is a validated CSV: one holding per data row, and every problem found.
type ImportParse struct {
	Columns []string
	Rows    []db.Holding
	// Errors lists at most pfMaxImportErrors problems; ErrorCount counts them all, and
	// BadRows the rows with at least one.
	Errors     []ImportRowError
	ErrorCount int
	BadRows    int
	// Bad marks the rows (by index into Rows) with at least one problem.
	Bad []bool
}

// ImportResultJSON is the body of a successful import.
type ImportResultJSON struct {
	Imported          int `json:"imported"`
	SkippedDuplicates int `json:"skipped_duplicates"`
}

// pfFormulaStart are the first characters that make a spreadsheet treat a cell as a formula.
const pfFormulaStart = "=+-@\t\r"

// csvCell protects a text cell from being run as a formula when the export is opened in a
// spreadsheet: a leading apostrophe, which import removes again.
func pfCSVCell(s string) string {
	if s == "" {
		return s
	}
	if strings.ContainsRune(pfFormulaStart, rune(s[0])) || (s[0] == '\'' && len(s) > 1 && strings.ContainsRune(pfFormulaStart, rune(s[1]))) {
		return "'" + s
	}
	return s
}

// uncsvCell undoes csvCell.
func pfUncsvCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune(pfFormulaStart, rune(s[1])) {
		return s[1:]
	}
	if len(s) > 2 && s[0] == '\'' && s[1] == '\'' && strings.ContainsRune(pfFormulaStart, rune(s[2])) {
		return s[1:]
	}
	return s
}

// normalizeColumn accepts "Product Name", "product-name" and "product_name" alike.
func pfColumn(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(" ", "_", "-", "_").Replace(s)
}

// ParseHoldingsCSV reads a holdings CSV and validates every row exactly as a new holding is
// validated. Problems with the file as a whole (size, header) are returned as errors; row
// problems are collected in the result so they can all be shown at once.
func ParseHoldingsCSV(data []byte, now time.Time) (ImportParse, error) {
	var out ImportParse
	if len(data) > MaxImportBytes {
		return out, NewProblem(http.StatusRequestEntityTooLarge, ProbTooLarge, fmt.Sprintf("the file is larger than %d MiB", MaxImportBytes>>20))
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return out, Invalid("file", "must be UTF-8 text")
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		return out, Invalid("file", "is empty: the first row must name the columns, e.g. metal,quantity,weight_oz,purchase_price")
	}
	if err != nil {
		return out, Invalid("header", "is not valid CSV: "+pfCSVErr(err))
	}
	col := map[string]int{}
	for i, name := range header {
		n := pfColumn(name)
		switch {
		case n == "" && len(header) > 1:
			return out, Invalid("header", fmt.Sprintf("column %d has no name", i+1))
		case !contains(holdingFields, n):
			return out, Invalid("header", fmt.Sprintf("unknown column %q: columns are %s", strings.TrimSpace(name), strings.Join(holdingFields, ", ")))
		}
		if _, dup := col[n]; dup {
			return out, Invalid("header", fmt.Sprintf("column %q appears twice", n))
		}
		col[n] = i
		out.Columns = append(out.Columns, n)
	}
	var missing []string
	for _, f := range pfRequiredColumns {
		if _, ok := col[f]; !ok {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return out, Invalid("header", "missing required column(s): "+strings.Join(missing, ", "))
	}
	addErr := func(row int, field, msg string) {
		out.ErrorCount++
		if len(out.Errors) < pfMaxImportErrors {
			out.Errors = append(out.Errors, ImportRowError{Row: row, Field: field, Message: msg})
		}
	}
	row := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		row++
		if row > MaxImportRows {
			return ImportParse{}, NewProblem(http.StatusRequestEntityTooLarge, ProbTooLarge, fmt.Sprintf("the file has more than %d data rows; split it into smaller files", MaxImportRows))
		}
		if err != nil {
			out.BadRows++
			addErr(row, "row", "is not valid CSV: "+pfCSVErr(err))
			out.Rows, out.Bad = append(out.Rows, db.Holding{}), append(out.Bad, true)
			continue
		}
		if len(rec) != len(header) {
			out.BadRows++
			addErr(row, "row", fmt.Sprintf("has %d cells; the header has %d", len(rec), len(header)))
			out.Rows, out.Bad = append(out.Rows, db.Holding{}), append(out.Bad, true)
			continue
		}
		in := HoldingInputFromForm(func(f string) string {
			i, ok := col[f]
			if !ok {
				return ""
			}
			v := rec[i]
			switch f {
			case "product_name", "dealer", "notes":
				v = pfUncsvCell(v)
			}
			return v
		})
		var hold db.Holding
		errs := in.Apply(&hold, true, now)
		if len(errs) > 0 {
			out.BadRows++
			for _, e := range errs {
				addErr(row, e.Field, e.Message)
			}
		}
		out.Rows, out.Bad = append(out.Rows, hold), append(out.Bad, len(errs) > 0)
	}
	return out, nil
}

func pfCSVErr(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// importProblem is the 422 listing every bad row.
func pfImportProblem(p ImportParse) *Problem {
	prob := NewProblem(http.StatusUnprocessableEntity, ProbUnprocessable,
		fmt.Sprintf("%d of %d rows have problems (%d in all); nothing was imported", p.BadRows, len(p.Rows), p.ErrorCount))
	prob.Extra = map[string]any{"errors": p.Errors, "error_count": p.ErrorCount}
	return prob
}

// ImportHoldings validates a CSV and, when every row is good, stores it for u in one
// transaction, skipping exact duplicates of u's holdings.
func (h *Handlers) ImportHoldings(ctx context.Context, u db.User, data []byte) (ImportResultJSON, error) {
	p, err := ParseHoldingsCSV(data, h.now())
	if err != nil {
		return ImportResultJSON{}, err
	}
	if p.ErrorCount > 0 {
		return ImportResultJSON{}, pfImportProblem(p)
	}
	res, err := h.store.ImportHoldings(ctx, u.ID, p.Rows)
	if err != nil {
		return ImportResultJSON{}, err
	}
	return ImportResultJSON{Imported: res.Imported, SkippedDuplicates: len(res.Duplicates)}, nil
}

// importBody reads the CSV of an import request: the body itself (text/csv) or the
// multipart field "file".
func pfImportBody(c *fiber.Ctx) ([]byte, error) {
	ct := strings.ToLower(c.Get(fiber.HeaderContentType))
	switch {
	case strings.HasPrefix(ct, "multipart/form-data"):
		fh, err := c.FormFile("file")
		if err != nil {
			return nil, Invalid("file", "is required: send the CSV in the multipart field file")
		}
		if fh.Size > MaxImportBytes {
			return nil, NewProblem(http.StatusRequestEntityTooLarge, ProbTooLarge, fmt.Sprintf("the file is larger than %d MiB", MaxImportBytes>>20))
		}
		f, err := fh.Open()
		if err != nil {
			return nil, Invalid("file", "could not be read")
		}
		defer f.Close()
		return io.ReadAll(io.LimitReader(f, MaxImportBytes+1))
	case strings.HasPrefix(ct, "text/csv"), strings.HasPrefix(ct, "application/csv"), strings.HasPrefix(ct, "text/plain"):
		return c.Body(), nil
	}
	return nil, Invalid("Content-Type", "must be text/csv, or multipart/form-data with the CSV in the field file")
}

// APIHoldingsImport answers POST /v1/holdings/import.
func (h *Handlers) APIHoldingsImport(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	data, err := pfImportBody(c)
	if err != nil {
		return err
	}
	out, err := h.ImportHoldings(h.ctx(c), u, data)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, out)
}

// ExportHoldingJSON is one holding of a JSON export.
type ExportHoldingJSON struct {
	ID            string    `json:"id"`
	Metal         string    `json:"metal"`
	ProductName   string    `json:"product_name"`
	Quantity      int64     `json:"quantity"`
	SoldQuantity  int64     `json:"sold_quantity"`
	WeightOz      Num       `json:"weight_oz"`
	TotalOz       Num       `json:"total_oz"`
	PurchasePrice Num       `json:"purchase_price"`
	Fees          Num       `json:"fees"`
	TotalCost     Num       `json:"total_cost"`
	Dealer        string    `json:"dealer"`
	PurchaseDate  *string   `json:"purchase_date"`
	Notes         string    `json:"notes"`
	CreatedAt     time.Time `json:"created_at"`
}

// ExportJSON is the body of a JSON export.
type ExportJSON struct {
	ExportedAt time.Time           `json:"exported_at"`
	Count      int                 `json:"count"`
	Holdings   []ExportHoldingJSON `json:"holdings"`
}

// exactWeight renders a weight with every decimal it has (at least 5), so exports lose nothing.
func pfExactWeight(d db.Holding) Num {
	n := Num{d.WeightOz, 5}
	if p := -d.WeightOz.Exponent(); p > 5 {
		n.Places = p
	}
	return n
}

// ExportHoldings returns every holding of u, oldest purchase first.
func (h *Handlers) ExportHoldings(ctx context.Context, u db.User) ([]db.Holding, error) {
	return h.store.AllHoldings(ctx, u.ID)
}

func pfExportJSON(list []db.Holding, now time.Time) ExportJSON {
	out := ExportJSON{ExportedAt: now.UTC().Truncate(time.Second), Count: len(list), Holdings: make([]ExportHoldingJSON, len(list))}
	for i, x := range list {
		out.Holdings[i] = ExportHoldingJSON{ID: x.ID, Metal: x.Metal, ProductName: x.ProductName, Quantity: x.Quantity, SoldQuantity: x.SoldQuantity,
			WeightOz: pfExactWeight(x), TotalOz: Num{x.TotalOz(), pfExactWeight(x).Places}, PurchasePrice: money(x.PurchasePrice), Fees: money(x.Fees),
			TotalCost: money(x.TotalCost()), Dealer: x.Dealer, PurchaseDate: pfDate(x.PurchaseDate), Notes: x.Notes, CreatedAt: x.CreatedAt.UTC()}
	}
	return out
}

// writeHoldingsCSV writes the importable columns, header first.
func pfWriteCSV(w io.Writer, list []db.Holding) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(holdingFields); err != nil {
		return err
	}
	for _, x := range list {
		rec := []string{x.Metal, pfCSVCell(x.ProductName), strconv.FormatInt(x.Quantity, 10), x.WeightOz.String(),
			x.PurchasePrice.StringFixed(2), x.Fees.StringFixed(2), pfCSVCell(x.Dealer), x.PurchaseDate.String(), pfCSVCell(x.Notes)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// sendExport writes the export in the requested format as a download.
func (h *Handlers) pfSendExport(c *fiber.Ctx, u db.User, format string) error {
	if format == "" {
		format = "csv"
	}
	format = strings.ToLower(format)
	if format != "csv" && format != "json" {
		return Invalid("format", "must be csv or json")
	}
	list, err := h.ExportHoldings(h.ctx(c), u)
	if err != nil {
		return err
	}
	name := "ounce-holdings-" + h.now().UTC().Format("2006-01-02") + "." + format
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	if format == "json" {
		return writeJSON(c, http.StatusOK, pfExportJSON(list, h.now()))
	}
	var buf bytes.Buffer
	if err := pfWriteCSV(&buf, list); err != nil {
		return err
	}
	c.Status(http.StatusOK)
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	return c.Send(buf.Bytes())
}

// APIHoldingsExport answers GET /v1/holdings/export.
func (h *Handlers) APIHoldingsExport(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	return h.pfSendExport(c, u, c.Query("format"))
}
