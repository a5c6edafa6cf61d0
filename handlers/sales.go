package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// pfSaleFields are the names a sale body may carry, in form order.
var pfSaleFields = []string{"quantity", "price_per_unit", "fees", "sold_on"}

// SaleInput is a parsed sale request: raw text per field present, numbers still text.
type SaleInput struct {
	fields  map[string]string
	numeric map[string]bool
	json    bool
}

// ParseSaleJSON reads a sale body strictly: unknown fields, wrong JSON types and trailing
// data are field errors, never a 500.
func ParseSaleJSON(body []byte) (SaleInput, error) {
	fields, numeric, err := strictJSONFields(body, pfSaleFields)
	return SaleInput{fields: fields, numeric: numeric, json: true}, err
}

// SaleInputFromForm takes the text fields of the browser's sale form.
func SaleInputFromForm(get func(string) string) SaleInput {
	in := SaleInput{fields: map[string]string{}, numeric: map[string]bool{}}
	for _, k := range pfSaleFields {
		in.fields[k] = get(k)
	}
	return in
}

// Value returns the raw text of a field, for re-filling a form.
func (in SaleInput) Value(field string) string { return in.fields[field] }

// validate checks the sale against the holding it sells from; the store checks the quantity
// against what is still held, atomically.
func (in SaleInput) validate(hold db.Holding, now time.Time) (db.Sale, []FieldError) {
	var errs []FieldError
	bad := func(f, m string) { errs = append(errs, FieldError{f, m}) }
	isNum := func(f string) bool { return !in.json || in.numeric[f] }
	out := db.Sale{Fees: decimal.Zero}

	q := strings.TrimSpace(in.fields["quantity"])
	d, err := parseBoundedDecimal(q)
	switch {
	case q == "":
		bad("quantity", "is required")
	case !isNum("quantity"):
		bad("quantity", "must be a number")
	case err != nil || !d.IsInteger():
		bad("quantity", "must be a whole number")
	case d.LessThan(decimal.NewFromInt(1)) || d.GreaterThan(decimal.NewFromInt(maxQuantity)):
		bad("quantity", fmt.Sprintf("must be between 1 and %d", maxQuantity))
	default:
		out.Quantity = d.IntPart()
	}
	if p, msg := parseAmount(in.fields["price_per_unit"], isNum("price_per_unit"), true, true, maxPrice, maxMoneyDecimals); msg != "" {
		bad("price_per_unit", msg)
	} else {
		out.PricePerUnit = p
	}
	if v := in.fields["fees"]; strings.TrimSpace(v) != "" {
		if f, msg := parseAmount(v, isNum("fees"), false, true, maxPrice, maxMoneyDecimals); msg != "" {
			bad("fees", msg)
		} else {
			out.Fees = f
		}
	}
	// The latest calendar day anywhere on Earth (UTC+14), so no one's today is refused.
	latest := db.NewDate(now.UTC().Add(14 * time.Hour))
	switch v := strings.TrimSpace(in.fields["sold_on"]); {
	case in.json && in.numeric["sold_on"]:
		bad("sold_on", "must be a string in YYYY-MM-DD form")
	case v == "":
		out.SoldOn = db.NewDate(now.UTC())
		if !hold.PurchaseDate.IsZero() && out.SoldOn.Before(hold.PurchaseDate.Time) {
			out.SoldOn = hold.PurchaseDate
		}
	default:
		sd, err := db.ParseDate(v)
		switch {
		case err != nil:
			bad("sold_on", "must be a date in YYYY-MM-DD form")
		case sd.After(latest.Time):
			bad("sold_on", "cannot be in the future")
		case sd.Year() < 1900:
			bad("sold_on", "must be 1900 or later")
		case !hold.PurchaseDate.IsZero() && sd.Before(hold.PurchaseDate.Time):
			bad("sold_on", "cannot be before the purchase date ("+hold.PurchaseDate.String()+")")
		default:
			out.SoldOn = sd
		}
	}
	pfSortSaleErrors(errs)
	return out, errs
}

func pfSortSaleErrors(errs []FieldError) { sortByFieldOrder(errs, pfSaleFields) }

// SaleJSON is the wire form of a sale.
type SaleJSON struct {
	ID           string    `json:"id"`
	HoldingID    string    `json:"holding_id"`
	Metal        string    `json:"metal"`
	Quantity     int64     `json:"quantity"`
	Oz           Num       `json:"oz"`
	PricePerUnit Num       `json:"price_per_unit"`
	Fees         Num       `json:"fees"`
	SoldOn       string    `json:"sold_on"`
	Proceeds     Num       `json:"proceeds"`
	CostBasis    Num       `json:"cost_basis"`
	RealizedPL   Num       `json:"realized_pl"`
	CreatedAt    time.Time `json:"created_at"`
}

// SaleToJSON renders a stored sale.
func SaleToJSON(s db.Sale) SaleJSON {
	return SaleJSON{ID: s.ID, HoldingID: s.HoldingID, Metal: s.Metal, Quantity: s.Quantity, Oz: ounces(s.Oz),
		PricePerUnit: money(s.PricePerUnit), Fees: money(s.Fees), SoldOn: s.SoldOn.String(), Proceeds: money(s.Proceeds),
		CostBasis: money(s.CostBasis), RealizedPL: money(s.RealizedPL), CreatedAt: s.CreatedAt.UTC()}
}

// RecordSale validates and records the sale of units of u's holding.
func (h *Handlers) RecordSale(ctx context.Context, u db.User, holdingID string, in SaleInput) (db.Sale, error) {
	hold, err := h.store.HoldingByID(ctx, u.ID, holdingID)
	if err != nil {
		return db.Sale{}, holdingErr(err)
	}
	sale, errs := in.validate(hold, h.now())
	if len(errs) > 0 {
		return db.Sale{}, InvalidFields(errs)
	}
	out, err := h.store.InsertSale(ctx, u.ID, holdingID, sale)
	var oe *db.OversoldError
	switch {
	case errors.As(err, &oe):
		p := NewProblem(http.StatusConflict, ProbConflict, oe.Error(), FieldError{Field: "quantity", Message: fmt.Sprintf("at most %d units are still held", oe.Held)})
		return db.Sale{}, p
	case err != nil:
		return db.Sale{}, holdingErr(err)
	}
	return out, nil
}

// SalesPage is one page of a user's sales.
type SalesPage struct {
	Sales    []db.Sale
	Limit    int
	Offset   int
	Total    int
	Realized decimal.Decimal
}

// ListSales is the use case behind the sales list.
func (h *Handlers) ListSales(ctx context.Context, u db.User, metal, holdingID string, limit, offset int) (SalesPage, error) {
	if metal != "" {
		m, err := metals.Parse(metal)
		if err != nil {
			return SalesPage{}, Invalid("metal", "must be one of gold, silver, platinum, palladium")
		}
		metal = string(m)
	}
	if len(holdingID) > 64 {
		return SalesPage{}, Invalid("holding_id", "must be at most 64 characters")
	}
	p, err := h.store.SalesByUser(ctx, u.ID, db.SaleFilter{Metal: metal, HoldingID: holdingID, Limit: limit, Offset: offset})
	if err != nil {
		return SalesPage{}, err
	}
	return SalesPage{Sales: p.Sales, Limit: limit, Offset: offset, Total: p.Total, Realized: p.Realized}, nil
}

// APISalesCreate answers POST /v1/holdings/{id}/sales.
func (h *Handlers) APISalesCreate(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	in, err := ParseSaleJSON(c.Body())
	if err != nil {
		return err
	}
	sale, err := h.RecordSale(h.ctx(c), u, c.Params("id"), in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/v1/sales?holding_id="+sale.HoldingID)
	return writeJSON(c, http.StatusCreated, fiber.Map{"sale": SaleToJSON(sale)})
}

// APISalesList answers GET /v1/sales.
func (h *Handlers) APISalesList(c *fiber.Ctx) error {
	u, err := requireUser(c)
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 50, 1, 200)
	if err != nil {
		return err
	}
	offset, err := queryInt(c, "offset", 0, 0, 1<<31-1)
	if err != nil {
		return err
	}
	p, err := h.ListSales(h.ctx(c), u, c.Query("metal"), c.Query("holding_id"), limit, offset)
	if err != nil {
		return err
	}
	items := make([]SaleJSON, len(p.Sales))
	for i, s := range p.Sales {
		items[i] = SaleToJSON(s)
	}
	return writeJSON(c, http.StatusOK, fiber.Map{"sales": items, "limit": p.Limit, "offset": p.Offset, "total": p.Total, "realized_pl": money(p.Realized)})
}
