package portfolio

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// SaleFields are the names a sale body or form may carry, in form order.
var SaleFields = []string{"quantity", "price_per_unit", "fees", "sold_on", "currency"}

// SaleInput is a parsed sale request: the raw text of each field present, numbers still text.
type SaleInput struct{ rawFields }

// ParseSaleJSON reads a sale body strictly: unknown fields, wrong JSON types and trailing
// data are field errors, never a failure of ours.
func ParseSaleJSON(body []byte) (SaleInput, error) {
	raw, err := jsonFields(body, SaleFields)
	return SaleInput{raw}, err
}

// SaleInputFromForm takes the text fields of the browser's sale form.
func SaleInputFromForm(get func(string) string) SaleInput {
	return SaleInput{formFields(SaleFields, get)}
}

// Sale is a sale of some or all of the units of one holding.
type Sale struct {
	ID           string
	HoldingID    string
	Metal        metals.Metal
	Quantity     int64
	Oz           decimal.Decimal
	PricePerUnit decimal.Decimal
	Fees         decimal.Decimal
	SoldOn       db.Date
	// Proceeds is quantity × price per unit.
	Proceeds decimal.Decimal
	// CostBasis is the sold units' share of the holding's remaining cost basis.
	CostBasis decimal.Decimal
	// RealizedPL is proceeds − fees − cost basis.
	RealizedPL decimal.Decimal
	CreatedAt  time.Time
	// Currency is the ISO 4217 code of the price, fees and amounts: the lot's purchase
	// currency, or for a slice of a disposal across currencies the disposal's (LotCostBasis is
	// then the units' cost in the lot's currency).
	Currency     string
	LotCostBasis decimal.Decimal
	// DisposalID names the disposal across lots the sale is a slice of ("" for a per-lot
	// sale); the export fills in that disposal's kind, method and received lot beside it.
	DisposalID                                     string
	DisposalKind, DisposalMethod, DisposalReceived string
}

func saleFromRow(r db.Sale) Sale {
	return Sale{ID: r.ID, HoldingID: r.HoldingID, Metal: metals.Metal(r.Metal), Quantity: r.Quantity, Oz: r.Oz, PricePerUnit: r.PricePerUnit,
		Fees: r.Fees, SoldOn: r.SoldOn, Proceeds: r.Proceeds, CostBasis: r.CostBasis, RealizedPL: r.RealizedPL, CreatedAt: r.CreatedAt,
		Currency: saleCurrency(r.Currency), LotCostBasis: r.LotCostBasis(), DisposalID: r.DisposalID}
}

// saleCurrency is a stored sale's currency (USD for sales recorded before currencies).
func saleCurrency(c string) string {
	if c == "" {
		return "USD"
	}
	return c
}

// validate checks the sale against the holding it sells from; the store checks the quantity
// against what is still held, atomically.
func (in SaleInput) validate(hold Holding, now time.Time) (db.Sale, []apperr.FieldError) {
	var errs []apperr.FieldError
	bad := func(f, m string) { errs = append(errs, apperr.FieldError{Field: f, Message: m}) }
	isNum := func(f string) bool { return !in.json || in.numeric[f] }
	out := db.Sale{Fees: decimal.Zero}

	if q, msg := parseQuantity(in.fields["quantity"], isNum("quantity")); msg != "" {
		bad("quantity", msg)
	} else {
		out.Quantity = q
	}
	if p, msg := parseAmount(moneyText(in.fields["price_per_unit"], in.json), isNum("price_per_unit"), true, true, maxPrice, maxMoneyDecimals); msg != "" {
		bad("price_per_unit", msg)
	} else {
		out.PricePerUnit = p
	}
	if v := in.fields["fees"]; strings.TrimSpace(v) != "" {
		if f, msg := parseAmount(moneyText(v, in.json), isNum("fees"), false, true, maxPrice, maxMoneyDecimals); msg != "" {
			bad("fees", msg)
		} else {
			out.Fees = f
		}
	}
	switch v := strings.TrimSpace(in.fields["sold_on"]); {
	case in.json && in.numeric["sold_on"]:
		bad("sold_on", "must be a string in YYYY-MM-DD form")
	case v == "":
		// Today, unless the purchase is dated later (a purchase dated today in UTC+14).
		out.SoldOn = db.NewDate(now.UTC())
		if !hold.PurchaseDate.IsZero() && out.SoldOn.Before(hold.PurchaseDate.Time) {
			out.SoldOn = hold.PurchaseDate
		}
	default:
		sd, msg := parseDay(v, now)
		switch {
		case msg != "":
			bad("sold_on", msg)
		case !hold.PurchaseDate.IsZero() && sd.Before(hold.PurchaseDate.Time):
			bad("sold_on", "cannot be before the purchase date ("+hold.PurchaseDate.String()+")")
		default:
			out.SoldOn = sd
		}
	}
	// A sale is recorded in its lot's currency, so its realized profit is one currency's
	// difference; the valuation converts it at the sale day's rate.
	if v := strings.TrimSpace(in.fields["currency"]); v != "" {
		isStr := !in.json || !in.numeric["currency"]
		if code, msg := parseCurrency(v, isStr); msg != "" {
			bad("currency", msg)
		} else if code != hold.Currency() {
			bad("currency", fmt.Sprintf("must be the holding's purchase currency, %s: a sale is recorded in the currency its lot was bought in", hold.Currency()))
		}
	}
	sortByFieldOrder(errs, SaleFields)
	return out, errs
}

// RecordSale validates and records the sale of units of the member's holding: the units
// take their share of its remaining cost basis, and the realized profit or loss is the
// proceeds less fees and that cost. Selling more than is still held is a conflict naming
// the quantity.
func (s *Service) RecordSale(ctx context.Context, u db.User, holdingID string, in SaleInput) (Sale, error) {
	hold, err := s.GetHolding(ctx, u, holdingID)
	if err != nil {
		return Sale{}, err
	}
	sale, errs := in.validate(hold, s.now())
	if err := apperr.InvalidFields(errs); err != nil {
		return Sale{}, err
	}
	out, err := s.store.InsertSale(ctx, u.ID, holdingID, sale, DecideSale)
	var oe *db.OversoldError
	switch {
	case errors.As(err, &oe):
		e := apperr.Wrap(apperr.Conflict, err, oe.Error())
		e.Fields = []apperr.FieldError{{Field: "quantity", Message: fmt.Sprintf("at most %d units are still held", oe.Held)}}
		return Sale{}, e
	case err != nil:
		return Sale{}, holdingErr(err)
	}
	return saleFromRow(out), nil
}

// SalesQuery narrows and pages a sales list.
type SalesQuery struct {
	// Metal is "" for every metal; a symbol (XAG) or any case is accepted.
	Metal     string
	HoldingID string
	Limit     int
	Offset    int
}

// SalesPage is one page of a member's sales, latest first, with the realized profit or loss
// of every sale matching the query.
type SalesPage struct {
	Sales    []Sale
	Limit    int
	Offset   int
	Total    int
	Realized decimal.Decimal
}

// ListSales lists the member's sales.
func (s *Service) ListSales(ctx context.Context, u db.User, q SalesQuery) (SalesPage, error) {
	if err := requireGold(u); err != nil {
		return SalesPage{}, err
	}
	if q.Metal != "" {
		m, err := metals.Parse(q.Metal)
		if err != nil {
			return SalesPage{}, apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
		}
		q.Metal = string(m)
	}
	if len(q.HoldingID) > 64 {
		return SalesPage{}, apperr.InvalidField("holding_id", "must be at most 64 characters")
	}
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Offset = max(q.Offset, 0)
	p, err := s.store.SalesByUser(ctx, u.ID, db.SaleFilter{Metal: q.Metal, HoldingID: q.HoldingID, Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return SalesPage{}, err
	}
	out := SalesPage{Sales: make([]Sale, len(p.Sales)), Limit: q.Limit, Offset: q.Offset, Total: p.Total, Realized: p.Realized}
	for i, r := range p.Sales {
		out.Sales[i] = saleFromRow(r)
	}
	return out, nil
}

// saleErr is "sale not found" for another member's sale or none.
func saleErr(err error) error {
	if errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("sale")
	}
	return err
}

// DeleteSale undoes one of the member's sales (a sale recorded by mistake): its units and
// their cost basis go back to the holding, and its realized profit or loss is gone.
func (s *Service) DeleteSale(ctx context.Context, u db.User, saleID string) (Sale, error) {
	if err := requireGold(u); err != nil {
		return Sale{}, err
	}
	if len(saleID) > 64 {
		return Sale{}, apperr.NotFoundf("sale")
	}
	if strings.HasPrefix(saleID, "d_") {
		// A disposal across lots, named by its own id: all its slices go.
		if _, _, err := s.store.DeleteDisposal(ctx, u.ID, saleID, UndoSale); err != nil {
			return Sale{}, saleErr(err)
		}
		return Sale{ID: saleID}, nil
	}
	r, err := s.store.DeleteSale(ctx, u.ID, saleID, UndoSale)
	if err != nil {
		return Sale{}, saleErr(err)
	}
	return saleFromRow(r), nil
}
