package receipts

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// emailReceipt is an invented order e-mail pasted as plain text: single spaces, "x" and "@"
// notation, a fee line and a discount.
const emailReceipt = `From: orders@example.com
Subject: Your SD Bullion order SD-7781 has shipped (sample)

Thanks for ordering from SD Bullion!
Placed on Nov 3, 2025

20 x 1 oz Silver American Eagle @ $33.15 each = $663.00
2 x 1/2 oz Gold American Eagle @ $1,650.00 = $3,300.00
$10 FV 90% silver dimes x 3 @ $241.50 = $724.50
1 Kilo Gold Bar 1 @ $129,400.00 $129,400.00
Subtotal: $134,087.50
Coupon SAVE10 -$10.00
Shipping: $0.00
Total: $134,077.50
`

func TestParseEmail(t *testing.T) {
	r := Parse(emailReceipt)
	if r.Dealer != "SD Bullion" || r.OrderNumber != "SD-7781" || r.OrderDate.String() != "2025-11-03" {
		t.Fatalf("header: %q %q %s", r.Dealer, r.OrderNumber, r.OrderDate)
	}
	want := []struct {
		metal, qty, oz, unit, total, id string
	}{
		{"silver", "20", "1", "33.15", "663.00", "silver-american-eagle-1oz"},
		{"gold", "2", "0.5", "1650.00", "3300.00", "gold-american-eagle-half-oz"},
		{"silver", "3", "7.15", "241.50", "724.50", "silver-junk-90-face"},
		{"gold", "1", "32.15075", "129400.00", "129400.00", "gold-bar-1kg"},
	}
	if len(r.Items) != len(want) {
		t.Fatalf("items: %+v", r.Items)
	}
	for i, w := range want {
		it := r.Items[i]
		got := []string{string(it.Metal), decimal.NewFromInt(it.Quantity).String(), it.WeightOz.String(), nd(it.UnitPrice), nd(it.LineTotal), it.ProductID}
		if strings.Join(got, "|") != strings.Join([]string{w.metal, w.qty, w.oz, w.unit, w.total, w.id}, "|") {
			t.Errorf("item %d (%q): got %v want %+v", i, it.ProductName, got, w)
		}
	}
	if r.Items[0].ProductName != "1 oz Silver American Eagle" {
		t.Errorf("name %q", r.Items[0].ProductName)
	}
	if nd(r.Subtotal) != "134087.50" || nd(r.Total) != "134077.50" || nd(r.Shipping) != "0.00" {
		t.Errorf("sums %s %s %s", nd(r.Subtotal), nd(r.Total), nd(r.Shipping))
	}
	if len(r.Warnings) != 0 {
		t.Errorf("a receipt that adds up (discount included) has no warnings: %+v", r.Warnings)
	}
}

func TestParseWarnsNeverFixes(t *testing.T) {
	r := Parse(`APMEX Order #: 5550001  Order Date: 01/02/2026
1 oz Silver Maple Leaf   10   $35.00   $351.00
Subtotal $351.00
Shipping $9.95
Total $370.00`)
	if len(r.Items) != 1 || nd(r.Items[0].UnitPrice) != "35.00" || nd(r.Items[0].LineTotal) != "351.00" {
		t.Fatalf("the figures must stay as printed: %+v", r.Items)
	}
	fields := map[string]string{}
	for _, w := range r.Warnings {
		fields[w.Path()] = w.Message
	}
	if !strings.Contains(fields["items[0].line_total"], "10 × $35.00 = $350.00") {
		t.Errorf("line warning: %q", fields["items[0].line_total"])
	}
	if !strings.Contains(fields["total"], "$360.95") || !strings.Contains(fields["total"], "$370.00") {
		t.Errorf("total warning: %q", fields["total"])
	}
	if _, ok := fields["subtotal"]; ok {
		t.Errorf("the subtotal matches the line as printed: %v", fields)
	}
}

func TestParseMetalFromPrice(t *testing.T) {
	r := Parse("Order 12345 on 2026-01-05\n1 oz Maple Leaf   2   $4,100.00   $8,200.00\n1 oz Buffalo Round   5   $36.00   $180.00\n")
	if len(r.Items) != 2 || r.Items[0].Metal != "gold" || r.Items[1].Metal != "silver" {
		t.Fatalf("items %+v", r.Items)
	}
	if r.Items[0].ProductID != "gold-maple-leaf-1oz" || r.Items[1].ProductID != "silver-round-1oz" {
		t.Errorf("products %q %q", r.Items[0].ProductID, r.Items[1].ProductID)
	}
	guessed := 0
	for _, w := range r.Warnings {
		if w.Field == "metal" {
			guessed++
		}
	}
	if guessed != 2 {
		t.Errorf("a metal read from the price is flagged: %+v", r.Warnings)
	}
}

func TestParseWeights(t *testing.T) {
	cases := map[string]string{
		"1/4 oz Gold Eagle":            "0.25",
		"5 gram Gold Bar":              "0.16075",
		"100 g Silver Bar":             "3.21507",
		"1 kilo Silver Bar":            "32.15075",
		"2 kg Silver Bar":              "64.30149",
		"10 oz Silver Bar":             "10",
		"100 oz Silver Bar":            "100",
		"$1 face 90% Silver":           "0",
		"1-oz Silver Round":            "1",
		"1/10th oz Gold Maple":         "0.1",
		"Tube of 20 x 1 troy oz coins": "1",
	}
	for desc, want := range cases {
		w, _, _ := weightOf(desc)
		if !w.Equal(decimal.RequireFromString(want)) {
			t.Errorf("%q: %s oz, want %s", desc, w, want)
		}
	}
	_, face, purity := weightOf("$10 FV 90% dimes")
	if !face.Equal(decimal.NewFromInt(10)) || purity != 90 {
		t.Errorf("junk face %s purity %d", face, purity)
	}
	_, face, purity = weightOf("$5 face 40% Kennedy halves")
	if !face.Equal(decimal.NewFromInt(5)) || purity != 40 {
		t.Errorf("40%% junk face %s purity %d", face, purity)
	}
}

func TestParseDates(t *testing.T) {
	for in, want := range map[string]string{
		"03/14/2026": "2026-03-14", "3/4/26": "2026-03-04", "2026-01-19": "2026-01-19", "March 2, 2026": "2026-03-02",
		"Jan 7, 2026": "2026-01-07", "14 Feb 2026": "2026-02-14", "Sept. 9, 2025": "2025-09-09",
	} {
		d, ok := parseDate(in, false)
		if !ok || d.String() != want {
			t.Errorf("%q: %v %s, want %s", in, ok, d, want)
		}
	}
	for _, bad := range []string{"02/30/2026", "13/01/2026", "Foo 3, 2026", "2026-13-01"} {
		if _, ok := parseDate(bad, false); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseHTMLEmail(t *testing.T) {
	html := `<html><body><h1>Hero Bullion</h1><p>Order No. HB-1001<br>Order placed 2 Jan 2026</p>
<table><tr><td>1 oz Gold Krugerrand</td>
<td>$4,200.00</td><td>2</td><td>$8,400.00</td></tr>
<tr><td>Total</td><td>$8,400.00</td></tr></table><script>var x = "$999.99";</script></body></html>`
	kind, err := Sniff([]byte(html))
	if err != nil || kind != KindText {
		t.Fatalf("sniff %v %v", kind, err)
	}
	r := Parse(textOf([]byte(html)))
	if r.Dealer != "Hero Bullion" || r.OrderNumber != "HB-1001" || len(r.Items) != 1 || r.Items[0].Quantity != 2 || r.Items[0].ProductID != "gold-krugerrand-1oz" || nd(r.Total) != "8400.00" {
		t.Fatalf("%+v", r)
	}
}

func TestParseNothing(t *testing.T) {
	r := Parse("Dear customer, thank you.\nNothing here costs money.")
	if len(r.Items) != 0 {
		t.Fatalf("items from prose: %+v", r.Items)
	}
	fields := map[string]bool{}
	for _, w := range r.Warnings {
		fields[w.Field] = true
	}
	if !fields["items"] || !fields["order_date"] {
		t.Errorf("an unreadable receipt says so: %+v", r.Warnings)
	}
}

func TestAllocateFees(t *testing.T) {
	r := Parse("Order 9999 2026-01-05\n1 oz Silver Eagle 3 $33.33 $99.99\n1 oz Gold Eagle 1 $4,000.00 $4,000.00\nShipping $10.00\nTax $0.01\nTotal $4,110.00")
	allocateFees(&r)
	sum := r.Items[0].Fees.Add(r.Items[1].Fees)
	if !sum.Equal(decimal.RequireFromString("10.01")) {
		t.Fatalf("shares add up to %s, want 10.01 (%s + %s)", sum, r.Items[0].Fees, r.Items[1].Fees)
	}
	if !r.Items[0].Fees.Equal(decimal.RequireFromString("0.24")) {
		t.Errorf("the small line's share %s, want 0.24 (10.01 × 99.99 / 4099.99, to the cent down)", r.Items[0].Fees)
	}
}

// FuzzParse: any text parses without panicking, and what comes out keeps its invariants.
func FuzzParse(f *testing.F) {
	f.Add(emailReceipt)
	f.Add("APMEX Order #: 1 Order Date: 01/02/2026\n1 oz Silver Maple Leaf 10 $35.00 $351.00\nTotal $1")
	f.Add("$10 Face Value 90% Silver\nSKU X-1 Qty 2 @ $236.40 $472.80")
	f.Add("x 9999999 $99999999999999.99 1/0 oz 0 kg $,.")
	f.Add(strings.Repeat("1 oz Gold Bar 1 $1.00 $1.00\n", 300))
	f.Fuzz(func(t *testing.T, s string) {
		r := Parse(s)
		if len(r.Items) > MaxItems {
			t.Fatalf("%d items", len(r.Items))
		}
		for _, it := range r.Items {
			if it.Quantity < 1 || it.Quantity > 1_000_000 {
				t.Fatalf("quantity %d", it.Quantity)
			}
			if it.WeightOz.IsNegative() || (it.UnitPrice.Valid && it.UnitPrice.Decimal.IsNegative()) {
				t.Fatalf("negative figures: %+v", it)
			}
			if it.ProductName == "" || len(it.ProductName) > 800 {
				t.Fatalf("name %q", it.ProductName)
			}
		}
		for _, w := range r.Warnings {
			if w.Field == "" || w.Message == "" || w.Item >= len(r.Items) {
				t.Fatalf("warning %+v", w)
			}
		}
		allocateFees(&r)
	})
}

// BenchmarkParse is the parser alone on a long e-mail (the tools dominate a scan).
func BenchmarkParse(b *testing.B) {
	text := strings.Repeat(emailReceipt, 20)
	for b.Loop() {
		Parse(text)
	}
}
