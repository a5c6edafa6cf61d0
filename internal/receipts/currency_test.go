package receipts

import (
	"strings"
	"testing"
)

// TestReceiptCurrencyDetection: receipt snippets and the currency they print, or none.
func TestReceiptCurrencyDetection(t *testing.T) {
	cases := []struct {
		name, text string
		code       string
		dollarOnly bool
	}{
		{"euro sign after", "1 oz Krugerrand   2   1.234,56 €   2.469,12 €\nSumme   2.469,12 €", "EUR", false},
		{"euro sign before", "Total € 2,469.12", "EUR", false},
		{"summe euro", "Summe €\n2.469,12", "EUR", false},
		{"total (EUR)", "Item  Qty  Price\n1 oz Silver Maple  10  34.10\nTotal (EUR)   341.00", "EUR", false},
		{"betrag in EUR", "Gesamtbetrag in EUR: 341,00", "EUR", false},
		{"EUR before amount", "Total EUR 341.00", "EUR", false},
		{"EUR after amount", "Summe 341,00 EUR", "EUR", false},
		{"pound", "1 oz Britannia 2 £28.50 £57.00\nTotal £57.00", "GBP", false},
		{"GBP code", "Prices in GBP\nTotal 57.00", "GBP", false},
		{"yen", "Total ¥150,000", "JPY", false},
		{"swiss francs code", "Total CHF 1'234.50", "CHF", false},
		{"swiss Fr.", "Total Fr. 1'234.50", "CHF", false},
		{"currency label", "Currency: SEK\nTotal 3 400,00", "SEK", false},
		{"rupee", "10 g Gold Bar ₹72,500.00", "INR", false},
		{"zloty", "Razem 1 234,00 zł", "PLN", false},
		{"whose dollar: CA$", "Total CA$1,234.00", "CAD", false},
		{"whose dollar: A$", "Total A$ 812.00", "AUD", false},
		{"whose dollar: US$", "Total US$1,234.00", "USD", false},
		{"code beats a stray dollar", "Total (EUR) 100,00\nShipping to the US: $0", "EUR", false},
		{"bare dollar", "1 oz Silver Eagle 20 $34.10 $682.00\nTotal $682.00", "USD", true},
		{"nothing printed", "1 oz Silver Eagle 20 34.10 682.00\nTotal 682.00", "", false},
		{"a code that is a word", "RON SMITH\n1 oz Silver Eagle 20 34.10 682.00", "", false},
		{"code not beside money", "Shipped via TRY Logistics\nTotal 682.00", "", false},
		{"unsupported code", "Total XYZ 10.00", "", false},
		{"a name after in", "Packed in Ron's warehouse\nTotal 10.00", "", false},
		{"lower-case label", "Betrag in EUR\n10,00", "EUR", false},
	}
	for _, c := range cases {
		got := findCurrency(strings.Split(c.text, "\n"))
		if got.Code != c.code || got.DollarOnly != c.dollarOnly {
			t.Errorf("%s: got %+v, want %q dollarOnly=%v", c.name, got, c.code, c.dollarOnly)
		}
	}
}

// TestReceiptCurrencyResolved: what a scan takes for the member — the printed currency, the
// member's own dollar for a bare "$", else the display currency, said to be assumed.
func TestReceiptCurrencyResolved(t *testing.T) {
	cases := []struct {
		read            currencyRead
		display         string
		code            string
		read2, withNote bool
	}{
		{currencyRead{Code: "EUR"}, "USD", "EUR", true, false},
		{currencyRead{Code: "EUR"}, "GBP", "EUR", true, false},
		{currencyRead{}, "GBP", "GBP", false, false},
		{currencyRead{}, "", "USD", false, false},
		{currencyRead{Code: "USD", DollarOnly: true}, "EUR", "USD", true, false},
		{currencyRead{Code: "USD", DollarOnly: true}, "CAD", "CAD", false, true},
		{currencyRead{Code: "USD"}, "CAD", "USD", true, false},
	}
	for _, c := range cases {
		code, read, note := resolveCurrency(c.read, c.display)
		if code != c.code || read != c.read2 || (note != "") != c.withNote {
			t.Errorf("%+v for %q: got %s read=%v note=%q", c.read, c.display, code, read, note)
		}
	}
}

// TestParseEuropeanReceipt: decimal commas, a day-first dotted date and German labels are
// read as the amounts they are, in euros.
func TestParseEuropeanReceipt(t *testing.T) {
	r := Parse(`Edelmetallhaus Muster GmbH (SAMPLE)
Rechnung Nr. RE-2026-0415
Rechnungsdatum: 14.03.2026

Artikel                                Menge   Einzelpreis    Gesamt
1 oz Krugerrand Gold                       2   2.712,40 €   5.424,80 €
1 Unze Silber Maple Leaf                  25      33,10 €     827,50 €
Zwischensumme                                               6.252,30 €
Versand                                                        12,90 €
Gesamtbetrag in EUR                                         6.265,20 €
`)
	if r.Currency != "EUR" || r.OrderDate.String() != "2026-03-14" {
		t.Fatalf("currency %q date %s", r.Currency, r.OrderDate)
	}
	if len(r.Items) != 2 {
		t.Fatalf("items: %+v", r.Items)
	}
	got := []string{}
	for _, it := range r.Items {
		got = append(got, strings.Join([]string{string(it.Metal), nd(it.UnitPrice), nd(it.LineTotal), it.WeightOz.String()}, "|"))
	}
	if strings.Join(got, ";") != "gold|2712.40|5424.80|1;silver|33.10|827.50|1" {
		t.Errorf("items %v", got)
	}
	if nd(r.Subtotal) != "6252.30" || nd(r.Shipping) != "12.90" || nd(r.Total) != "6265.20" {
		t.Errorf("sums %s %s %s", nd(r.Subtotal), nd(r.Shipping), nd(r.Total))
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %+v", r.Warnings)
	}
	// A UK receipt: pounds, slashed dates day first.
	uk := Parse("Invoice date: 03/04/2026\n1 oz Gold Britannia  1  £2,150.00  £2,150.00\nVAT  £0.00\nTotal £2,150.00\n")
	if uk.Currency != "GBP" || uk.OrderDate.String() != "2026-04-03" || nd(uk.Total) != "2150.00" || nd(uk.Tax) != "0.00" {
		t.Errorf("uk: %q %s %s %s", uk.Currency, uk.OrderDate, nd(uk.Total), nd(uk.Tax))
	}
	// A warning speaks the receipt's currency.
	w := Parse("1 oz Gold Britannia  2  £2,150.00  £4,000.00\nTotal £4,000.00\n")
	if len(w.Warnings) == 0 || !strings.Contains(w.Warnings[0].Message, "£4,300.00") {
		t.Errorf("warning %+v", w.Warnings)
	}
}
