package receiptshttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/handlers/portfoliohttp"
	"github.com/ouncehq/ounce/internal/receipts"
)

// APIRoutes are the receipt-scanning routes: scan (any member, within the scan limits)
// and confirm (Gold: the lines become holdings).
func (h *Handlers) APIRoutes() []kit.APIRoute {
	return []kit.APIRoute{
		{Method: "POST", Path: "/v1/scan-receipt/confirm", Auth: kit.AuthGold, Handler: h.APIScanReceiptConfirm, OperationID: "confirmReceipt", Tag: "Portfolio",
			Summary:     "Add the checked lines of a scanned receipt to your holdings",
			Description: "Send the lines as checked (and corrected) after POST /v1/scan-receipt; each becomes a holding with the order's dealer and date, through the same all-or-nothing import as POST /v1/holdings/import: if any line is invalid nothing is stored and the 422 lists {row, field, message} with rows counted from 1. A line that exactly repeats one of your holdings is skipped and counted, so confirming a receipt twice adds it once. weight_oz is fine troy ounces per unit, unit_price and fees are USD (fees: the line's share of shipping, tax and fees).",
			Body:        receiptConfirmSchema(),
			Responses: []kit.Response{
				{Status: 200, Description: "Added.", Schema: kit.ClosedObject(kit.Schema{"imported": kit.IntSchema(), "skipped_duplicates": kit.IntSchema()})},
				{Status: 413, Description: "Body over 256 KiB."},
				{Status: 422, Description: "Some lines are invalid; nothing was added. errors lists {row, field, message}.", Schema: portfoliohttp.ImportProblemSchema(), ContentType: "application/problem+json"},
			},
			MaxBody: receiptConfirmMaxBody,
			Example: `POST /v1/scan-receipt/confirm {"dealer":"APMEX","order_date":"2026-03-14","items":[{"metal":"silver","product_name":"1 oz American Silver Eagle","quantity":20,"weight_oz":1,"unit_price":34.10,"fees":0}]}`},
		{Method: "POST", Path: "/v1/scan-receipt", Auth: kit.AuthMember, Handler: h.APIScanReceipt, OperationID: "scanReceipt", Tag: "Portfolio",
			Summary: "Read a dealer receipt (photo, scan, PDF or e-mail text) into proposed holdings",
			Description: "Nothing is stored: the answer is a proposal to check, then send to POST /v1/scan-receipt/confirm. The file's type is read from its bytes (PNG, JPEG, PDF or UTF-8 text; HTML e-mails are read as text), never from its name or mime_type. PDFs with text are read directly; images and scanned PDFs by OCR. Images over 40 megapixels or that would expand over 100× when decoded are refused (422), as are PDFs over 20 pages; files over 10 MB are 413. " +
				"Recognises APMEX, JM Bullion, SD Bullion, Monument Metals, Hero Bullion, Bullion Exchanges, Provident Metals and Money Metals Exchange, the order number and date, and each bullion line: metal, quantity, fine weight per unit (oz, fractions, grams, kilos; junk silver by face value), unit price, line total and the catalogue product when one matches. Where quantity × unit price ≠ line total, or the lines, shipping, tax and fees do not add up to the total, the figures stay as printed and warnings name the field. " +
				"Limits: free accounts 5 scans per 30 days (429 with reset and Retry-After), Gold 60 per hour. 503 when the server lacks the OCR tools.",
			BodyByType: map[string]kit.Schema{
				"multipart/form-data": {"type": "object", "required": []string{"file"}, "properties": kit.Schema{"file": kit.Schema{"type": "string", "format": "binary", "description": "The receipt: PNG, JPEG, PDF or text, at most 10 MB."}}},
				"application/json": {"type": "object", "required": []string{"image_base64"}, "additionalProperties": false, "properties": kit.Schema{
					"image_base64": kit.Schema{"type": "string", "description": "The file, base64 (standard or URL alphabet; a data: URL is accepted)."},
					"mime_type":    kit.Schema{"type": "string", "enum": scanMimeTypes, "description": "A hint only: the type is read from the bytes."},
				}},
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The proposed receipt.", Schema: receiptSchema()},
				{Status: 413, Description: "The file is over 10 MB."},
				{Status: 422, Description: "The file cannot be read: damaged or truncated, over 40 megapixels, a decompression bomb, two formats at once, or a PDF over 20 pages.", Schema: kit.ProblemSchema(), ContentType: "application/problem+json"},
				{Status: 429, Description: "Scan limit reached (free: 5 per 30 days, Gold: 60 per hour); Retry-After and reset say when the next scan is possible.", Schema: receiptLimitSchema(), ContentType: "application/problem+json"},
				{Status: 503, Description: "The server lacks an OCR tool; detail names the Debian package.", Schema: kit.ProblemSchema(), ContentType: "application/problem+json"},
			},
			MaxBody: scanMaxBody,
			Example: "POST /v1/scan-receipt file=@receipt.pdf"},
	}
}

func receiptConfirmSchema() kit.Schema {
	num := func(desc string) kit.Schema {
		return kit.Schema{"oneOf": []kit.Schema{{"type": "number", "format": "double"}, {"type": "string"}}, "description": desc}
	}
	return kit.Schema{"type": "object", "required": []string{"items"}, "additionalProperties": false, "properties": kit.Schema{
		"dealer":       kit.Schema{"type": "string", "maxLength": 120},
		"order_number": kit.Schema{"type": "string", "maxLength": 60},
		"order_date":   kit.Schema{"type": "string", "format": "date", "description": "YYYY-MM-DD; every lot gets it."},
		"items": kit.Schema{"type": "array", "minItems": 1, "maxItems": receipts.MaxItems, "items": kit.Schema{"type": "object", "additionalProperties": false,
			"required": []string{"metal", "quantity", "weight_oz", "unit_price"}, "properties": kit.Schema{
				"metal":        kit.MetalSchema(),
				"product_name": kit.Schema{"type": "string", "maxLength": 200},
				"quantity":     num("Whole units, at least 1."),
				"weight_oz":    num("Fine troy ounces per unit."),
				"unit_price":   num("USD per unit."),
				"fees":         num("USD: the line's share of shipping, tax and fees."),
			}}},
	}}
}

func receiptSchema() kit.Schema {
	nstr := func(desc string) kit.Schema {
		return kit.Schema{"type": "string", "nullable": true, "description": desc}
	}
	return kit.ClosedObject(kit.Schema{
		"dealer":       nstr("One of the recognised dealers, or null."),
		"order_number": nstr("The order, invoice or confirmation number, or null."),
		"order_date":   kit.NullDateSchema("The order date, or null."),
		"items": kit.Schema{"type": "array", "items": kit.Schema{"type": "object", "additionalProperties": false,
			"required": []string{"product_name", "metal", "quantity", "weight_oz", "unit_price", "line_total", "fees"}, "properties": kit.Schema{
				"product_name": kit.Schema{"type": "string"},
				"metal":        kit.Schema{"type": "string", "nullable": true, "enum": []any{"gold", "silver", "platinum", "palladium", nil}},
				"quantity":     kit.Schema{"type": "integer", "minimum": 1},
				"weight_oz":    kit.NullNumSchema("Fine troy ounces per unit (junk silver: the unit's face value × 0.715 for 90 %); null when unread."),
				"unit_price":   kit.NullNumSchema("USD per unit as printed; null when the receipt shows none."),
				"line_total":   kit.NullNumSchema("USD as printed; null when the receipt shows none."),
				"product_id":   kit.Schema{"type": "string", "description": "The catalogue product the line matched; absent when none did."},
				"fees":         kit.NumSchema("The line's share of shipping, tax and fees by value, USD (for the lot's cost basis)."),
			}}},
		"subtotal":        kit.NullNumSchema("As printed, or null."),
		"shipping":        kit.NullNumSchema("As printed (FREE is 0), or null."),
		"tax":             kit.NullNumSchema("As printed, or null."),
		"fees":            kit.NullNumSchema("Card, processing and other fees as printed, or null."),
		"total":           kit.NullNumSchema("As printed, or null."),
		"warnings":        kit.Schema{"type": "array", "items": kit.ClosedObject(kit.Schema{"field": kit.Schema{"type": "string", "description": "total, subtotal, order_date, items, or items[i].<field>."}, "message": kit.Schema{"type": "string"}})},
		"text_confidence": kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 1, "description": "1 for a PDF's or e-mail's own text; OCR's mean word confidence for images."},
		"source":          kit.Schema{"type": "string", "enum": []string{"pdf", "png", "jpeg", "text"}},
		"pages":           kit.IntSchema(),
		"scans_left":      kit.Schema{"type": "integer", "description": "Scans left in the current window (free: 30 days, Gold: an hour)."},
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
