package portfolio

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

// TestMay1099BThresholds: each threshold of the dealer-reporting rule, just below and at it.
func TestMay1099BThresholds(t *testing.T) {
	d := decimal.RequireFromString
	for _, c := range []struct {
		metal, product string
		units          int64
		oz             string
		want           bool
	}{
		// Gold bars: 1 kg = 32.150746568… troy oz; a 1 kg bar is stored as 32.15074657 oz.
		{"gold", "Gold bar 1 kg", 1, "32.15074657", true},
		{"gold", "Gold bar 1 kg", 1, "32.15074656", false},
		{"gold", "Gold bar 10 oz", 4, "40", true},
		{"gold", "Gold bar 10 oz", 3, "30", false},
		// Silver bars: 1,000 oz.
		{"silver", "Silver bar 100 oz", 10, "1000", true},
		{"silver", "Silver bar 100 oz", 9, "999.99999999", false},
		{"silver", "Silver bar 100 oz", 9, "900", false},
		// Platinum bars: 25 oz; palladium bars: 100 oz.
		{"platinum", "Platinum bar 1 oz", 25, "25", true},
		{"platinum", "Platinum bar 1 oz", 24, "24", false},
		{"palladium", "Palladium bar 10 oz", 10, "100", true},
		{"palladium", "Palladium bar 10 oz", 9, "90", false},
		// Gold coins: 25 or more 1 oz Krugerrands, Maple Leafs or Onzas.
		{"gold", "Krugerrand", 25, "25", true},
		{"gold", "Krugerrand", 24, "24", false},
		{"gold", "Canadian Gold Maple Leaf 1 oz", 25, "25", true},
		{"gold", "Canadian Gold Maple Leaf 1 oz", 24, "24", false},
		{"gold", "Mexican Onza 1 oz", 25, "25", true},
		{"gold", "Mexican Onza 1 oz", 24, "24", false},
		{"gold", "Canadian Gold Maple Leaf 1/10 oz", 250, "25", false}, // not the 1 oz coin
		{"gold", "American Gold Eagle 1 oz", 100, "100", false},        // not on the list
		// 90 % US silver coins: $1,000 face.
		{"silver", "90% US Silver Coins ($1 face)", 1000, "715", true},
		{"silver", "90% US Silver Coins ($1 face)", 999, "714.285", false},
		// Silver coins by the thousand are not bars.
		{"silver", "American Silver Eagle 1 oz", 1000, "1000", false},
	} {
		if got := May1099B(c.metal, c.product, c.units, d(c.oz)); got != c.want {
			t.Errorf("%d × %s (%s oz): %v, want %v", c.units, c.product, c.oz, got, c.want)
		}
	}
}

// TestDisposal1099BNote: a US disposal of 25 Krugerrands carries the dealer note, 24 do not;
// the gains report of the year carries it only when such a sale is in it.
func TestDisposal1099BNote(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		ann := member(t, s, "k@example.com", db.TierGold)
		ann.TaxJurisdiction = "us"
		if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","product_name":"Krugerrand","quantity":60,"weight_oz":1,"purchase_price":2000,"purchase_date":"2024-01-10"}`)); err != nil {
			t.Fatal(err)
		}
		sell := func(n, day string) Disposal {
			t.Helper()
			d, err := svc.RecordDisposal(ctx, ann, disposalIn(t, `{"product_name":"Krugerrand","metal":"gold","quantity":`+n+`,"price_per_unit":2500,"sold_on":"`+day+`"}`))
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		if d := sell("24", "2025-02-03"); slices.Contains(d.Notes, Note1099B) {
			t.Errorf("24 Krugerrands carry the 1099-B note: %v", d.Notes)
		}
		r, err := svc.TaxReport(ctx, ann, 2025)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(r.Notes, Note1099B) {
			t.Errorf("a report without a reportable sale carries the 1099-B note")
		}
		if d := sell("25", "2026-02-03"); !slices.Contains(d.Notes, Note1099B) {
			t.Errorf("25 Krugerrands lack the 1099-B note: %v", d.Notes)
		}
		if r, err = svc.TaxReport(ctx, ann, 2026); err != nil || !slices.Contains(r.Notes, Note1099B) {
			t.Errorf("the 2026 report lacks the 1099-B note: %v %v", r.Notes, err)
		}
		ann.TaxJurisdiction = "de"
		if r, err = svc.TaxReport(ctx, ann, 2026); err != nil || slices.Contains(r.Notes, Note1099B) {
			t.Errorf("a German report carries the US dealer note: %v %v", r.Notes, err)
		}
	})
}
