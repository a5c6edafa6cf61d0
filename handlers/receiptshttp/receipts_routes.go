package receiptshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/handlers/portfoliohttp"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/receipts"
)

// APIRoutes are the receipt-scanning routes: scan (any member, within the scan limits)
// and confirm (Gold: the lines become holdings).
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/scan-receipt/confirm", Auth: kit.AuthGold, Handler: h.APIScanReceiptConfirm, OperationID: "confirmReceipt", Tag: "Portfolio",
			Summary:     "Add the checked lines of a scanned receipt to your holdings",
			Description: "Send the lines as checked (and corrected) after POST /v1/scan-receipt; each becomes a holding with the order's dealer and date, through the same all-or-nothing import as POST /v1/holdings/import: if any line is invalid nothing is stored and the 422 lists {row, field, message} with rows counted from 1. A line that exactly repeats one of your holdings is skipped and counted, so confirming a receipt twice adds it once. weight_oz is fine troy ounces per unit, unit_price and fees are in currency (the scan's; default your display currency; fees: the line's share of shipping, tax and fees). With scan_id, the scanned photo or PDF is attached to every lot created, as a document (images re-encoded without their metadata; 10 MB per file, 500 MB per member): when it cannot be kept the lots are still added and receipt_note says why.",
			Body:        receiptSchema(ReceiptConfirmJSON{}),
			Responses: []kit.Response{
				{Status: 200, Description: "Added.", Schema: receiptSchema(ReceiptConfirmedJSON{})},
				kit.BodyTooLarge(receiptConfirmMaxBody),
				{Status: 422, Description: "Some lines are invalid; nothing was added. errors lists {row, field, message}.", Schema: portfoliohttp.ImportProblemSchema(), ContentType: "application/problem+json"},
			},
			MaxBody: receiptConfirmMaxBody,
			Example: `POST /v1/scan-receipt/confirm {"dealer":"APMEX","order_date":"2026-03-14","currency":"USD","scan_id":42,"items":[{"metal":"silver","product_name":"1 oz American Silver Eagle","quantity":20,"weight_oz":1,"unit_price":34.10,"fees":0}]}`},
		{Method: "POST", Path: "/v1/scan-receipt", Auth: kit.AuthMember, Handler: h.APIScanReceipt, OperationID: "scanReceipt", Tag: "Portfolio",
			Summary: "Read a dealer receipt (photo, scan, PDF or e-mail text) into proposed holdings",
			Description: "No holding is stored: the answer is a proposal to check, then send to POST /v1/scan-receipt/confirm. The file's type is read from its bytes (PNG, JPEG, PDF or UTF-8 text; HTML e-mails are read as text), never from its name or mime_type. PDFs with text are read directly; images and scanned PDFs by OCR. Images over 40 megapixels or that would expand over 100× when decoded are refused (422), as are PDFs over 20 pages; files over 10 MB are 413. " +
				"Recognises APMEX, JM Bullion, SD Bullion, Monument Metals, Hero Bullion, Bullion Exchanges, Provident Metals and Money Metals Exchange, the order number and date, and each bullion line: metal, quantity, fine weight per unit (oz, fractions, grams, kilos; junk silver by face value), unit price, line total and the catalogue product when one matches, and the currency the receipt prints (symbols, codes and decimal commas such as 1.234,56 €; currency_source says whether it was read or assumed). Where quantity × unit price ≠ line total, or the lines, shipping, tax and fees do not add up to the total, the figures stay as printed and warnings name the field. " +
				"A Gold member's photo or PDF waits with the scan (scan_id, at most 24 hours) to be attached to the lots the confirmation creates. Limits: free accounts 5 scans per 30 days (429 with reset and Retry-After), Gold 60 per hour. 503 when the server lacks the OCR tools.",
			BodyByType: map[string]kit.Schema{
				"multipart/form-data": kit.MultipartFile("The receipt: PNG, JPEG, PDF or text, at most 10 MB."),
				"application/json":    receiptSchema(ScanBodyJSON{}),
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The proposed receipt.", Schema: receiptSchema(ReceiptJSON{})},
				{Status: 413, Description: "The file is over 10 MB."},
				kit.ProblemResponse(422, "The file cannot be read: damaged or truncated, over 40 megapixels, a decompression bomb, two formats at once, or a PDF over 20 pages."),
				{Status: 429, Description: "Scan limit reached (free: 5 per 30 days, Gold: 60 per hour); Retry-After and reset say when the next scan is possible.", Schema: receiptLimitSchema(), ContentType: "application/problem+json"},
				kit.ProblemResponse(503, "The server lacks an OCR tool; detail names the Debian package."),
			},
			MaxBody: scanMaxBody,
			Example: "POST /v1/scan-receipt file=@receipt.pdf"},
	}
}

// receiptSchema generates the schema of a receipts wire struct, with the limits the
// confirmation's validators (receipts and portfolio) check.
func receiptSchema(v any) kit.Schema {
	return kit.SchemaOf(v, kit.Consts{
		"MaxItems": receipts.MaxItems, "MaxOrderNumber": receipts.MaxOrderNumber, "MaxDealer": portfolio.MaxDealer,
		"MaxProductName": portfolio.MaxProductName, "MimeTypes": scanMimeTypes,
		"NumOrText": kit.OneOf("", kit.Schema{"type": "number", "format": "double"}, kit.Schema{"type": "string"}),
	})
}

func receiptLimitSchema() kit.Schema {
	s := kit.ProblemSchema()
	props := kit.Schema{}
	for k, v := range s["properties"].(kit.Schema) {
		props[k] = v
	}
	props["reset"] = kit.Schema{"type": "string", "format": "date-time", "description": "When the next scan is possible (free accounts)."}
	return kit.Schema{"type": "object", "required": s["required"], "properties": props}
}

// Body limits of the scanning routes: a 10 MB file, as base64 JSON (4/3 larger) or multipart,
// with room for the envelope; confirmed lines are small.
const (
	scanMaxBody           = receipts.MaxFileBytes/3*4 + kit.DefaultMaxBody
	receiptConfirmMaxBody = 256 << 10
)
