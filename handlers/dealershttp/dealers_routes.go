package dealershttp

import (
	"sort"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/dealers"
)

// dealerObj is an object schema whose listed properties are all required.
func dealerObj(props kit.Schema) kit.Schema {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	sort.Strings(req)
	return kit.Schema{"type": "object", "required": req, "properties": props}
}

func dealerNullable(s kit.Schema) kit.Schema {
	out := kit.Schema{"nullable": true}
	for k, v := range s {
		out[k] = v
	}
	return out
}

// dealerSchemas are the shapes of the dealer-price responses.
func dealerSchemas() (prices, products, history kit.Schema) {
	str, num, boolean := kit.Schema{"type": "string"}, kit.Schema{"type": "number", "format": "double"}, kit.Schema{"type": "boolean"}
	form := kit.Schema{"type": "string", "enum": []string{"coin", "bar", "round", "junk"}}
	source := kit.Schema{"type": "string", "enum": []string{dealers.SourcePage, dealers.SourceFeed, dealers.SourceDemo},
		"description": "page: read from the dealer's product page; feed: from a JSON price feed; demo: a demo figure derived from published typical premiums, not an offer."}
	premium := dealerNullable(kit.Schema{"type": "number", "format": "double", "description": "Percent over the metal at spot: price ÷ (spot × fine oz) − 1. Null without a spot price."})
	tier := dealerObj(kit.Schema{"min_qty": kit.Schema{"type": "integer", "minimum": 1}, "max_qty": dealerNullable(kit.Schema{"type": "integer", "description": "Null: no upper bound."}), "price": num})
	quote := dealerObj(kit.Schema{
		"dealer": str, "dealer_name": str, "price": kit.Schema{"type": "number", "format": "double", "description": "USD for one unit ($1 face for junk silver): the single-unit price, not an 'as low as' bulk price."},
		"price_per_oz": num, "premium_pct": premium, "in_stock": boolean,
		"url":        kit.Schema{"type": "string", "description": "The dealer's page for the product (the dealer's site when none is listed), with the affiliate template applied. POST /v1/dealer-prices/click logs a click and returns the same URL."},
		"updated_at": kit.Schema{"type": "string", "format": "date-time"}, "source": source,
		"tiers": kit.Schema{"type": "array", "items": tier, "description": "Quantity price breaks, when the dealer publishes them."},
	})
	best := dealerNullable(dealerObj(kit.Schema{"dealer": str, "dealer_name": str, "price": num, "premium_pct": premium}))
	best["description"] = "The cheapest quote in stock; null when none is."
	product := dealerObj(kit.Schema{
		"product_id": str, "name": str, "weight_oz": kit.Schema{"type": "number", "format": "double", "description": "Fine troy ounces in one unit ($1 face for junk silver)."},
		"form": form, "purity": num, "per_face": boolean,
		"demo":               kit.Schema{"type": "boolean", "description": "True when no fresh real quote exists and the quotes are demo figures."},
		"median_premium_pct": dealerNullable(num), "best": best, "quotes": kit.Schema{"type": "array", "items": quote},
	})
	prices = dealerObj(kit.Schema{
		"metal": kit.MetalSchema(), "spot": dealerNullable(kit.Schema{"type": "number", "format": "double", "description": "USD per troy ounce at its source's precision (2 to 4 decimals), the figure every premium_pct is measured against; null when no price of the metal is known."}),
		"spot_as_of": dealerNullable(kit.Schema{"type": "string", "format": "date-time"}),
		"spot_stale": kit.Schema{"type": "boolean", "description": "True when the spot is a last known price, not a live one: spot_as_of says from when."},
		"demo":       kit.Schema{"type": "boolean", "description": "True when any product shows demo quotes."},
		"offline":    kit.Schema{"type": "boolean", "description": "True when this installation never fetches dealer prices."},
		"products":   kit.Schema{"type": "array", "items": product},
	})
	dealerRef := dealerObj(kit.Schema{"dealer": str, "dealer_name": str})
	products = dealerObj(kit.Schema{"products": kit.Schema{"type": "array", "items": dealerObj(kit.Schema{
		"product_id": str, "name": str, "metal": kit.MetalSchema(), "weight_oz": num, "form": form, "purity": num, "per_face": boolean,
		"dealers": kit.Schema{"type": "array", "items": dealerRef},
	})}})
	point := dealerObj(kit.Schema{"date": kit.Schema{"type": "string", "format": "date"}, "min_premium_pct": num, "median_premium_pct": num,
		"quotes": kit.Schema{"type": "integer", "description": "Observations that day."}})
	history = dealerObj(kit.Schema{
		"product_id": str, "name": str, "days": kit.Schema{"type": "integer"},
		"demo":    kit.Schema{"type": "boolean", "description": "True when the product has no observed premiums and the history is demo history over the metal's daily closes."},
		"overall": kit.Schema{"type": "array", "items": point, "description": "Per day across all dealers, oldest first."},
		"dealers": kit.Schema{"type": "array", "items": dealerObj(kit.Schema{"dealer": str, "dealer_name": str, "points": kit.Schema{"type": "array", "items": point}})},
	})
	return prices, products, history
}

// APIRoutes are the /v1 dealer-price routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	prices, products, history := dealerSchemas()
	tag := "Dealer prices"
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/dealer-prices", Auth: kit.AuthNone, Handler: h.APIDealerPrices, OperationID: "getDealerPrices", Tag: tag,
			Summary:     "Compare dealer prices and premiums over spot for a metal's products",
			Description: "For each product of the metal (optionally of one fine weight and form) that a dealer carries: its quotes sorted by price, the best one in stock, and each quote's premium over spot, price ÷ (spot × fine oz) − 1. Quotes older than the configured maximum age are hidden, and quotes more than 40 % from the product's median across dealers are dropped as misreads. A product with no fresh quote shows demo quotes (source demo) derived from published typical premiums; they are not offers.",
			Params: []kit.Param{
				{Name: "metal", In: "query", Required: true, Description: "The metal.", Schema: kit.MetalSchema(), Example: "silver"},
				{Name: "weight", In: "query", Description: "Fine weight per unit in troy ounces: 1, 0.1 or 1/10; grams with a unit (30g, 1kg). Matches within 0.5 %.", Schema: kit.Schema{"type": "string", "maxLength": 24}, Example: "1"},
				{Name: "form", In: "query", Description: "Only this form.", Schema: kit.Schema{"type": "string", "enum": []string{"coin", "bar", "round", "junk"}}, Example: "coin"},
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The comparison.", Schema: prices},
				{Status: 400, Description: "metal is missing or not a metal, or weight or form is not readable."},
			},
			Example: "GET /v1/dealer-prices?metal=silver&weight=1"},
		{Method: "GET", Path: "/v1/dealer-prices/products", Auth: kit.AuthNone, Handler: h.APIDealerProducts, OperationID: "listDealerProducts", Tag: tag,
			Summary:     "Products whose dealer prices are tracked, with the dealers that carry them",
			Description: "The catalogue's products (built in, plus any an operator imported) that at least one dealer carries, in catalogue order. product_id is what /v1/dealer-prices/history and /v1/dealer-prices/click take.",
			Params:      []kit.Param{{Name: "metal", In: "query", Description: "Only this metal.", Schema: kit.MetalSchema(), Example: "gold"}},
			Responses: []kit.Response{
				{Status: 200, Description: "The tracked products.", Schema: products},
				{Status: 400, Description: "metal is not a metal."},
			},
			Example: "GET /v1/dealer-prices/products?metal=gold"},
		{Method: "GET", Path: "/v1/dealer-prices/history", Auth: kit.AuthNone, Handler: h.APIDealerHistory, OperationID: "getDealerPremiumHistory", Tag: tag,
			Summary:     "A product's premium over spot per day: lowest and median, overall and per dealer",
			Description: "Built from every quote fetched, each compared with the spot of its moment. A product never observed answers demo history (demo true) over the metal's real daily closes.",
			Params: []kit.Param{
				{Name: "product", In: "query", Required: true, Description: "A product_id from /v1/dealer-prices/products.", Schema: kit.Schema{"type": "string", "maxLength": 64}, Example: "silver-american-eagle-1oz"},
				{Name: "days", In: "query", Description: "Days of history, counted back from today.", Schema: kit.Schema{"type": "integer", "minimum": 1, "maximum": dealers.MaxHistoryDays, "default": dealers.DefaultHistoryDays}, Example: "90"},
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The history.", Schema: history},
				{Status: 400, Description: "product is missing or unknown, or days is out of range."},
			},
			Example: "GET /v1/dealer-prices/history?product=silver-american-eagle-1oz&days=90"},
		{Method: "POST", Path: "/v1/dealer-prices/click", Auth: kit.AuthNone, Handler: h.APIDealerClick, OperationID: "logDealerClick", Tag: tag,
			Summary:     "Log a click through to a dealer and get the URL to send the buyer to",
			Description: "Only a dealer and product the catalogue pairs resolve, always to the catalogue's URL for them; anything else is a 400, so this never redirects to an address a caller supplies. The click is logged with the member of the bearer key (when one is sent), the time and the Referer's host and path.",
			Body: kit.Schema{"type": "object", "additionalProperties": false, "required": []string{"dealer", "product_id"}, "properties": kit.Schema{
				"dealer":     kit.Schema{"type": "string", "maxLength": 64, "description": "Dealer slug, as in the quotes."},
				"product_id": kit.Schema{"type": "string", "maxLength": 64},
			}},
			Responses: []kit.Response{
				{Status: 201, Description: "Logged; send the buyer to url.", Schema: dealerObj(kit.Schema{"url": kit.Schema{"type": "string", "format": "uri"}})},
				{Status: 400, Description: "Not JSON, or the dealer, the product or the pair is not in the catalogue."},
			},
			Example: `POST /v1/dealer-prices/click {"dealer":"apmex","product_id":"silver-american-eagle-1oz"}`},
	}
}

// PageRoutes are the dealer-price pages and the click-through redirect.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return []kit.PageRoute{
		{Method: "GET", Path: "/dealers", Handler: h.DealersPage, Auth: kit.AuthNone},
		{Method: "GET", Path: "/dealers/:product", Handler: h.DealerProductPage, Auth: kit.AuthNone},
		{Method: "GET", Path: "/go/:dealer/:product", Handler: h.DealerGo, Auth: kit.AuthNone},
	}
}
