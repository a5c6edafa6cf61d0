package handlers

import (
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// HoldingJSON is the wire form of a holding.
type HoldingJSON struct {
	ID            string    `json:"id"`
	Metal         string    `json:"metal"`
	ProductName   string    `json:"product_name"`
	Quantity      int64     `json:"quantity"`
	WeightOz      Num       `json:"weight_oz"`
	TotalOz       Num       `json:"total_oz"`
	PurchasePrice Num       `json:"purchase_price"`
	Fees          Num       `json:"fees"`
	TotalCost     Num       `json:"total_cost"`
	Dealer        string    `json:"dealer"`
	PurchaseDate  *string   `json:"purchase_date"`
	Notes         string    `json:"notes"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	// The ledger: units sold and still held, and the spot of the purchase day with the
	// premium paid over it (null when undated or no close is known).
	SoldQuantity      int64 `json:"sold_quantity"`
	RemainingQuantity int64 `json:"remaining_quantity"`
	SpotAtPurchase    *Num  `json:"spot_at_purchase"`
	PremiumPct        *Num  `json:"premium_pct"`
}

// HoldingToJSON renders a holding.
func HoldingToJSON(h portfolio.Holding) HoldingJSON {
	out := HoldingJSON{
		ID: h.ID, Metal: string(h.Metal), ProductName: h.ProductName, Quantity: h.Quantity,
		WeightOz: Num{h.WeightOz.Round(portfolio.MaxWeightDecimals), 5}, TotalOz: ounces(h.TotalOz()),
		PurchasePrice: money(h.PurchasePrice), Fees: money(h.Fees), TotalCost: money(h.TotalCost()),
		Dealer: h.Dealer, PurchaseDate: dateOrNull(h.PurchaseDate), Notes: h.Notes, CreatedAt: h.CreatedAt.UTC(), UpdatedAt: h.UpdatedAt.UTC(),
		SoldQuantity: h.SoldQuantity, RemainingQuantity: h.Remaining(),
	}
	if h.SpotAtPurchase.Valid {
		out.SpotAtPurchase = optMoney(&h.SpotAtPurchase.Decimal)
	}
	if p := h.PremiumPct(); p != nil {
		n := pct(*p)
		out.PremiumPct = &n
	}
	if h.WeightOz.Exponent() < -5 {
		// More precision was entered than the usual 5 places: show it all rather than round it away.
		out.WeightOz.Places = -h.WeightOz.Exponent()
	}
	return out
}

// requireUser returns the bearer-authenticated user; the web middleware guarantees one on
// protected routes, so a missing user is a wiring bug reported as 401.
func requireUser(c *fiber.Ctx) (u db.User, err error) {
	u, ok := UserFrom(c)
	if !ok {
		return u, NewProblem(http.StatusUnauthorized, ProbUnauthorized, "send Authorization: Bearer <API key>")
	}
	return u, nil
}

// pageParams reads the limit and offset of a list.
func pageParams(c *fiber.Ctx) (limit, offset int, err error) {
	if limit, err = queryInt(c, "limit", 50, 1, 200); err != nil {
		return 0, 0, err
	}
	offset, err = queryInt(c, "offset", 0, 0, 1<<31-1)
	return limit, offset, err
}

// APIHoldingsList answers GET /v1/holdings.
func (h *Handlers) APIHoldingsList(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	limit, offset, err := pageParams(c)
	if err != nil {
		return err
	}
	p, err := h.portfolio.ListHoldings(h.ctx(c), u, portfolio.HoldingsQuery{Metal: c.Query("metal"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	items := make([]HoldingJSON, len(p.Holdings))
	for i, x := range p.Holdings {
		items[i] = HoldingToJSON(x)
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"holdings": items, "limit": p.Limit, "offset": p.Offset, "total": p.Total})
}

// APIHoldingsCreate answers POST /v1/holdings.
func (h *Handlers) APIHoldingsCreate(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	in, err := portfolio.ParseHoldingJSON(c.Body())
	if err != nil {
		return err
	}
	hold, err := h.portfolio.CreateHolding(h.ctx(c), u, in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/v1/holdings/"+hold.ID)
	return writeJSON(c, http.StatusCreated, HoldingToJSON(hold))
}

// APIHoldingsGet answers GET /v1/holdings/{id}.
func (h *Handlers) APIHoldingsGet(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	hold, err := h.portfolio.GetHolding(h.ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, HoldingToJSON(hold))
}

// APIHoldingsUpdate answers PATCH /v1/holdings/{id}.
func (h *Handlers) APIHoldingsUpdate(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	in, err := portfolio.ParseHoldingJSON(c.Body())
	if err != nil {
		return err
	}
	hold, err := h.portfolio.UpdateHolding(h.ctx(c), u, c.Params("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, HoldingToJSON(hold))
}

// APIHoldingsDelete answers DELETE /v1/holdings/{id}.
func (h *Handlers) APIHoldingsDelete(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	if err := h.portfolio.DeleteHolding(h.ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// Portfolio returns the portfolio service, for tools and benchmarks (the spot refresh).
func (h *Handlers) Portfolio() *portfolio.Service { return h.portfolio }
