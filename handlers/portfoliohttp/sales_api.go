package portfoliohttp

import (
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/portfolio"
)

// SaleJSON is the wire form of a sale.
type SaleJSON struct {
	ID           string    `json:"id"`
	HoldingID    string    `json:"holding_id"`
	Metal        string    `json:"metal"`
	Quantity     int64     `json:"quantity"`
	Oz           kit.Num   `json:"oz"`
	PricePerUnit kit.Num   `json:"price_per_unit"`
	Fees         kit.Num   `json:"fees"`
	SoldOn       string    `json:"sold_on"`
	Proceeds     kit.Num   `json:"proceeds"`
	CostBasis    kit.Num   `json:"cost_basis"`
	RealizedPL   kit.Num   `json:"realized_pl"`
	CreatedAt    time.Time `json:"created_at"`
}

// SaleToJSON renders a sale.
func SaleToJSON(s portfolio.Sale) SaleJSON {
	return SaleJSON{ID: s.ID, HoldingID: s.HoldingID, Metal: string(s.Metal), Quantity: s.Quantity, Oz: kit.Ounces(s.Oz),
		PricePerUnit: kit.Money(s.PricePerUnit), Fees: kit.Money(s.Fees), SoldOn: s.SoldOn.String(), Proceeds: kit.Money(s.Proceeds),
		CostBasis: kit.Money(s.CostBasis), RealizedPL: kit.Money(s.RealizedPL), CreatedAt: s.CreatedAt.UTC()}
}

// APISalesCreate answers POST /v1/holdings/{id}/sales.
func (h *Handlers) APISalesCreate(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	in, err := portfolio.ParseSaleJSON(c.Body())
	if err != nil {
		return err
	}
	sale, err := h.portfolio.RecordSale(h.Ctx(c), u, c.Params("id"), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/v1/sales?holding_id="+sale.HoldingID)
	return kit.WriteJSON(c, http.StatusCreated, fiber.Map{"sale": SaleToJSON(sale)})
}

// APISalesList answers GET /v1/sales.
func (h *Handlers) APISalesList(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	limit, offset, err := kit.PageParams(c)
	if err != nil {
		return err
	}
	p, err := h.portfolio.ListSales(h.Ctx(c), u, portfolio.SalesQuery{Metal: c.Query("metal"), HoldingID: c.Query("holding_id"), Limit: limit, Offset: offset})
	if err != nil {
		return err
	}
	items := make([]SaleJSON, len(p.Sales))
	for i, s := range p.Sales {
		items[i] = SaleToJSON(s)
	}
	return kit.WriteJSON(c, http.StatusOK, fiber.Map{"sales": items, "limit": p.Limit, "offset": p.Offset, "total": p.Total, "realized_pl": kit.Money(p.Realized)})
}

// APISalesDelete answers DELETE /v1/sales/{id}: the sale is undone.
func (h *Handlers) APISalesDelete(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	if _, err := h.portfolio.DeleteSale(h.Ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}
