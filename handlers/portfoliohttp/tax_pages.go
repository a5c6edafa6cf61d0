package portfoliohttp

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/views/pages"
)

// taxView builds the /tax page for year with the sale form as given.
func (h *Handlers) taxView(c *fiber.Ctx, u account.User, year int, sale pages.TaxSaleView) (pages.TaxView, error) {
	cur, err := h.portfolio.Currency(h.Ctx(c), u, c.Query("currency"), "currency")
	if err != nil {
		return pages.TaxView{}, err
	}
	r, err := h.portfolio.TaxReportIn(h.Ctx(c), u, year, cur)
	if err != nil {
		return pages.TaxView{}, err
	}
	y := strconv.Itoa(year)
	q := "&year=" + y + "&currency=" + r.Currency
	v := pages.TaxView{Year: y, PrevYear: strconv.Itoa(year - 1), NextYear: strconv.Itoa(year + 1), Jurisdiction: r.Jurisdiction, Currency: r.Currency,
		Notes: r.Notes, CSVURL: "/v1/tax/report?format=csv" + q, PDFURL: "/v1/tax/report?format=pdf" + q, Sale: sale,
		LotMethod: account.SettingsOf(u).LotMethod, LotMethods: account.LotMethods, Jurisdictions: account.TaxJurisdictions,
		SettingsSaved: c.Query("settings") == "1"}
	for _, x := range r.Rows {
		v.Rows = append(v.Rows, pages.TaxRowView{Description: x.Description, Acquired: x.AcquiredOn.String(), Disposed: x.DisposedOn.String(),
			Proceeds: format.Money(x.Proceeds, r.Currency), Cost: format.Money(x.CostBasis, r.Currency), Gain: format.SignedMoney(x.Gain, r.Currency),
			Term: x.Term, Category: strings.ReplaceAll(x.Category, "_", " ")})
	}
	t := r.Totals
	v.Totals = [][2]string{{"Short-term", format.SignedMoney(t.ShortTerm, r.Currency)}, {"Long-term", format.SignedMoney(t.LongTerm, r.Currency)},
		{"Collectible", format.SignedMoney(t.Collectible, r.Currency)}, {"Exempt", format.SignedMoney(t.Exempt, r.Currency)},
		{"Tax-free", format.SignedMoney(t.TaxFree, r.Currency)}, {"Total", format.SignedMoney(t.Total, r.Currency)}}
	return v, nil
}

// taxSaleView is the sale form: the products the member holds, values and errors.
func (h *Handlers) taxSaleView(c *fiber.Ctx, u account.User, vals map[string]string, errs []apperr.FieldError) (pages.TaxSaleView, error) {
	list, err := h.portfolio.ExportHoldings(h.Ctx(c), u)
	if err != nil {
		return pages.TaxSaleView{}, err
	}
	v := pages.TaxSaleView{Methods: portfolio.PreviewMethods, Currencies: fx.DisplayCurrencies(), Values: vals, Errors: kit.FieldSentences(errs), Today: h.memberToday(c)}
	seen := map[string]bool{}
	for _, x := range list {
		key := string(x.Metal) + "|" + x.ProductName
		if x.Remaining() == 0 || seen[key] {
			continue
		}
		seen[key] = true
		label := x.ProductName
		if label == "" {
			label = x.Metal.Title() + " (no product name)"
		}
		v.Products = append(v.Products, [2]string{key, label + " · " + x.Metal.Title()})
	}
	return v, nil
}

// TaxPage shows the year's gains report and the sale form.
func (h *Handlers) TaxPage(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	year, err := h.taxYear(c)
	if err != nil {
		return err
	}
	sale, err := h.taxSaleView(c, u, map[string]string{"sold_on": h.memberToday(c), "method": account.SettingsOf(u).LotMethod}, nil)
	if err != nil {
		return err
	}
	v, err := h.taxView(c, u, year, sale)
	if err != nil {
		return err
	}
	v.Sold = c.Query("sold") == "1"
	return kit.Render(c, http.StatusOK, pages.Tax(h.Meta(c, "Gains report", "holdings"), v))
}

// taxFormInput reads the sale form: product is "metal|product name"; a least-gain button
// names its method in use_method.
func taxFormInput(c *fiber.Ctx) (portfolio.DisposalInput, map[string]string) {
	vals := map[string]string{}
	for _, k := range []string{"product", "quantity", "price_per_unit", "fees", "sold_on", "method", "currency"} {
		vals[k] = strings.Clone(c.FormValue(k))
	}
	if m := c.FormValue("use_method"); m != "" {
		vals["method"] = strings.Clone(m)
	}
	metal, product, _ := strings.Cut(vals["product"], "|")
	var picks []portfolio.LotPick
	if vals["method"] == portfolio.MethodSpecific {
		// lot_<holding id> = units, for the lots given any.
		c.Request().PostArgs().VisitAll(func(k, v []byte) {
			id, ok := strings.CutPrefix(string(k), "lot_")
			n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
			if ok && err == nil && n > 0 {
				picks = append(picks, portfolio.LotPick{HoldingID: id, Quantity: n})
			}
		})
		if len(picks) > 0 {
			vals["quantity"] = ""
		}
	}
	in := portfolio.DisposalInputFromForm(func(k string) string {
		switch k {
		case "metal":
			return metal
		case "product_name":
			return product
		case "kind", "received":
			return ""
		}
		return vals[k]
	}, picks)
	return in, vals
}

// taxFormProblem re-renders the sale form (or the page) with a field problem.
func (h *Handlers) taxFormProblem(c *fiber.Ctx, u account.User, vals map[string]string, err error, preview *pages.TaxPreviewView) error {
	status := http.StatusOK
	var errs []apperr.FieldError
	if err != nil {
		e, ok := apperr.As(err)
		if !ok || (e.Kind != apperr.Invalid && e.Kind != apperr.Unprocessable) {
			return err
		}
		errs = e.Fields
		status = http.StatusUnprocessableEntity
	}
	sale, serr := h.taxSaleView(c, u, vals, errs)
	if serr != nil {
		return serr
	}
	sale.Preview = preview
	m := h.Meta(c, "Gains report", "holdings")
	v, verr := h.taxView(c, u, h.Now().UTC().Year(), sale)
	if verr != nil {
		return verr
	}
	return kit.Page(c, status, pages.Tax(m, v), pages.TaxSaleForm(m, sale))
}

// TaxPreview shows what each lot method would do with the sale, beside the form.
func (h *Handlers) TaxPreview(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	in, vals := taxFormInput(c)
	p, err := h.portfolio.PreviewDisposal(h.Ctx(c), u, in)
	if err != nil {
		return h.taxFormProblem(c, u, vals, err, nil)
	}
	pv := &pages.TaxPreviewView{LeastGain: p.LeastGain}
	metal, product, _ := strings.Cut(vals["product"], "|")
	lots, err := h.portfolio.ProductLots(h.Ctx(c), u, metal, product)
	if err != nil {
		return err
	}
	for _, l := range lots {
		per := l.HeldCost.Div(decimal.NewFromInt(l.Remaining())).Round(2)
		pv.Lots = append(pv.Lots, pages.TaxLotChoice{ID: l.ID, Max: strconv.FormatInt(l.Remaining(), 10),
			Label: "Bought " + portfolio.AcquiredOn(l.Holding).String() + " · " + strconv.FormatInt(l.Remaining(), 10) + " held at " + format.Money(per, lotCurrency(l.PurchaseCurrency)) + " each"})
	}
	for _, m := range portfolio.PreviewMethods {
		d, ok := p.Methods[m]
		if !ok {
			pv.Methods = append(pv.Methods, pages.TaxPreviewMethod{Method: m, Lots: p.Unavailable[m], Cost: "—", Gain: "—"})
			continue
		}
		var lots, terms []string
		for _, s := range d.Slices {
			from := strconv.FormatInt(s.Quantity, 10) + " from " + s.AcquiredOn.String()
			if s.LotCurrency != d.Currency {
				from += " (" + format.Money(s.LotCostBasis, s.LotCurrency) + ")"
			}
			lots = append(lots, from)
			if !slices.Contains(terms, s.Term+" ("+strings.ReplaceAll(s.Category, "_", " ")+")") {
				terms = append(terms, s.Term+" ("+strings.ReplaceAll(s.Category, "_", " ")+")")
			}
		}
		pv.Methods = append(pv.Methods, pages.TaxPreviewMethod{Method: m, Lots: strings.Join(lots, ", "), Cost: format.Money(d.CostBasis, d.Currency),
			Gain: format.SignedMoney(d.Gain, d.Currency), Terms: strings.Join(terms, ", "), Least: m == p.LeastGain})
	}
	return h.taxFormProblem(c, u, vals, nil, pv)
}

// TaxSell records the sale from the form.
func (h *Handlers) TaxSell(c *fiber.Ctx) error {
	u, _ := kit.UserFrom(c)
	in, vals := taxFormInput(c)
	d, err := h.portfolio.RecordDisposal(h.Ctx(c), u, in)
	if err != nil {
		return h.taxFormProblem(c, u, vals, err, nil)
	}
	return kit.Redirect(c, "/tax?sold=1&year="+strconv.Itoa(d.SoldOn.Year()))
}

// lotCurrency is a lot's purchase currency (USD for lots recorded before currencies).
func lotCurrency(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}
