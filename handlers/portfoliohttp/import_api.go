package portfoliohttp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// ImportRowErrorJSON is one problem of an import in the 422 problem's errors list.
type ImportRowErrorJSON struct {
	Row     int    `json:"row" schema:"min=1" doc:"Data row, counted from 1 after the header."`
	Field   string `json:"field" doc:"Column name, or row for a malformed line."`
	Message string `json:"message"`
}

// ImportResultJSON is the body of a successful import.
type ImportResultJSON struct {
	Imported          int `json:"imported"`
	SkippedDuplicates int `json:"skipped_duplicates"`
}

// ImportedJSON is the body of POST /v1/holdings/import: the holdings and sales recorded.
type ImportedJSON struct {
	Imported          int `json:"imported"`
	SkippedDuplicates int `json:"skipped_duplicates"`
	Sales             int `json:"sales" doc:"Sales recorded from the sales section."`
}

// ExportHoldingJSON is one holding of a JSON export.
type ExportHoldingJSON struct {
	ID            string    `json:"id"`
	Metal         string    `json:"metal" schema:"enum=metals"`
	ProductName   string    `json:"product_name"`
	Quantity      int64     `json:"quantity"`
	SoldQuantity  int64     `json:"sold_quantity"`
	WeightOz      kit.Num   `json:"weight_oz" doc:"Fine ounces per unit."`
	TotalOz       kit.Num   `json:"total_oz"`
	PurchasePrice kit.Num   `json:"purchase_price" doc:"Per unit, USD."`
	Fees          kit.Num   `json:"fees" doc:"USD."`
	TotalCost     kit.Num   `json:"total_cost" doc:"USD."`
	Dealer        string    `json:"dealer"`
	PurchaseDate  *string   `json:"purchase_date" schema:"format=date"`
	Notes         string    `json:"notes"`
	CreatedAt     time.Time `json:"created_at"`
	// Sales are the lot's sales in the order they were recorded.
	Sales []ExportSaleJSON `json:"sales" doc:"The lot's sales in the order they were recorded."`
	LotCurrencyJSON
}

// ExportSaleJSON is one sale of an exported holding.
type ExportSaleJSON struct {
	ID           string    `json:"id"`
	Quantity     int64     `json:"quantity"`
	PricePerUnit kit.Num   `json:"price_per_unit" doc:"USD."`
	Fees         kit.Num   `json:"fees" doc:"USD."`
	SoldOn       string    `json:"sold_on" schema:"format=date"`
	Proceeds     kit.Num   `json:"proceeds" doc:"USD."`
	CostBasis    kit.Num   `json:"cost_basis" doc:"USD."`
	RealizedPL   kit.Num   `json:"realized_pl" doc:"USD."`
	CreatedAt    time.Time `json:"created_at"`
}

// ExportJSON is the body of a JSON export.
type ExportJSON struct {
	ExportedAt time.Time           `json:"exported_at"`
	Count      int                 `json:"count"`
	Holdings   []ExportHoldingJSON `json:"holdings"`
}

// ImportWireError gives an import's Unprocessable error its wire shape: the row problems as
// {row, field, message}, beside error_count.
func ImportWireError(err error) error {
	e, ok := apperr.As(err)
	if !ok || e.Kind != apperr.Unprocessable {
		return err
	}
	rows, ok := e.Details["errors"].([]portfolio.ImportRowError)
	if !ok {
		return err
	}
	p := kit.AsProblem(err)
	wire := make([]ImportRowErrorJSON, len(rows))
	for i, r := range rows {
		wire[i] = ImportRowErrorJSON{Row: r.Row, Field: r.Field, Message: r.Message}
	}
	p.Extra = map[string]any{"errors": wire, "error_count": e.Details["error_count"]}
	return p
}

// archiveWireError gives a ZIP import's problem with the archive itself (an Unprocessable
// naming file) the import's 422 shape: no row errors, field naming file; row problems of its
// CSV keep theirs.
func archiveWireError(err error) error {
	e, ok := apperr.As(err)
	if !ok || e.Kind != apperr.Unprocessable || len(e.Fields) != 1 || e.Fields[0].Field != "file" {
		return ImportWireError(err)
	}
	p := kit.AsProblem(err)
	p.Errors = nil
	p.Extra = map[string]any{"errors": []ImportRowErrorJSON{}, "field": "file"}
	return p
}

// importTooLarge is the 413 of an upload over the size limit.
func importTooLarge() error {
	return apperr.New(apperr.TooLarge, "the file is larger than %d MiB", portfolio.MaxImportBytes>>20)
}

// importBody reads the CSV of an import request: the body itself (text/csv) or the
// multipart field "file".
func importBody(c *fiber.Ctx) ([]byte, error) {
	return importBodyUpTo(c, portfolio.MaxImportBytes)
}

// importBodyUpTo is importBody reading a file of up to limit bytes; a ZIP may also come as
// the body itself (application/zip).
func importBodyUpTo(c *fiber.Ctx, limit int64) ([]byte, error) {
	ct := strings.ToLower(c.Get(fiber.HeaderContentType))
	switch {
	case strings.HasPrefix(ct, "multipart/form-data"):
		data, _, err := kit.UploadedFile(c, "file", "is required: send the CSV in the multipart field file", limit, importTooLarge())
		return data, err
	case strings.HasPrefix(ct, "text/csv"), strings.HasPrefix(ct, "application/csv"), strings.HasPrefix(ct, "text/plain"),
		limit > portfolio.MaxImportBytes && (strings.HasPrefix(ct, "application/zip") || strings.HasPrefix(ct, "application/octet-stream")):
		return c.Body(), nil
	}
	return nil, kit.Invalid("Content-Type", "must be text/csv, application/zip, or multipart/form-data with the file in the field file")
}

// APIHoldingsImport answers POST /v1/holdings/import.
func (h *Handlers) APIHoldingsImport(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	data, err := importBodyUpTo(c, custody.MaxArchiveBytes)
	if err != nil {
		return err
	}
	var res portfolio.ImportResult
	switch {
	case custody.IsArchive(data):
		// A ZIP export (sniffed from its bytes): the ledger with places, tags and documents.
		if h.archive == nil {
			return kit.Invalid("file", "is a ZIP; this server imports CSV files only")
		}
		if res, err = h.archive.ImportArchive(h.Ctx(c), u, data); err != nil {
			return archiveWireError(err)
		}
	case len(data) > portfolio.MaxImportBytes:
		return importTooLarge()
	default:
		res, err = h.portfolio.ImportHoldings(h.Ctx(c), u, data)
	}
	if err != nil {
		return ImportWireError(err)
	}
	return kit.WriteJSON(c, http.StatusOK, ImportedJSON{Imported: res.Imported, SkippedDuplicates: res.SkippedDuplicates, Sales: res.Sales})
}

// exactWeight renders a weight with every decimal it has (at least 5), so exports lose nothing.
func exactWeight(x portfolio.Holding) kit.Num {
	n := kit.Num{D: x.WeightOz, Places: 5}
	if p := -x.WeightOz.Exponent(); p > 5 {
		n.Places = p
	}
	return n
}

func exportJSON(list []portfolio.Holding, sales []portfolio.Sale, now time.Time) ExportJSON {
	out := ExportJSON{ExportedAt: now.UTC().Truncate(time.Second), Count: len(list), Holdings: make([]ExportHoldingJSON, len(list))}
	byLot := map[string][]ExportSaleJSON{}
	for _, x := range sales {
		byLot[x.HoldingID] = append(byLot[x.HoldingID], ExportSaleJSON{ID: x.ID, Quantity: x.Quantity, PricePerUnit: kit.Money(x.PricePerUnit), Fees: kit.Money(x.Fees),
			SoldOn: x.SoldOn.String(), Proceeds: kit.Money(x.Proceeds), CostBasis: kit.Money(x.CostBasis), RealizedPL: kit.Money(x.RealizedPL), CreatedAt: x.CreatedAt.UTC()})
	}
	for i, x := range list {
		w := exactWeight(x)
		out.Holdings[i] = ExportHoldingJSON{ID: x.ID, Metal: string(x.Metal), ProductName: x.ProductName, Quantity: x.Quantity, SoldQuantity: x.SoldQuantity,
			WeightOz: w, TotalOz: kit.Num{D: x.TotalOz(), Places: w.Places}, PurchasePrice: kit.Money(x.PurchasePrice), Fees: kit.Money(x.Fees),
			TotalCost: kit.Money(x.TotalCost()), Dealer: x.Dealer, PurchaseDate: kit.DateOrNull(x.PurchaseDate), Notes: x.Notes, CreatedAt: x.CreatedAt.UTC(),
			Sales: byLot[x.ID], LotCurrencyJSON: lotCurrencyJSON(x)}
		if out.Holdings[i].Sales == nil {
			out.Holdings[i].Sales = []ExportSaleJSON{}
		}
	}
	return out
}

// sendExport writes every holding of u in the requested format (csv by default) as a download.
func (h *Handlers) sendExport(c *fiber.Ctx, u account.User, format string) error {
	if format == "" {
		format = "csv"
	}
	format = strings.ToLower(format)
	if format == "zip" && h.archive != nil {
		return h.sendArchive(c, u)
	}
	if format != "csv" && format != "json" {
		return kit.Invalid("format", "must be csv, json or zip")
	}
	list, err := h.portfolio.ExportHoldings(h.Ctx(c), u)
	if err != nil {
		return err
	}
	sales, err := h.portfolio.ExportSales(h.Ctx(c), u)
	if err != nil {
		return err
	}
	now := h.Now()
	name := "ounce-holdings-" + now.UTC().Format(time.DateOnly) + "." + format
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	if format == "json" {
		return kit.WriteJSON(c, http.StatusOK, exportJSON(list, sales, now))
	}
	var buf bytes.Buffer
	if err := portfolio.WriteLedgerCSV(&buf, list, sales); err != nil {
		return fmt.Errorf("export csv: %w", err)
	}
	c.Status(http.StatusOK)
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	return c.Send(buf.Bytes())
}

// APIHoldingsExport answers GET /v1/holdings/export.
func (h *Handlers) APIHoldingsExport(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	return h.sendExport(c, u, c.Query("format"))
}

// sendArchive streams u's ZIP export: the ledger CSV, locations, manifest and every document.
func (h *Handlers) sendArchive(c *fiber.Ctx, u account.User) error {
	// The stream is written after the handler returns: the request's context goes with it.
	ctx := context.WithoutCancel(h.Ctx(c))
	write, err := h.archive.Archive(ctx, u)
	if err != nil {
		return err
	}
	name := "ounce-holdings-" + h.Now().UTC().Format(time.DateOnly) + ".zip"
	c.Status(http.StatusOK)
	c.Set(fiber.HeaderContentType, "application/zip")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+name+`"`)
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	log := h.Log
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		if err := write(w); err != nil {
			// Too late for a status: the ZIP stops short, and its missing directory tells.
			log.Error("zip export", "err", err)
		}
		_ = w.Flush()
	})
	return nil
}
