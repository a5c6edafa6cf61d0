package portfolio

import (
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
)

// taxCurrencyStack is the hand-computed stack of the tax currency tests, for a member whose
// display currency is EUR:
//
//	lot A  2 × Maple Leaf 1 oz, USD 2,000.00 each + USD 10.00 fees, bought 2024-02-05
//	lot B  2 × Maple Leaf 1 oz, EUR 1,900.00 each, bought 2024-06-12
//	lot C  1 × Silver bar 10 oz, USD 300.00, bought 2025-06-03
//	sale 1 1 of A at USD 2,600.00, USD 5.00 fees, 2025-03-12 (cost USD 2,005.00)
//	sale 2 1 of B at EUR 2,500.00, EUR 10.00 fees, 2025-09-17 (cost EUR 1,900.00)
//	sale 3 1 of C at USD 320.00, 2025-09-17 (cost USD 300.00)
func taxCurrencyStack(t *testing.T, s *db.Store) (*Service, db.User) {
	t.Helper()
	ctx := t.Context()
	svc := newService(t, s)
	svc.rates = fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
	ann := member(t, s, "eur-tax@example.com", db.TierGold)
	ann.DisplayCurrency = "EUR"
	ann.TaxJurisdiction = "de"
	lot := func(body string) string {
		h, err := svc.CreateHolding(ctx, ann, holdingIn(t, body))
		if err != nil {
			t.Fatal(err)
		}
		return h.ID
	}
	a := lot(`{"metal":"gold","product_name":"Maple Leaf 1 oz","quantity":2,"weight_oz":1,"purchase_price":2000.00,"fees":10.00,"purchase_currency":"USD","purchase_date":"2024-02-05"}`)
	b := lot(`{"metal":"gold","product_name":"Maple Leaf 1 oz","quantity":2,"weight_oz":1,"purchase_price":1900.00,"purchase_currency":"EUR","purchase_date":"2024-06-12"}`)
	c := lot(`{"metal":"silver","product_name":"Silver bar 10 oz","quantity":1,"weight_oz":10,"purchase_price":300.00,"purchase_currency":"USD","purchase_date":"2025-06-03"}`)
	for id, body := range map[string]string{
		a: `{"quantity":1,"price_per_unit":2600.00,"fees":5.00,"sold_on":"2025-03-12"}`,
		b: `{"quantity":1,"price_per_unit":2500.00,"fees":10.00,"sold_on":"2025-09-17"}`,
		c: `{"quantity":1,"price_per_unit":320.00,"sold_on":"2025-09-17"}`,
	} {
		if _, err := svc.RecordSale(ctx, ann, id, saleIn(t, body)); err != nil {
			t.Fatal(err)
		}
	}
	return svc, ann
}

// TestTaxReportInEUR: the report in euros takes each slice's proceeds and fees at the ECB rate of
// its sale day and its cost at the rate of its lot's purchase day (embedded rates, USD per EUR):
//
//	2024-02-05 1.0746  2024-06-12 1.0765  2025-03-12 1.0886  2025-06-03 1.1386  2025-09-17 1.1837
//
//	sale 1: proceeds 2600 ÷ 1.0886 = 2388.39; cost 2005 ÷ 1.0746 + 5 ÷ 1.0886 = 1865.81 + 4.59 = 1870.40;
//	        gain 517.99 (long: held more than a year; tax_free in DE)
//	sale 2: bought and sold in euros, exact: 2500.00, 1910.00, gain 590.00 (long, tax_free)
//	sale 3: proceeds 320 ÷ 1.1837 = 270.34; cost 300 ÷ 1.1386 = 263.48; gain 6.86 (short)
//	total 517.985 + 590 + 6.857 = 1114.84
//
// In dollars the euro sale is 2500 × 1.1837 = 2959.25 against 1900 × 1.0765 + 10 × 1.1837 =
// 2057.19, gain 902.06; the total 590.00 + 902.06 + 20.00 = 1512.06. The realized P/L of the
// portfolio and analytics in each currency equals the report's total.
func TestTaxReportInEUR(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc, ann := taxCurrencyStack(t, s)
		r, err := svc.TaxReport(ctx, ann, 2025)
		if err != nil {
			t.Fatal(err)
		}
		if r.Currency != "EUR" || len(r.Rows) != 3 {
			t.Fatalf("report in %s with %d rows, want EUR and 3", r.Currency, len(r.Rows))
		}
		want := [][5]string{ // proceeds, cost basis, gain, term, category
			{"2388.39", "1870.40", "517.99", TermLong, CategoryTaxFree},
			{"270.34", "263.48", "6.86", TermShort, CategoryShort},
			{"2500.00", "1910.00", "590.00", TermLong, CategoryTaxFree},
		}
		// Rows are in sale date order; the two sales of 2025-09-17 in the order recorded (a map
		// above), so match the second day's rows by proceeds.
		got := map[string][5]string{}
		for _, x := range r.Rows {
			got[x.Proceeds.StringFixed(2)] = [5]string{x.Proceeds.StringFixed(2), x.CostBasis.StringFixed(2), x.Gain.StringFixed(2), x.Term, x.Category}
		}
		for _, w := range want {
			if got[w[0]] != w {
				t.Errorf("row %v, want %v (rows %v)", got[w[0]], w, got)
			}
		}
		if r.Rows[0].DisposedOn.String() != "2025-03-12" {
			t.Errorf("first row sold %s, want 2025-03-12", r.Rows[0].DisposedOn)
		}
		// The euro slice is exact, not converted back and forth.
		for _, x := range r.Rows {
			if x.Proceeds.StringFixed(2) == "2500.00" && (x.Proceeds.String() != "2500" || x.Gain.String() != "590") {
				t.Errorf("the euro slice is %s, gain %s; want exactly 2500 and 590", x.Proceeds, x.Gain)
			}
		}
		if r.Totals.Total.StringFixed(2) != "1114.84" || r.Totals.TaxFree.StringFixed(2) != "1107.99" || r.Totals.ShortTerm.StringFixed(2) != "6.86" {
			t.Errorf("totals %s (tax-free %s, short %s), want 1114.84 (1107.99, 6.86)", r.Totals.Total.StringFixed(2), r.Totals.TaxFree.StringFixed(2), r.Totals.ShortTerm.StringFixed(2))
		}

		for cur, total := range map[string]string{"EUR": "1114.84", "USD": "1512.06"} {
			rep, err := svc.TaxReportIn(ctx, ann, 2025, cur)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Total.StringFixed(2) != total || rep.Currency != cur {
				t.Errorf("report in %s: total %s %s, want %s", cur, rep.Totals.Total.StringFixed(2), rep.Currency, total)
			}
			p, err := svc.PortfolioIn(ctx, ann, cur)
			if err != nil {
				t.Fatal(err)
			}
			a, err := svc.AnalyticsIn(ctx, ann, cur)
			if err != nil {
				t.Fatal(err)
			}
			// The same sales in the same currency: equal exactly, not only to the cent.
			if !p.Realized.Equal(rep.Totals.Total) || !a.Totals.Realized.Equal(rep.Totals.Total) {
				t.Errorf("%s: realized P/L portfolio %s, analytics %s; report total %s", cur, p.Realized, a.Totals.Realized, rep.Totals.Total)
			}
		}
		if _, err := svc.Currency(ctx, ann, "XYZ", "currency"); apperr.KindOf(err) != apperr.Invalid {
			t.Errorf("unknown currency: %v", err)
		}
	})
}

// TestDisposalNamesItsCurrency: a disposal of lots bought in pounds is in pounds (it said USD),
// in the record and in the preview.
func TestDisposalNamesItsCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		ann := member(t, s, "gbp-sale@example.com", db.TierGold)
		if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","product_name":"Britannia","quantity":3,"weight_oz":1,"purchase_price":1500,"purchase_currency":"GBP","purchase_date":"2024-01-10"}`)); err != nil {
			t.Fatal(err)
		}
		body := `{"product_name":"Britannia","metal":"gold","quantity":2,"price_per_unit":2000,"sold_on":"2025-02-03"}`
		p, err := svc.PreviewDisposal(ctx, ann, disposalIn(t, body))
		if err != nil {
			t.Fatal(err)
		}
		if c := p.Methods[MethodFIFO].Currency; c != "GBP" {
			t.Errorf("preview in %s, want GBP", c)
		}
		d, err := svc.RecordDisposal(ctx, ann, disposalIn(t, body))
		if err != nil {
			t.Fatal(err)
		}
		if d.Currency != "GBP" || d.Gain.StringFixed(2) != "1000.00" {
			t.Errorf("disposal in %s, gain %s; want GBP, 1000.00", d.Currency, d.Gain.StringFixed(2))
		}
	})
}
