package portfoliohttp

import (
	"net/http"
	"strconv"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// saleFormView describes the holding being sold and the form state.
func (h *Handlers) saleFormView(c *fiber.Ctx, hold portfolio.Holding, vals map[string]string, errs []apperr.FieldError) pages.SaleFormView {
	v := pages.SaleFormView{ID: hold.ID, Product: hold.Name(), Metal: string(hold.Metal), MetalTitle: hold.Metal.Title(), Currency: hold.Currency(),
		Remaining: format.Int(hold.Remaining()), Quantity: format.Int(hold.Quantity), MaxUnits: strconv.FormatInt(hold.Remaining(), 10),
		Bought: hold.PurchaseDate.String(), Values: vals, Errors: kit.FieldSentences(errs), Today: h.memberToday(c)}
	return v
}

// SaleForm shows the form to sell units of a holding.
func (h *Handlers) SaleForm(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	hold, err := h.portfolio.GetHolding(h.Ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	// Form inputs take plain numbers so they submit back unchanged.
	vals := map[string]string{"quantity": strconv.FormatInt(hold.Remaining(), 10), "sold_on": h.memberToday(c)}
	return kit.Render(c, http.StatusOK, pages.SaleForm(h.Meta(c, "Record a sale", "holdings"), h.saleFormView(c, hold, vals, nil)))
}

// SaleSubmit records a sale from the form; bad input, or more units than are held,
// re-renders it with 422 and the problem beside its field.
func (h *Handlers) SaleSubmit(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	in := portfolio.SaleInputFromForm(func(k string) string { return c.FormValue(k) })
	_, err := h.portfolio.RecordSale(h.Ctx(c), u, c.Params("id"), in)
	if err == nil {
		return kit.Redirect(c, "/holdings?sold=1")
	}
	e, ok := apperr.As(err)
	if !ok || (e.Kind != apperr.Invalid && e.Kind != apperr.Conflict) {
		return err
	}
	hold, gerr := h.portfolio.GetHolding(h.Ctx(c), u, c.Params("id"))
	if gerr != nil {
		return gerr
	}
	vals := map[string]string{}
	for _, f := range portfolio.SaleFields {
		vals[f] = in.Value(f)
	}
	errs := e.Fields
	if len(errs) == 0 {
		errs = []apperr.FieldError{{Field: "quantity", Message: e.Msg}}
	}
	v := h.saleFormView(c, hold, vals, errs)
	m := h.Meta(c, "Record a sale", "holdings")
	return kit.Page(c, http.StatusUnprocessableEntity, pages.SaleForm(m, v), pages.SaleFormFields(m, v))
}
