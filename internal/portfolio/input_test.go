package portfolio

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
)

// FuzzParseHoldingJSON: any body either yields domain errors or a holding that satisfies every
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
			if k := apperr.KindOf(err); k != apperr.Invalid && k != apperr.TooLarge {
				t.Fatalf("parse gave a %v error: %v", k, err)
			}
			return
		}
		var h Holding
		if errs := in.apply(&h, true, now); len(errs) > 0 {
			return
		}
		if !h.WeightOz.IsPositive() || h.WeightOz.GreaterThan(maxWeight) {
			t.Fatalf("weight out of range: %s", h.WeightOz)
		}
		if h.Quantity < 1 || h.Quantity > MaxQuantity {
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
		if !h.Metal.Valid() || h.TotalCost().LessThan(decimal.Zero) {
			t.Fatalf("bad holding %+v", h)
		}
	})
}

func TestHoldingFormInputKeepsTextAndValidates(t *testing.T) {
	form := map[string]string{"metal": "gold", "quantity": "2", "weight_oz": "0.5", "purchase_price": "1.000,50", "purchase_date": ""}
	in := HoldingInputFromForm(func(k string) string { return form[k] })
	var h Holding
	errs := in.apply(&h, true, time.Now())
	if len(errs) != 1 || errs[0].Field != "purchase_price" {
		t.Fatalf("errors = %v", errs)
	}
	if in.Value("purchase_price") != "1.000,50" {
		t.Fatal("form value not kept for re-display")
	}
	form["purchase_price"] = "$1,000" // written as people write it
	h = Holding{}
	if errs := HoldingInputFromForm(func(k string) string { return form[k] }).apply(&h, true, time.Now()); len(errs) != 0 || h.Metal != "gold" || !h.PurchaseDate.IsZero() {
		t.Fatalf("valid form: %v %+v", errs, h)
	}
}

// TestHoldingJSONInput names the field of every refusal, in form order, and keeps PATCH partial.
func TestHoldingJSONInput(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		body   string
		fields []string
	}{
		{`{"metal":"silver","quantity":20,"weight_oz":1,"purchase_price":32.5}`, nil},
		{`{"metal":"XAG","quantity":"3","weight_oz":0,"purchase_price":1.234}`, []string{"metal", "quantity", "weight_oz", "purchase_price"}},
		{`{"metal":"gold","quantity":1.5,"weight_oz":100000.5,"purchase_price":-1,"fees":-2}`, []string{"quantity", "weight_oz", "purchase_price", "fees"}},
		{`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"purchase_date":"2026-11-23"}`, nil}, // today somewhere (UTC+14)
		{`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"purchase_date":"2026-11-24"}`, []string{"purchase_date"}},
		{`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"purchase_date":"1899-12-31"}`, []string{"purchase_date"}},
		{`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"product_name":"a\u0000b"}`, []string{"product_name"}},
		{`{"metal":"gold","quantity":1,"weight_oz":1e999999999,"purchase_price":1}`, []string{"weight_oz"}},
		{`{"metal":"gold","quantity":1,"weight_oz":0.123456789,"purchase_price":1}`, []string{"weight_oz"}},
	} {
		in, err := ParseHoldingJSON([]byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		var h Holding
		errs := in.apply(&h, true, now)
		if len(errs) != len(c.fields) {
			t.Errorf("%s: errors %v, want fields %v", c.body, errs, c.fields)
			continue
		}
		for i, e := range errs {
			if e.Field != c.fields[i] {
				t.Errorf("%s: error %d names %s, want %s", c.body, i, e.Field, c.fields[i])
			}
		}
	}
	for body, field := range map[string]string{`[1]`: "body", `{"metal":`: "body", `{} {}`: "body", `{"user_id":1,"metal":"gold"}`: "user_id", `{"metal":true}`: "metal"} {
		_, err := ParseHoldingJSON([]byte(body))
		if f := apperr.FieldsOf(err); len(f) == 0 || f[0].Field != field {
			t.Errorf("%s: %v, want a field error on %s", body, err, field)
		}
	}
	big := make([]byte, MaxHoldingBody+1)
	if _, err := ParseHoldingJSON(big); apperr.KindOf(err) != apperr.TooLarge {
		t.Errorf("oversized body: %v", err)
	}
	// PATCH: absent fields keep their values; an explicit null clears an optional one.
	h := Holding{Metal: "gold", Quantity: 2, WeightOz: d("1"), PurchasePrice: d("10"), Fees: d("1"), Dealer: "X", Notes: "n"}
	in, _ := ParseHoldingJSON([]byte(`{"quantity":3,"notes":null}`))
	if errs := in.apply(&h, false, now); len(errs) != 0 || h.Quantity != 3 || h.Notes != "" || h.Dealer != "X" || !h.Fees.Equal(d("1")) {
		t.Fatalf("patch: %v %+v", errs, h)
	}
}

func TestSaleInput(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	hold := Holding{Quantity: 20, PurchaseDate: day("2026-11-02")}
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"quantity":5,"price_per_unit":34.10,"fees":2.50,"sold_on":"2026-11-20"}`, ""},
		{`{"price_per_unit":30}`, "quantity"},
		{`{"quantity":"2","price_per_unit":30}`, "quantity"},
		{`{"quantity":1,"price_per_unit":30.001}`, "price_per_unit"},
		{`{"quantity":1,"price_per_unit":30,"fees":-2}`, "fees"},
		{`{"quantity":1,"price_per_unit":30,"sold_on":"2026-11-01"}`, "sold_on"},
		{`{"quantity":1,"price_per_unit":30,"sold_on":20261120}`, "sold_on"},
		{`{"quantity":1,"price_per_unit":30,"sold_on":"2027-01-01"}`, "sold_on"},
	} {
		in, err := ParseSaleJSON([]byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		sale, errs := in.validate(hold, now)
		switch {
		case c.field == "" && len(errs) > 0:
			t.Errorf("%s: %v", c.body, errs)
		case c.field != "" && (len(errs) == 0 || errs[0].Field != c.field):
			t.Errorf("%s: %v, want %s", c.body, errs, c.field)
		case c.field == "" && (sale.Quantity != 5 || !sale.PricePerUnit.Equal(d("34.10")) || sale.SoldOn.String() != "2026-11-20"):
			t.Errorf("%s: sale %+v", c.body, sale)
		}
	}
	// No date: today, unless the purchase is dated later than today in UTC.
	in := SaleInputFromForm(func(k string) string { return map[string]string{"quantity": "1", "price_per_unit": "30"}[k] })
	if sale, errs := in.validate(Holding{Quantity: 1, PurchaseDate: day("2026-11-21")}, now); len(errs) != 0 || sale.SoldOn.String() != "2026-11-21" {
		t.Fatalf("default date: %v %s", errs, sale.SoldOn)
	}
}

// TestFormsReadPeoplesNumbers: forms and CSV take "$1,234.50" and any-case metals; JSON stays strict.
func TestFormsReadPeoplesNumbers(t *testing.T) {
	form := map[string]string{"metal": "Silver", "quantity": "1", "weight_oz": "1", "purchase_price": "$1,234.50", "fees": "$ 12"}
	var h Holding
	if errs := HoldingInputFromForm(func(k string) string { return form[k] }).apply(&h, true, time.Now()); len(errs) != 0 || h.Metal != "silver" ||
		!h.PurchasePrice.Equal(decimal.RequireFromString("1234.5")) || !h.Fees.Equal(decimal.NewFromInt(12)) {
		t.Fatalf("form: %v %+v", errs, h)
	}
	for _, bad := range []string{"1,23.50", "12,34", "$-5", "1.234,50"} {
		form["purchase_price"] = bad
		if errs := HoldingInputFromForm(func(k string) string { return form[k] }).apply(&h, true, time.Now()); len(errs) == 0 {
			t.Errorf("%q was accepted", bad)
		}
	}
	in, err := ParseHoldingJSON([]byte(`{"metal":"Silver","quantity":1,"weight_oz":1,"purchase_price":1}`))
	if err == nil {
		if errs := in.apply(&h, true, time.Now()); len(errs) == 0 {
			t.Error("JSON took a capitalised metal")
		}
	}
}
