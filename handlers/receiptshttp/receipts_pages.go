package receiptshttp

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/receipts"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// PageRoutes are the scanning page (any member, within the scan limits) and its confirm
// step (Gold: the lines become holdings).
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return []kit.PageRoute{
		{Method: "GET", Path: "/portfolio/scan", Handler: h.ScanPage, Auth: kit.AuthMember},
		{Method: "POST", Path: "/portfolio/scan", Handler: h.ScanSubmit, Auth: kit.AuthMember, MaxBody: scanMaxBody, Costly: true},
		{Method: "POST", Path: "/portfolio/scan/confirm", Handler: h.ScanConfirm, Auth: kit.AuthGold, MaxBody: receiptConfirmMaxBody},
	}
}

// scanView is the page's frame: the member's allowance and whether they can save.
func (h *Handlers) scanView(c *fiber.Ctx, u account.User) (pages.ScanView, error) {
	v := pages.ScanView{CanSave: account.IsGold(u)}
	a, err := h.receipts.AllowanceFor(h.Ctx(c), u)
	if err != nil {
		return v, err
	}
	v.Allowance = allowanceText(a)
	return v, nil
}

func allowanceText(a receipts.Allowance) string {
	if a.Gold {
		return fmt.Sprintf("Gold: scan as many receipts as you like, up to %s an hour.", format.Int(int64(a.Limit)))
	}
	days := int64(a.Window.Hours() / 24)
	return fmt.Sprintf("Free accounts have %s scans every %s days: %s left.", format.Int(int64(a.Limit)), format.Int(days), format.Int(int64(a.Left)))
}

// ScanPage shows the upload form.
func (h *Handlers) ScanPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	return kit.RenderView(c, u, h.scanView, func(v pages.ScanView) templ.Component {
		return pages.ScanPage(h.Meta(c, "Scan a receipt", "holdings"), v)
	})
}

// scanPageProblem shows a member's problem (bad file, limit reached) on the page; 5xx stays an error.
func scanPageProblem(err error) (*pages.ScanResult, error) {
	p := kit.AsProblem(err)
	if p.Status >= 500 && p.Status != http.StatusServiceUnavailable {
		return nil, err
	}
	return &pages.ScanResult{Problem: kit.ErrorSentence(p)}, nil
}

// ScanSubmit scans the upload and shows the proposal as an editable form.
func (h *Handlers) ScanSubmit(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v, err := h.scanView(c, u)
	if err != nil {
		return err
	}
	var data []byte
	fh, ferr := c.FormFile("file")
	switch {
	case ferr != nil || fh.Size == 0:
		err = kit.Invalid("file", "choose a photo, PDF or text file of the receipt")
	case fh.Size > receipts.MaxFileBytes:
		err = scanTooLarge()
	default:
		data, err = scanUpload(c)
	}
	if err == nil {
		ctx, stop := clientContext(c, h.Ctx(c))
		defer stop()
		var r receipts.Receipt
		if r, err = h.receipts.Scan(ctx, u, data); clientGone(ctx) {
			return nil // nobody to answer
		} else if err == nil {
			v.Result = scanResult(r)
			if a, aerr := h.receipts.AllowanceFor(h.Ctx(c), u); aerr == nil {
				v.Allowance = allowanceText(a)
			}
		}
	}
	if err != nil {
		if v.Result, err = scanPageProblem(err); err != nil {
			return err
		}
	}
	m := h.Meta(c, "Scan a receipt", "holdings")
	return kit.Page(c, http.StatusOK, pages.ScanPage(m, v), pages.ScanResultPart(m, v))
}

// plain renders an amount for an input: digits and a point, no symbols, so it reads back.
func plain(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return d.Decimal.StringFixed(2)
}

// scanResult turns a scan into the page's form.
func scanResult(r receipts.Receipt) *pages.ScanResult {
	out := &pages.ScanResult{Dealer: r.Dealer, OrderNumber: r.OrderNumber, Metals: metals.Names(),
		Confidence: format.Pct(decimal.NewFromFloat(r.TextConfidence * 100)), LowConfidence: r.TextConfidence < 0.6,
		Currency: r.Currency, Currencies: fx.DisplayCurrencies(), CurrencyNote: currencyNote(r), FileNote: apperr.Sentence(r.KeepNote)}
	if r.ScanID > 0 {
		out.ScanID = strconv.FormatInt(r.ScanID, 10)
	}
	if !r.OrderDate.IsZero() {
		out.OrderDate = format.ISODate(r.OrderDate.Time)
	}
	switch r.Source {
	case receipts.KindPDF:
		out.Source = "PDF"
	case receipts.KindText:
		out.Source = "Text"
	default:
		out.Source = "Image, read by OCR"
	}
	if r.Source == receipts.KindPDF && r.TextConfidence < 1 {
		out.Source = "Scanned PDF, read by OCR"
	}
	warn := map[int]map[string]string{}
	for _, w := range r.Warnings {
		if w.Item < 0 {
			switch w.Field {
			case "subtotal", "total", "currency":
			default:
				out.Warnings = append(out.Warnings, apperr.Sentence(w.Message))
			}
			continue
		}
		if warn[w.Item] == nil {
			warn[w.Item] = map[string]string{}
		}
		warn[w.Item][w.Field] = apperr.Sentence(w.Message)
	}
	for i, it := range r.Items {
		row := pages.ScanRow{Index: strconv.Itoa(i), Number: strconv.Itoa(i + 1), Include: true, Metal: string(it.Metal), Product: it.ProductName,
			Quantity: strconv.FormatInt(it.Quantity, 10), UnitPrice: plain(it.UnitPrice), Fees: it.Fees.StringFixed(2), Warn: warn[i]}
		if it.WeightOz.IsPositive() {
			row.WeightOz = it.WeightOz.String()
		}
		row.LineTotal = "—"
		if it.LineTotal.Valid {
			row.LineTotal = format.Money(it.LineTotal.Decimal, r.Currency)
		}
		if p, ok := metals.ProductByID(it.ProductID); ok {
			row.Catalogue = p.Name
		}
		out.Rows = append(out.Rows, row)
	}
	totalWarn := map[string]string{}
	for _, w := range r.Warnings {
		if w.Item < 0 && (w.Field == "subtotal" || w.Field == "total") {
			totalWarn[w.Field] = apperr.Sentence(w.Message)
			out.Warnings = append(out.Warnings, apperr.Sentence(w.Message))
		}
	}
	for _, t := range []struct {
		label, field string
		v            decimal.NullDecimal
	}{{"Subtotal", "subtotal", r.Subtotal}, {"Shipping", "shipping", r.Shipping}, {"Tax", "tax", r.Tax}, {"Fees", "fees", r.Fees}, {"Total", "total", r.Total}} {
		if t.v.Valid {
			out.Totals = append(out.Totals, pages.ScanTotal{Label: t.label, Value: format.Money(t.v.Decimal, r.Currency), Warn: totalWarn[t.field]})
		}
	}
	return out
}

// currencyNote says where the scan's currency came from: read from the receipt, or assumed
// (and why it is worth a look).
func currencyNote(r receipts.Receipt) string {
	if r.CurrencyRead {
		return "Read from the receipt."
	}
	for _, w := range r.Warnings {
		if w.Item < 0 && w.Field == "currency" {
			return "Assumed: " + w.Message + "."
		}
	}
	return "Assumed: the receipt prints no currency, so your display currency is taken. Change it if the receipt was paid in another."
}

// scanFormInput reads the checked form back: the lines ticked to add, as typed.
func scanFormInput(c *fiber.Ctx) (receipts.ConfirmInput, []pages.ScanRow, error) {
	in := receipts.ConfirmInput{Dealer: c.FormValue("dealer"), OrderNumber: c.FormValue("order_number"), OrderDate: c.FormValue("order_date"),
		Currency: c.FormValue("currency")}
	if v := c.FormValue("scan_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 {
			return in, nil, kit.Invalid("scan_id", "the form is incomplete; scan the receipt again")
		}
		in.ScanID = id
	}
	n, err := strconv.Atoi(c.FormValue("rows"))
	if err != nil || n < 0 || n > receipts.MaxItems {
		return in, nil, kit.Invalid("rows", "the form is incomplete; scan the receipt again")
	}
	var rows []pages.ScanRow
	for i := range n {
		k := strconv.Itoa(i)
		row := pages.ScanRow{Index: k, Number: strconv.Itoa(i + 1), Include: c.FormValue("include_"+k) != "", Metal: c.FormValue("metal_" + k), Product: c.FormValue("product_name_" + k),
			Quantity: c.FormValue("quantity_" + k), WeightOz: c.FormValue("weight_oz_" + k), UnitPrice: c.FormValue("unit_price_" + k),
			Fees: c.FormValue("fees_" + k), LineTotal: "—"}
		rows = append(rows, row)
		if row.Include {
			in.Lines = append(in.Lines, receipts.ConfirmLine{Metal: row.Metal, ProductName: row.Product, Quantity: row.Quantity,
				WeightOz: row.WeightOz, UnitPrice: row.UnitPrice, Fees: row.Fees})
		}
	}
	return in, rows, nil
}

// ScanConfirm adds the ticked lines to the member's holdings, all or nothing; on a problem the
// form comes back as typed, with the problems listed by line.
func (h *Handlers) ScanConfirm(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v, err := h.scanView(c, u)
	if err != nil {
		return err
	}
	in, rows, err := scanFormInput(c)
	if err != nil {
		return err
	}
	res, err := h.receipts.Confirm(h.Ctx(c), u, in)
	m := h.Meta(c, "Scan a receipt", "holdings")
	if err == nil {
		v.Done = &pages.ScanDone{Imported: format.Int(int64(res.Imported)), Skipped: format.Int(int64(res.SkippedDuplicates)), KeepNote: apperr.Sentence(res.KeepNote)}
		if res.Imported > 0 {
			v.Done.Currency = res.Currency
		}
		switch {
		case res.Kept > 0 && res.Kept == res.Imported:
			v.Done.Kept = "The receipt is kept with each new holding, under its documents."
		case res.Kept > 0:
			v.Done.Kept = fmt.Sprintf("The receipt is kept with %s of the %s new holdings, under their documents.", format.Int(int64(res.Kept)), format.Int(int64(res.Imported)))
		}
		return kit.Page(c, http.StatusOK, pages.ScanPage(m, v), pages.ScanResultPart(m, v))
	}
	if kit.AsProblem(err).Status >= 500 {
		return err
	}
	r := &pages.ScanResult{Dealer: in.Dealer, OrderNumber: in.OrderNumber, OrderDate: in.OrderDate, Source: "Your corrections",
		Confidence: "—", Rows: rows, Metals: metals.Names(), Currency: strings.ToUpper(strings.TrimSpace(in.Currency)), Currencies: fx.DisplayCurrencies(),
		CurrencyNote: "As you chose."}
	if in.ScanID > 0 {
		r.ScanID = strconv.FormatInt(in.ScanID, 10)
	}
	// Import rows count the ticked lines; name them by their line on the form.
	ticked := []string{}
	for _, row := range rows {
		if row.Include {
			ticked = append(ticked, row.Index)
		}
	}
	if e, ok := apperr.As(err); ok && e.Kind == apperr.Unprocessable {
		list, _ := e.Details["errors"].([]portfolio.ImportRowError)
		for _, x := range list {
			line := strconv.Itoa(x.Row)
			if x.Row-1 < len(ticked) {
				idx, _ := strconv.Atoi(ticked[x.Row-1])
				line = strconv.Itoa(idx + 1)
				if rows[idx].Warn == nil {
					rows[idx].Warn = map[string]string{}
				}
				field := x.Field
				if field == "purchase_price" {
					field = "unit_price"
				}
				rows[idx].Warn[field] = kit.FieldSentence(x.Field, x.Message)
			}
			r.Errors = append(r.Errors, pages.ImportErrorRow{Row: line, Field: strings.ReplaceAll(x.Field, "purchase_price", "unit price"), Message: kit.FieldSentence(x.Field, x.Message)})
		}
	} else {
		r.Errors = append(r.Errors, pages.ImportErrorRow{Row: "—", Field: "form", Message: kit.ErrorSentence(kit.AsProblem(err))})
	}
	v.Result = r
	return kit.Page(c, http.StatusOK, pages.ScanPage(m, v), pages.ScanResultPart(m, v))
}
