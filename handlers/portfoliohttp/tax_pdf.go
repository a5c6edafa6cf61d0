package portfoliohttp

import (
	"bytes"
	"fmt"
	"time"

	"github.com/go-pdf/fpdf"

	"github.com/ouncehq/ounce/internal/portfolio"
)

// TaxReportPDF is the gains report as a dated summary a person can print: the totals by
// category, then every row, with the not-tax-advice label on the first page.
func TaxReportPDF(r portfolio.TaxReport, now time.Time) ([]byte, error) {
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetTitle(fmt.Sprintf("Ounce gains report %d", r.Year), true)
	pdf.SetCreator("Ounce", true)
	pdf.SetCreationDate(now.UTC())
	pdf.SetModificationDate(now.UTC())
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(0, 10, fmt.Sprintf("Gains report %d", r.Year), "", 1, "", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	jur := r.Jurisdiction
	if jur == "" {
		jur = "none"
	}
	pdf.CellFormat(0, 6, tr(fmt.Sprintf("Prepared %s. Jurisdiction: %s. Amounts in %s.", now.UTC().Format("2 January 2006"), jur, r.Currency)), "", 1, "", false, 0, "")
	for _, n := range r.Notes {
		pdf.MultiCell(0, 5, tr(n), "", "", false)
	}
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "B", 12)
	pdf.CellFormat(0, 8, "Totals", "", 1, "", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	for _, t := range []struct {
		label string
		v     string
	}{
		{"Short-term", r.Totals.ShortTerm.StringFixed(2)}, {"Long-term", r.Totals.LongTerm.StringFixed(2)},
		{"Collectible", r.Totals.Collectible.StringFixed(2)}, {"Exempt", r.Totals.Exempt.StringFixed(2)},
		{"Tax-free", r.Totals.TaxFree.StringFixed(2)}, {"Total", r.Totals.Total.StringFixed(2)},
	} {
		pdf.CellFormat(50, 6, t.label, "", 0, "", false, 0, "")
		pdf.CellFormat(40, 6, t.v+" "+r.Currency, "", 1, "R", false, 0, "")
	}
	pdf.Ln(3)
	pdf.SetFont("Helvetica", "B", 9)
	cols := []struct {
		h string
		w float64
	}{{"Description", 58}, {"Acquired", 20}, {"Sold", 20}, {"Proceeds", 22}, {"Cost", 22}, {"Gain", 22}, {"Category", 26}}
	for _, c := range cols {
		pdf.CellFormat(c.w, 6, c.h, "B", 0, "", false, 0, "")
	}
	pdf.Ln(-1)
	pdf.SetFont("Helvetica", "", 8)
	for _, x := range r.Rows {
		cells := []string{x.Description, x.AcquiredOn.String(), x.DisposedOn.String(), x.Proceeds.StringFixed(2), x.CostBasis.StringFixed(2), x.Gain.StringFixed(2), x.Category}
		for i, c := range cols {
			align := ""
			if i >= 3 && i <= 5 {
				align = "R"
			}
			pdf.CellFormat(c.w, 5, tr(cells[i]), "", 0, align, false, 0, "")
		}
		pdf.Ln(-1)
	}
	if len(r.Rows) == 0 {
		pdf.CellFormat(0, 6, "No disposals in this year.", "", 1, "", false, 0, "")
	}
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		return nil, fmt.Errorf("tax report pdf: %w", err)
	}
	return b.Bytes(), nil
}
