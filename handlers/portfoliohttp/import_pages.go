package portfoliohttp

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// importPreviewRows caps the rows a preview lists; the counts cover the whole file.
const importPreviewRows = 50

func importView() pages.ImportView {
	return pages.ImportView{Columns: portfolio.HoldingFields, MaxRows: format.Int(portfolio.MaxImportRows)}
}

// ImportPage explains the CSV format and takes a file.
func (h *Handlers) ImportPage(c *fiber.Ctx) error {
	return kit.Render(c, http.StatusOK, pages.ImportPage(h.Meta(c, "Import holdings", "holdings"), importView()))
}

// importUpload reads the browser's upload: the file field, or pasted CSV text.
func importUpload(c *fiber.Ctx) ([]byte, error) {
	if fh, err := c.FormFile("file"); err == nil && fh.Size > 0 {
		if fh.Size > portfolio.MaxImportBytes {
			return nil, importTooLarge()
		}
		return importBody(c)
	}
	if s := c.FormValue("csv"); strings.TrimSpace(s) != "" {
		return []byte(s), nil
	}
	return nil, kit.Invalid("file", "choose a CSV file or paste CSV text")
}

// exactOz shows a weight per unit with every decimal it was given, for checking a file.
func exactOz(d decimal.Decimal) string { return format.Number(d, max(0, -d.Exponent())) }

// importPreviewView shows what an upload would do: counts, every problem, the first rows.
func importPreviewView(p portfolio.ImportPreview, data []byte) *pages.ImportPreview {
	out := &pages.ImportPreview{Total: len(p.Rows), New: p.New, Duplicates: p.Duplicates, ErrorCount: p.ErrorCount, BadRows: p.BadRows,
		TotalText: format.Int(int64(len(p.Rows))), NewText: format.Int(int64(p.New)), DuplicatesText: format.Int(int64(p.Duplicates)),
		BadRowsText: format.Int(int64(p.BadRows)), Columns: p.Columns}
	for _, e := range p.Errors {
		out.Errors = append(out.Errors, pages.ImportErrorRow{Row: format.Int(int64(e.Row)), Field: e.Field, Message: kit.FieldSentence(e.Field, e.Message)})
	}
	for i, x := range p.Rows {
		if i >= importPreviewRows {
			break
		}
		r := pages.ImportPreviewRow{Row: format.Int(int64(i + 1)), Status: p.Status[i]}
		if r.Status != portfolio.RowError {
			r.Metal, r.Product, r.Quantity, r.WeightOz = x.Metal.Title(), x.ProductName, format.Int(x.Quantity), exactOz(x.WeightOz)
			r.Price, r.Fees, r.Dealer, r.Date = format.Money(x.PurchasePrice, x.Currency()), format.Money(x.Fees, x.Currency()), x.Dealer, x.PurchaseDate.String()
		}
		out.Rows = append(out.Rows, r)
	}
	out.Shown = format.Int(int64(len(out.Rows)))
	if p.ErrorCount == 0 && p.New > 0 {
		// The upload rides to the confirm step in the form, so nothing is kept between steps.
		out.Payload = base64.RawURLEncoding.EncodeToString(data)
	}
	return out
}

// preview is the preview of data for u, or the file's problem as a message.
func (h *Handlers) preview(c *fiber.Ctx, u account.User, data []byte) (*pages.ImportPreview, error) {
	p, err := h.portfolio.PreviewImport(h.Ctx(c), u, data)
	if err != nil {
		if kit.AsProblem(err).Status >= 500 {
			return nil, err
		}
		return &pages.ImportPreview{Problem: kit.ErrorSentence(kit.AsProblem(err))}, nil
	}
	return importPreviewView(p, data), nil
}

// ImportPreviewSubmit validates an upload and shows what would be imported, without storing.
func (h *Handlers) ImportPreviewSubmit(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v := importView()
	m := h.Meta(c, "Import holdings", "holdings")
	if fh, ferr := c.FormFile("file"); ferr == nil && fh.Size > 0 && h.archive != nil {
		// A ZIP export is restored at once (its documents are too large to carry back through a
		// preview); anything else over the CSV limit is refused as before.
		data, err := importBodyUpTo(c, custody.MaxArchiveBytes)
		if err == nil && h.archive != nil && custody.IsArchive(data) {
			res, err := h.archive.ImportArchive(h.Ctx(c), u, data)
			if err != nil {
				p := kit.AsProblem(err)
				if p.Status >= 500 {
					return err
				}
				v.Preview = &pages.ImportPreview{Problem: kit.ErrorSentence(p)}
			} else {
				v.Done = &pages.ImportDone{Imported: format.Int(int64(res.Imported)), Skipped: format.Int(int64(res.SkippedDuplicates))}
			}
			return kit.Page(c, http.StatusOK, pages.ImportPage(m, v), pages.ImportResult(m, v))
		}
	}
	data, err := importUpload(c)
	if err == nil {
		v.Preview, err = h.preview(c, u, data)
	}
	if err != nil {
		p := kit.AsProblem(err)
		if p.Status >= 500 {
			return err
		}
		v.Preview = &pages.ImportPreview{Problem: kit.ErrorSentence(p)}
	}
	return kit.Page(c, http.StatusOK, pages.ImportPage(m, v), pages.ImportResult(m, v))
}

// ImportCommit stores a previewed upload.
func (h *Handlers) ImportCommit(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v := importView()
	data, derr := base64.RawURLEncoding.DecodeString(c.FormValue("payload"))
	if derr != nil || len(data) == 0 {
		return kit.Invalid("payload", "the upload to import is missing; preview the file again")
	}
	res, err := h.portfolio.ImportHoldings(h.Ctx(c), u, data)
	if err != nil {
		if kit.AsProblem(err).Status >= 500 {
			return err
		}
		// Something changed since the preview: show the problems the same way.
		if v.Preview, err = h.preview(c, u, data); err != nil {
			return err
		}
	} else {
		v.Done = &pages.ImportDone{Imported: format.Int(int64(res.Imported)), Skipped: format.Int(int64(res.SkippedDuplicates))}
	}
	m := h.Meta(c, "Import holdings", "holdings")
	return kit.Page(c, http.StatusOK, pages.ImportPage(m, v), pages.ImportResult(m, v))
}

// ExportDownload is the browser's export (CSV by default, ?format=json).
func (h *Handlers) ExportDownload(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	return h.sendExport(c, u, c.Query("format"))
}
