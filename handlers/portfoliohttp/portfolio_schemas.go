package portfoliohttp

import (
	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/portfolio"
)

// JSON schemas of the portfolio area. Routes inline them (so each route's document stands on
// its own); Schemas also publishes the main ones as named components.

// pfPerMetal is an object with one value per metal.
func pfPerMetal(item kit.Schema) kit.Schema {
	props := kit.Schema{}
	for _, m := range []string{"gold", "silver", "platinum", "palladium"} {
		props[m] = item
	}
	return kit.ClosedObject(props)
}

func pfMetalSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"oz":                kit.NumSchema("Fine troy ounces still held."),
		"spot":              kit.NullNumSchema("Spot price per ounce used (live unless stale), at its source's precision up to 4 decimals; null when Ounce has no price for the metal."),
		"value":             kit.NullNumSchema("oz × spot computed at full precision, then rounded to cents, USD; null when held without a price."),
		"cost":              kit.NumSchema("Remaining cost basis, USD."),
		"unrealized_pl":     kit.NullNumSchema("value − cost, USD."),
		"unrealized_pl_pct": kit.NullNumSchema("unrealized_pl as a percentage of cost; null when cost is zero."),
		"allocation_pct":    kit.NullNumSchema("Share of the portfolio's value, percent (the four add up to 100 when value > 0)."),
		"day_change":        kit.NullNumSchema("Ounces held before today × today's change in spot, USD. Null when the metal's change is not today's (price not live, or its previous close is not the preceding trading session); 0 when nothing was held before today."),
		"stale":             kit.Schema{"type": "boolean", "description": "The spot price is not live (or missing)."},
		"day_change_note":   kit.Schema{"type": "string", "nullable": true, "description": "Why day_change is null for a metal held before today, naming the dates of the move the board has."},
		"change_from":       kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Trading day of the previous close the metal's price change is measured from; null when unknown."},
		"change_as_of":      kit.Schema{"type": "string", "format": "date", "nullable": true, "description": "Trading day of the price the change is measured to; null when no change is known."},
	})
}

func pfSummarySchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"as_of":             kit.Schema{"type": "string", "format": "date-time", "nullable": true, "description": "Time of the newest price used."},
		"stale":             kit.Schema{"type": "boolean", "description": "Some price behind these numbers is not live; say so when quoting them."},
		"total_value":       kit.NullNumSchema("USD; null when a held metal has no price."),
		"total_cost":        kit.NumSchema("Remaining cost basis, USD."),
		"unrealized_pl":     kit.NullNumSchema("total_value − total_cost, USD."),
		"unrealized_pl_pct": kit.NullNumSchema("Percent of total_cost; null when total_cost is zero."),
		"day_change":        kit.NullNumSchema("Change in value since the previous close of what was held before today, USD, summed over the metals whose change is today's only (see day_change_left_out); null when every metal held before today is left out."),
		"day_change_pct":    kit.NullNumSchema("day_change as a percentage of the value at the previous close of what it covers."),
		"day_change_left_out": kit.Schema{"type": "array", "items": kit.Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}},
			"description": "Metals held before today that day_change leaves out because their change is not today's (the price is not live, or its previous close is not the preceding trading session); each metal's day_change_note says why."},
		"realized_pl":    kit.NumSchema("Profit or loss realized by every recorded sale, USD."),
		"holdings_count": kit.Schema{"type": "integer", "description": "Holdings with units still held."},
		"metals":         pfPerMetal(pfMetalSchema()),
	})
}

func pfAnalyticsMetalSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"oz":                         kit.NumSchema("Fine troy ounces still held."),
		"cost_basis":                 kit.NumSchema("Remaining cost basis after sales, USD."),
		"avg_cost_per_oz":            kit.NullNumSchema("Total paid (fees included) ÷ fine ounces, over every purchase including sold units; null with no purchases."),
		"break_even_price":           kit.NullNumSchema("Spot price per ounce at which value equals the remaining cost basis; null when nothing is held."),
		"spot":                       kit.NullNumSchema("Spot price per ounce (live unless stale), at its source's precision up to 4 decimals."),
		"distance_to_break_even_pct": kit.NullNumSchema("(break_even_price − spot) ÷ spot × 100: negative when spot is above break-even."),
		"value":                      kit.NullNumSchema("USD."),
		"unrealized_pl":              kit.NullNumSchema("USD."),
		"unrealized_pl_pct":          kit.NullNumSchema("Percent of cost_basis."),
		"realized_pl":                kit.NumSchema("Realized by sales of this metal, USD."),
		"allocation_pct":             kit.NullNumSchema("Share of portfolio value, percent."),
		"weight_allocation_pct":      kit.NumSchema("Share of fine ounces held, percent."),
		"purchases":                  kit.Schema{"type": "integer", "description": "Holdings (purchases) recorded, sold ones included."},
		"sales":                      kit.Schema{"type": "integer", "description": "Sales recorded."},
		"first_purchase":             kit.NullDateSchema("Earliest purchase date."),
		"last_purchase":              kit.NullDateSchema("Latest purchase date."),
		"avg_premium_pct":            kit.NullNumSchema("What the dated, priced purchases cost over their metal's value at the spot of each purchase date, percent: (Σ price paid ÷ Σ spot_at_purchase × fine oz − 1) × 100, so each purchase's premium counts in proportion to the melt value it had when bought (fees and zero-cost gifts left out)."),
	})
}

func pfAnalyticsTotalsSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"oz":                kit.NumSchema("Fine troy ounces of all metals still held."),
		"cost_basis":        kit.NumSchema("USD."),
		"value":             kit.NullNumSchema("USD."),
		"unrealized_pl":     kit.NullNumSchema("USD."),
		"unrealized_pl_pct": kit.NullNumSchema("Percent of cost_basis."),
		"realized_pl":       kit.NumSchema("USD."),
		"purchases":         kit.IntSchema(),
		"sales":             kit.IntSchema(),
		"first_purchase":    kit.NullDateSchema(""),
		"last_purchase":     kit.NullDateSchema(""),
		"avg_premium_pct":   kit.NullNumSchema("Over all metals, percent, weighted by melt value at purchase as per metal (an ounce of gold weighs more than an ounce of silver)."),
	})
}

func pfAnalyticsSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"as_of":  kit.Schema{"type": "string", "format": "date-time", "nullable": true},
		"stale":  kit.Schema{"type": "boolean"},
		"metals": pfPerMetal(pfAnalyticsMetalSchema()),
		"totals": pfAnalyticsTotalsSchema(),
	})
}

func pfHistorySchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"range":   kit.Schema{"type": "string", "enum": pfRangeNames()},
		"from":    kit.NullDateSchema("First date shown; null without points."),
		"to":      kit.NullDateSchema("Last date shown."),
		"count":   kit.IntSchema(),
		"start":   kit.NullDateSchema("First calendar day of the window (null for ALL, and without holdings or prices)."),
		"through": kit.NullDateSchema("Newest close of the metals you hold (null without holdings or prices)."),
		"stale":   kit.Schema{"type": "boolean", "description": "true when through is before today: the range then counts back from through, the window GET /v1/prices/history shows for those metals."},
		"points": kit.Schema{"type": "array", "items": kit.ClosedObject(kit.Schema{
			"date":  kit.Schema{"type": "string", "format": "date"},
			"value": kit.NumSchema("Ounces held that day × that day's close (before daily data, the month's average, as in the price history's ALL), USD."),
			"cost":  kit.NumSchema("Cost basis held that day, USD."),
		})},
	})
}

func pfSaleCreateSchema() kit.Schema {
	return kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"quantity", "price_per_unit"}, "properties": kit.Schema{
		"quantity":       kit.Schema{"type": "integer", "minimum": 1, "maximum": portfolio.MaxQuantity, "description": "Units sold; at most the units still held."},
		"price_per_unit": kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 100000000, "description": "Sale price per unit, USD (cents)."},
		"fees":           kit.Schema{"type": "number", "format": "double", "minimum": 0, "maximum": 100000000, "description": "Fees and shipping paid on the sale, USD."},
		"sold_on":        kit.Schema{"type": "string", "format": "date", "description": "YYYY-MM-DD; default today; not before the purchase date or in the future."},
	}}
}

func pfSaleSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"id":             kit.Schema{"type": "string"},
		"holding_id":     kit.Schema{"type": "string"},
		"metal":          kit.MetalSchema(),
		"quantity":       kit.IntSchema(),
		"oz":             kit.NumSchema("Fine ounces sold."),
		"price_per_unit": kit.NumSchema("USD."),
		"fees":           kit.NumSchema("USD."),
		"sold_on":        kit.Schema{"type": "string", "format": "date"},
		"proceeds":       kit.NumSchema("quantity × price_per_unit, USD."),
		"cost_basis":     kit.NumSchema("The sold units' share of the holding's cost basis, USD."),
		"realized_pl":    kit.NumSchema("proceeds − fees − cost_basis, USD."),
		"created_at":     kit.Schema{"type": "string", "format": "date-time"},
	})
}

func pfExportHoldingSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"id": kit.Schema{"type": "string"}, "metal": kit.MetalSchema(), "product_name": kit.Schema{"type": "string"},
		"quantity": kit.IntSchema(), "sold_quantity": kit.IntSchema(), "weight_oz": kit.NumSchema("Fine ounces per unit."), "total_oz": kit.NumSchema(""),
		"purchase_price": kit.NumSchema("Per unit, USD."), "fees": kit.NumSchema("USD."), "total_cost": kit.NumSchema("USD."),
		"dealer": kit.Schema{"type": "string"}, "purchase_date": kit.NullDateSchema(""), "notes": kit.Schema{"type": "string"},
		"created_at": kit.Schema{"type": "string", "format": "date-time"},
		"sales": kit.Schema{"type": "array", "description": "The lot's sales in the order they were recorded.", "items": kit.ClosedObject(kit.Schema{
			"id": kit.Schema{"type": "string"}, "quantity": kit.IntSchema(), "price_per_unit": kit.NumSchema("USD."), "fees": kit.NumSchema("USD."),
			"sold_on": kit.Schema{"type": "string", "format": "date"}, "proceeds": kit.NumSchema("USD."), "cost_basis": kit.NumSchema("USD."),
			"realized_pl": kit.NumSchema("USD."), "created_at": kit.Schema{"type": "string", "format": "date-time"},
		})},
	})
}

func pfExportSchema() kit.Schema {
	return kit.ClosedObject(kit.Schema{
		"exported_at": kit.Schema{"type": "string", "format": "date-time"},
		"count":       kit.IntSchema(),
		"holdings":    kit.Schema{"type": "array", "items": pfExportHoldingSchema()},
	})
}

func ImportProblemSchema() kit.Schema {
	return kit.Schema{"type": "object", "required": []string{"type", "title", "status", "errors"}, "properties": kit.Schema{
		"type": kit.Schema{"type": "string"}, "title": kit.Schema{"type": "string"}, "status": kit.IntSchema(), "detail": kit.Schema{"type": "string"},
		"errors": kit.Schema{"type": "array", "items": kit.ClosedObject(kit.Schema{
			"row":     kit.Schema{"type": "integer", "minimum": 1, "description": "Data row, counted from 1 after the header."},
			"field":   kit.Schema{"type": "string", "description": "Column name, or row for a malformed line."},
			"message": kit.Schema{"type": "string"},
		})},
		"error_count": kit.Schema{"type": "integer", "description": "Problems found in total (errors lists at most 1,000)."},
	}}
}

// Schemas are the named schemas of the portfolio area, for the OpenAPI components.
func (h *Handlers) Schemas() map[string]kit.Schema {
	return map[string]kit.Schema{
		"PortfolioSummary":     pfSummarySchema(),
		"PortfolioMetal":       pfMetalSchema(),
		"PortfolioHistory":     pfHistorySchema(),
		"Analytics":            pfAnalyticsSchema(),
		"AnalyticsMetal":       pfAnalyticsMetalSchema(),
		"Sale":                 pfSaleSchema(),
		"SaleCreate":           pfSaleCreateSchema(),
		"HoldingsExport":       pfExportSchema(),
		"HoldingsImportResult": kit.ClosedObject(kit.Schema{"imported": kit.IntSchema(), "skipped_duplicates": kit.IntSchema()}),
	}
}
