package custodyhttp

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/internal/format"
)

// inventoryFile renders the statement as format (pdf or csv) with its file name.
func (h *Handlers) inventoryFile(c *fiber.Ctx, u account.User) ([]byte, string, string, error) {
	f := c.Query("format", "pdf")
	if f != "pdf" && f != "csv" {
		return nil, "", "", kit.Invalid("format", "must be pdf or csv")
	}
	inv, err := h.custody.InventoryStatement(h.Ctx(c), u, strings.Clone(c.Query("location_id")))
	if err != nil {
		return nil, "", "", err
	}
	name := "ounce-inventory-" + inv.AsOf.Format("2006-01-02")
	if f == "csv" {
		b, err := inventoryCSV(inv)
		return b, "text/csv; charset=utf-8", name + ".csv", err
	}
	thumbs, err := h.custody.Thumbnails(h.Ctx(c), u, inv)
	if err != nil {
		return nil, "", "", err
	}
	b, err := inventoryPDF(inv, thumbs)
	return b, "application/pdf", name + ".pdf", err
}

func (h *Handlers) sendInventory(c *fiber.Ctx, u account.User) error {
	b, ct, name, err := h.inventoryFile(c, u)
	if err != nil {
		return err
	}
	return kit.SendDownload(c, ct, `attachment; filename="`+name+`"`, b)
}

// APIInventory answers GET /v1/reports/inventory.
func (h *Handlers) APIInventory(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	return h.sendInventory(c, u)
}

// InventoryDownload is the page's button: the same statement for a signed-in member.
func (h *Handlers) InventoryDownload(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	return h.sendInventory(c, u)
}

func money(d decimal.Decimal) string { return d.StringFixed(2) }

func moneyOr(d *decimal.Decimal) string {
	if d == nil {
		return ""
	}
	return money(*d)
}

// inventoryCSV is one row per lot; the values are plain decimals (USD) for a spreadsheet.
func inventoryCSV(inv custody.Inventory) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"location", "location_kind", "holding_id", "description", "metal", "units", "fine_oz", "purchase_date", "cost", "value_at_spot", "replacement_cost", "replacement_basis", "documents", "as_of"})
	for _, s := range inv.Sections {
		for _, l := range s.Lines {
			_ = w.Write([]string{csvSafe(s.Name), s.Kind, l.HoldingID, csvSafe(l.Description), string(l.Metal), strconv.FormatInt(l.Units, 10), l.FineOz.StringFixed(5),
				l.PurchaseDate.String(), money(l.Cost), moneyOr(l.AtSpot), moneyOr(l.Replacement), l.Basis, strconv.Itoa(l.Documents), inv.AsOf.Format("2006-01-02T15:04:05Z")})
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// csvSafe keeps a member's text from running as a spreadsheet formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// thumbMM is the height of a lot's photo thumbnail on the statement, and thumbRowMM the
// height of a line that shows one.
const (
	thumbMM    = 10.0
	thumbRowMM = 12.0
)

// inventoryPDF is the dated statement: per location its lots (with a thumbnail of the lot's
// first photo beside it, thumbs by holding id), values and totals, then the prices used with
// their sources and dates.
func inventoryPDF(inv custody.Inventory, thumbs map[string][]byte) ([]byte, error) {
	pdf := fpdf.New("L", "mm", "Letter", "")
	pdf.SetTitle("Ounce inventory statement", true)
	pdf.SetCreator("Ounce", true)
	pdf.SetCreationDate(inv.AsOf)
	pdf.SetModificationDate(inv.AsOf)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.SetAutoPageBreak(true, 12)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 15)
	pdf.CellFormat(0, 8, tr("Inventory statement"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 9)
	pdf.CellFormat(0, 5, tr("Dated "+format.DateTime(inv.AsOf)+". Values at spot and at replacement cost (what buying the same again would cost); not an appraisal."), "", 1, "L", false, 0, "")
	pdf.Ln(2)
	widths := []float64{70, 14, 20, 24, 28, 28, 30, 45}
	head := []string{"Description", "Units", "Fine oz", "Purchased", "Cost", "Value at spot", "Replacement", "Replacement basis"}
	if len(inv.Sections) == 0 {
		pdf.CellFormat(0, 6, tr("Nothing is held here."), "", 1, "L", false, 0, "")
	}
	for _, s := range inv.Sections {
		pdf.SetFont("Helvetica", "B", 11)
		title := s.Name
		if k := custody.KindNames[s.Kind]; k != "" {
			title += " (" + k + ")"
		}
		if s.Insured != nil {
			title += " - insured for " + format.USD(*s.Insured)
		}
		pdf.CellFormat(0, 7, tr(title), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "B", 8)
		for i, t := range head {
			pdf.CellFormat(widths[i], 6, tr(t), "B", 0, "L", false, 0, "")
		}
		pdf.Ln(-1)
		pdf.SetFont("Helvetica", "", 8)
		for _, l := range s.Lines {
			date := l.PurchaseDate.String()
			if date == "" {
				date = "undated"
			}
			desc := l.Description
			if l.Documents > 0 {
				desc += fmt.Sprintf(" [%d doc.]", l.Documents)
			}
			cells := []string{fit(desc, 48), format.Int(l.Units), format.Oz(l.FineOz), date, format.USD(l.Cost), usdOr(l.AtSpot), usdOr(l.Replacement), fit(l.Basis, 34)}
			rowH := 5.0
			if t := thumbs[l.HoldingID]; t != nil {
				rowH = thumbRowMM
				_, pageH := pdf.GetPageSize()
				if _, _, _, bottom := pdf.GetMargins(); pdf.GetY()+rowH > pageH-max(bottom, 12) {
					pdf.AddPage()
				}
				name := "thumb-" + l.HoldingID
				opt := fpdf.ImageOptions{ImageType: "JPG"}
				info := pdf.RegisterImageOptionsReader(name, opt, bytes.NewReader(t))
				if pdf.Ok() && info != nil {
					x, y := pdf.GetXY()
					w := min(thumbMM*info.Width()/info.Height(), 2*thumbMM)
					pdf.ImageOptions(name, x, y+(rowH-thumbMM)/2, w, thumbMM, false, opt, 0, "")
					pdf.SetX(x + w + 2)
					cells[0] = fit(desc, 40)
					pdf.CellFormat(widths[0]-w-2, rowH, tr(cells[0]), "", 0, "L", false, 0, "")
					cells = cells[1:]
					widths := widths[1:]
					for i, t := range cells {
						pdf.CellFormat(widths[i], rowH, tr(t), "", 0, "L", false, 0, "")
					}
					pdf.Ln(-1)
					continue
				}
			}
			for i, t := range cells {
				pdf.CellFormat(widths[i], rowH, tr(t), "", 0, "L", false, 0, "")
			}
			pdf.Ln(-1)
		}
		pdf.SetFont("Helvetica", "B", 8)
		totals := []string{"Total " + s.Name, "", format.Oz(s.Oz), "", format.USD(s.Cost), format.USD(s.AtSpot), format.USD(s.Replacement), ""}
		if !s.Priced {
			totals[7] = "lots without a price left out"
		}
		for i, t := range totals {
			pdf.CellFormat(widths[i], 6, tr(fit(t, 48)), "T", 0, "L", false, 0, "")
		}
		pdf.Ln(9)
	}
	pdf.SetFont("Helvetica", "B", 10)
	pdf.CellFormat(0, 6, tr("Prices used"), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 8)
	for _, p := range inv.Prices {
		line := p.Metal.Title() + " spot " + format.USD(p.Price) + " per troy oz, " + p.Source + ", as of " + format.DateTime(p.AsOf)
		if p.Stale {
			line += " (last known price, not live)"
		}
		pdf.CellFormat(0, 5, tr(line), "", 1, "L", false, 0, "")
	}
	if len(inv.Prices) == 0 {
		pdf.CellFormat(0, 5, tr("No spot price was available: values at spot and replacement are left out."), "", 1, "L", false, 0, "")
	}
	pdf.CellFormat(0, 5, tr("Replacement cost is the median ask of fresh dealer quotes for the same catalogue product where there are any, else spot times the product form's typical premium (our estimate), as each line says."), "", 1, "L", false, 0, "")
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func usdOr(d *decimal.Decimal) string {
	if d == nil {
		return "no price"
	}
	return format.USD(*d)
}

// fit shortens text to n characters for a table cell.
func fit(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
