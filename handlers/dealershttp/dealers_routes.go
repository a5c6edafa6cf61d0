package dealershttp

import (
	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/ouncehq/ounce/internal/dealers"
)

// dealerSchema generates the schema of a dealer wire struct (objects open).
func dealerSchema(v any) kit.Schema {
	forms := make([]string, len(dealers.Forms))
	for i, f := range dealers.Forms {
		forms[i] = string(f)
	}
	return kit.OpenSchemaOf(v, kit.Consts{"Forms": forms, "Sources": []string{dealers.SourcePage, dealers.SourceFeed, dealers.SourceDemo}, "MaxSlug": dealers.MaxSlug})
}

// APIRoutes are the /v1 dealer-price routes.
func (h *Handlers) APIRoutes() []kit.APIRoute {
	tag := "Dealer prices"
	return []kit.APIRoute{
		{Method: "GET", Path: "/v1/dealer-prices", Auth: kit.AuthNone, Handler: h.APIDealerPrices, OperationID: "getDealerPrices", Tag: tag,
			Summary:     "Compare dealer prices and premiums over spot for a metal's products",
			Description: "For each product of the metal (optionally of one fine weight and form) that a dealer carries: its quotes sorted by price, the best one in stock, and each quote's premium over spot, price ÷ (spot × fine oz) − 1. Quotes older than the configured maximum age are hidden, and quotes more than 40 % from the product's median across dealers are dropped as misreads. A product with no fresh quote shows demo quotes (source demo) derived from published typical premiums; they are not offers.",
			Params: []kit.Param{
				{Name: "metal", In: "query", Required: true, Description: "The metal.", Schema: kit.MetalSchema(), Example: "silver"},
				{Name: "weight", In: "query", Description: "Fine weight per unit in troy ounces: 1, 0.1 or 1/10; grams with a unit (30g, 1kg). Matches within 0.5 %.", Schema: kit.Schema{"type": "string", "maxLength": 24}, Example: "1"},
				{Name: "form", In: "query", Description: "Only this form.", Schema: kit.Schema{"type": "string", "enum": []string{"coin", "bar", "round", "junk"}}, Example: "coin"},
				kit.QuoteParams(true)[0], kit.QuoteParams(true)[1],
			},
			Responses: []kit.Response{
				{Status: 200, Description: "The comparison.", Schema: dealerSchema(DealerPricesJSON{})},
				{Status: 400, Description: "metal is missing or not a metal, or weight or form is not readable."},
			},
			Example: "GET /v1/dealer-prices?metal=silver&weight=1"},
		{Method: "GET", Path: "/v1/dealer-prices/products", Auth: kit.AuthNone, Handler: h.APIDealerProducts, OperationID: "listDealerProducts", Tag: tag,
			Summary:     "Products whose dealer prices are tracked, with the dealers that carry them",
			Description: "The catalogue's products (built in, plus any an operator imported) that at least one dealer carries, in catalogue order. product_id is what /v1/dealer-prices/history and /v1/dealer-prices/click take.",
			Params:      []kit.Param{kit.MetalFilter("gold")},
			Responses: []kit.Response{
				{Status: 200, Description: "The tracked products.", Schema: dealerSchema(TrackedProductsJSON{})},
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
				{Status: 200, Description: "The history.", Schema: dealerSchema(DealerHistoryJSON{})},
				{Status: 400, Description: "product is missing or unknown, or days is out of range."},
			},
			Example: "GET /v1/dealer-prices/history?product=silver-american-eagle-1oz&days=90"},
		{Method: "POST", Path: "/v1/dealer-prices/click", Auth: kit.AuthNone, Handler: h.APIDealerClick, OperationID: "logDealerClick", Tag: tag,
			Summary:     "Log a click through to a dealer and get the URL to send the buyer to",
			Description: "Only a dealer and product the catalogue pairs resolve, always to the catalogue's URL for them; anything else is a 400, so this never redirects to an address a caller supplies. The click is logged with the member of the bearer key (when one is sent), the time and the Referer's host and path.",
			Body:        dealerSchema(DealerClickBodyJSON{}),
			Responses: []kit.Response{
				{Status: 201, Description: "Logged; send the buyer to url.", Schema: dealerSchema(DealerClickJSON{})},
				{Status: 400, Description: "Not JSON, or the dealer, the product or the pair is not in the catalogue."},
			},
			Example: `POST /v1/dealer-prices/click {"dealer":"apmex","product_id":"silver-american-eagle-1oz"}`},
	}
}

// PageRoutes are the dealer-price pages and the click-through redirect.
func (h *Handlers) PageRoutes() []kit.PageRoute {
	return kit.PagesFor(kit.AuthNone, []kit.PageRoute{
		{Method: "GET", Path: "/dealers", Handler: h.DealersPage},
		{Method: "GET", Path: "/dealers/:product", Handler: h.DealerProductPage},
		{Method: "GET", Path: "/go/:dealer/:product", Handler: h.DealerGo},
	})
}
