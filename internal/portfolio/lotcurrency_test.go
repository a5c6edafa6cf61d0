package portfolio

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestWeightsEnteredExactly: 100 g and 1 kg are kept as entered, come back so from the store,
// leave in the CSV export as typed and import back to the same lots; their troy-ounce weight
// is the 8-decimal equivalent. A lot's currency rides along, and a new lot defaults to the
// member's display currency.
func TestWeightsEnteredExactly(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		ann := member(t, s, "ann@example.com", db.TierGold)
		ann.DisplayCurrency = "EUR"
		bar, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","quantity":2,"weight":100,"weight_unit":"g","purchase_price":8450.00,"purchase_date":"2025-05-30"}`))
		if err != nil {
			t.Fatal(err)
		}
		kilo, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"silver","quantity":1,"weight":1,"weight_unit":"kg","purchase_price":1100,"purchase_currency":"gbp","purchase_date":"2024-03-15"}`))
		if err != nil {
			t.Fatal(err)
		}
		check := func(label string, h Holding, amount string, unit metals.Unit, oz, cur string) {
			t.Helper()
			w := h.EnteredWeight()
			if w.Amount.String() != amount || w.Unit != unit || h.WeightOz.String() != oz || h.Currency() != cur {
				t.Errorf("%s: weight %s, %s troy oz, %s; want %s %s, %s troy oz, %s", label, w, h.WeightOz, h.Currency(), amount, unit, oz, cur)
			}
		}
		check("100 g entered", bar, "100", metals.Gram, "3.21507466", "EUR")
		check("1 kg entered", kilo, "1", metals.Kilogram, "32.15074657", "GBP")
		back, err := svc.GetHolding(ctx, ann, bar.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("100 g read back", back, "100", metals.Gram, "3.21507466", "EUR")

		list, err := svc.ExportHoldings(ctx, ann)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteLedgerCSV(&buf, list, nil); err != nil {
			t.Fatal(err)
		}
		csv := buf.String()
		for _, want := range []string{"notes,currency,weight,weight_unit\n", ",EUR,100,g\n", ",GBP,1,kg\n"} {
			if !strings.Contains(csv, want) {
				t.Errorf("export lacks %q:\n%s", want, csv)
			}
		}
		bob := member(t, s, "bob@example.com", db.TierGold)
		if _, err := svc.ImportHoldings(ctx, bob, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		again, err := svc.ExportHoldings(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		var buf2 bytes.Buffer
		if err := WriteLedgerCSV(&buf2, again, nil); err != nil {
			t.Fatal(err)
		}
		if buf2.String() != csv {
			t.Errorf("round trip changed the CSV:\n%s\nwant\n%s", buf2.String(), csv)
		}

		// A weight_oz that disagrees with the weight is refused naming it; an unknown unit and
		// currency name theirs.
		for body, field := range map[string]string{
			`{"metal":"gold","quantity":1,"weight":100,"weight_unit":"g","weight_oz":3.2,"purchase_price":1}`: "weight_oz",
			`{"metal":"gold","quantity":1,"weight":100,"weight_unit":"lb","purchase_price":1}`:                "weight_unit",
			`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"purchase_currency":"XYZ"}`:        "purchase_currency",
		} {
			_, err := svc.CreateHolding(ctx, ann, holdingIn(t, body))
			e, ok := apperr.As(err)
			if !ok || len(e.Fields) == 0 || e.Fields[0].Field != field {
				t.Errorf("%s: %v, want an error naming %s", body, err, field)
			}
		}
		// A sale is in its lot's currency.
		if _, err := svc.RecordSale(ctx, ann, kilo.ID, saleIn(t, `{"quantity":1,"price_per_unit":1200,"currency":"USD"}`)); apperr.KindOf(err) != apperr.Invalid {
			t.Errorf("a USD sale of a GBP lot: %v, want Invalid", err)
		}
		sale, err := svc.RecordSale(ctx, ann, kilo.ID, saleIn(t, `{"quantity":1,"price_per_unit":1200,"sold_on":"2025-12-31"}`))
		if err != nil || sale.Currency != "GBP" {
			t.Errorf("sale of a GBP lot: %+v, %v; want currency GBP", sale, err)
		}
	})
}

// TestTola: a tola is 0.375 troy oz (11.6638038 g ÷ 31.1034768 g).
func TestTola(t *testing.T) {
	oz := WeightOz(decimal.NewFromInt(1), metals.Tola)
	if oz.Sub(decimal.RequireFromString("0.375")).Abs().GreaterThan(decimal.New(1, -9)) {
		t.Errorf("1 tola = %s oz, want 0.375 ± 1e-9", oz)
	}
}
