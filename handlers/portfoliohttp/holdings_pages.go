package portfoliohttp

import (
	"cmp"
	"fmt"
	"github.com/shopspring/decimal"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/format"
	"github.com/ouncehq/ounce/views/pages"
)

func holdingRow(x portfolio.Holding) pages.HoldingRow {
	return pages.HoldingRow{
		ID: x.ID, Metal: string(x.Metal), MetalTitle: x.Metal.Title(), Product: x.Name(),
		Quantity: format.Int(x.Quantity), WeightOz: format.Oz(x.WeightOz), TotalOz: format.Oz(x.TotalOz()),
		UnitPrice: format.Money(x.PurchasePrice, x.Currency()), Fees: format.Money(x.Fees, x.Currency()), TotalCost: format.Money(x.TotalCost(), x.Currency()), Dealer: x.Dealer, Date: pageDate(x.PurchaseDate),
		Notes: x.Notes, Tags: x.Tags,
	}
}

// pageDate is a date in the pages' style ("2 Jan 2026"), or "undated".
func pageDate(d portfolio.Date) string {
	if d.IsZero() {
		return "undated"
	}
	return format.Date(d.Time)
}

// saleRow formats a sale for the ledger and the all-sales page.
func saleRow(s portfolio.Sale, product string) pages.SaleRow {
	return pages.SaleRow{ID: s.ID, HoldingID: s.HoldingID, Product: product, Metal: string(s.Metal), Date: pageDate(s.SoldOn),
		Units: format.Count(s.Quantity, "unit", "units"), Price: format.Money(s.PricePerUnit, s.Currency), Fees: format.Money(s.Fees, s.Currency), Proceeds: format.Money(s.Proceeds, s.Currency),
		CostBasis: format.Money(s.CostBasis, s.Currency), Realized: format.SignedMoney(s.RealizedPL, s.Currency), RealizedTone: kit.Tone(&s.RealizedPL)}
}

// ledgerRow formats one lot of the ledger.
func ledgerRow(l portfolio.LedgerLot) pages.HoldingRow {
	r := holdingRow(l.Holding)
	r.Bought = format.Count(l.Quantity, "unit", "units")
	r.Sold = format.Int(l.SoldQuantity)
	r.Remaining = format.Count(l.Remaining(), "unit", "units")
	r.RemainingOz = format.Oz(l.RemainingOz)
	r.RemainingCost = format.Money(l.RemainingCost, l.Currency())
	r.Value, r.PL, r.PLPct, r.PLTone = format.MoneyPtr(l.Value, l.Currency()), signedMoneyPtr(l.PL, l.Currency()), format.SignedPctPtr(l.PLPct), kit.Tone(l.PL)
	r.Spot, r.Premium = format.Dash, format.Dash
	switch {
	case l.SpotAtPurchase.Valid:
		r.Spot = format.PriceUSD(l.SpotAtPurchase.Decimal) + "/oz"
	case l.PurchaseDate.IsZero():
		r.Spot = "none: the lot has no purchase date"
	default:
		// The reasons spotAtPurchase has none for a dated lot (README, the ledger).
		r.Spot = "none: no stored close in the week up to that date"
	}
	if p := l.PremiumPct(); p != nil {
		r.Premium = format.SignedPct(*p)
	}
	r.Realized, r.RealizedTone = format.SignedMoney(l.Realized, l.Currency()), kit.Tone(&l.Realized)
	r.SoldOut, r.HasSales = l.Remaining() == 0, l.SoldQuantity > 0 || len(l.Sales) > 0
	for _, s := range l.Sales {
		r.Sales = append(r.Sales, saleRow(s, l.Name()))
	}
	return r
}

func (h *Handlers) holdingsView(c *fiber.Ctx, u account.User) (pages.HoldingsView, error) {
	metal := c.Query("metal")
	if metal != "" && !metals.Metal(metal).Valid() {
		metal = "" // an unknown filter shows everything rather than failing the page
	}
	q := strings.Clone(strings.TrimSpace(c.Query("q")))
	if c.Query("view") == "table" {
		return h.tableView(c, u, q)
	}
	l, err := h.portfolio.LedgerSearch(h.Ctx(c), u, metal, portfolio.HoldingsQuery{Q: q,
		Tag: strings.Clone(c.Query("tag")), LocationID: strings.Clone(c.Query("location_id"))})
	if err != nil {
		return pages.HoldingsView{}, err
	}
	v := pages.HoldingsView{Total: format.Count(int64(l.Total), "holding", "holdings"), Metal: l.Metal, Q: q}
	if len(l.Lots) < l.Total {
		v.Shown = fmt.Sprintf(", newest %s shown", format.Int(int64(len(l.Lots))))
	}
	return h.ledgerView(c, u, v, l)
}

// tableView is the ledger's table view: one page of every lot the filters select, in the
// order asked for.
func (h *Handlers) tableView(c *fiber.Ctx, u account.User, q string) (pages.HoldingsView, error) {
	hq, per, err := tableQuery(c, strings.Clone(c.Query("metal")), q)
	if err != nil {
		return pages.HoldingsView{}, err
	}
	l, err := h.portfolio.LedgerPage(h.Ctx(c), u, hq)
	if err != nil {
		return pages.HoldingsView{}, pageParamErr(err)
	}
	v := pages.HoldingsView{Total: format.Count(int64(l.Total), "holding", "holdings"), Metal: l.Metal, Q: q}
	t := tableState(c, hq, per, l)
	if t.Filtered {
		v.Total += " match"
	}
	h.tableChoices(c, u, &t)
	v.Table = &t
	return h.ledgerView(c, u, v, l)
}

// ledgerView fills the ledger page's rows and subtotals.
func (h *Handlers) ledgerView(c *fiber.Ctx, u account.User, v pages.HoldingsView, l portfolio.Ledger) (pages.HoldingsView, error) {
	places := h.locationNames(c, u)
	lots := l.Lots
	for _, x := range lots {
		r := ledgerRow(x)
		r.Location = places[x.LocationID]
		r.Form = formLabel(portfolio.FormOf(x.ProductName))
		v.Rows = append(v.Rows, r)
	}
	// The subtotals speak the member's display currency; each lot's row keeps its own.
	pf := l.Portfolio
	var err error
	if cur := memberCurrency(u); cur != valuationCurrency(pf.FX) {
		if pf, err = h.portfolio.PortfolioIn(h.Ctx(c), u, cur); err != nil {
			return pages.HoldingsView{}, err
		}
	}
	cur := valuationCurrency(pf.FX)
	v.FXNote = fxNote(pf.FX)
	for _, p := range pf.Positions {
		if p.Purchases == 0 {
			continue
		}
		v.Subtotals = append(v.Subtotals, pages.MetalSubtotal{Metal: string(p.Metal), Title: p.Metal.Title(), Lots: format.Count(p.Lots, "lot held", "lots held"),
			Oz: format.Oz(p.HeldOz), Cost: format.Money(p.Cost, cur), Value: format.MoneyPtr(p.Value, cur), PL: signedMoneyPtr(p.UnrealizedPL, cur), PLTone: kit.Tone(p.UnrealizedPL),
			Realized: format.SignedMoney(p.Realized, cur)})
	}
	return v, nil
}

// HoldingsIndex lists the signed-in member's holdings.
func (h *Handlers) HoldingsIndex(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	v, err := h.holdingsView(c, u)
	if err != nil {
		return err
	}
	v.Flash = cmp.Or(kit.Flash(c, "saved", "Holding saved."), kit.Flash(c, "sold", "Sale recorded."), kit.Flash(c, "undone", undoneFlash),
		bulkFlash(c.Query("bulk"), c.Query("bulk_action")))
	return kit.Render(c, http.StatusOK, pages.Holdings(h.Meta(c, "Holdings", "holdings"), v))
}

// memberToday is today's date in the member's time zone, as a date input takes it.
func (h *Handlers) memberToday(c *fiber.Ctx) string {
	u, _ := kit.UserFrom(c)
	return format.ISODateIn(h.Now(), account.Location(u))
}

// formView is the add/edit form with the values to show and the errors per field. The date
// input's limit is today where the member is, not in UTC.
func (h *Handlers) formView(c *fiber.Ctx, id string, in map[string]string, errs []apperr.FieldError) pages.HoldingFormView {
	v := pages.HoldingFormView{ID: id, Values: in, Errors: map[string]string{}, Today: h.memberToday(c), Products: productOptions(),
		Currencies: fx.DisplayCurrencies()}
	if v.Values["purchase_currency"] == "" {
		u, _ := kit.UserFrom(c)
		v.Values["purchase_currency"] = u.DisplayCurrency
		if v.Values["purchase_currency"] == "" {
			v.Values["purchase_currency"] = "USD"
		}
	}
	// The weight is typed in a unit, the member's own unless the lot was entered in
	// another; a fine weight in ounces posted by an older form or a test is shown as such.
	if v.Values["weight"] == "" && v.Values["weight_oz"] != "" {
		v.Values["weight"], v.Values["weight_unit"] = v.Values["weight_oz"], string(metals.Ounce)
	}
	if v.Values["weight_unit"] == "" {
		u, _ := kit.UserFrom(c)
		v.Values["weight_unit"] = string(displayUnit(u))
	}
	v.Locations = h.locationOptions(c)
	for _, e := range errs {
		field := e.Field
		if field == "weight_oz" {
			field = "weight" // the form's one weight input; the sentence still says ounces
		}
		if _, seen := v.Errors[field]; !seen {
			v.Errors[field] = kit.FieldSentence(e.Field, e.Message)
		}
	}
	return v
}

// HoldingsNew shows the add form.
func (h *Handlers) HoldingsNew(c *fiber.Ctx) error {
	v := h.formView(c, "", map[string]string{"metal": c.Query("metal", "gold"), "quantity": "1", "purchase_date": h.memberToday(c)}, nil)
	// After "Save and add another" the empty form names what was just saved.
	if id := c.Query("added"); id != "" {
		u, _ := kit.UserFrom(c)
		if x, err := h.portfolio.GetHolding(h.Ctx(c), u, id); err == nil {
			v.Flash = "Saved " + format.Count(x.Quantity, "unit", "units") + " of " + x.ProductName + " (" + x.Metal.Title() + "). Add the next one."
		}
	}
	return kit.Render(c, http.StatusOK, pages.HoldingForm(h.Meta(c, "Add holding", "holdings"), v))
}

// pathHolding is the signed-in member's holding the route's :id names.
func (h *Handlers) pathHolding(c *fiber.Ctx) (portfolio.Holding, error) {
	u, _ := kit.UserFrom(c)
	return h.portfolio.GetHolding(h.Ctx(c), u, c.Params("id"))
}

// HoldingsEdit shows the edit form, filled with the holding's exact values.
func (h *Handlers) HoldingsEdit(c *fiber.Ctx) error {
	x, err := h.pathHolding(c)
	if err != nil {
		return err
	}
	// Form inputs take plain numbers (no separators) so they submit back unchanged.
	vals := map[string]string{
		"metal": string(x.Metal), "product_name": x.ProductName, "quantity": strconv.FormatInt(x.Quantity, 10), "weight": x.WeightOz.String(), "weight_unit": string(metals.Ounce),
		"purchase_price": x.PurchasePrice.StringFixed(2), "fees": x.Fees.StringFixed(2), "dealer": x.Dealer, "purchase_date": x.PurchaseDate.String(), "notes": x.Notes,
		"purchase_currency": x.Currency(),
		"location_id":       x.LocationID, "tags": strings.Join(x.Tags, ", "),
	}
	if x.WeightAmount.Valid && x.WeightUnit.Valid() {
		// A lot entered as 100 g is edited as 100 g.
		vals["weight"], vals["weight_unit"] = x.WeightAmount.Decimal.String(), string(x.WeightUnit)
	}
	v := h.formView(c, x.ID, vals, nil)
	v.Locked = x.SoldQuantity > 0
	return kit.Render(c, http.StatusOK, pages.HoldingForm(h.Meta(c, "Edit holding", "holdings"), v))
}

// HoldingsSave handles the add and edit forms; bad input re-renders the form with 422.
func (h *Handlers) HoldingsSave(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	in := portfolio.HoldingInputFromForm(func(k string) string { return c.FormValue(k) })
	id := c.Params("id")
	custody, err := portfolio.CustodyFromForm(func(k string) string { return c.FormValue(k) })
	in.Custody = custody
	var created portfolio.Holding
	if err != nil {
		// A bad tags field is shown with the rest of the form below.
	} else if id == "" {
		created, err = h.portfolio.CreateHolding(h.Ctx(c), u, in)
	} else {
		_, err = h.portfolio.UpdateHolding(h.Ctx(c), u, id, in)
	}
	if err != nil {
		if apperr.KindOf(err) != apperr.Invalid {
			return err
		}
		vals := map[string]string{}
		for _, f := range portfolio.HoldingFields {
			vals[f] = in.Value(f)
		}
		vals["location_id"], vals["tags"] = strings.Clone(c.FormValue("location_id")), strings.Clone(c.FormValue("tags"))
		v := h.formView(c, id, vals, apperr.FieldsOf(err))
		if id != "" {
			if x, gerr := h.portfolio.GetHolding(h.Ctx(c), u, id); gerr == nil {
				v.Locked = x.SoldQuantity > 0
			}
		}
		m := h.Meta(c, "Holding", "holdings")
		return kit.Page(c, http.StatusUnprocessableEntity, pages.HoldingForm(m, v), pages.HoldingFormFields(m, v))
	}
	if id == "" && c.FormValue("then") == "another" {
		return kit.Redirect(c, "/holdings/new?"+url.Values{"added": {created.ID}, "metal": {string(created.Metal)}}.Encode())
	}
	return kit.Redirect(c, "/holdings?saved=1")
}

// HoldingsDelete deletes a holding after the browser confirmed.
func (h *Handlers) HoldingsDelete(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	if err := h.portfolio.DeleteHolding(h.Ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	if !kit.IsHTMX(c) {
		return kit.Redirect(c, "/holdings")
	}
	return kit.RenderView(c, u, h.holdingsView, func(v pages.HoldingsView) templ.Component {
		return pages.HoldingsTable(h.Meta(c, "", "holdings"), v)
	})
}

// undoneFlash is the notice after a sale is undone.
const undoneFlash = "Sale undone: its units are back in the holding."

// SalesIndex lists every sale of the member, each with undo.
func (h *Handlers) SalesIndex(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	p, err := h.portfolio.ListSales(h.Ctx(c), u, portfolio.SalesQuery{Limit: 200})
	if err != nil {
		return err
	}
	names := map[string]string{}
	if all, err := h.portfolio.ExportHoldings(h.Ctx(c), u); err == nil {
		for _, x := range all {
			names[x.ID] = x.Name()
		}
	}
	v := pages.SalesView{Total: format.Count(int64(p.Total), "sale", "sales"), Realized: format.SignedUSD(p.Realized), Tone: kit.Tone(&p.Realized)}
	for _, s := range p.Sales {
		v.Rows = append(v.Rows, saleRow(s, names[s.HoldingID]))
	}
	v.Flash = kit.Flash(c, "undone", undoneFlash)
	return kit.Render(c, http.StatusOK, pages.Sales(h.Meta(c, "Sales", "holdings"), v))
}

// HoldingsDeleteConfirm asks before deleting a holding (the Delete link's page without
// JavaScript); the form posts to HoldingsDelete.
func (h *Handlers) HoldingsDeleteConfirm(c *fiber.Ctx) error {
	x, err := h.pathHolding(c)
	if err != nil {
		return err
	}
	if x.SoldQuantity > 0 {
		return kit.Redirect(c, "/holdings")
	}
	v := pages.ConfirmView{Question: "Delete " + x.Name() + "?", Detail: "Its " + format.Count(x.Quantity, "unit", "units") + " bought on " + format.Date(x.PurchaseDate.Time) + " leave your stack. This cannot be undone.",
		Action: "/holdings/" + x.ID + "/delete", Button: "Delete", Cancel: "/holdings"}
	return kit.Render(c, http.StatusOK, pages.Confirm(h.Meta(c, "Delete holding", "holdings"), v))
}

// SaleUndoConfirm asks before undoing a sale; the form posts to SaleUndo.
func (h *Handlers) SaleUndoConfirm(c *fiber.Ctx) error {
	back := "/holdings"
	hidden := map[string]string{}
	if c.Query("back") == "sales" {
		back, hidden["back"] = "/holdings/sales", "sales"
	}
	v := pages.ConfirmView{Question: "Undo this sale?", Detail: "Its units go back to the holding and its realized gain or loss is removed.",
		Action: "/holdings/sales/" + url.PathEscape(c.Params("id")) + "/undo", Button: "Undo sale", Cancel: back, Hidden: hidden}
	return kit.Render(c, http.StatusOK, pages.Confirm(h.Meta(c, "Undo sale", "holdings"), v))
}

// SaleUndo deletes one of the member's sales and returns to the page it came from.
func (h *Handlers) SaleUndo(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	if _, err := h.portfolio.DeleteSale(h.Ctx(c), u, c.Params("id")); err != nil {
		return err
	}
	if c.FormValue("back") == "sales" {
		return kit.Redirect(c, "/holdings/sales?undone=1")
	}
	return kit.Redirect(c, "/holdings?undone=1")
}

// locationNames maps the member's location ids to their names (empty when none are kept).
func (h *Handlers) locationNames(c *fiber.Ctx, u account.User) map[string]string {
	out := map[string]string{}
	ls, err := h.portfolio.Locations(h.Ctx(c), u)
	if err != nil {
		return out
	}
	for _, l := range ls {
		out[l.ID] = l.Name
	}
	return out
}

// locationOptions are the member's locations for the holding form's select.
func (h *Handlers) locationOptions(c *fiber.Ctx) []pages.Option {
	u, _ := kit.UserFrom(c)
	ls, err := h.portfolio.Locations(h.Ctx(c), u)
	if err != nil {
		return nil
	}
	out := make([]pages.Option, len(ls))
	for i, l := range ls {
		out[i] = pages.Option{Value: l.ID, Label: l.Name}
	}
	return out
}

// productOptions is the catalogue as the add-holding picker offers it.
func productOptions() []pages.ProductOption {
	out := make([]pages.ProductOption, len(metals.Products))
	for i, p := range metals.Products {
		out[i] = pages.ProductOption{Name: p.Name, Metal: string(p.Metal), MetalTitle: p.Metal.Title(), FineOz: p.FineOz.String(), Aliases: p.Aliases, PerFace: p.PerFace}
	}
	return out
}

// signedMoneyPtr is format.SignedMoney, or a dash when the amount is unknown.
func signedMoneyPtr(d *decimal.Decimal, currency string) string {
	if d == nil {
		return format.Dash
	}
	return format.SignedMoney(*d, currency)
}
