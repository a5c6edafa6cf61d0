package portfoliohttp

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// HoldingJSON is the wire form of a holding.
type HoldingJSON struct {
	_             struct{}  `schema:"open"`
	ID            string    `json:"id"`
	Metal         string    `json:"metal" schema:"enum=metals"`
	ProductName   string    `json:"product_name"`
	Quantity      int64     `json:"quantity"`
	WeightOz      kit.Num   `json:"weight_oz"`
	TotalOz       kit.Num   `json:"total_oz"`
	PurchasePrice kit.Num   `json:"purchase_price"`
	Fees          kit.Num   `json:"fees"`
	TotalCost     kit.Num   `json:"total_cost"`
	Dealer        string    `json:"dealer"`
	PurchaseDate  *string   `json:"purchase_date" schema:"format=date"`
	Notes         string    `json:"notes"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	// The ledger: units sold and still held, and the spot of the purchase day with the
	// premium paid over it (null when undated or no close is known).
	SoldQuantity      int64    `json:"sold_quantity" doc:"Units of this lot sold so far (see /v1/sales)."`
	RemainingQuantity int64    `json:"remaining_quantity" doc:"quantity − sold_quantity: units still held."`
	SpotAtPurchase    *kit.Num `json:"spot_at_purchase" doc:"The metal's close (USD per troy ounce, at its source's precision: 2 to 4 decimals, LBMA silver 63.935 stays 63.935) on purchase_date, or the last close before it; stored with the lot and recomputed when its date or metal changes or the price history is corrected. Null when undated or no close is known."`
	PremiumPct        *kit.Num `json:"premium_pct" doc:"Premium paid per unit over its metal at spot_at_purchase, percent: (purchase_price ÷ (spot_at_purchase × weight_oz) − 1) × 100. Null without spot_at_purchase and for zero-price lots."`
	// Custody (issue 28).
	LocationID *string        `json:"location_id" doc:"Where the lot is kept: one of your locations (GET /v1/locations), or null when unassigned."`
	Tags       []string       `json:"tags" doc:"The lot's tags, lower case."`
	Transfers  []TransferJSON `json:"transfers,omitempty" doc:"GET /v1/holdings/{id} only: the lot's moves between locations (POST /v1/holdings/{id}/move, or a PATCH of location_id), oldest first."`
	LotCurrencyJSON
	// TotalCostIn is total_cost in the list's currency (GET /v1/holdings only).
	TotalCostIn *kit.Num `json:"total_cost_in_currency,omitempty" schema:"optional" doc:"GET /v1/holdings only: total_cost in the list's currency (its currency field), at the exchange rate of purchase_date (the last published on or before it; an undated lot's on the day it was recorded), rounded to that currency's minor units; exactly total_cost when purchase_currency is that currency."`
}

// TransferJSON is one move of a lot between locations.
type TransferJSON struct {
	FromLocationID *string `json:"from_location_id" doc:"null: it was unassigned."`
	ToLocationID   *string `json:"to_location_id" doc:"null: it became unassigned."`
	Date           string  `json:"date" schema:"format=date"`
	Note           string  `json:"note"`
}

// TransferToJSON renders a transfer.
func TransferToJSON(t portfolio.Transfer) TransferJSON {
	out := TransferJSON{Date: t.On.String(), Note: t.Note}
	if t.FromLocationID.Valid {
		out.FromLocationID = &t.FromLocationID.String
	}
	if t.ToLocationID.Valid {
		out.ToLocationID = &t.ToLocationID.String
	}
	return out
}

// LotCurrencyJSON is a lot's currency and its weight as entered (issue 25).
type LotCurrencyJSON struct {
	PurchaseCurrency string  `json:"purchase_currency" schema:"optional" doc:"ISO 4217 code purchase_price, fees and total_cost are in (USD for lots recorded before currencies)."`
	Weight           kit.Num `json:"weight" schema:"optional" doc:"Weight per unit exactly as entered, in weight_unit (weight_oz for a lot entered in ounces)."`
	WeightUnit       string  `json:"weight_unit" schema:"optional,enum=units" doc:"oz, g, kg or tola."`
}

// lotCurrencyJSON renders a lot's currency and entered weight.
func lotCurrencyJSON(h portfolio.Holding) LotCurrencyJSON {
	w := h.EnteredWeight()
	n := kit.Num{D: w.Amount, Places: 0}
	if p := -w.Amount.Exponent(); p > 0 {
		n.Places = p
	}
	return LotCurrencyJSON{PurchaseCurrency: h.Currency(), Weight: n, WeightUnit: string(w.Unit)}
}

// HoldingsPageJSON is the body of GET /v1/holdings.
type HoldingsPageJSON struct {
	_        struct{}      `schema:"open"`
	Holdings []HoldingJSON `json:"holdings" schema:"items.ref=Holding"`
	Limit    int           `json:"limit"`
	Offset   int           `json:"offset"`
	Total    int           `json:"total"`
	// Currency is the view currency (issue 25): each holding keeps its purchase_currency.
	Currency string `json:"currency" schema:"optional" doc:"ISO 4217 code of each holding's total_cost_in_currency: the currency parameter, else your display currency. A holding's purchase_price, fees and total_cost stay in its purchase_currency."`
}

// HoldingToJSON renders a holding.
func HoldingToJSON(h portfolio.Holding) HoldingJSON {
	out := HoldingJSON{
		ID: h.ID, Metal: string(h.Metal), ProductName: h.ProductName, Quantity: h.Quantity,
		WeightOz: kit.Num{D: h.WeightOz.Round(portfolio.MaxWeightDecimals), Places: 5}, TotalOz: kit.Ounces(h.TotalOz()),
		PurchasePrice: kit.Money(h.PurchasePrice), Fees: kit.Money(h.Fees), TotalCost: kit.Money(h.TotalCost()),
		Dealer: h.Dealer, PurchaseDate: kit.DateOrNull(h.PurchaseDate), Notes: h.Notes, CreatedAt: h.CreatedAt.UTC(), UpdatedAt: h.UpdatedAt.UTC(),
		SoldQuantity: h.SoldQuantity, RemainingQuantity: h.Remaining(), Tags: h.Tags,
		LotCurrencyJSON: lotCurrencyJSON(h),
	}
	if h.LocationID != "" {
		out.LocationID = &h.LocationID
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	if h.SpotAtPurchase.Valid {
		out.SpotAtPurchase = kit.NumOrNull(&h.SpotAtPurchase.Decimal, kit.PriceNum)
	}
	out.PremiumPct = kit.NumOrNull(h.PremiumPct(), kit.Pct)
	if h.WeightOz.Exponent() < -5 {
		// More precision was entered than the usual 5 places: show it all rather than round it away.
		out.WeightOz.Places = -h.WeightOz.Exponent()
	}
	return out
}

// APIHoldingsList answers GET /v1/holdings.
func (h *Handlers) APIHoldingsList(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) (HoldingsPageJSON, error) {
		limit, offset, err := kit.PageParams(c)
		if err != nil {
			return HoldingsPageJSON{}, err
		}
		cur, err := h.portfolio.Currency(h.Ctx(c), u, c.Query("currency"), "currency")
		if err != nil {
			return HoldingsPageJSON{}, err
		}
		return h.holdingsPage(h.Ctx(c), u, portfolio.HoldingsQuery{Metal: c.Query("metal"), Limit: limit, Offset: offset,
			Q: strings.Clone(c.Query("q")), Tag: strings.Clone(c.Query("tag")), LocationID: strings.Clone(c.Query("location_id")),
			Form: strings.Clone(c.Query("form")), From: strings.Clone(c.Query("from")), To: strings.Clone(c.Query("to")),
			Sort: strings.Clone(c.Query("sort")), Order: strings.Clone(c.Query("order"))}, cur)
	}, kit.Same[HoldingsPageJSON])
}

// holdingsPage is the page of the member's holdings q asks for, each with its cost in cur.
func (h *Handlers) holdingsPage(ctx context.Context, u account.User, q portfolio.HoldingsQuery, cur string) (HoldingsPageJSON, error) {
	p, err := h.portfolio.ListHoldings(ctx, u, q)
	if err != nil {
		return HoldingsPageJSON{}, err
	}
	costs, err := h.portfolio.CostsIn(ctx, cur, p.Holdings)
	if err != nil {
		return HoldingsPageJSON{}, err
	}
	items := make([]HoldingJSON, len(p.Holdings))
	for i, x := range p.Holdings {
		items[i] = HoldingToJSON(x)
		n := kit.MoneyIn(costs[i], cur)
		items[i].TotalCostIn = &n
	}
	return HoldingsPageJSON{Holdings: items, Limit: p.Limit, Offset: p.Offset, Total: p.Total, Currency: cur}, nil
}

// APIHoldingsCreate answers POST /v1/holdings.
func (h *Handlers) APIHoldingsCreate(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusCreated, func(u account.User) (HoldingJSON, error) {
		return h.createHolding(h.Ctx(c), u, c.Body())
	}, func(out HoldingJSON) HoldingJSON {
		c.Set(fiber.HeaderLocation, "/v1/holdings/"+out.ID)
		return out
	})
}

// createHolding records the purchase a JSON body describes (POST /v1/holdings and the
// add_holding tool).
func (h *Handlers) createHolding(ctx context.Context, u account.User, raw []byte) (HoldingJSON, error) {
	in, err := portfolio.ParseHoldingJSON(raw)
	if err != nil {
		return HoldingJSON{}, err
	}
	hold, err := h.portfolio.CreateHolding(ctx, u, in)
	if err != nil {
		return HoldingJSON{}, err
	}
	return HoldingToJSON(hold), nil
}

// APIHoldingsGet answers GET /v1/holdings/{id}.
func (h *Handlers) APIHoldingsGet(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) (HoldingJSON, error) {
		hold, err := h.portfolio.GetHolding(h.Ctx(c), u, c.Params("id"))
		if err != nil {
			return HoldingJSON{}, err
		}
		moves, err := h.portfolio.Transfers(h.Ctx(c), u, hold.ID)
		out := HoldingToJSON(hold)
		out.Transfers = kit.MapSlice(moves, TransferToJSON)
		return out, err
	}, kit.Same[HoldingJSON])
}

// APIHoldingsUpdate answers PATCH /v1/holdings/{id}.
func (h *Handlers) APIHoldingsUpdate(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusOK, portfolio.ParseHoldingJSON, func(u account.User, in portfolio.HoldingInput) (portfolio.Holding, error) {
		return h.portfolio.UpdateHolding(h.Ctx(c), u, c.Params("id"), in)
	}, HoldingToJSON)
}

// APIHoldingsDelete answers DELETE /v1/holdings/{id}.
func (h *Handlers) APIHoldingsDelete(c *fiber.Ctx) error {
	return kit.MemberNoContent(c, func(u account.User) error {
		return h.portfolio.DeleteHolding(h.Ctx(c), u, c.Params("id"))
	})
}
