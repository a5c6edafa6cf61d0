package portfoliohttp

import (
	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"

	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// JSON schemas of the portfolio area, generated from the wire structs (see kit.SchemaOf).
// Routes inline them (so each route's document stands on its own); Schemas also publishes
// the main ones as named components.

// pfConsts are the limits the portfolio validators check, as the schema tags name them.
func pfConsts() kit.Consts {
	return kit.Consts{
		"MaxQuantity": portfolio.MaxQuantity, "MaxProductName": portfolio.MaxProductName, "MaxDealer": portfolio.MaxDealer,
		"MaxNotes": portfolio.MaxNotes, "MaxWeightOz": portfolio.MaxWeightOz, "MaxPrice": portfolio.MaxPrice,
		"MaxWeightDecimals": portfolio.MaxWeightDecimals, "Ranges": append(pfRangeNames(), string(portfolio.RangeCustom)),
		"currencies": fx.DisplayCurrencies(), "units": metals.UnitNames(),
		"LotMethods": account.LotMethods, "DisposalKinds": portfolio.DisposalKinds, "PreviewMethods": portfolio.PreviewMethods,
		"Terms": []string{portfolio.TermShort, portfolio.TermLong}, "Jurisdictions": account.TaxJurisdictions,
		"Categories": []string{portfolio.CategoryShort, portfolio.CategoryLong, portfolio.CategoryCollectible, portfolio.CategoryExempt, portfolio.CategoryTaxFree},
	}
}

// pfSchema generates the schema of a portfolio wire struct.
func pfSchema(v any) kit.Schema { return kit.SchemaOf(v, pfConsts()) }

// HoldingCreateJSON is the body of POST /v1/holdings (fields as portfolio.HoldingFields);
// portfolio.ParseHoldingJSON reads it and checks the limits named here.
type HoldingCreateJSON struct {
	Metal         string  `json:"metal" schema:"enum=metals"`
	ProductName   string  `json:"product_name" schema:"optional,maxLength=MaxProductName"`
	Quantity      int64   `json:"quantity" schema:"min=1,max=MaxQuantity" doc:"Number of units."`
	WeightOz      kit.Num `json:"weight_oz" schema:"optional,exclusiveMin,min=0,max=MaxWeightOz" doc:"Fine troy ounces per unit (up to {MaxWeightDecimals} decimals); required unless weight is given."`
	PurchasePrice kit.Num `json:"purchase_price" schema:"min=0,max=MaxPrice" doc:"Price per unit in USD (cents)."`
	Fees          kit.Num `json:"fees" schema:"optional,min=0,max=MaxPrice" doc:"Tax and shipping for the whole line, USD."`
	Dealer        string  `json:"dealer" schema:"optional,maxLength=MaxDealer"`
	PurchaseDate  *string `json:"purchase_date" schema:"optional,format=date" doc:"YYYY-MM-DD, not in the future."`
	Notes         string  `json:"notes" schema:"optional,maxLength=MaxNotes"`
	// Issue 25: the lot's currency and the weight as entered.
	PurchaseCurrency string   `json:"purchase_currency" schema:"optional,enum=currencies" doc:"ISO 4217 code purchase_price and fees are in; default the member's display currency."`
	Weight           *kit.Num `json:"weight" schema:"optional,exclusiveMin,min=0" doc:"Weight per unit in weight_unit, kept exactly as entered (100 g stays 100 g); weight_oz becomes its troy-ounce equivalent to {MaxWeightDecimals} decimals."`
	WeightUnit       string   `json:"weight_unit" schema:"optional,enum=units" doc:"Unit of weight: oz (default), g, kg or tola (11.6638038 g)."`
	// Custody (issue 28).
	LocationID *string  `json:"location_id" schema:"optional" doc:"One of your locations (GET /v1/locations), or null for unassigned; a PATCH that changes it records a transfer dated today (POST /v1/holdings/{id}/move dates and notes one). Not yours: 400 naming location_id."`
	Tags       []string `json:"tags" schema:"optional" doc:"Up to 20 tags of at most 40 letters, digits, spaces and - . /; stored lower case, duplicates dropped."`
}

// SaleCreateJSON is the body of POST /v1/holdings/{id}/sales (fields as portfolio.SaleFields).
type SaleCreateJSON struct {
	Quantity     int64   `json:"quantity" schema:"min=1,max=MaxQuantity" doc:"Units sold; at most the units still held."`
	PricePerUnit kit.Num `json:"price_per_unit" schema:"min=0,max=MaxPrice" doc:"Sale price per unit, USD (cents)."`
	Fees         kit.Num `json:"fees" schema:"optional,min=0,max=MaxPrice" doc:"Fees and shipping paid on the sale, USD."`
	SoldOn       string  `json:"sold_on" schema:"optional,format=date" doc:"YYYY-MM-DD; default today; not before the purchase date or in the future."`
	Currency     string  `json:"currency" schema:"optional,enum=currencies" doc:"ISO 4217 code of price_per_unit and fees: the holding's purchase_currency (the default; another code is refused)."`
}

// ImportProblemJSON documents the 422 of an import: a problem whose errors name rows.
type ImportProblemJSON struct {
	_          struct{}             `schema:"open"`
	Type       string               `json:"type"`
	Title      string               `json:"title"`
	Status     int                  `json:"status"`
	Detail     string               `json:"detail,omitempty"`
	Errors     []ImportRowErrorJSON `json:"errors"`
	ErrorCount int                  `json:"error_count,omitempty" doc:"Problems found in total (errors lists at most 1,000)."`
	Field      string               `json:"field,omitempty" doc:"file when the problem is a ZIP import's archive itself (an entry outside it, too many or too large entries, a refused document); errors is then empty and detail says what."`
}

// ImportProblemSchema is the schema of an import's 422 (the receipts import answers it too).
func ImportProblemSchema() kit.Schema { return pfSchema(ImportProblemJSON{}) }

// HoldingSchemas are the holding components, which the MCP tools share.
func HoldingSchemas() map[string]kit.Schema {
	return map[string]kit.Schema{
		"Holding":       pfSchema(HoldingJSON{}),
		"HoldingCreate": pfSchema(HoldingCreateJSON{}),
		"HoldingPatch":  kit.PatchOf(HoldingCreateJSON{}, pfConsts()),
	}
}

// Schemas are the named schemas of the portfolio area, for the OpenAPI components.
func (h *Handlers) Schemas() map[string]kit.Schema {
	return map[string]kit.Schema{
		"PortfolioSummary":     pfSchema(PortfolioJSON{}),
		"PortfolioMetal":       pfSchema(PortfolioMetalJSON{}),
		"PortfolioHistory":     pfSchema(PortfolioHistoryJSON{}),
		"Analytics":            pfSchema(AnalyticsJSON{}),
		"AnalyticsMetal":       pfSchema(AnalyticsMetalJSON{}),
		"Sale":                 pfSchema(SaleJSON{}),
		"SaleCreate":           pfSchema(SaleCreateJSON{}),
		"HoldingsExport":       pfSchema(ExportJSON{}),
		"HoldingsImportResult": pfSchema(ImportResultJSON{}),
	}
}
