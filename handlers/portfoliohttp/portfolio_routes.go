package portfoliohttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/custody"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// portfolioRoutes are the /v1 portfolio, analytics, sales and import/export routes.
func (h *Handlers) portfolioRoutes() []kit.APIRoute {
	badQuote := kit.Response{Status: 400, Description: "Unknown currency or unit."}
	badField := kit.Response{Status: 400, Description: "A bad field, named."}
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/portfolio", Auth: kit.AuthGold, Handler: h.APIPortfolio, OperationID: "getPortfolio", Tag: "Portfolio",
			Summary:     "Your stack valued at live spot prices",
			Description: "Value is fine ounces still held × live spot; cost basis is quantity × price + fees, less the share of sold units. The day's change counts only holdings bought before the current trading session. All four metals are always present. Where a held metal has no price, its value and everything derived from it is null and stale is true: prices are never invented.",
			Params:      []kit.Param{CurrencyParam(), UnitParam()},
			Responses:   []kit.Response{{Status: 200, Description: "The portfolio summary.", Schema: pfSchema(PortfolioJSON{})}, badQuote},
			Example:     "GET /v1/portfolio"},
		{Method: "GET", Path: "/v1/portfolio/history", Auth: kit.AuthGold, Handler: h.APIPortfolioHistory, OperationID: "getPortfolioHistory", Tag: "Portfolio",
			Summary:     "Your stack's value over time",
			Description: "For each close in the range: the ounces held on that date (purchases and sales up to it; undated holdings from the day they were recorded) × that date's close (before daily data begins, the month's average, the series GET /v1/prices/history?range=ALL serves), and the cost basis held. At most 500 points, downsampled keeping the curve's shape.",
			Params: []kit.Param{{Name: "range", In: "query", Description: "Window ending today, or at through (the newest close of the metals you hold, stale=true) when that is before today, counted as GET /v1/prices/history counts it; YTD starts on January 1 of the year the window ends in; ALL starts at your first purchase.", Schema: kit.Schema{"type": "string", "enum": pfRangeNames(), "default": string(prices.DefaultRange)}, Example: "1Y"},
				{Name: "from", In: "query", Description: "First day of a window of your own, YYYY-MM-DD (replaces range; the answer's range is custom).", Schema: kit.DateSchema(), Example: "2026-03-01"},
				{Name: "to", In: "query", Description: "Last day of a window of your own, YYYY-MM-DD, not after today (default today).", Schema: kit.DateSchema(), Example: "2026-06-30"}, CurrencyParam()},
			Responses: []kit.Response{{Status: 200, Description: "Value and cost per date, oldest first.", Schema: pfSchema(PortfolioHistoryJSON{})}, {Status: 400, Description: "Unknown range or currency, a bad or reversed date, or range with dates (the field is named)."}},
			Example:   "GET /v1/portfolio/history?range=1Y"},
		{Method: "GET", Path: "/v1/analytics", Auth: kit.AuthGold, Handler: h.APIAnalytics, OperationID: "getAnalytics", Tag: "Portfolio",
			Summary:     "Cost basis, break-even and allocation per metal",
			Description: "break_even_price is the spot price per ounce (per the answer's unit: per gram with unit=g) at which a metal's value equals its remaining cost basis (after sales); distance_to_break_even_pct is how far spot would have to move to reach it. avg_cost_per_oz is over every purchase (sold units included, fees included). avg_premium_pct compares the unit prices paid with the historical spot on each purchase date: total paid ÷ total melt value at those spots − 1, i.e. each purchase's premium weighted by its melt value when bought, not by ounces (fees and zero-cost gifts excluded; null without dated purchases or history).",
			Params:      []kit.Param{CurrencyParam(), UnitParam()},
			Responses:   []kit.Response{{Status: 200, Description: "Analytics per metal and in total.", Schema: pfSchema(AnalyticsJSON{})}, badQuote},
			Example:     "GET /v1/analytics"},
		{Method: "POST", Path: "/v1/holdings/:id/sales", Auth: kit.AuthGold, Handler: h.APISalesCreate, OperationID: "createSale", Tag: "Portfolio",
			Summary:     "Record a sale of some or all units of a holding",
			Description: "The units' cost basis is their share of the holding's remaining cost basis (quantity × price + fees); realized P/L = proceeds − sale fees − that cost basis. Selling more units than are still held is 409.",
			Params:      []kit.Param{kit.PathParam("id", "Holding id.", 64, "h_abc123")},
			Body:        pfSchema(SaleCreateJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "The sale, with its realized profit or loss.", Schema: pfSchema(SaleCreatedJSON{})},
				kit.NotYours("holding"),
				{Status: 409, Description: "More units than are still held."},
				kit.BodyTooLarge(portfolio.MaxHoldingBody),
			},
			Example: `POST /v1/holdings/h_abc123/sales {"quantity":5,"price_per_unit":34.10,"fees":2.50,"sold_on":"2026-11-20"}`},
		{Method: "POST", Path: "/v1/sales", Auth: kit.AuthGold, Handler: h.APIDisposalCreate, OperationID: "createDisposal", Tag: "Portfolio",
			Summary:     "Record a disposal of units of one product across your lots",
			Description: "Units of one product (your lots of the metal with exactly that product name) are taken from lots by the method: fifo (earliest bought first), lifo (latest first), hifo (highest cost per unit first), specific (the lots named in lots), or average (one pool per product: the cost is the pool's average, and the lots left carry it). Only lots bought on or before sold_on count. The disposal is recorded as one slice (a sale) per lot, all or none; each slice's gain is proceeds − its share of the fees − its cost basis, its term short (held one year or less) or long, its category that of your tax_jurisdiction (not tax advice). kind gifted and lost have no proceeds; traded names received. More units than are held is 422. DELETE /v1/sales/{id} with the disposal's id (or any slice's) undoes every slice.",
			Body:        pfSchema(DisposalCreateJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "The disposal with its slices.", Schema: pfSchema(DisposalCreatedJSON{})},
				badField,
				kit.BodyTooLarge(portfolio.MaxHoldingBody),
				kit.ProblemResponse(422, "More units than are held on sold_on (quantity), or lots that are not this product's (lots)."),
			},
			Example: `POST /v1/sales {"product_name":"American Silver Eagle 1 oz","metal":"silver","quantity":20,"price_per_unit":34.10,"fees":2.50,"sold_on":"2026-11-20","method":"hifo"}`},
		{Method: "POST", Path: "/v1/sales/preview", Auth: kit.AuthGold, Handler: h.APIDisposalPreview, OperationID: "previewDisposal", Tag: "Portfolio",
			Summary:     "What a disposal would do under each lot method, nothing stored",
			Description: "The same body as POST /v1/sales; the answer is the disposal as fifo, lifo, hifo and average would record it (lots taken, cost basis, gain, term, category; no ids) and the method with the least gain. Not tax advice.",
			Body:        pfSchema(DisposalCreateJSON{}),
			Responses: []kit.Response{
				{Status: 200, Description: "Each method's disposal.", Schema: pfSchema(DisposalPreviewJSON{})},
				badField,
				kit.ProblemResponse(422, "More units than are held on sold_on."),
			},
			Example: `POST /v1/sales/preview {"product_name":"American Silver Eagle 1 oz","metal":"silver","quantity":20,"price_per_unit":34.10}`},
		{Method: "GET", Path: "/v1/tax/report", Auth: kit.AuthGold, Handler: h.APITaxReport, OperationID: "getTaxReport", Tag: "Portfolio",
			Summary:     "Your gains of one tax year (not tax advice)",
			Description: "Every disposal slice sold in the calendar year: description, dates acquired and disposed, proceeds, cost basis (the sale's fees included), gain, term and the category under your tax_jurisdiction, with totals per category; total equals the realized P/L of the same sales in the same currency. Amounts are in your display currency (or currency): each slice's proceeds and fees at the rate of its sale day, its cost at the rate of its lot's purchase day (the last rate on or before each; exact for amounts already in that currency). format=csv answers the rows in the columns of IRS Form 8949 (description, acquired, sold, proceeds, cost, code, adjustment, gain) and then currency; format=pdf a dated summary to print. Not tax advice.",
			Params: []kit.Param{
				{Name: "year", In: "query", Description: "Calendar year (default this year).", Schema: kit.Schema{"type": "integer", "minimum": portfolio.MinTaxYear, "maximum": portfolio.MaxTaxYear}, Example: "2026"},
				{Name: "format", In: "query", Description: "json (default), csv or pdf.", Schema: kit.Schema{"type": "string", "enum": []string{"json", "csv", "pdf"}, "default": "json"}},
				CurrencyParam(),
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The report: JSON, the Form 8949 CSV or the PDF.", Contents: map[string]kit.Schema{
					"application/json": pfSchema(TaxReportJSON{}),
					"text/csv":         {"type": "string", "description": "A header row description,acquired,sold,proceeds,cost,code,adjustment,gain,currency, then one row per disposal slice."},
					"application/pdf":  {"type": "string", "format": "binary", "description": "A dated summary to print: totals per category, then every row."}}},
				{Status: 400, Description: "A bad year, format or currency."},
			},
			Example: "GET /v1/tax/report?year=2026&format=csv"},
		{Method: "GET", Path: "/v1/sales", Auth: kit.AuthGold, Handler: h.APISalesList, OperationID: "listSales", Tag: "Portfolio",
			Summary: "List your sales, latest first",
			Params: append(kit.PageQuery(), []kit.Param{
				kit.MetalFilter(""),
				{Name: "holding_id", In: "query", Description: "Only sales of this holding.", Schema: kit.Schema{"type": "string", "maxLength": 64}},
			}...),
			Responses: []kit.Response{{Status: 200, Description: "A page of sales and the realized P/L of all of them.", Schema: pfSchema(SalesPageJSON{})}},
			Example:   "GET /v1/sales?limit=20"},
		{Method: "DELETE", Path: "/v1/sales/:id", Auth: kit.AuthGold, Handler: h.APISalesDelete, OperationID: "deleteSale", Tag: "Portfolio",
			Summary:     "Undo a sale",
			Description: "Removes one of your sales (one recorded by mistake): its units, fine ounces and cost basis go back to the holding, and its realized P/L no longer counts. Other sales of the holding keep the cost basis they were recorded with.",
			Params:      []kit.Param{kit.PathParam("id", "Sale id.", 64, "s_abc123")},
			Responses: []kit.Response{
				{Status: 204, Description: "The sale is undone."},
				kit.NotYours("sale"),
			},
			Example: "DELETE /v1/sales/s_abc123"},
		{Method: "GET", Path: "/v1/holdings/export", Auth: kit.AuthGold, Handler: h.APIHoldingsExport, OperationID: "exportHoldings", Tag: "Portfolio",
			Summary:     "Download every holding as CSV or JSON",
			Description: "format=csv (default) answers text/csv with a header row of the importable fields (metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes), so an export imports back unchanged; text cells that a spreadsheet would run as a formula are prefixed with an apostrophe, which import removes. When you have sales, a second section follows the holdings: a header row sale_of_row,quantity,price_per_unit,fees,sold_on and one row per sale in the order recorded (both padded with empty cells to the holdings' width, so every row has as many cells), sale_of_row naming the holding by its data row (1 = first row after the header). Importing that file into an empty account reproduces holdings, sales, realized P/L and analytics exactly. format=json answers the JSON below, which also carries ids, sold quantities and each lot's sales nested. format=zip answers a ZIP (streamed) holding holdings.csv (the same bytes as format=csv), locations.csv (id,name,kind,insured_value,notes), every document as documents/<row>/<n>-<name>, and manifest.json ({format: \"ounce-archive\", version: 1, lots: [{row, location, tags}], documents: [{row, path, name, content_type}]}) naming each lot by its CSV data row, since ids change on import; POST /v1/holdings/import restores it.",
			Params:      []kit.Param{{Name: "format", In: "query", Description: "csv, json or zip.", Schema: kit.Schema{"type": "string", "enum": []string{"csv", "json", "zip"}, "default": "csv"}}},
			Responses: []kit.Response{{Status: 200, Description: "The holdings, oldest purchase first: text/csv for format=csv, application/json for format=json, application/zip for format=zip.",
				Contents: map[string]kit.Schema{"text/csv": {"type": "string", "description": "A header row, then one row per holding."}, "application/json": pfSchema(ExportJSON{}),
					"application/zip": {"type": "string", "format": "binary", "description": "holdings.csv, locations.csv, manifest.json and documents/."}}}},
			Example: "GET /v1/holdings/export?format=csv"},
		{Method: "POST", Path: "/v1/holdings/import", Auth: kit.AuthGold, Handler: h.APIHoldingsImport, OperationID: "importHoldings", Tag: "Portfolio",
			Summary:     "Import holdings from CSV, all or nothing",
			Description: "Send the CSV as the body (Content-Type: text/csv) or as the multipart field file. The first row names the columns, in any order, from: metal, product_name, quantity, weight_oz, purchase_price, fees, dealer, purchase_date, notes (metal, quantity, weight_oz and purchase_price are required). Each row is validated like POST /v1/holdings; if any row is bad nothing is stored and the 422 lists every problem as {row, field, message}, rows counted from 1 after the header. Rows that exactly repeat one of your holdings (or an earlier row) on metal, product, quantity, weight, price, fees, dealer and date are skipped and counted. An optional sales section (as export writes it) follows the holdings: a header row starting with sale_of_row (columns sale_of_row, quantity, price_per_unit required; fees, sold_on optional), then one sale per row, recorded in file order with cost basis and realized P/L computed as for POST /v1/holdings/{id}/sales; sales of a skipped duplicate are skipped with it. At most 10,000 rows and 5 MiB. A ZIP made by GET /v1/holdings/export?format=zip (told from its bytes, as the body with Content-Type application/zip or in the field file) restores its holdings and sales as above, its locations (one of yours with the same name is reused), each lot's location and tags, and its documents, each checked like an upload (type from its bytes, 10 MB each, 500 MB in all with yours); a ZIP with more than 5,000 entries, an entry outside it (../), or unpacking past its limits is refused with 422 naming file, and on any error nothing is stored.",
			BodyByType: map[string]kit.Schema{
				"text/csv":            {"type": "string", "description": "The CSV text."},
				"application/zip":     {"type": "string", "format": "binary", "description": "A ZIP export."},
				"multipart/form-data": kit.MultipartFile("The CSV file."),
			},
			Responses: []kit.Response{
				{Status: 200, Description: "Imported.", Schema: pfSchema(ImportedJSON{})},
				{Status: 413, Description: "More than 10,000 rows or 5 MiB of CSV, a ZIP over 64 MiB (upload larger documents per lot), or documents past your 500 MB."},
				{Status: 422, Description: "Some rows are invalid; nothing was imported. errors lists {row, field, message}.", Schema: ImportProblemSchema(), ContentType: "application/problem+json"},
			},
			Example: "POST /v1/holdings/import @holdings.csv", MaxBody: archiveMaxBody},
	}
}

// PageRoutes are the dashboard's own browser routes (fragments, sales, import, export).
// Every one is for Gold members: web shows others the membership page before the handler runs.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthGold, []kit.PageRoute{
		{Method: "GET", Path: "/holdings", Handler: h.HoldingsIndex},
		{Method: "GET", Path: "/holdings/new", Handler: h.HoldingsNew},
		{Method: "GET", Path: "/holdings/sales", Handler: h.SalesIndex},
		{Method: "GET", Path: "/holdings/sales/:id/undo", Handler: h.SaleUndoConfirm},
		{Method: "POST", Path: "/holdings/sales/:id/undo", Handler: h.SaleUndo},
		{Method: "POST", Path: "/holdings", Handler: h.HoldingsSave},
		{Method: "GET", Path: "/holdings/:id/edit", Handler: h.HoldingsEdit},
		{Method: "POST", Path: "/holdings/:id", Handler: h.HoldingsSave},
		{Method: "GET", Path: "/holdings/:id/delete", Handler: h.HoldingsDeleteConfirm},
		{Method: "POST", Path: "/holdings/:id/delete", Handler: h.HoldingsDelete},
		{Method: "GET", Path: "/dashboard/summary", Handler: h.DashboardSummary},
		{Method: "GET", Path: "/dashboard/holdings", Handler: h.DashboardHoldings},
		{Method: "GET", Path: "/dashboard/chart", Handler: h.DashboardChart},
		{Method: "GET", Path: "/tax", Handler: h.TaxPage},
		{Method: "POST", Path: "/tax/preview", Handler: h.TaxPreview},
		{Method: "POST", Path: "/tax/sell", Handler: h.TaxSell},
		{Method: "GET", Path: "/holdings/:id/sell", Handler: h.SaleForm},
		{Method: "POST", Path: "/holdings/:id/sell", Handler: h.SaleSubmit},
		{Method: "GET", Path: "/portfolio/import", Handler: h.ImportPage},
		{Method: "POST", Path: "/portfolio/import/preview", Handler: h.ImportPreviewSubmit, MaxBody: archiveMaxBody},
		{Method: "POST", Path: "/portfolio/import", Handler: h.ImportCommit, MaxBody: importCommitMaxBody},
		{Method: "GET", Path: "/portfolio/export", Handler: h.ExportDownload},
	})
}

// Import bodies are the one place a large upload is expected: the CSV itself (at most
// portfolio.MaxImportBytes, plus room for a multipart envelope), and on the confirm step the
// same file carried back in base64 (four bytes for every three).
const (
	importMaxBody       = portfolio.MaxImportBytes + kit.DefaultMaxBody
	archiveMaxBody      = custody.MaxArchiveBytes + kit.DefaultMaxBody
	importCommitMaxBody = portfolio.MaxImportBytes/3*4 + kit.DefaultMaxBody
)

func pfRangeNames() []string {
	out := make([]string, len(portfolio.Ranges))
	for i, r := range portfolio.Ranges {
		out[i] = string(r)
	}
	return out
}
