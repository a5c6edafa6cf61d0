package receiptshttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/handlers/portfoliohttp"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/receipts"
)

// ReceiptItemJSON is one proposed line of a scanned receipt.
type ReceiptItemJSON struct {
	ProductName string   `json:"product_name"`
	Metal       *string  `json:"metal" schema:"enum=metals,enumNull"`
	Quantity    int64    `json:"quantity" schema:"min=1"`
	WeightOz    *kit.Num `json:"weight_oz" doc:"Fine troy ounces per unit (junk silver: the unit's face value × 0.715 for 90 %); null when unread."`
	UnitPrice   *kit.Num `json:"unit_price" doc:"Per unit as printed, in currency; null when the receipt shows none."`
	LineTotal   *kit.Num `json:"line_total" doc:"As printed, in currency; null when the receipt shows none."`
	ProductID   *string  `json:"product_id,omitempty" doc:"The catalogue product the line matched; absent when none did."`
	Fees        kit.Num  `json:"fees" doc:"The line's share of shipping, tax and fees by value, in currency (for the lot's cost basis)."`
}

// ReceiptWarningJSON is one thing to check: the field's path and why.
type ReceiptWarningJSON struct {
	Field   string `json:"field" doc:"total, subtotal, order_date, items, or items[i].<field>."`
	Message string `json:"message"`
}

// ReceiptJSON is the body of POST /v1/scan-receipt.
type ReceiptJSON struct {
	Dealer         *string              `json:"dealer" doc:"One of the recognised dealers, or null."`
	OrderNumber    *string              `json:"order_number" doc:"The order, invoice or confirmation number, or null."`
	OrderDate      *string              `json:"order_date" schema:"format=date" doc:"The order date, or null."`
	Items          []ReceiptItemJSON    `json:"items"`
	Subtotal       *kit.Num             `json:"subtotal" doc:"As printed, or null."`
	Shipping       *kit.Num             `json:"shipping" doc:"As printed (FREE is 0), or null."`
	Tax            *kit.Num             `json:"tax" doc:"As printed, or null."`
	Fees           *kit.Num             `json:"fees" doc:"Card, processing and other fees as printed, or null."`
	Total          *kit.Num             `json:"total" doc:"As printed, or null."`
	Warnings       []ReceiptWarningJSON `json:"warnings"`
	TextConfidence kit.Num              `json:"text_confidence" schema:"min=0,max=1" doc:"1 for a PDF's or e-mail's own text; OCR's mean word confidence for images."`
	Source         string               `json:"source" schema:"enum=pdf|png|jpeg|text"`
	Pages          int                  `json:"pages"`
	ScansLeft      int                  `json:"scans_left" doc:"Scans left in the current window (free: 30 days, Gold: an hour)."`
	Currency       string               `json:"currency" schema:"optional" doc:"The ISO 4217 code the amounts are in: as printed on the receipt (€, £, CHF, \"Total (EUR)\", …; a bare $ is US dollars), else your display currency."`
	CurrencySource string               `json:"currency_source" schema:"optional,enum=receipt|assumed" doc:"receipt: the currency was read from the receipt; assumed: none was printed (or only a $ while you count in another dollar), so your display currency was taken: check it."`
	ScanID         *int64               `json:"scan_id" schema:"optional" doc:"Send it with the confirmation to keep this file on the lots it creates (Gold; a scan's file waits at most 24 hours). Null when the file is not kept: see file_note."`
	FileNote       *string              `json:"file_note" schema:"optional" doc:"Why the file will not be kept with the lots (a text receipt), or null."`
}

func optText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optNum(d decimal.NullDecimal) *kit.Num {
	if !d.Valid {
		return nil
	}
	n := kit.Money(d.Decimal)
	return &n
}

func receiptJSON(r receipts.Receipt) ReceiptJSON {
	out := ReceiptJSON{Dealer: optText(r.Dealer), OrderNumber: optText(r.OrderNumber), OrderDate: kit.DateOrNull(r.OrderDate),
		Items: make([]ReceiptItemJSON, len(r.Items)), Subtotal: optNum(r.Subtotal), Shipping: optNum(r.Shipping), Tax: optNum(r.Tax),
		Fees: optNum(r.Fees), Total: optNum(r.Total), Warnings: make([]ReceiptWarningJSON, len(r.Warnings)),
		TextConfidence: kit.Num{D: decimal.NewFromFloat(r.TextConfidence).Round(2), Places: 2}, Source: string(r.Source), Pages: r.Pages, ScansLeft: r.ScansLeft,
		Currency: r.Currency, CurrencySource: "assumed", FileNote: optText(r.KeepNote)}
	if r.CurrencyRead {
		out.CurrencySource = "receipt"
	}
	if r.ScanID > 0 {
		id := r.ScanID
		out.ScanID = &id
	}
	for i, it := range r.Items {
		j := ReceiptItemJSON{ProductName: it.ProductName, Metal: optText(string(it.Metal)), Quantity: it.Quantity,
			UnitPrice: optNum(it.UnitPrice), LineTotal: optNum(it.LineTotal), ProductID: optText(it.ProductID), Fees: kit.Money(it.Fees)}
		if it.WeightOz.IsPositive() {
			w := kit.Ounces(it.WeightOz)
			j.WeightOz = &w
		}
		out.Items[i] = j
	}
	for i, w := range r.Warnings {
		out.Warnings[i] = ReceiptWarningJSON{Field: w.Path(), Message: w.Message}
	}
	return out
}

// scanTooLarge is the 413 of an upload over 10 MB.
func scanTooLarge() error {
	return apperr.New(apperr.TooLarge, "the file is larger than %d MB", receipts.MaxFileBytes>>20)
}

// scanUpload reads the file of a scan: the multipart field file, or JSON {image_base64,
// mime_type}. The route table's body limit is the app's (16 MiB), so the 10 MB file limit is
// enforced here. The declared type is only checked for sense: the service sniffs the bytes.
func scanUpload(c *fiber.Ctx) ([]byte, error) {
	ct := strings.ToLower(c.Get(fiber.HeaderContentType))
	switch {
	case strings.HasPrefix(ct, "multipart/form-data"):
		data, _, err := kit.UploadedFile(c, "file", "is required: send the receipt in the multipart field file", receipts.MaxFileBytes, scanTooLarge())
		return data, err
	case strings.HasPrefix(ct, "application/json"):
		return scanJSON(c.Body())
	}
	return nil, kit.Invalid("Content-Type", "must be multipart/form-data with the file in the field file, or application/json with image_base64")
}

// ScanBodyJSON is the JSON body of POST /v1/scan-receipt.
type ScanBodyJSON struct {
	ImageBase64 *string `json:"image_base64" schema:"notnull" doc:"The file, base64 (standard or URL alphabet; a data: URL is accepted)."`
	MimeType    *string `json:"mime_type" schema:"optional,notnull,enum=MimeTypes" doc:"A hint only: the type is read from the bytes."`
}

// scanMimeTypes are the mime_type values a JSON scan may declare.
var scanMimeTypes = []string{"image/png", "image/jpeg", "application/pdf", "text/plain"}

func scanJSON(body []byte) ([]byte, error) {
	if len(body) > receipts.MaxFileBytes*4/3+4096 {
		return nil, scanTooLarge()
	}
	var in ScanBodyJSON
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, kit.Invalid("body", "must be a JSON object {image_base64, mime_type}: "+jsonErr(err))
	}
	if in.MimeType != nil && *in.MimeType != "" {
		ok := false
		for _, m := range scanMimeTypes {
			ok = ok || strings.EqualFold(strings.TrimSpace(*in.MimeType), m)
		}
		if !ok {
			return nil, kit.Invalid("mime_type", "must be one of "+strings.Join(scanMimeTypes, ", ")+" (the type is read from the bytes either way)")
		}
	}
	if in.ImageBase64 == nil || strings.TrimSpace(*in.ImageBase64) == "" {
		return nil, kit.Invalid("image_base64", "is required: the file, base64-encoded")
	}
	s := strings.TrimSpace(*in.ImageBase64)
	if strings.HasPrefix(s, "data:") {
		// A data URL as browsers make them: data:image/png;base64,....
		if i := strings.Index(s, ","); i > 0 {
			s = s[i+1:]
		}
	}
	s = strings.TrimRight(s, "=")
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	data, err := enc.DecodeString(s)
	if err != nil {
		return nil, kit.Invalid("image_base64", "is not valid base64")
	}
	if len(data) > receipts.MaxFileBytes {
		return nil, scanTooLarge()
	}
	return data, nil
}

func jsonErr(err error) string {
	msg := err.Error()
	return strings.TrimPrefix(msg, "json: ")
}

// APIScanReceipt answers POST /v1/scan-receipt.
func (h *Handlers) APIScanReceipt(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	data, err := scanUpload(c)
	if err != nil {
		return err
	}
	ctx, stop := clientContext(c, h.Ctx(c))
	defer stop()
	r, err := h.receipts.Scan(ctx, u, data)
	if err != nil {
		if clientGone(ctx) {
			return nil // nobody to answer
		}
		return err
	}
	return kit.PrivateJSON(c, http.StatusOK, receiptJSON(r))
}

// wireText accepts a JSON string or number (or null) as its text, so prices and quantities
// can be sent either way and stay exact.
type wireText string

// UnmarshalJSON implements json.Unmarshaler.
func (w *wireText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*w = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*w = wireText(s)
	case len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9'):
		*w = wireText(b)
	default:
		return errors.New("must be a string or a number")
	}
	return nil
}

// ReceiptConfirmJSON is the body of POST /v1/scan-receipt/confirm.
type ReceiptConfirmJSON struct {
	Dealer      string `json:"dealer" schema:"optional,maxLength=MaxDealer"`
	OrderNumber string `json:"order_number" schema:"optional,maxLength=MaxOrderNumber"`
	OrderDate   string `json:"order_date" schema:"optional,format=date" doc:"YYYY-MM-DD; every lot gets it."`
	Currency    string `json:"currency" schema:"optional" doc:"ISO 4217 code of the prices and fees (the scan's currency); every lot is bought in it. Default: your display currency."`
	ScanID      int64  `json:"scan_id" schema:"optional,min=1" doc:"The scan's scan_id: its file is attached to each lot created (Gold documents, within their limits). If it cannot be kept the lots are still added and receipt_note says why."`
	Items       []struct {
		Metal       string   `json:"metal" schema:"enum=metals"`
		ProductName string   `json:"product_name" schema:"optional,maxLength=MaxProductName"`
		Quantity    wireText `json:"quantity" schema:"use=NumOrText" doc:"Whole units, at least 1."`
		WeightOz    wireText `json:"weight_oz" schema:"use=NumOrText" doc:"Fine troy ounces per unit."`
		UnitPrice   wireText `json:"unit_price" schema:"use=NumOrText" doc:"Per unit, in currency."`
		Fees        wireText `json:"fees" schema:"optional,use=NumOrText" doc:"In currency: the line's share of shipping, tax and fees."`
	} `json:"items" schema:"minItems=1,maxItems=MaxItems"`
}

// APIScanReceiptConfirm answers POST /v1/scan-receipt/confirm: the checked lines become
// holdings, all or nothing.
func (h *Handlers) APIScanReceiptConfirm(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	if len(c.Body()) > 256<<10 {
		return apperr.New(apperr.TooLarge, "body larger than 256 KiB")
	}
	var in ReceiptConfirmJSON
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return kit.Invalid("body", "must be a JSON object {dealer, order_number, order_date, items}: "+jsonErr(err))
	}
	ci := receipts.ConfirmInput{Dealer: in.Dealer, OrderNumber: in.OrderNumber, OrderDate: in.OrderDate, Currency: in.Currency, ScanID: in.ScanID}
	for _, it := range in.Items {
		ci.Lines = append(ci.Lines, receipts.ConfirmLine{Metal: it.Metal, ProductName: it.ProductName, Quantity: string(it.Quantity),
			WeightOz: string(it.WeightOz), UnitPrice: string(it.UnitPrice), Fees: string(it.Fees)})
	}
	res, err := h.receipts.Confirm(h.Ctx(c), u, ci)
	if err != nil {
		return portfoliohttp.ImportWireError(err)
	}
	return kit.WriteJSON(c, http.StatusOK, confirmJSON(res))
}

// ReceiptConfirmedJSON is the body of POST /v1/scan-receipt/confirm.
type ReceiptConfirmedJSON struct {
	Imported          int      `json:"imported"`
	SkippedDuplicates int      `json:"skipped_duplicates"`
	HoldingIDs        []string `json:"holding_ids" schema:"optional" doc:"The ids of the holdings created."`
	Currency          *string  `json:"currency" schema:"optional" doc:"The ISO 4217 code the new lots were bought in."`
	ReceiptKept       int      `json:"receipt_kept" schema:"optional" doc:"How many of the new lots the scan's file was attached to (GET /v1/holdings/{id}/documents)."`
	ReceiptNote       *string  `json:"receipt_note" schema:"optional" doc:"Why the file was not kept on the lots (gone after 24 hours, refused, your documents full), or null. The lots are added either way."`
}

func confirmJSON(res receipts.ConfirmResult) ReceiptConfirmedJSON {
	return ReceiptConfirmedJSON{Imported: res.Imported, SkippedDuplicates: res.SkippedDuplicates, HoldingIDs: res.HoldingIDs,
		Currency: optText(res.Currency), ReceiptKept: res.Kept, ReceiptNote: optText(res.KeepNote)}
}
