package dealershttp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/quote"
)

// DealerTierJSON is a quantity price break.
type DealerTierJSON struct {
	MinQty int     `json:"min_qty" schema:"min=1"`
	MaxQty *int    `json:"max_qty" doc:"Null: no upper bound."`
	Price  kit.Num `json:"price"`
}

// DealerQuoteJSON is one dealer's quote.
type DealerQuoteJSON struct {
	Dealer     string           `json:"dealer"`
	DealerName string           `json:"dealer_name"`
	Price      kit.Num          `json:"price" doc:"USD for one unit ($1 face for junk silver): the single-unit price, not an 'as low as' bulk price."`
	PricePerOz kit.Num          `json:"price_per_oz"`
	PremiumPct *kit.Num         `json:"premium_pct" doc:"Percent over the metal at spot: price ÷ (spot × fine oz) − 1. Null without a spot price."`
	InStock    bool             `json:"in_stock"`
	URL        string           `json:"url" doc:"The dealer's page for the product (the dealer's site when none is listed), with the affiliate template applied. POST /v1/dealer-prices/click logs a click and returns the same URL."`
	UpdatedAt  time.Time        `json:"updated_at"`
	Source     string           `json:"source" schema:"enum=Sources" doc:"page: read from the dealer's product page; feed: from a JSON price feed; demo: a demo figure derived from published typical premiums, not an offer."`
	Tiers      []DealerTierJSON `json:"tiers" doc:"Quantity price breaks, when the dealer publishes them."`
}

// DealerBestJSON is the cheapest quote in stock.
type DealerBestJSON struct {
	Dealer     string   `json:"dealer"`
	DealerName string   `json:"dealer_name"`
	Price      kit.Num  `json:"price"`
	PremiumPct *kit.Num `json:"premium_pct" doc:"Percent over the metal at spot: price ÷ (spot × fine oz) − 1. Null without a spot price."`
}

// DealerProductJSON is one product's comparison.
type DealerProductJSON struct {
	ProductID     string            `json:"product_id"`
	Name          string            `json:"name"`
	WeightOz      kit.Num           `json:"weight_oz" doc:"Fine troy ounces in one unit ($1 face for junk silver)."`
	Form          string            `json:"form" schema:"enum=Forms"`
	Purity        kit.Num           `json:"purity"`
	PerFace       bool              `json:"per_face"`
	Demo          bool              `json:"demo" doc:"True when no fresh real quote exists and the quotes are demo figures."`
	MedianPremium *kit.Num          `json:"median_premium_pct"`
	Best          *DealerBestJSON   `json:"best" doc:"The cheapest quote in stock; null when none is."`
	Quotes        []DealerQuoteJSON `json:"quotes"`
}

// DealerPricesJSON answers GET /v1/dealer-prices.
type DealerPricesJSON struct {
	Metal     string              `json:"metal" schema:"enum=metals"`
	Spot      *kit.Num            `json:"spot" doc:"USD per troy ounce at its source's precision (2 to 4 decimals), the figure every premium_pct is measured against; null when no price of the metal is known."`
	SpotAsOf  *time.Time          `json:"spot_as_of"`
	SpotStale bool                `json:"spot_stale" doc:"True when the spot is a last known price, not a live one: spot_as_of says from when."`
	Demo      bool                `json:"demo" doc:"True when any product shows demo quotes."`
	Offline   bool                `json:"offline" doc:"True when this installation never fetches dealer prices."`
	Products  []DealerProductJSON `json:"products"`
	// Every price is in currency (price_per_oz and spot per unit) when named.
	kit.QuoteJSON
}

func dealerQuoteJSON(q dealers.Quote, t quote.Target) DealerQuoteJSON {
	out := DealerQuoteJSON{Dealer: q.Dealer.Slug, DealerName: q.Dealer.Name, Price: kit.MoneyIn(t.Money(q.Price), t.Currency), PricePerOz: kit.MoneyIn(t.Price(q.PricePerOz), t.Currency),
		PremiumPct: kit.NumOrNull(q.PremiumPct, kit.Pct), InStock: q.InStock, URL: q.URL, UpdatedAt: q.UpdatedAt.UTC(), Source: q.Source, Tiers: []DealerTierJSON{}}
	for _, tr := range q.Tiers {
		tj := DealerTierJSON{MinQty: tr.MinQty, Price: kit.MoneyIn(t.Money(tr.Price), t.Currency)}
		if tr.MaxQty > 0 {
			m := tr.MaxQty
			tj.MaxQty = &m
		}
		out.Tiers = append(out.Tiers, tj)
	}
	return out
}

func dealerPricesJSON(c dealers.Comparison, t quote.Target) DealerPricesJSON {
	out := DealerPricesJSON{Metal: string(c.Metal), SpotStale: c.Spot.Stale, Demo: c.Demo, Offline: c.Offline, Products: []DealerProductJSON{}, QuoteJSON: kit.QuoteOf(t)}
	if c.Spot.Known {
		s, at := kit.PriceIn(t.Price(c.Spot.Price), t.Currency), c.Spot.AsOf.UTC()
		out.Spot, out.SpotAsOf = &s, &at
	}
	for _, pq := range c.Products {
		p := pq.Product
		pj := DealerProductJSON{ProductID: p.ID, Name: p.Name, WeightOz: kit.Ounces(p.FineOz), Form: string(p.Form), Purity: kit.Purity(p.Purity), PerFace: p.PerFace,
			Demo: pq.Demo, MedianPremium: kit.NumOrNull(pq.MedianPremium, kit.Pct), Quotes: []DealerQuoteJSON{}}
		if b := pq.Best; b != nil {
			pj.Best = &DealerBestJSON{Dealer: b.Dealer.Slug, DealerName: b.Dealer.Name, Price: kit.MoneyIn(t.Money(b.Price), t.Currency), PremiumPct: kit.NumOrNull(b.PremiumPct, kit.Pct)}
		}
		for _, q := range pq.Quotes {
			pj.Quotes = append(pj.Quotes, dealerQuoteJSON(q, t))
		}
		out.Products = append(out.Products, pj)
	}
	return out
}

// dealerQuery reads metal (required), weight and form.
func dealerQuery(metal, weight, form string) (dealers.Query, error) {
	q := dealers.Query{Metal: metals.Metal(strings.TrimSpace(metal)), Form: metals.Form(strings.TrimSpace(form))}
	if strings.TrimSpace(weight) != "" {
		w, err := dealers.ParseWeight(weight)
		if err != nil {
			return q, apperr.InvalidField("weight", err.Error())
		}
		q.Weight = w
	}
	return q, nil
}

// APIDealerPrices answers GET /v1/dealer-prices.
func (h *Handlers) APIDealerPrices(c *fiber.Ctx) error {
	q, err := dealerQuery(c.Query("metal"), c.Query("weight"), c.Query("form"))
	if err != nil {
		return err
	}
	t, err := kit.QuoteFor(c, h.quotes, true)
	if err != nil {
		return err
	}
	cmp, err := h.dealers.Compare(h.Ctx(c), q)
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusOK, dealerPricesJSON(cmp, t))
}

// DealerRefJSON names a dealer.
type DealerRefJSON struct {
	Dealer     string `json:"dealer"`
	DealerName string `json:"dealer_name"`
}

// TrackedProductJSON is one tracked product.
type TrackedProductJSON struct {
	ProductID string          `json:"product_id"`
	Name      string          `json:"name"`
	Metal     string          `json:"metal" schema:"enum=metals"`
	WeightOz  kit.Num         `json:"weight_oz"`
	Form      string          `json:"form" schema:"enum=Forms"`
	Purity    kit.Num         `json:"purity"`
	PerFace   bool            `json:"per_face"`
	Dealers   []DealerRefJSON `json:"dealers"`
}

// APIDealerProducts answers GET /v1/dealer-prices/products.
func (h *Handlers) APIDealerProducts(c *fiber.Ctx) error {
	m, err := kit.ParseMetalParam(c.Query("metal"), "")
	if err != nil {
		return err
	}
	ps, err := h.dealers.Products(h.Ctx(c), metals.Metal(m))
	if err != nil {
		return err
	}
	out := []TrackedProductJSON{}
	for _, tp := range ps {
		p := tp.Product
		j := TrackedProductJSON{ProductID: p.ID, Name: p.Name, Metal: string(p.Metal), WeightOz: kit.Ounces(p.FineOz), Form: string(p.Form),
			Purity: kit.Purity(p.Purity), PerFace: p.PerFace, Dealers: []DealerRefJSON{}}
		for _, d := range tp.Dealers {
			j.Dealers = append(j.Dealers, DealerRefJSON{Dealer: d.Slug, DealerName: d.Name})
		}
		out = append(out, j)
	}
	return kit.WriteJSON(c, http.StatusOK, TrackedProductsJSON{Products: out})
}

// DealerHistoryPointJSON is one day of premiums.
type DealerHistoryPointJSON struct {
	Date             string  `json:"date" schema:"format=date"`
	MinPremiumPct    kit.Num `json:"min_premium_pct"`
	MedianPremiumPct kit.Num `json:"median_premium_pct"`
	Quotes           int     `json:"quotes" doc:"Observations that day."`
}

// DealerHistoryDealerJSON is one dealer's days.
type DealerHistoryDealerJSON struct {
	Dealer     string                   `json:"dealer"`
	DealerName string                   `json:"dealer_name"`
	Points     []DealerHistoryPointJSON `json:"points"`
}

// DealerHistoryJSON answers GET /v1/dealer-prices/history.
type DealerHistoryJSON struct {
	ProductID string                    `json:"product_id"`
	Name      string                    `json:"name"`
	Days      int                       `json:"days"`
	Demo      bool                      `json:"demo" doc:"True when the product has no observed premiums and the history is demo history over the metal's daily closes."`
	Overall   []DealerHistoryPointJSON  `json:"overall" doc:"Per day across all dealers, oldest first."`
	Dealers   []DealerHistoryDealerJSON `json:"dealers"`
}

func historyPoints(ps []dealers.HistoryPoint) []DealerHistoryPointJSON {
	out := []DealerHistoryPointJSON{}
	for _, p := range ps {
		out = append(out, DealerHistoryPointJSON{Date: p.Day.Format(time.DateOnly), MinPremiumPct: kit.Pct(p.Min), MedianPremiumPct: kit.Pct(p.Median), Quotes: p.Quotes})
	}
	return out
}

// APIDealerHistory answers GET /v1/dealer-prices/history.
func (h *Handlers) APIDealerHistory(c *fiber.Ctx) error {
	days, err := kit.QueryInt(c, "days", dealers.DefaultHistoryDays, 1, dealers.MaxHistoryDays)
	if err != nil {
		return err
	}
	hist, err := h.dealers.History(h.Ctx(c), dealers.HistoryQuery{Product: strings.TrimSpace(c.Query("product")), Days: days})
	if err != nil {
		return err
	}
	out := DealerHistoryJSON{ProductID: hist.Product.ID, Name: hist.Product.Name, Days: hist.Days, Demo: hist.Demo,
		Overall: historyPoints(hist.Overall), Dealers: []DealerHistoryDealerJSON{}}
	for _, d := range hist.Dealers {
		out.Dealers = append(out.Dealers, DealerHistoryDealerJSON{Dealer: d.Dealer.Slug, DealerName: d.Dealer.Name, Points: historyPoints(d.Points)})
	}
	return kit.WriteJSON(c, http.StatusOK, out)
}

// maxClickBody bounds the click request.
const maxClickBody = 4 << 10

// DealerClickBodyJSON is the body of POST /v1/dealer-prices/click.
type DealerClickBodyJSON struct {
	_         struct{} `schema:"closed"`
	Dealer    *string  `json:"dealer" schema:"notnull,maxLength=MaxSlug" doc:"Dealer slug, as in the quotes."`
	ProductID *string  `json:"product_id" schema:"notnull,maxLength=MaxSlug"`
}

// DealerClickJSON answers POST /v1/dealer-prices/click.
type DealerClickJSON struct {
	URL string `json:"url" schema:"format=uri"`
}

// TrackedProductsJSON answers GET /v1/dealer-prices/products.
type TrackedProductsJSON struct {
	Products []TrackedProductJSON `json:"products"`
}

// APIDealerClick answers POST /v1/dealer-prices/click.
func (h *Handlers) APIDealerClick(c *fiber.Ctx) error {
	body := c.Body()
	if len(body) > maxClickBody {
		return apperr.InvalidField("body", "must be at most 4 KiB")
	}
	var in DealerClickBodyJSON
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return apperr.InvalidField("body", `must be JSON like {"dealer": "apmex", "product_id": "silver-american-eagle-1oz"}`)
	}
	var fe []apperr.FieldError
	if in.Dealer == nil {
		fe = append(fe, apperr.FieldError{Field: "dealer", Message: "is required"})
	}
	if in.ProductID == nil {
		fe = append(fe, apperr.FieldError{Field: "product_id", Message: "is required"})
	}
	if err := apperr.InvalidFields(fe); err != nil {
		return err
	}
	u, _ := kit.UserFrom(c)
	target, err := h.dealers.Click(h.Ctx(c), dealers.ClickInput{Dealer: *in.Dealer, ProductID: *in.ProductID, User: u, Referrer: c.Get(fiber.HeaderReferer), Via: dealers.ViaAPI,
		Visitor: clickVisitor(c)})
	if err != nil {
		return err
	}
	return kit.WriteJSON(c, http.StatusCreated, DealerClickJSON{URL: target})
}

// clickVisitor names who is clicking for the once-a-minute click rule: the API key, else the
// member, else the client's address.
func clickVisitor(c *fiber.Ctx) string {
	if id := kit.KeyIDFrom(c); id != 0 {
		return "k:" + strconv.FormatInt(id, 10)
	}
	if u, ok := kit.UserFrom(c); ok && u.ID != 0 {
		return "u:" + strconv.FormatInt(u.ID, 10)
	}
	return "a:" + kit.ClientIP(c)
}

// DealerGo answers GET /go/{dealer}/{product}: the click is logged and the browser sent to the
// catalogue URL of the pair; anything the catalogue does not pair is a 404, never a redirect.
func (h *Handlers) DealerGo(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	target, err := h.dealers.Click(h.Ctx(c), dealers.ClickInput{Dealer: c.Params("dealer"), ProductID: c.Params("product"), User: u,
		Referrer: c.Get(fiber.HeaderReferer), Via: dealers.ViaWeb, Visitor: clickVisitor(c)})
	if apperr.KindOf(err) == apperr.Invalid {
		return apperr.NotFoundf("dealer product")
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Redirect(target, http.StatusFound)
}
