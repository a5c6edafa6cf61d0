package handlers

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

// holdingDate is a purchase or sale date in the tables' sortable style, or a dash for none.
func holdingDate(d db.Date) string {
	if d.IsZero() {
		return format.Dash
	}
	return format.ISODate(d.Time)
}

// ozText shows fine ounces to the five places the API gives them ("20.00000"), so a page and
// the API agree on a lot's weight to the last digit.
func ozText(d decimal.Decimal) string { return format.Number(d, metals.OuncePlaces) }

func holdingRow(x portfolio.Holding) pages.HoldingRow {
	return pages.HoldingRow{
		ID: x.ID, Metal: string(x.Metal), MetalTitle: x.Metal.Title(), Product: x.Name(),
		Quantity: format.Int(x.Quantity), WeightOz: ozText(x.WeightOz), TotalOz: ozText(x.TotalOz()),
		UnitPrice: format.USD(x.PurchasePrice), Fees: format.USD(x.Fees), TotalCost: format.USD(x.TotalCost()), Dealer: x.Dealer, Date: holdingDate(x.PurchaseDate),
	}
}

func (h *Handlers) holdingsView(c *fiber.Ctx, u db.User) (pages.HoldingsView, error) {
	p, err := h.portfolio.ListHoldings(h.ctx(c), u, portfolio.HoldingsQuery{Limit: 200})
	if err != nil {
		return pages.HoldingsView{}, err
	}
	v := pages.HoldingsView{Total: format.Int(int64(p.Total))}
	for _, x := range p.Holdings {
		v.Rows = append(v.Rows, holdingRow(x))
	}
	return v, nil
}

// HoldingsIndex lists the signed-in member's holdings.
func (h *Handlers) HoldingsIndex(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	v, err := h.holdingsView(c, u)
	if err != nil {
		return err
	}
	if c.Query("saved") == "1" {
		v.Flash = "Holding saved."
	}
	return render(c, http.StatusOK, pages.Holdings(h.meta(c, "Holdings", "holdings"), v))
}

// formView is the add/edit form with the values to show and the errors per field.
func (h *Handlers) formView(id string, in map[string]string, errs []apperr.FieldError) pages.HoldingFormView {
	v := pages.HoldingFormView{ID: id, Values: in, Errors: map[string]string{}, Today: format.ISODate(h.now())}
	for _, e := range errs {
		v.Errors[e.Field] = apperr.Sentence(e.Message)
	}
	return v
}

// HoldingsNew shows the add form.
func (h *Handlers) HoldingsNew(c *fiber.Ctx) error {
	return render(c, http.StatusOK, pages.HoldingForm(h.meta(c, "Add holding", "holdings"), h.formView("", map[string]string{"metal": c.Query("metal", "gold"), "quantity": "1"}, nil)))
}

// HoldingsEdit shows the edit form, filled with the holding's exact values.
func (h *Handlers) HoldingsEdit(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	x, err := h.portfolio.GetHolding(h.ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	// Form inputs take plain numbers (no separators) so they submit back unchanged.
	vals := map[string]string{
		"metal": string(x.Metal), "product_name": x.ProductName, "quantity": strconv.FormatInt(x.Quantity, 10), "weight_oz": x.WeightOz.String(),
		"purchase_price": x.PurchasePrice.StringFixed(2), "fees": x.Fees.StringFixed(2), "dealer": x.Dealer, "purchase_date": x.PurchaseDate.String(), "notes": x.Notes,
	}
	return render(c, http.StatusOK, pages.HoldingForm(h.meta(c, "Edit holding", "holdings"), h.formView(x.ID, vals, nil)))
}

// HoldingsSave handles the add and edit forms; bad input re-renders the form with 422.
func (h *Handlers) HoldingsSave(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	in := portfolio.HoldingInputFromForm(func(k string) string { return c.FormValue(k) })
	id := c.Params("id")
	var err error
	if id == "" {
		_, err = h.portfolio.CreateHolding(h.ctx(c), u, in)
	} else {
		_, err = h.portfolio.UpdateHolding(h.ctx(c), u, id, in)
	}
	if err != nil {
		if apperr.KindOf(err) != apperr.Invalid {
			return err
		}
		vals := map[string]string{}
		for _, f := range portfolio.HoldingFields {
			vals[f] = in.Value(f)
		}
		v := h.formView(id, vals, apperr.FieldsOf(err))
		m := h.meta(c, "Holding", "holdings")
		return page(c, http.StatusUnprocessableEntity, pages.HoldingForm(m, v), pages.HoldingFormFields(m, v))
	}
	return redirect(c, "/holdings?saved=1")
}

// HoldingsDelete deletes a holding after the browser confirmed.
func (h *Handlers) HoldingsDelete(c *fiber.Ctx) error {
	u, _ := UserFrom(c)
	if err := h.portfolio.DeleteHolding(h.ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	if !isHTMX(c) {
		return redirect(c, "/holdings")
	}
	v, err := h.holdingsView(c, u)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, pages.HoldingsTable(h.meta(c, "", "holdings"), v))
}
