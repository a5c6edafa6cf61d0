package portfolio

import (
	"context"
	"fmt"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// TaxRow is one disposal slice in the gains report.
type TaxRow struct {
	Description            string
	AcquiredOn, DisposedOn db.Date
	Quantity               int64
	// Proceeds is what the units fetched; CostBasis their cost with the sale's fees added
	// (as Form 8949 takes them); Gain proceeds − cost basis.
	Proceeds, CostBasis, Gain decimal.Decimal
	Term, Category, Kind      string
	SaleID, DisposalID        string
}

// TaxTotals are the report's sums of gain by category, and in all.
type TaxTotals struct {
	ShortTerm, LongTerm, Collectible, Exempt, TaxFree, Total decimal.Decimal
}

// TaxReport is a member's gains of one tax year (calendar year), not tax advice.
type TaxReport struct {
	Year         int
	Jurisdiction string
	Currency     string
	Rows         []TaxRow
	Totals       TaxTotals
	// Excluded are slices of lots kept in a tax-advantaged account (at a location of kind
	// ira), listed apart and left out of the totals.
	Excluded []TaxRow
	Notes    []string
}

// MinTaxYear and MaxTaxYear bound the report's year.
const (
	MinTaxYear = 1900
	MaxTaxYear = 9999
)

// TaxReport is TaxReportIn the member's display currency.
func (s *Service) TaxReport(ctx context.Context, u db.User, year int) (TaxReport, error) {
	return s.TaxReportIn(ctx, u, year, memberCurrency(u))
}

// TaxReportIn builds the member's gains report for a calendar year in currency (a code
// Currency resolved): every disposal slice sold that year with its holding period and the
// jurisdiction's category, and totals that equal the realized profit or loss of the same
// sales in the same currency. Each slice's proceeds and fees count at the rate of the day it
// was sold, its cost at the rate of the lot's purchase day (the last rate on or before each,
// the valuation's converter); an amount already in currency is taken exactly. The rows keep
// the converted figures unrounded (they are shown to the cent), so the totals are exact sums.
func (s *Service) TaxReportIn(ctx context.Context, u db.User, year int, currency string) (TaxReport, error) {
	if err := requireGold(u); err != nil {
		return TaxReport{}, err
	}
	if currency == "" {
		currency = memberCurrency(u)
	}
	if year < MinTaxYear || year > MaxTaxYear {
		return TaxReport{}, apperr.InvalidField("year", fmt.Sprintf("must be a year between %d and %d", MinTaxYear, MaxTaxYear))
	}
	from, to := yearBounds(year)
	rows, err := s.store.TaxSlices(ctx, u.ID, from, to)
	if err != nil {
		return TaxReport{}, err
	}
	jur := account.SettingsOf(u).TaxJurisdiction
	out := TaxReport{Year: year, Jurisdiction: jur, Currency: currency, Rows: []TaxRow{}, Excluded: []TaxRow{}, Notes: JurisdictionNotes(jur)}
	conv := &converter{ctx: ctx, rates: s.rates, to: currency}
	for _, sl := range rows {
		acq := sl.PurchaseDate
		if acq.IsZero() {
			acq = db.NewDate(sl.LotCreatedAt.UTC())
		}
		term := Term(acq, sl.SoldOn)
		row := TaxRow{Description: describe(sl), AcquiredOn: acq, DisposedOn: sl.SoldOn, Quantity: sl.Quantity,
			Term: term, Category: Category(jur, term, sl.ProductName), Kind: sl.Kind, SaleID: sl.ID, DisposalID: sl.DisposalID}
		if err := s.convertTaxRow(conv, &row, sl); err != nil {
			return TaxReport{}, err
		}
		if sl.TaxAdvantaged {
			out.Excluded = append(out.Excluded, row)
			continue
		}
		out.Rows = append(out.Rows, row)
		t := &out.Totals
		switch row.Category {
		case CategoryShort:
			t.ShortTerm = t.ShortTerm.Add(row.Gain)
		case CategoryLong:
			t.LongTerm = t.LongTerm.Add(row.Gain)
		case CategoryCollectible:
			t.Collectible = t.Collectible.Add(row.Gain)
		case CategoryExempt:
			t.Exempt = t.Exempt.Add(row.Gain)
		case CategoryTaxFree:
			t.TaxFree = t.TaxFree.Add(row.Gain)
		}
		t.Total = t.Total.Add(row.Gain)
	}
	if jur == "us" && anyMay1099B(rows) {
		out.Notes = append(out.Notes, Note1099B)
	}
	if n := len(out.Excluded); n > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("%d disposal line(s) of lots kept at an IRA custodian (a tax-advantaged account) are listed apart and left out of the totals; your realized P/L elsewhere in Ounce still counts them. The lot's present location decides.", n))
	}
	if slices.ContainsFunc(out.Rows, func(r TaxRow) bool { return r.Kind == KindGifted || r.Kind == KindLost }) {
		out.Notes = append(out.Notes, "Gifts and losses are listed with no proceeds, their cost as a loss, so the total matches your realized P/L; whether such a loss counts for tax is for your adviser.")
	}
	return out, nil
}

// convertTaxRow fills the row's money in conv's currency: proceeds and fees at the sale day's
// rate, the cost at the lot's purchase day's rate; gain is proceeds − cost basis (fees in it).
// A slice recorded in the currency is exact: its gain is the realized P/L stored (for a slice
// of a lot bought in another currency, its cost basis was converted at the lot's purchase
// day's rate when it was recorded, to the cent).
func (s *Service) convertTaxRow(conv *converter, row *TaxRow, sl db.TaxSlice) error {
	saleCur, lotCur := saleCurrency(sl.Currency), saleCurrency(sl.LotCurrency)
	if saleCur == conv.to && (lotCur == conv.to || sl.Sale.LotCost.Valid) {
		row.Proceeds, row.CostBasis, row.Gain = sl.Proceeds, sl.CostBasis.Add(sl.Fees), sl.RealizedPL
		return nil
	}
	if s.rates == nil {
		return apperr.New(apperr.Unavailable, "exchange rates are not available")
	}
	fSold, err := conv.factor(saleCur, sl.SoldOn.Time)
	if err != nil {
		return err
	}
	fAcq, err := conv.factor(lotCur, row.AcquiredOn.Time)
	if err != nil {
		return err
	}
	row.Proceeds = sl.Proceeds.Mul(fSold)
	row.CostBasis = sl.LotCost().Mul(fAcq).Add(sl.Fees.Mul(fSold))
	row.Gain = row.Proceeds.Sub(row.CostBasis)
	return nil
}

// anyMay1099B reports whether one of the disposals of the slices (a disposal across lots, or a
// per-lot sale) was sold and may be reported by a dealer on Form 1099-B.
func anyMay1099B(rows []db.TaxSlice) bool {
	type group struct {
		metal, product string
		units          int64
		oz             decimal.Decimal
	}
	groups := map[string]*group{}
	for _, sl := range rows {
		if sl.Kind == KindGifted || sl.Kind == KindLost {
			continue
		}
		k := sl.DisposalID
		if k == "" {
			k = sl.ID
		}
		g, ok := groups[k]
		if !ok {
			g = &group{metal: sl.Metal, product: sl.ProductName, oz: decimal.Zero}
			groups[k] = g
		}
		g.units += sl.Quantity
		g.oz = g.oz.Add(sl.Oz)
	}
	for _, g := range groups {
		if May1099B(g.metal, g.product, g.units, g.oz) {
			return true
		}
	}
	return false
}

// describe is a row's description: units, product (or metal) and, for a disposal that was
// not a sale, its kind.
func describe(sl db.TaxSlice) string {
	name := sl.ProductName
	if name == "" {
		name = metals.Metal(sl.Metal).Title()
	}
	d := fmt.Sprintf("%d × %s", sl.Quantity, name)
	if sl.Kind != "" && sl.Kind != KindSold {
		d += " (" + sl.Kind + ")"
	}
	return d
}
