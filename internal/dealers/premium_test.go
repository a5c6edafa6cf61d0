package dealers

import (
	"encoding/json"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/metals"
)

func product(t *testing.T, id string) metals.Product {
	t.Helper()
	p, ok := metals.ProductByID(id)
	if !ok {
		t.Fatalf("no product %s", id)
	}
	return p
}

// TestPremiumTable checks price ÷ (spot × fine oz) − 1 on coins, bars and junk silver bought
// by face value, with the catalogue's own fine weights (figures checked by hand).
func TestPremiumTable(t *testing.T) {
	cases := []struct {
		product, price, spot, want string
	}{
		{"silver-american-eagle-1oz", "76.97", "64", "20.27"},
		{"silver-bar-10oz", "684.10", "64", "6.89"},
		{"gold-bar-1oz", "4455.00", "4405.80", "1.12"},
		{"gold-bar-1kg", "143000", "4405.80", "0.95"},                  // 1000 g = 32.15075 oz
		{"gold-american-eagle-tenth-oz", "489.00", "4405.80", "10.99"}, // 22 carat: 0.1 oz fine
		{"gold-krugerrand-1oz", "4600.00", "4405.80", "4.41"},          // 1 oz fine in 33.93 g of alloy
		{"silver-junk-90-face", "49.80", "64", "8.83"},                 // $1 face holds 0.715 oz
		{"silver-junk-40-face", "20.50", "64", "8.27"},                 // $1 face of 40 % halves: 0.29584 oz
		{"silver-war-nickel", "4.25", "64", "18.03"},                   // one coin: 0.05626 oz
		{"silver-round-1oz", "60", "64", "-6.25"},                      // below spot is shown as it is
	}
	for _, c := range cases {
		p := product(t, c.product)
		got, ok := PremiumPct(d(c.price), d(c.spot), p.FineOz)
		if !ok || !got.Round(2).Equal(d(c.want)) {
			t.Errorf("%s at %s, spot %s: premium %s (%v), want %s", c.product, c.price, c.spot, got.Round(4), ok, c.want)
		}
	}
	if _, ok := PremiumPct(d("76.97"), decimal.Zero, decimal.NewFromInt(1)); ok {
		t.Error("no spot must give no premium")
	}
	if _, ok := PremiumPct(decimal.Zero, d("64"), decimal.NewFromInt(1)); ok {
		t.Error("no price must give no premium")
	}
	if got := PricePerOz(d("684.10"), d("10")); !got.Equal(d("68.41")) {
		t.Errorf("per oz %s", got)
	}
	if got := PricePerOz(d("49.80"), d("0.715")).Round(2); !got.Equal(d("69.65")) {
		t.Errorf("junk per oz %s", got)
	}
}

func TestMedianAndOutliers(t *testing.T) {
	if m := Median([]decimal.Decimal{d("3"), d("1"), d("2")}); !m.Equal(d("2")) {
		t.Errorf("odd median %s", m)
	}
	if m := Median([]decimal.Decimal{d("4"), d("1"), d("2"), d("3")}); !m.Equal(d("2.5")) {
		t.Errorf("even median %s", m)
	}
	if m := Median(nil); !m.IsZero() {
		t.Errorf("empty median %s", m)
	}
	// Eight Silver Eagle quotes and a tube of twenty read as one coin; a cheap misread too.
	prices := []decimal.Decimal{d("79.49"), d("78.75"), d("76.97"), d("77.45"), d("77.10"), d("78.20"), d("76.79"), d("78.05"), d("1559.80"), d("40.00")}
	flags, median := Outliers(prices)
	want := []bool{false, false, false, false, false, false, false, false, true, true}
	for i := range want {
		if flags[i] != want[i] {
			t.Errorf("price %s outlier=%v, want %v (median %s)", prices[i], flags[i], want[i], median)
		}
	}
	// 40 % is the line: 140 from a median of 100 stays, 140.01 goes.
	flags, _ = Outliers([]decimal.Decimal{d("100"), d("100"), d("140"), d("60")})
	if flags[2] || flags[3] {
		t.Errorf("exactly 40 %% away must stay: %v", flags)
	}
	flags, _ = Outliers([]decimal.Decimal{d("100"), d("100"), d("100"), d("140.01")})
	if !flags[3] {
		t.Error("over 40 % away must go")
	}
	// Two quotes have no majority to judge by.
	if flags, _ := Outliers([]decimal.Decimal{d("10"), d("1000")}); flags[0] || flags[1] {
		t.Error("two quotes are never outliers")
	}
}

func TestParseWeight(t *testing.T) {
	ok := map[string]string{"1": "1", "0.1": "0.1", "1/10": "0.1", "1/2": "0.5", "1/4 oz": "0.25", "10oz": "10", " 100 ": "100",
		"1kg": "32.15074657", "30g": "0.9645224", "1 g": "0.03215075"}
	for in, want := range ok {
		got, err := ParseWeight(in)
		if err != nil || !got.Equal(d(want)) {
			t.Errorf("%q → %s %v, want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "1/0", "abc", "1e3", "1/2/3", "+1", "200000", "oz", "1 lb"} {
		if got, err := ParseWeight(in); err == nil {
			t.Errorf("%q accepted as %s", in, got)
		}
	}
	// The catalogue's gram products match their gram weights and their nominal ounces.
	w30, _ := ParseWeight("30g")
	w1kg, _ := ParseWeight("1kg")
	if !WeightMatches(product(t, "silver-panda-30g"), w30) || !WeightMatches(product(t, "gold-bar-1kg"), w1kg) {
		t.Error("gram weights must match their products")
	}
	if WeightMatches(product(t, "silver-panda-30g"), d("1")) || WeightMatches(product(t, "silver-junk-90-face"), d("1")) {
		t.Error("1 oz must not match a 30 g coin or $1 face of junk")
	}
}

func FuzzParseWeight(f *testing.F) {
	for _, s := range []string{"1", "1/10", "30g", "1kg", "0.5 oz", "1/0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeight(s)
		if err == nil && (!w.IsPositive() || w.GreaterThan(maxWeight)) {
			t.Fatalf("%q accepted as %s", s, w)
		}
	})
}

// TestDemoCoversTheCatalogue: every built-in product has a published range, demo premiums stay
// inside it, and every product is carried by at least three dealers.
func TestDemoCoversTheCatalogue(t *testing.T) {
	for _, p := range metals.Products {
		r, ok := demoPremiums[p.ID]
		if !ok {
			t.Errorf("%s has no demo premium range", p.ID)
			continue
		}
		n := 0
		for _, dl := range BuiltInDealers {
			if !demoCarries(dl, p) {
				continue
			}
			n++
			for _, day := range []string{"", "2026-08-10", "2026-08-11"} {
				v := demoPremium(dl, p, day)
				if v.LessThan(r.lo) || v.GreaterThan(r.hi) {
					t.Errorf("%s %s %s: %s outside %s–%s", p.ID, dl.Slug, day, v, r.lo, r.hi)
				}
			}
		}
		if n < 3 {
			t.Errorf("%s carried by %d dealers", p.ID, n)
		}
	}
	if len(demoPremiums) != len(metals.Products) {
		t.Errorf("%d demo ranges for %d products", len(demoPremiums), len(metals.Products))
	}
}

// FuzzImportFile: whatever the file, validation never panics, and every row it accepts has
// URLs Ounce could send a browser to.
func FuzzImportFile(f *testing.F) {
	f.Add([]byte(`{"dealers":[{"slug":"a-b","name":"A","site":"https://a.example/","affiliate_url_template":"https://x.example/?u={url}"}],
		"listings":[{"dealer":"a-b","product":"gold-bar-1oz","url":"https://a.example/x"}]}`))
	f.Add([]byte(`{"listings":[{"dealer":"apmex","product":"gold-bar-1oz","url":"//evil.example"}]}`))
	cat := buildCatalogue(append([]Dealer(nil), BuiltInDealers...), metals.Products, nil, nil)
	f.Fuzz(func(t *testing.T, b []byte) {
		var file importFile
		if json.Unmarshal(b, &file) != nil {
			return
		}
		rows, errs := validateImport(file, cat)
		if len(errs) > 0 {
			return
		}
		for _, d := range rows.Dealers {
			if _, err := applyAffiliate(d.AffiliateTemplate, d.Site); err != nil {
				t.Fatalf("accepted dealer %+v: %v", d, err)
			}
		}
		for _, l := range rows.Listings {
			if _, err := checkWebURL(l.URL); err != nil {
				t.Fatalf("accepted listing %+v: %v", l, err)
			}
		}
	})
}
