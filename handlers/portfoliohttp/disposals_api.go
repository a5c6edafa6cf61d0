package portfoliohttp

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/handlers/kit"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// DisposalCreateJSON is the body of POST /v1/sales and POST /v1/sales/preview (fields as
// portfolio.DisposalFields).
type DisposalCreateJSON struct {
	ProductName  string        `json:"product_name" schema:"optional,maxLength=MaxProductName" doc:"The product sold: lots of this metal with exactly this product name (empty: lots without one)."`
	Metal        string        `json:"metal" schema:"enum=metals"`
	Quantity     int64         `json:"quantity" schema:"optional,min=1,max=MaxQuantity" doc:"Units disposed of; with lots, optional (their sum) or equal to it."`
	PricePerUnit kit.Num       `json:"price_per_unit" schema:"optional,min=0,max=MaxPrice" doc:"Sale price per unit (to the cent) in currency; required for kind sold and traded (the fair value of what was received), absent or 0 for gifted and lost."`
	Fees         kit.Num       `json:"fees" schema:"optional,min=0,max=MaxPrice" doc:"Fees of the whole disposal, in currency; split over the lots by units."`
	SoldOn       string        `json:"sold_on" schema:"optional,format=date" doc:"YYYY-MM-DD; default today. Only lots bought on or before it are used."`
	Method       string        `json:"method" schema:"optional,enum=LotMethods" doc:"How lots are picked; default your lot_method setting (specific when lots are named)."`
	Lots         []LotPickJSON `json:"lots" schema:"optional" doc:"For method specific: the lots and units."`
	Kind         string        `json:"kind" schema:"optional,enum=DisposalKinds" doc:"sold (default), traded (name received), gifted or lost (no proceeds)."`
	Received     string        `json:"received" schema:"optional,maxLength=64" doc:"For kind traded: the holding id of the lot the trade became."`
	Currency     string        `json:"currency" schema:"optional,minLength=3,maxLength=3" doc:"ISO 4217 code of price_per_unit and fees (one of the display currencies); default the lots' purchase currency when they share one, else your display currency. A lot bought in another currency counts at its cost converted at the ECB rate of its purchase day (the last on or before it); no rate then is a 422 naming currency."`
	_            struct{}      `schema:"closed"`
}

// LotPickJSON is one lot of a specific disposal.
type LotPickJSON struct {
	HoldingID string `json:"holding_id" schema:"maxLength=64"`
	Quantity  int64  `json:"quantity" schema:"min=1,max=MaxQuantity"`
}

// DisposalSliceJSON is one lot's part of a disposal.
type DisposalSliceJSON struct {
	SaleID       string  `json:"sale_id,omitempty" doc:"The slice's sale (absent in a preview)."`
	HoldingID    string  `json:"holding_id"`
	Quantity     int64   `json:"quantity"`
	AcquiredOn   string  `json:"acquired_on" schema:"format=date" doc:"The lot's purchase date (the day it was recorded when it has none)."`
	CostBasis    kit.Num `json:"cost_basis" doc:"The units' cost, in currency: their share of the lot's remaining cost (lot_cost_basis at the ECB rate of acquired_on when the lot was bought in another currency, to the cent), or the pool's average cost for method average."`
	LotCurrency  string  `json:"lot_currency" doc:"ISO 4217 code the lot was bought in."`
	LotCostBasis kit.Num `json:"lot_cost_basis" doc:"The units' cost in lot_currency, exactly (cost_basis when lot_currency is currency)."`
	Proceeds     kit.Num `json:"proceeds" doc:"quantity × price_per_unit, in currency."`
	Fees         kit.Num `json:"fees" doc:"The slice's share of the disposal's fees, in currency."`
	Gain         kit.Num `json:"gain" doc:"proceeds − fees − cost_basis, in currency."`
	Term         string  `json:"term" schema:"enum=Terms" doc:"short: held one year or less; long: more than one year."`
	Category     string  `json:"category" schema:"enum=Categories" doc:"The tax category under your tax_jurisdiction (not tax advice)."`
}

// DisposalJSON is a disposal across lots.
type DisposalJSON struct {
	ID           string              `json:"id,omitempty" doc:"Absent in a preview. DELETE /v1/sales/{id} with it undoes every slice."`
	Kind         string              `json:"kind" schema:"enum=DisposalKinds"`
	Method       string              `json:"method" schema:"enum=LotMethods"`
	Metal        string              `json:"metal" schema:"enum=metals"`
	ProductName  string              `json:"product_name"`
	SoldOn       string              `json:"sold_on" schema:"format=date"`
	Quantity     int64               `json:"quantity"`
	PricePerUnit kit.Num             `json:"price_per_unit" doc:"In currency."`
	Proceeds     kit.Num             `json:"proceeds" doc:"In currency."`
	Fees         kit.Num             `json:"fees" doc:"In currency."`
	CostBasis    kit.Num             `json:"cost_basis" doc:"In currency."`
	Gain         kit.Num             `json:"gain" doc:"proceeds − fees − cost_basis, in currency."`
	Received     string              `json:"received,omitempty" doc:"For a trade: the lot it became."`
	Currency     string              `json:"currency" doc:"ISO 4217 code of the price and every amount: the currency named, else the lots' purchase currency when they share one, else your display currency."`
	Jurisdiction string              `json:"jurisdiction" doc:"Your tax_jurisdiction the categories follow."`
	Notes        []string            `json:"notes" doc:"What the jurisdiction says, \"not tax advice\" first."`
	Slices       []DisposalSliceJSON `json:"slices"`
	Unavailable  string              `json:"unavailable,omitempty" doc:"In a preview: why this method cannot decide the disposal (average over lots bought in another currency than the disposal's); its amounts are then 0 and it has no slices."`
}

// DisposalCreatedJSON is the body of POST /v1/sales.
type DisposalCreatedJSON struct {
	Disposal DisposalJSON `json:"disposal"`
}

// DisposalPreviewJSON is the body of POST /v1/sales/preview.
type DisposalPreviewJSON struct {
	Methods struct {
		FIFO    DisposalJSON `json:"fifo"`
		LIFO    DisposalJSON `json:"lifo"`
		HIFO    DisposalJSON `json:"hifo"`
		Average DisposalJSON `json:"average"`
	} `json:"methods"`
	LeastGainMethod string `json:"least_gain_method" schema:"enum=PreviewMethods" doc:"The method with the smallest gain (fifo, lifo, hifo, average first on a tie)."`
}

// DisposalToJSON renders a disposal.
func DisposalToJSON(d portfolio.Disposal) DisposalJSON {
	out := DisposalJSON{ID: d.ID, Kind: d.Kind, Method: d.Method, Metal: d.Metal, ProductName: d.ProductName, SoldOn: d.SoldOn.String(),
		Quantity: d.Quantity, PricePerUnit: kit.Money(d.PricePerUnit), Proceeds: kit.Money(d.Proceeds), Fees: kit.Money(d.Fees),
		CostBasis: kit.Money(d.CostBasis), Gain: kit.Money(d.Gain), Received: d.Received, Currency: d.Currency, Jurisdiction: d.Jurisdiction,
		Notes: d.Notes, Slices: make([]DisposalSliceJSON, len(d.Slices))}
	for i, s := range d.Slices {
		out.Slices[i] = DisposalSliceJSON{SaleID: s.SaleID, HoldingID: s.HoldingID, Quantity: s.Quantity, AcquiredOn: s.AcquiredOn.String(),
			CostBasis: kit.Money(s.CostBasis), LotCurrency: s.LotCurrency, LotCostBasis: kit.Money(s.LotCostBasis), Proceeds: kit.Money(s.Proceeds), Fees: kit.Money(s.Fees),
			Gain: kit.Money(s.Gain), Term: s.Term, Category: s.Category}
	}
	return out
}

// APIDisposalCreate answers POST /v1/sales.
func (h *Handlers) APIDisposalCreate(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusCreated, portfolio.ParseDisposalJSON, func(u account.User, in portfolio.DisposalInput) (portfolio.Disposal, error) {
		return h.portfolio.RecordDisposal(h.Ctx(c), u, in)
	}, func(d portfolio.Disposal) DisposalCreatedJSON {
		return DisposalCreatedJSON{Disposal: DisposalToJSON(d)}
	})
}

// APIDisposalPreview answers POST /v1/sales/preview.
func (h *Handlers) APIDisposalPreview(c *fiber.Ctx) error {
	return kit.MemberBodyJSON(c, http.StatusOK, portfolio.ParseDisposalJSON, func(u account.User, in portfolio.DisposalInput) (portfolio.Preview, error) {
		return h.portfolio.PreviewDisposal(h.Ctx(c), u, in)
	}, previewJSON)
}

func previewJSON(p portfolio.Preview) DisposalPreviewJSON {
	var out DisposalPreviewJSON
	var some portfolio.Disposal
	for _, m := range portfolio.PreviewMethods {
		if d, ok := p.Methods[m]; ok {
			some = d
			break
		}
	}
	one := func(m string) DisposalJSON {
		if d, ok := p.Methods[m]; ok {
			return DisposalToJSON(d)
		}
		// A method that cannot decide this disposal: the disposal's fields, no amounts.
		d := portfolio.Disposal{Kind: some.Kind, Method: m, Metal: some.Metal, ProductName: some.ProductName, SoldOn: some.SoldOn, Quantity: some.Quantity,
			PricePerUnit: some.PricePerUnit, Fees: some.Fees, Received: some.Received, Currency: some.Currency, Jurisdiction: some.Jurisdiction,
			Notes: append(slices.Clone(some.Notes), p.Unavailable[m])}
		out := DisposalToJSON(d)
		out.Unavailable = p.Unavailable[m]
		return out
	}
	out.Methods.FIFO = one(portfolio.MethodFIFO)
	out.Methods.LIFO = one(portfolio.MethodLIFO)
	out.Methods.HIFO = one(portfolio.MethodHIFO)
	out.Methods.Average = one(portfolio.MethodAverage)
	out.LeastGainMethod = p.LeastGain
	return out
}

// TaxRowJSON is one disposal slice of the gains report.
type TaxRowJSON struct {
	Description string  `json:"description"`
	AcquiredOn  string  `json:"acquired_on" schema:"format=date"`
	DisposedOn  string  `json:"disposed_on" schema:"format=date"`
	Quantity    int64   `json:"quantity"`
	Proceeds    kit.Num `json:"proceeds"`
	CostBasis   kit.Num `json:"cost_basis" doc:"The units' cost with the disposal's fees added."`
	Gain        kit.Num `json:"gain" doc:"proceeds − cost_basis."`
	Term        string  `json:"term" schema:"enum=Terms"`
	Category    string  `json:"category" schema:"enum=Categories"`
	Kind        string  `json:"kind" schema:"enum=DisposalKinds"`
	SaleID      string  `json:"sale_id"`
	DisposalID  string  `json:"disposal_id,omitempty" doc:"Absent for a per-lot sale."`
}

// TaxTotalsJSON are the report's gains by category.
type TaxTotalsJSON struct {
	ShortTerm   kit.Num `json:"short_term"`
	LongTerm    kit.Num `json:"long_term"`
	Collectible kit.Num `json:"collectible" doc:"US: long-term gains on physical metal, taxed at up to 28 %."`
	Exempt      kit.Num `json:"exempt" doc:"UK: legal-tender coins, outside capital gains tax."`
	TaxFree     kit.Num `json:"tax_free" doc:"Germany: disposals more than one year after purchase."`
	Total       kit.Num `json:"total" doc:"Equals the realized P/L of the same sales."`
}

// TaxReportJSON is the body of GET /v1/tax/report?format=json.
type TaxReportJSON struct {
	Year         int           `json:"year"`
	Jurisdiction string        `json:"jurisdiction" schema:"enum=Jurisdictions"`
	Currency     string        `json:"currency" doc:"ISO 4217 code of every amount: your display currency, or ?currency=. Each slice's proceeds and fees at the sale day's rate, its cost at the lot's purchase day's rate (the last rate on or before; exact when already in this currency); rows are shown to the cent, totals are exact sums."`
	Rows         []TaxRowJSON  `json:"rows"`
	Totals       TaxTotalsJSON `json:"totals"`
	Excluded     []TaxRowJSON  `json:"excluded" doc:"Slices of lots in a tax-advantaged account, left out of the totals."`
	Notes        []string      `json:"notes" doc:"\"Not tax advice\" first, then the jurisdiction's notes."`
}

func taxRowJSON(r portfolio.TaxRow) TaxRowJSON {
	return TaxRowJSON{Description: r.Description, AcquiredOn: r.AcquiredOn.String(), DisposedOn: r.DisposedOn.String(), Quantity: r.Quantity,
		Proceeds: kit.Money(r.Proceeds), CostBasis: kit.Money(r.CostBasis), Gain: kit.Money(r.Gain), Term: r.Term, Category: r.Category,
		Kind: r.Kind, SaleID: r.SaleID, DisposalID: r.DisposalID}
}

// TaxReportToJSON renders a report.
func TaxReportToJSON(r portfolio.TaxReport) TaxReportJSON {
	return TaxReportJSON{Year: r.Year, Jurisdiction: r.Jurisdiction, Currency: r.Currency, Rows: kit.MapSlice(r.Rows, taxRowJSON),
		Excluded: kit.MapSlice(r.Excluded, taxRowJSON), Notes: r.Notes,
		Totals: TaxTotalsJSON{ShortTerm: kit.Money(r.Totals.ShortTerm), LongTerm: kit.Money(r.Totals.LongTerm), Collectible: kit.Money(r.Totals.Collectible),
			Exempt: kit.Money(r.Totals.Exempt), TaxFree: kit.Money(r.Totals.TaxFree), Total: kit.Money(r.Totals.Total)}}
}

// taxYear reads ?year= (default the current year).
func (h *Handlers) taxYear(c *fiber.Ctx) (int, error) {
	v := c.Query("year")
	if v == "" {
		return h.Now().UTC().Year(), nil
	}
	y, err := strconv.Atoi(v)
	if err != nil || y < portfolio.MinTaxYear || y > portfolio.MaxTaxYear {
		return 0, apperr.InvalidField("year", fmt.Sprintf("must be a year between %d and %d", portfolio.MinTaxYear, portfolio.MaxTaxYear))
	}
	return y, nil
}

// APITaxReport answers GET /v1/tax/report.
func (h *Handlers) APITaxReport(c *fiber.Ctx) error {
	u, err := kit.RequireUser(c)
	if err != nil {
		return err
	}
	year, err := h.taxYear(c)
	if err != nil {
		return err
	}
	format := strings.ToLower(c.Query("format", "json"))
	if format != "json" && format != "csv" && format != "pdf" {
		return apperr.InvalidField("format", "must be json, csv or pdf")
	}
	cur, err := h.portfolio.Currency(h.Ctx(c), u, c.Query("currency"), "currency")
	if err != nil {
		return err
	}
	r, err := h.portfolio.TaxReportIn(h.Ctx(c), u, year, cur)
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
		c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="ounce-form-8949-%d.csv"`, year))
		return c.Status(http.StatusOK).Send(Form8949CSV(r))
	case "pdf":
		b, err := TaxReportPDF(r, h.Now())
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, "application/pdf")
		c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="ounce-gains-%d.pdf"`, year))
		return c.Status(http.StatusOK).Send(b)
	}
	return kit.WriteJSON(c, http.StatusOK, TaxReportToJSON(r))
}

// Form8949Columns are the CSV's header, the columns of IRS Form 8949 (a)–(h), then the
// currency of the amounts.
var Form8949Columns = []string{"description", "acquired", "sold", "proceeds", "cost", "code", "adjustment", "gain", "currency"}

// Form8949CSV writes the report's rows in Form 8949's columns: (a) description, (b) date
// acquired, (c) date sold, (d) proceeds, (e) cost basis, (f) code, (g) adjustment, (h) gain,
// and after them the currency the amounts are in (the report's). Amounts are to the cent; the
// gain is the rounded proceeds less the rounded cost, so every row adds up as printed.
// Text that a spreadsheet would run as a formula is prefixed with an apostrophe.
func Form8949CSV(r portfolio.TaxReport) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(Form8949Columns)
	for _, x := range r.Rows {
		p, cost := x.Proceeds.Round(2), x.CostBasis.Round(2)
		_ = w.Write([]string{portfolio.CSVCell(x.Description), x.AcquiredOn.String(), x.DisposedOn.String(), p.StringFixed(2),
			cost.StringFixed(2), "", "0.00", p.Sub(cost).StringFixed(2), r.Currency})
	}
	w.Flush()
	return b.Bytes()
}
