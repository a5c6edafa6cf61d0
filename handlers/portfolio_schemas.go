package handlers

import (
	"sort"

	"github.com/ouncehq/ounce/internal/portfolio"
)

// JSON schemas of the portfolio area. Routes inline them (so each route's document stands on
// its own); portfolioSchemas also publishes the main ones as named components.

func pfNum(desc string) Schema {
	s := Schema{"type": "number"}
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func pfNullNum(desc string) Schema {
	s := pfNum(desc)
	s["nullable"] = true
	return s
}

func pfInt() Schema { return Schema{"type": "integer"} }

func pfNullDate(desc string) Schema {
	return Schema{"type": "string", "format": "date", "nullable": true, "description": desc}
}

// pfObject is a closed object whose properties are all required.
func pfObject(props Schema) Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return Schema{"type": "object", "required": req, "properties": props, "additionalProperties": false}
}

// pfPerMetal is an object with one value per metal.
func pfPerMetal(item Schema) Schema {
	props := Schema{}
	for _, m := range []string{"gold", "silver", "platinum", "palladium"} {
		props[m] = item
	}
	return pfObject(props)
}

func pfMetalSchema() Schema {
	return pfObject(Schema{
		"oz":                pfNum("Fine troy ounces still held."),
		"spot":              pfNullNum("Spot price per ounce used (live unless stale), at its source's precision up to 4 decimals; null when Ounce has no price for the metal."),
		"value":             pfNullNum("oz × spot computed at full precision, then rounded to cents, USD; null when held without a price."),
		"cost":              pfNum("Remaining cost basis, USD."),
		"unrealized_pl":     pfNullNum("value − cost, USD."),
		"unrealized_pl_pct": pfNullNum("unrealized_pl as a percentage of cost; null when cost is zero."),
		"allocation_pct":    pfNullNum("Share of the portfolio's value, percent (the four add up to 100 when value > 0)."),
		"day_change":        pfNullNum("Ounces held before today × today's change in spot, USD. Null when the metal's change is not today's (price not live, or its previous close is not the preceding trading session); 0 when nothing was held before today."),
		"stale":             Schema{"type": "boolean", "description": "The spot price is not live (or missing)."},
		"day_change_note":   Schema{"type": "string", "nullable": true, "description": "Why day_change is null for a metal held before today, naming the dates of the move the board has."},
		"change_from":       Schema{"type": "string", "format": "date", "nullable": true, "description": "Trading day of the previous close the metal's price change is measured from; null when unknown."},
		"change_as_of":      Schema{"type": "string", "format": "date", "nullable": true, "description": "Trading day of the price the change is measured to; null when no change is known."},
	})
}

func pfSummarySchema() Schema {
	return pfObject(Schema{
		"as_of":             Schema{"type": "string", "format": "date-time", "nullable": true, "description": "Time of the newest price used."},
		"stale":             Schema{"type": "boolean", "description": "Some price behind these numbers is not live; say so when quoting them."},
		"total_value":       pfNullNum("USD; null when a held metal has no price."),
		"total_cost":        pfNum("Remaining cost basis, USD."),
		"unrealized_pl":     pfNullNum("total_value − total_cost, USD."),
		"unrealized_pl_pct": pfNullNum("Percent of total_cost; null when total_cost is zero."),
		"day_change":        pfNullNum("Change in value since the previous close of what was held before today, USD, summed over the metals whose change is today's only (see day_change_left_out); null when every metal held before today is left out."),
		"day_change_pct":    pfNullNum("day_change as a percentage of the value at the previous close of what it covers."),
		"day_change_left_out": Schema{"type": "array", "items": Schema{"type": "string", "enum": []string{"gold", "silver", "platinum", "palladium"}},
			"description": "Metals held before today that day_change leaves out because their change is not today's (the price is not live, or its previous close is not the preceding trading session); each metal's day_change_note says why."},
		"realized_pl":    pfNum("Profit or loss realized by every recorded sale, USD."),
		"holdings_count": Schema{"type": "integer", "description": "Holdings with units still held."},
		"metals":         pfPerMetal(pfMetalSchema()),
	})
}

func pfAnalyticsMetalSchema() Schema {
	return pfObject(Schema{
		"oz":                         pfNum("Fine troy ounces still held."),
		"cost_basis":                 pfNum("Remaining cost basis after sales, USD."),
		"avg_cost_per_oz":            pfNullNum("Total paid (fees included) ÷ fine ounces, over every purchase including sold units; null with no purchases."),
		"break_even_price":           pfNullNum("Spot price per ounce at which value equals the remaining cost basis; null when nothing is held."),
		"spot":                       pfNullNum("Spot price per ounce (live unless stale), at its source's precision up to 4 decimals."),
		"distance_to_break_even_pct": pfNullNum("(break_even_price − spot) ÷ spot × 100: negative when spot is above break-even."),
		"value":                      pfNullNum("USD."),
		"unrealized_pl":              pfNullNum("USD."),
		"unrealized_pl_pct":          pfNullNum("Percent of cost_basis."),
		"realized_pl":                pfNum("Realized by sales of this metal, USD."),
		"allocation_pct":             pfNullNum("Share of portfolio value, percent."),
		"weight_allocation_pct":      pfNum("Share of fine ounces held, percent."),
		"purchases":                  Schema{"type": "integer", "description": "Holdings (purchases) recorded, sold ones included."},
		"sales":                      Schema{"type": "integer", "description": "Sales recorded."},
		"first_purchase":             pfNullDate("Earliest purchase date."),
		"last_purchase":              pfNullDate("Latest purchase date."),
		"avg_premium_pct":            pfNullNum("Unit prices paid over the historical spot on each purchase date, weighted by ounces, percent."),
	})
}

func pfAnalyticsTotalsSchema() Schema {
	return pfObject(Schema{
		"oz":                pfNum("Fine troy ounces of all metals still held."),
		"cost_basis":        pfNum("USD."),
		"value":             pfNullNum("USD."),
		"unrealized_pl":     pfNullNum("USD."),
		"unrealized_pl_pct": pfNullNum("Percent of cost_basis."),
		"realized_pl":       pfNum("USD."),
		"purchases":         pfInt(),
		"sales":             pfInt(),
		"first_purchase":    pfNullDate(""),
		"last_purchase":     pfNullDate(""),
		"avg_premium_pct":   pfNullNum("Over all metals, percent."),
	})
}

func pfAnalyticsSchema() Schema {
	return pfObject(Schema{
		"as_of":  Schema{"type": "string", "format": "date-time", "nullable": true},
		"stale":  Schema{"type": "boolean"},
		"metals": pfPerMetal(pfAnalyticsMetalSchema()),
		"totals": pfAnalyticsTotalsSchema(),
	})
}

func pfHistorySchema() Schema {
	return pfObject(Schema{
		"range": Schema{"type": "string", "enum": pfRangeNames()},
		"from":  pfNullDate("First date shown; null without points."),
		"to":    pfNullDate("Last date shown."),
		"count": pfInt(),
		"points": Schema{"type": "array", "items": pfObject(Schema{
			"date":  Schema{"type": "string", "format": "date"},
			"value": pfNum("Ounces held that day × that day's close, USD."),
			"cost":  pfNum("Cost basis held that day, USD."),
		})},
	})
}

func pfSaleCreateSchema() Schema {
	return Schema{"type": "object", "additionalProperties": false, "required": []string{"quantity", "price_per_unit"}, "properties": Schema{
		"quantity":       Schema{"type": "integer", "minimum": 1, "maximum": portfolio.MaxQuantity, "description": "Units sold; at most the units still held."},
		"price_per_unit": Schema{"type": "number", "minimum": 0, "maximum": 100000000, "description": "Sale price per unit, USD (cents)."},
		"fees":           Schema{"type": "number", "minimum": 0, "maximum": 100000000, "description": "Fees and shipping paid on the sale, USD."},
		"sold_on":        Schema{"type": "string", "format": "date", "description": "YYYY-MM-DD; default today; not before the purchase date or in the future."},
	}}
}

func pfSaleSchema() Schema {
	return pfObject(Schema{
		"id":             Schema{"type": "string"},
		"holding_id":     Schema{"type": "string"},
		"metal":          metalSchema(),
		"quantity":       pfInt(),
		"oz":             pfNum("Fine ounces sold."),
		"price_per_unit": pfNum("USD."),
		"fees":           pfNum("USD."),
		"sold_on":        Schema{"type": "string", "format": "date"},
		"proceeds":       pfNum("quantity × price_per_unit, USD."),
		"cost_basis":     pfNum("The sold units' share of the holding's cost basis, USD."),
		"realized_pl":    pfNum("proceeds − fees − cost_basis, USD."),
		"created_at":     Schema{"type": "string", "format": "date-time"},
	})
}

func pfExportHoldingSchema() Schema {
	return pfObject(Schema{
		"id": Schema{"type": "string"}, "metal": metalSchema(), "product_name": Schema{"type": "string"},
		"quantity": pfInt(), "sold_quantity": pfInt(), "weight_oz": pfNum("Fine ounces per unit."), "total_oz": pfNum(""),
		"purchase_price": pfNum("Per unit, USD."), "fees": pfNum("USD."), "total_cost": pfNum("USD."),
		"dealer": Schema{"type": "string"}, "purchase_date": pfNullDate(""), "notes": Schema{"type": "string"},
		"created_at": Schema{"type": "string", "format": "date-time"},
		"sales": Schema{"type": "array", "description": "The lot's sales in the order they were recorded.", "items": pfObject(Schema{
			"id": Schema{"type": "string"}, "quantity": pfInt(), "price_per_unit": pfNum("USD."), "fees": pfNum("USD."),
			"sold_on": Schema{"type": "string", "format": "date"}, "proceeds": pfNum("USD."), "cost_basis": pfNum("USD."),
			"realized_pl": pfNum("USD."), "created_at": Schema{"type": "string", "format": "date-time"},
		})},
	})
}

func pfExportSchema() Schema {
	return pfObject(Schema{
		"exported_at": Schema{"type": "string", "format": "date-time"},
		"count":       pfInt(),
		"holdings":    Schema{"type": "array", "items": pfExportHoldingSchema()},
	})
}

func pfImportProblemSchema() Schema {
	return Schema{"type": "object", "required": []string{"type", "title", "status", "errors"}, "properties": Schema{
		"type": Schema{"type": "string"}, "title": Schema{"type": "string"}, "status": pfInt(), "detail": Schema{"type": "string"},
		"errors": Schema{"type": "array", "items": pfObject(Schema{
			"row":     Schema{"type": "integer", "minimum": 1, "description": "Data row, counted from 1 after the header."},
			"field":   Schema{"type": "string", "description": "Column name, or row for a malformed line."},
			"message": Schema{"type": "string"},
		})},
		"error_count": Schema{"type": "integer", "description": "Problems found in total (errors lists at most 1,000)."},
	}}
}

// portfolioSchemas are the named schemas of the portfolio area, for the OpenAPI components.
func (h *Handlers) portfolioSchemas() map[string]Schema {
	return map[string]Schema{
		"PortfolioSummary":     pfSummarySchema(),
		"PortfolioMetal":       pfMetalSchema(),
		"PortfolioHistory":     pfHistorySchema(),
		"Analytics":            pfAnalyticsSchema(),
		"AnalyticsMetal":       pfAnalyticsMetalSchema(),
		"Sale":                 pfSaleSchema(),
		"SaleCreate":           pfSaleCreateSchema(),
		"HoldingsExport":       pfExportSchema(),
		"HoldingsImportResult": pfObject(Schema{"imported": pfInt(), "skipped_duplicates": pfInt()}),
	}
}
