package handlers

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/views/pages"
)

// usd formats a dollar amount with thousands separators and cents.
func usd(d decimal.Decimal) string {
	s := d.Round(2).StringFixed(2)
	neg := false
	if s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart, frac := s[:len(s)-3], s[len(s)-3:]
	var out []byte
	for i := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, intPart[i])
	}
	if neg {
		return "-$" + string(out) + frac
	}
	return "$" + string(out) + frac
}

func holdingRow(x db.Holding) pages.HoldingRow {
	name := x.ProductName
	if name == "" {
		name = metals.Metal(x.Metal).Title() + " (unnamed)"
	}
	date := x.PurchaseDate.String()
	if date == "" {
		date = "—"
	}
	return pages.HoldingRow{
		ID: x.ID, Metal: x.Metal, MetalTitle: metals.Metal(x.Metal).Title(), Product: name,
		Quantity: strconv.FormatInt(x.Quantity, 10), WeightOz: x.WeightOz.String(), TotalOz: ounces(x.TotalOz()).String(),
		UnitPrice: usd(x.PurchasePrice), Fees: usd(x.Fees), TotalCost: usd(x.TotalCost()), Dealer: x.Dealer, Date: date,
	}
}

func (h *Handlers) holdingsView(c *fiber.Ctx, u db.User) (pages.HoldingsView, error) {
	if !u.IsGold() {
		return pages.HoldingsView{NeedsGold: true}, nil
	}
	p, err := h.ListHoldings(h.ctx(c), u, "", 200, 0)
	if err != nil {
		return pages.HoldingsView{}, err
	}
	v := pages.HoldingsView{Total: p.Total}
	for _, x := range p.Holdings {
		v.Rows = append(v.Rows, holdingRow(x))
	}
	return v, nil
}

// HoldingsIndex lists the signed-in user's holdings.
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

func (h *Handlers) formView(id string, in map[string]string, errs []FieldError) pages.HoldingFormView {
	v := pages.HoldingFormView{ID: id, Values: in, Errors: map[string]string{}, Today: h.now().UTC().Format("2006-01-02")}
	for _, e := range errs {
		v.Errors[e.Field] = capitalize(e.Message) + "."
	}
	return v
}

// gate keeps free members out of holdings pages with an explanation instead of an error.
func (h *Handlers) gate(c *fiber.Ctx) (db.User, bool, error) {
	u, _ := UserFrom(c)
	if u.IsGold() {
		return u, true, nil
	}
	return u, false, render(c, http.StatusForbidden, pages.Holdings(h.meta(c, "Holdings", "holdings"), pages.HoldingsView{NeedsGold: true}))
}

// HoldingsNew shows the add form.
func (h *Handlers) HoldingsNew(c *fiber.Ctx) error {
	if _, ok, err := h.gate(c); !ok {
		return err
	}
	return render(c, http.StatusOK, pages.HoldingForm(h.meta(c, "Add holding", "holdings"), h.formView("", map[string]string{"metal": c.Query("metal", "gold"), "quantity": "1"}, nil)))
}

// HoldingsEdit shows the edit form.
func (h *Handlers) HoldingsEdit(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	x, err := h.GetHolding(h.ctx(c), u, c.Params("id"))
	if err != nil {
		return err
	}
	vals := map[string]string{
		"metal": x.Metal, "product_name": x.ProductName, "quantity": strconv.FormatInt(x.Quantity, 10), "weight_oz": x.WeightOz.String(),
		"purchase_price": x.PurchasePrice.StringFixed(2), "fees": x.Fees.StringFixed(2), "dealer": x.Dealer, "purchase_date": x.PurchaseDate.String(), "notes": x.Notes,
	}
	return render(c, http.StatusOK, pages.HoldingForm(h.meta(c, "Edit holding", "holdings"), h.formView(x.ID, vals, nil)))
}

// HoldingsSave handles the add and edit forms; bad input re-renders the form with 422.
func (h *Handlers) HoldingsSave(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	in := HoldingInputFromForm(func(k string) string { return c.FormValue(k) })
	id := c.Params("id")
	if id == "" {
		_, err = h.CreateHolding(h.ctx(c), u, in)
	} else {
		_, err = h.UpdateHolding(h.ctx(c), u, id, in)
	}
	if err != nil {
		p := AsProblem(err)
		if p.Status != http.StatusBadRequest {
			return err
		}
		vals := map[string]string{}
		for _, f := range holdingFields {
			vals[f] = in.Value(f)
		}
		v := h.formView(id, vals, p.Errors)
		m := h.meta(c, "Holding", "holdings")
		return page(c, http.StatusUnprocessableEntity, pages.HoldingForm(m, v), pages.HoldingFormFields(m, v))
	}
	return redirect(c, "/holdings?saved=1")
}

// HoldingsDelete deletes a holding after the browser confirmed.
func (h *Handlers) HoldingsDelete(c *fiber.Ctx) error {
	u, ok, err := h.gate(c)
	if !ok {
		return err
	}
	if err := h.DeleteHolding(h.ctx(c), u, c.Params("id")); err != nil {
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
