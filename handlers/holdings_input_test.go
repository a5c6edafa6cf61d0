package handlers

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// FuzzParseHoldingJSON: any body either yields field errors or a holding that satisfies every
// rule; it never panics and never stores out-of-range values.
func FuzzParseHoldingJSON(f *testing.F) {
	for _, s := range []string{
		`{"metal":"silver","quantity":20,"weight_oz":1,"purchase_price":32.5,"purchase_date":"2026-11-02"}`,
		`{"metal":"gold","quantity":1e2,"weight_oz":0.1,"purchase_price":0,"fees":null,"notes":"a\nb"}`,
		`{"metal":"XAU","quantity":"1"}`, `[]`, `null`, `{"x":1}`, `{"weight_oz":-0.0}`, `{"quantity":1e99999}`,
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := ParseHoldingJSON(body)
		if err != nil {
			if AsProblem(err).Status >= 500 {
				t.Fatalf("parse gave a 5xx: %v", err)
			}
			return
		}
		var h db.Holding
		if errs := in.Apply(&h, true, now); len(errs) > 0 {
			return
		}
		if !h.WeightOz.IsPositive() || h.WeightOz.GreaterThan(maxWeight) {
			t.Fatalf("weight out of range: %s", h.WeightOz)
		}
		if h.Quantity < 1 || h.Quantity > maxQuantity {
			t.Fatalf("quantity out of range: %d", h.Quantity)
		}
		if h.PurchasePrice.IsNegative() || h.PurchasePrice.GreaterThan(maxPrice) || !h.PurchasePrice.Equal(h.PurchasePrice.Round(2)) {
			t.Fatalf("price out of range: %s", h.PurchasePrice)
		}
		if h.Fees.IsNegative() || h.Fees.GreaterThan(maxPrice) {
			t.Fatalf("fees out of range: %s", h.Fees)
		}
		if !h.PurchaseDate.IsZero() && h.PurchaseDate.After(now.Add(48*time.Hour)) {
			t.Fatalf("future date accepted: %s", h.PurchaseDate)
		}
		if h.TotalCost().LessThan(decimal.Zero) {
			t.Fatal("negative cost")
		}
	})
}

func TestHoldingFormInputKeepsTextAndValidates(t *testing.T) {
	form := map[string]string{"metal": "gold", "quantity": "2", "weight_oz": "0.5", "purchase_price": "1,000", "purchase_date": ""}
	in := HoldingInputFromForm(func(k string) string { return form[k] })
	var h db.Holding
	errs := in.Apply(&h, true, time.Now())
	if len(errs) != 1 || errs[0].Field != "purchase_price" {
		t.Fatalf("errors = %v", errs)
	}
	if in.Value("purchase_price") != "1,000" {
		t.Fatal("form value not kept for re-display")
	}
	form["purchase_price"] = "1000"
	h = db.Holding{}
	if errs := HoldingInputFromForm(func(k string) string { return form[k] }).Apply(&h, true, time.Now()); len(errs) != 0 || h.Metal != "gold" || !h.PurchaseDate.IsZero() {
		t.Fatalf("valid form: %v %+v", errs, h)
	}
}
