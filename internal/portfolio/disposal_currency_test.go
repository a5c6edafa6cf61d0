package portfolio

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
)

// crossStack is the stack of the cross-currency disposal tests, for a member whose display
// currency is EUR, with the dollar's euro rates imported on the days that matter (they
// override the embedded ECB history on those days):
//
//	USD per EUR  2024-02-05 1.0800   2024-06-12 1.2000   2025-03-12 1.1000
//
//	lot A  2 × Maple Leaf 1 oz, USD 2,000.00 each + USD 10.00 fees = USD 4,010.00, bought 2024-02-05
//	lot B  2 × Maple Leaf 1 oz, EUR 1,900.00 each                   = EUR 3,800.00, bought 2024-06-12
func crossStack(t *testing.T, s *db.Store) (*Service, db.User, string, string) {
	t.Helper()
	ctx := t.Context()
	svc := newService(t, s)
	svc.rates = fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
	rate := func(day, perEUR string) db.FXRate {
		d, err := time.Parse(time.DateOnly, day)
		if err != nil {
			t.Fatal(err)
		}
		return db.FXRate{Currency: "USD", Day: db.NewDate(d), PerEUR: perEUR, Source: "import:test.csv"}
	}
	if err := s.UpsertFXRates(ctx, []db.FXRate{rate("2024-02-05", "1.0800"), rate("2024-06-12", "1.2000"), rate("2025-03-12", "1.1000")}); err != nil {
		t.Fatal(err)
	}
	ann := member(t, s, "cross@example.com", db.TierGold)
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
	return svc, ann, a, b
}

// crossSale sells 3 units at EUR 2,500.00 with EUR 30.00 fees on 2025-03-12.
const crossSale = `{"product_name":"Maple Leaf 1 oz","metal":"gold","quantity":3,"price_per_unit":2500.00,"fees":30.00,"sold_on":"2025-03-12","currency":"EUR"%s}`

func crossBody(extra string) string { return strings.Replace(crossSale, "%s", extra, 1) }

// TestDisposalAcrossCurrenciesFIFO: three units FIFO take both of A (dollars) and one of B
// (euros), in euros. Fees split by units: A 20.00, B 10.00.
//
//	A: proceeds 2 × 2500 = 5000.00; cost USD 4010.00 at 2024-02-05: 4010 ÷ 1.08 = 3712.962… = 3712.96;
//	   gain 5000 − 20 − 3712.96 = 1267.04 (long: more than a year)
//	B: proceeds 2500.00; cost EUR 3800 × 1/2 = 1900.00; gain 2500 − 10 − 1900 = 590.00 (short)
//	disposal: proceeds 7500.00, cost 5612.96, gain 1857.04
//
// The gains report in euros shows the slices as recorded and totals 1857.04; in dollars each
// slice's proceeds and fees count at 2025-03-12 (× 1.10) and its cost at its lot's purchase
// day (A is dollars: exact; B 1900 × 1.20 = 2280.00):
//
//	A: 5500.00 − (4010.00 + 22.00) = 1468.00   B: 2750.00 − (2280.00 + 11.00) = 459.00   total 1927.00
//
// The realized P/L of the portfolio and analytics equals the report's total in each currency,
// and undoing the disposal gives each lot back its own cost exactly.
func TestDisposalAcrossCurrenciesFIFO(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc, ann, a, b := crossStack(t, s)
		d, err := svc.RecordDisposal(ctx, ann, disposalIn(t, crossBody(`,"method":"fifo"`)))
		if err != nil {
			t.Fatal(err)
		}
		if d.Currency != "EUR" || d.Proceeds.StringFixed(2) != "7500.00" || d.CostBasis.StringFixed(2) != "5612.96" || d.Gain.StringFixed(2) != "1857.04" {
			t.Errorf("disposal %s: proceeds %s cost %s gain %s; want EUR 7500.00 5612.96 1857.04", d.Currency, d.Proceeds, d.CostBasis, d.Gain)
		}
		type slice struct{ lot, qty, proceeds, fees, cost, lotCur, lotCost, gain, term string }
		want := []slice{
			{a, "2", "5000.00", "20.00", "3712.96", "USD", "4010.00", "1267.04", TermLong},
			{b, "1", "2500.00", "10.00", "1900.00", "EUR", "1900.00", "590.00", TermShort},
		}
		if len(d.Slices) != len(want) {
			t.Fatalf("%d slices, want %d: %+v", len(d.Slices), len(want), d.Slices)
		}
		for i, w := range want {
			sl := d.Slices[i]
			got := slice{sl.HoldingID, decimal.NewFromInt(sl.Quantity).String(), sl.Proceeds.StringFixed(2), sl.Fees.StringFixed(2), sl.CostBasis.StringFixed(2),
				sl.LotCurrency, sl.LotCostBasis.StringFixed(2), sl.Gain.StringFixed(2), sl.Term}
			if got != w {
				t.Errorf("slice %d: %+v\nwant %+v", i, got, w)
			}
		}
		if !slicesMention(d.Notes, "Lots bought in USD count in EUR") {
			t.Errorf("notes %q do not say how the dollar lot was converted", d.Notes)
		}
		// Read back as stored.
		again, err := svc.GetDisposal(ctx, ann, d.ID)
		if err != nil || again.Currency != "EUR" || !again.Gain.Equal(d.Gain) || again.Slices[0].LotCostBasis.StringFixed(2) != "4010.00" {
			t.Fatalf("read back: %+v, %v", again, err)
		}

		for cur, total := range map[string]string{"EUR": "1857.04", "USD": "1927.00"} {
			rep, err := svc.TaxReportIn(ctx, ann, 2025, cur)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Totals.Total.StringFixed(2) != total {
				t.Errorf("report in %s: total %s, want %s (rows %+v)", cur, rep.Totals.Total.StringFixed(2), total, rep.Rows)
			}
			p, err := svc.PortfolioIn(ctx, ann, cur)
			if err != nil {
				t.Fatal(err)
			}
			an, err := svc.AnalyticsIn(ctx, ann, cur)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Realized.Equal(rep.Totals.Total) || !an.Totals.Realized.Equal(rep.Totals.Total) {
				t.Errorf("%s: realized P/L portfolio %s, analytics %s; report total %s", cur, p.Realized, an.Totals.Realized, rep.Totals.Total)
			}
		}
		rep, err := svc.TaxReport(ctx, ann, 2025)
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string][3]string{}
		for _, r := range rep.Rows {
			rows[r.Proceeds.StringFixed(2)] = [3]string{r.CostBasis.StringFixed(2), r.Gain.StringFixed(2), r.Category}
		}
		if rows["5000.00"] != [3]string{"3732.96", "1267.04", CategoryTaxFree} || rows["2500.00"] != [3]string{"1910.00", "590.00", CategoryShort} {
			t.Errorf("EUR report rows %v", rows)
		}
		usd, err := svc.TaxReportIn(ctx, ann, 2025, "USD")
		if err != nil {
			t.Fatal(err)
		}
		rows = map[string][3]string{}
		for _, r := range usd.Rows {
			rows[r.Proceeds.StringFixed(2)] = [3]string{r.CostBasis.StringFixed(2), r.Gain.StringFixed(2), r.Category}
		}
		if rows["5500.00"] != [3]string{"4032.00", "1468.00", CategoryTaxFree} || rows["2750.00"] != [3]string{"2291.00", "459.00", CategoryShort} {
			t.Errorf("USD report rows %v", rows)
		}

		// The ledger shows each lot in its own currency: A (dollars) has nothing left and
		// realized 4980 EUR × 1.10 − 4010 = USD 1468.00; B (euros) 1900.00 left and 590.00.
		led, err := svc.Ledger(ctx, ann, "gold")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range led.Lots {
			got := l.RemainingCost.StringFixed(2) + " " + l.Realized.StringFixed(2)
			if want := map[string]string{a: "0.00 1468.00", b: "1900.00 590.00"}[l.ID]; got != want {
				t.Errorf("ledger lot %s: remaining cost and realized %s, want %s", l.ID, got, want)
			}
		}

		// Each lot holds what is left in its own currency; undo gives every cent back.
		lots, err := s.ProductLots(ctx, ann.ID, "gold", "Maple Leaf 1 oz")
		if err != nil || len(lots) != 1 || lots[0].ID != b || lots[0].HeldCost.StringFixed(2) != "1900.00" {
			t.Fatalf("lots held after: %+v, %v", lots, err)
		}
		if err := svc.DeleteDisposal(ctx, ann, d.ID); err != nil {
			t.Fatal(err)
		}
		lots, err = s.ProductLots(ctx, ann.ID, "gold", "Maple Leaf 1 oz")
		if err != nil || len(lots) != 2 {
			t.Fatalf("lots after undo: %+v, %v", lots, err)
		}
		for _, l := range lots {
			if !l.HeldCost.Equal(l.Cost) || l.SoldQuantity != 0 {
				t.Errorf("lot %s holds %s of %s after undo, %d sold", l.ID, l.HeldCost, l.Cost, l.SoldQuantity)
			}
		}
	})
}

func slicesMention(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// TestDisposalAcrossCurrenciesPreview: the preview compares the methods in euros. hifo ranks
// the lots by cost per unit in euros at their purchase days: A USD 2005.00 is EUR 1856.48, below
// B's EUR 1900.00, so hifo takes B's two units first (by dollars it would take A's):
//
//	hifo: B 2 × 2500 = 5000.00, fees 20.00, cost 3800.00; A 2500.00, fees 10.00, cost USD 2005.00 =
//	      2005 ÷ 1.08 = 1856.481… = 1856.48; gain 7500 − 30 − 5656.48 = 1813.52 (lifo the same)
//	fifo: 1857.04 (TestDisposalAcrossCurrenciesFIFO)
//
// average cannot pool dollars and euros: it is left out with the reason, and recording it is
// a 422 naming method. Nothing is stored by the preview.
func TestDisposalAcrossCurrenciesPreview(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc, ann, a, b := crossStack(t, s)
		p, err := svc.PreviewDisposal(ctx, ann, disposalIn(t, crossBody("")))
		if err != nil {
			t.Fatal(err)
		}
		for m, gain := range map[string]string{MethodFIFO: "1857.04", MethodLIFO: "1813.52", MethodHIFO: "1813.52"} {
			if got := p.Methods[m]; got.Gain.StringFixed(2) != gain || got.Currency != "EUR" {
				t.Errorf("%s: gain %s %s, want %s EUR", m, got.Gain.StringFixed(2), got.Currency, gain)
			}
		}
		h := p.Methods[MethodHIFO].Slices
		if len(h) != 2 || h[0].HoldingID != b || h[0].Quantity != 2 || h[1].HoldingID != a || h[1].CostBasis.StringFixed(2) != "1856.48" || h[1].LotCostBasis.StringFixed(2) != "2005.00" {
			t.Errorf("hifo slices %+v; want B × 2 then A × 1 at 1856.48 (USD 2005.00)", h)
		}
		if _, ok := p.Methods[MethodAverage]; ok || !strings.Contains(p.Unavailable[MethodAverage], "one currency") {
			t.Errorf("average: %+v, unavailable %q", p.Methods[MethodAverage], p.Unavailable[MethodAverage])
		}
		if p.LeastGain != MethodLIFO {
			t.Errorf("least gain %s, want lifo (lifo and hifo tie, lifo first)", p.LeastGain)
		}
		_, err = svc.RecordDisposal(ctx, ann, disposalIn(t, crossBody(`,"method":"average"`)))
		if fs := fieldsOf(err); apperr.KindOf(err) != apperr.Unprocessable || len(fs) != 1 || fs[0] != "method" {
			t.Errorf("average across currencies names %v, want method: %v", fs, err)
		}
		page, err := svc.ListSales(ctx, ann, SalesQuery{})
		if err != nil || page.Total != 0 {
			t.Errorf("%d sales stored by a preview and a refusal: %v", page.Total, err)
		}
	})
}

// fieldsOf names the fields of an apperr error of any kind.
func fieldsOf(err error) []string {
	e, ok := apperr.As(err)
	if !ok {
		return nil
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Field)
	}
	return out
}

// TestDisposalMissingRate: a lot bought in shekels in 2010 (the ECB quotes the shekel from
// 2011-01-03) sold in euros has no rate for its cost: 422 naming currency, nothing stored, no
// lot changed; a disposal that does not take it needs no rate for it.
func TestDisposalMissingRate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := newService(t, s)
		svc.rates = fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
		ann := member(t, s, "ils@example.com", db.TierGold)
		for _, body := range []string{
			`{"metal":"silver","product_name":"Bar 1 kg","quantity":1,"weight_oz":32.15,"purchase_price":3000,"purchase_currency":"ILS","purchase_date":"2010-06-01"}`,
			`{"metal":"silver","product_name":"Bar 1 kg","quantity":1,"weight_oz":32.15,"purchase_price":900,"purchase_currency":"USD","purchase_date":"2024-06-03"}`,
		} {
			if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, body)); err != nil {
				t.Fatal(err)
			}
		}
		body := `{"product_name":"Bar 1 kg","metal":"silver","quantity":2,"price_per_unit":1000,"sold_on":"2025-03-12","currency":"EUR","method":"fifo"}`
		_, err := svc.RecordDisposal(ctx, ann, disposalIn(t, body))
		if fs := fieldsOf(err); apperr.KindOf(err) != apperr.Unprocessable || len(fs) != 1 || fs[0] != "currency" || !strings.Contains(err.Error(), "ILS") {
			t.Fatalf("missing rate: %v (fields %v), want 422 naming currency", err, fs)
		}
		if _, err := svc.PreviewDisposal(ctx, ann, disposalIn(t, body)); apperr.KindOf(err) != apperr.Unprocessable {
			t.Errorf("preview with a missing rate: %v", err)
		}
		page, err := svc.ListSales(ctx, ann, SalesQuery{})
		if err != nil || page.Total != 0 {
			t.Fatalf("%d sales stored: %v", page.Total, err)
		}
		lots, err := s.ProductLots(ctx, ann.ID, "silver", "Bar 1 kg")
		if err != nil || len(lots) != 2 || lots[0].SoldQuantity+lots[1].SoldQuantity != 0 {
			t.Fatalf("lots changed: %+v, %v", lots, err)
		}
		// A unit of the dollar lot alone (lifo) needs no shekel rate.
		d, err := svc.RecordDisposal(ctx, ann, disposalIn(t, strings.Replace(strings.Replace(body, `"quantity":2`, `"quantity":1`, 1), "fifo", "lifo", 1)))
		if err != nil || d.Currency != "EUR" || len(d.Slices) != 1 || d.Slices[0].LotCurrency != "USD" {
			t.Fatalf("lifo of the dollar lot: %+v, %v", d, err)
		}

		// The ECB did not quote the krona from December 2008 to 2018: a lot bought in 2012 has
		// only a stale rate while other currencies were quoted, which is missing too.
		if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","product_name":"Krona bar","quantity":1,"weight_oz":1,"purchase_price":200000,"purchase_currency":"ISK","purchase_date":"2012-05-02"}`)); err != nil {
			t.Fatal(err)
		}
		isk := `{"product_name":"Krona bar","metal":"gold","quantity":1,"price_per_unit":2000,"sold_on":"2025-03-12","currency":"EUR"}`
		if _, err := svc.RecordDisposal(ctx, ann, disposalIn(t, isk)); apperr.KindOf(err) != apperr.Unprocessable || !strings.Contains(err.Error(), "2008-12") {
			t.Errorf("krona lot of 2012: %v, want 422 naming the last rate of 2008", err)
		}
		// A lot bought after the newest rate stored (the rates are behind: the embedded
		// history ends 2026-04-13 and nothing was fetched since) counts at the newest rate, as
		// every valuation does, not refused.
		if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","product_name":"Recent bar","quantity":1,"weight_oz":1,"purchase_price":3000,"purchase_currency":"USD","purchase_date":"2026-11-02"}`)); err != nil {
			t.Fatal(err)
		}
		recent := `{"product_name":"Recent bar","metal":"gold","quantity":1,"price_per_unit":3000,"sold_on":"2026-11-16","currency":"EUR"}`
		if d, err := svc.RecordDisposal(ctx, ann, disposalIn(t, recent)); err != nil || d.Slices[0].LotCostBasis.StringFixed(2) != "3000.00" {
			t.Errorf("lot bought after the newest rate: %+v, %v", d, err)
		}
	})
}

// TestDisposalAcrossCurrenciesExportImport: the ledger CSV of a disposal in euros across a
// dollar and a euro lot carries each slice's currency (sale_currency), and importing it
// records the disposal again in euros with the same figures (the dollar lot's cost at its
// purchase day's rate: 3712.96), not its euro prices taken for dollars.
func TestDisposalAcrossCurrenciesExportImport(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc, ann, _, _ := crossStack(t, s)
		if _, err := svc.RecordDisposal(ctx, ann, disposalIn(t, crossBody(`,"method":"fifo"`))); err != nil {
			t.Fatal(err)
		}
		export := func(u db.User) string {
			t.Helper()
			list, err := svc.ExportHoldings(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			sales, err := svc.ExportSales(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			var buf strings.Builder
			if err := WriteLedgerCSV(&buf, list, sales); err != nil {
				t.Fatal(err)
			}
			return buf.String()
		}
		csv := export(ann)
		if !strings.Contains(csv, "received_row,sale_currency") || !strings.Contains(csv, ",EUR") {
			t.Fatalf("the export does not name the slices' currency:\n%s", csv)
		}
		bob := member(t, s, "cross-bob@example.com", db.TierGold)
		bob.DisplayCurrency = "EUR"
		if _, err := svc.ImportHoldings(ctx, bob, []byte(csv)); err != nil {
			t.Fatal(err)
		}
		page, err := svc.ListSales(ctx, bob, SalesQuery{})
		if err != nil || page.Total != 2 || page.Realized.StringFixed(2) != "1857.04" {
			t.Fatalf("imported: %d sales realizing %s, want 2 and 1857.04: %v", page.Total, page.Realized, err)
		}
		for _, sl := range page.Sales {
			if sl.Currency != "EUR" {
				t.Errorf("imported slice in %s, want EUR: %+v", sl.Currency, sl)
			}
		}
		if again := export(bob); again != csv {
			t.Errorf("round trip changed the CSV:\n%s\nwant\n%s", again, csv)
		}
	})
}

// TestDecideDisposalInNeedsItsRates: the rule does no I/O. A lot in another currency whose rate
// was looked up and found missing is a *MissingRateError; one whose rate was never looked up
// (it arrived after the look-up) is errRateNotLooked, which RecordDisposal answers by looking
// the rates up again. With the rate given, the slice is costed at it.
func TestDecideDisposalInNeedsItsRates(t *testing.T) {
	day := func(s string) db.Date {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return db.NewDate(d)
	}
	lots := []db.SaleLot{
		{Holding: db.Holding{ID: "h_usd", Quantity: 1, WeightOz: decimal.NewFromInt(1), PurchaseCurrency: "USD", PurchaseDate: day("2024-02-05")},
			Cost: decimal.RequireFromString("100.00"), HeldCost: decimal.RequireFromString("100.00")},
	}
	in := db.Disposal{Quantity: 1, PricePerUnit: decimal.RequireFromString("150.00"), Fees: decimal.Zero, SoldOn: day("2025-03-12")}
	k := FXDay{"USD", "2024-02-05"}
	if _, err := DecideDisposalIn(MethodFIFO, nil, DisposalFX{Currency: "EUR"})(lots, in); !errors.Is(err, errRateNotLooked) {
		t.Errorf("rate not looked up: %v", err)
	}
	var mr *MissingRateError
	if _, err := DecideDisposalIn(MethodFIFO, nil, DisposalFX{Currency: "EUR", Missing: map[FXDay]string{k: "none"}})(lots, in); !errors.As(err, &mr) || mr.From != "USD" || mr.To != "EUR" {
		t.Errorf("rate missing: %v", err)
	}
	dec, err := DecideDisposalIn(MethodFIFO, nil, DisposalFX{Currency: "EUR", Factors: map[FXDay]decimal.Decimal{k: decimal.RequireFromString("0.9")}})(lots, in)
	if err != nil || len(dec.Slices) != 1 {
		t.Fatalf("with the rate: %+v, %v", dec, err)
	}
	sl := dec.Slices[0].Sale
	if sl.Currency != "EUR" || sl.CostBasis.StringFixed(2) != "90.00" || sl.LotCostBasis().StringFixed(2) != "100.00" || sl.RealizedPL.StringFixed(2) != "60.00" ||
		!dec.Held[0].HeldCost.IsZero() {
		t.Errorf("slice %+v, held %+v; want EUR cost 90.00 (USD 100.00), gain 60.00, the lot holding 0", sl, dec.Held[0])
	}
}
