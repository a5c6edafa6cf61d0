package portfoliohttp

import (
	"net/http"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// SaleJSON is the wire form of a sale.
type SaleJSON struct {
	ID           string    `json:"id"`
	HoldingID    string    `json:"holding_id"`
	Metal        string    `json:"metal" schema:"enum=metals"`
	Quantity     int64     `json:"quantity"`
	Oz           kit.Num   `json:"oz" doc:"Fine ounces sold."`
	PricePerUnit kit.Num   `json:"price_per_unit" doc:"USD."`
	Fees         kit.Num   `json:"fees" doc:"USD."`
	SoldOn       string    `json:"sold_on" schema:"format=date"`
	Proceeds     kit.Num   `json:"proceeds" doc:"quantity × price_per_unit, USD."`
	CostBasis    kit.Num   `json:"cost_basis" doc:"The sold units' share of the holding's cost basis, USD."`
	RealizedPL   kit.Num   `json:"realized_pl" doc:"proceeds − fees − cost_basis, USD."`
	CreatedAt    time.Time `json:"created_at"`
	Currency     string    `json:"currency" schema:"optional" doc:"ISO 4217 code of the sale's amounts: its lot's purchase_currency."`
}

// SaleCreatedJSON is the body of POST /v1/holdings/{id}/sales.
type SaleCreatedJSON struct {
	Sale SaleJSON `json:"sale"`
}

// SalesPageJSON is the body of GET /v1/sales.
type SalesPageJSON struct {
	Sales      []SaleJSON `json:"sales"`
	Limit      int        `json:"limit"`
	Offset     int        `json:"offset"`
	Total      int        `json:"total"`
	RealizedPL kit.Num    `json:"realized_pl" doc:"Realized profit or loss of every sale matching the filter, USD."`
}

// SaleToJSON renders a sale.
func SaleToJSON(s portfolio.Sale) SaleJSON {
	return SaleJSON{ID: s.ID, HoldingID: s.HoldingID, Metal: string(s.Metal), Quantity: s.Quantity, Oz: kit.Ounces(s.Oz),
		PricePerUnit: kit.Money(s.PricePerUnit), Fees: kit.Money(s.Fees), SoldOn: s.SoldOn.String(), Proceeds: kit.Money(s.Proceeds),
		CostBasis: kit.Money(s.CostBasis), RealizedPL: kit.Money(s.RealizedPL), CreatedAt: s.CreatedAt.UTC(), Currency: s.Currency}
}

// APISalesCreate answers POST /v1/holdings/{id}/sales.
func (h *Handlers) APISalesCreate(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusCreated, portfolio.ParseSaleJSON, func(u account.User, in portfolio.SaleInput) (portfolio.Sale, error) {
		sale, err := h.portfolio.RecordSale(h.Ctx(c), u, c.Params("id"), in)
		if err == nil {
			c.Set(fiber.HeaderLocation, "/v1/sales?holding_id="+sale.HoldingID)
		}
		return sale, err
	}, func(s portfolio.Sale) SaleCreatedJSON { return SaleCreatedJSON{Sale: SaleToJSON(s)} })
}

// APISalesList answers GET /v1/sales.
func (h *Handlers) APISalesList(c *fiber.Ctx) error {
	return kit.MemberJSON(c, http.StatusOK, func(u account.User) (portfolio.SalesPage, error) {
		limit, offset, err := kit.PageParams(c)
		if err != nil {
			return portfolio.SalesPage{}, err
		}
		return h.portfolio.ListSales(h.Ctx(c), u, portfolio.SalesQuery{Metal: c.Query("metal"), HoldingID: c.Query("holding_id"), Limit: limit, Offset: offset})
	}, func(p portfolio.SalesPage) SalesPageJSON {
		return SalesPageJSON{Sales: kit.MapSlice(p.Sales, SaleToJSON), Limit: p.Limit, Offset: p.Offset, Total: p.Total, RealizedPL: kit.Money(p.Realized)}
	})
}

// APISalesDelete answers DELETE /v1/sales/{id}: the sale is undone.
func (h *Handlers) APISalesDelete(c *fiber.Ctx) error {
	return kit.MemberNoContent(c, func(u account.User) error {
		_, err := h.portfolio.DeleteSale(h.Ctx(c), u, c.Params("id"))
		return err
	})
}
