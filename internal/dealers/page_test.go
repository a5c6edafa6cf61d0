package dealers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tiersString renders tiers compactly for comparison: "1-19:79.49 20-99:78.99 500+:77.99".
func tiersString(ts []Tier) string {
	var parts []string
	for _, t := range ts {
		r := ""
		if t.MaxQty == 0 {
			r = itoa(t.MinQty) + "+"
		} else {
			r = itoa(t.MinQty) + "-" + itoa(t.MaxQty)
		}
		parts = append(parts, r+":"+t.Price.StringFixed(2))
	}
	return strings.Join(parts, " ")
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }

// TestParseEveryDealerFixture reads every dealer page fixture: the 1-unit price (never the
// "as low as" one), the tiers, availability, and which vocabulary carried the price.
func TestParseEveryDealerFixture(t *testing.T) {
	cases := []struct {
		file, name, price, tiers, via string
		inStock                       bool
	}{
		{"apmex.html", "1 oz American Silver Eagle Coin (Random Year)", "79.49", "1-19:79.49 20-99:78.99 100-499:78.49 500+:77.99", "json-ld+table", true},
		{"jm-bullion.html", "American Silver Eagle 1 oz Coin", "78.75", "1-19:78.75 20-99:78.45 100-499:78.15 500+:77.85", "json-ld", true},
		{"sd-bullion.html", "2026 1 oz American Silver Eagle Coin", "76.97", "1-24:76.97 25-499:76.67 500+:76.37", "microdata+table", true},
		{"monument-metals.html", "American Silver Eagle 1 oz (Random Date)", "77.45", "1-49:77.45 50-249:77.15 250+:76.85", "json-ld", true},
		{"hero-bullion.html", "1 oz Silver American Eagle BU (Random Year)", "77.10", "1-99:77.10 100+:76.60", "microdata", true},
		{"bullion-exchanges.html", "2026 1 oz American Silver Eagle Coin BU", "78.20", "1-24:78.20 25-499:77.55 500+:76.90", "json-ld+table", true},
		{"summit-metals.html", "1 oz American Silver Eagle", "76.79", "", "json-ld", false},
		{"provident-metals.html", "American Silver Eagle 1 oz Coin (Random Year)", "78.05", "1-9:78.05 10+:77.75", "microdata+table", true},
		{"money-metals.html", "American Silver Eagle Coins (Tube of 20)", "1559.80", "1-4:1559.80 5+:1549.80", "json-ld", true},
		{"hero-bullion-junk.html", "90% Silver US Coins - $1 Face Value", "49.80", "", "json-ld", true},
		{"jm-bullion-gold-eagle.html", "1 oz American Gold Eagle Coin (Random Year)", "4650.00", "1-9:4650.00 10+:4635.00", "json-ld", true},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := ParseProductPage(readFixture(t, "pages/"+c.file))
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != c.name || !got.Price.Equal(d(c.price)) || tiersString(got.Tiers) != c.tiers || got.InStock != c.inStock || got.Via != c.via || got.Currency != "USD" {
				t.Errorf("got %q %s [%s] stock=%v via=%s, want %q %s [%s] stock=%v via=%s",
					got.Name, got.Price, tiersString(got.Tiers), got.InStock, got.Via, c.name, c.price, c.tiers, c.inStock, c.via)
			}
		})
	}
}

func TestParseRefusesPagesWithoutAUnitPrice(t *testing.T) {
	for file, want := range map[string]string{
		"bad-euro.html":       "priced in EUR",
		"bad-only-low.html":   ErrOnlyLow.Error(),
		"bad-no-product.html": ErrNoProduct.Error(),
	} {
		_, err := ParseProductPage(readFixture(t, "pages/"+file))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", file, err, want)
		}
	}
	if _, err := ParseProductPage([]byte("<html><body>$12.00</body></html>")); !errors.Is(err, ErrNoProduct) {
		t.Errorf("plain page: %v", err)
	}
}

func TestTierQuantityForms(t *testing.T) {
	cases := map[string][2]int{
		"1 - 19": {1, 19}, "1-19": {1, 19}, "20 – 99": {20, 99}, "1 to 9": {1, 9}, "500 +": {500, 0}, "500+": {500, 0},
		"10 or more": {10, 0}, "100 & up": {100, 0}, "Qty 1-4": {1, 4}, "1,000 - 4,999": {1000, 4999}, "5,000+": {5000, 0},
	}
	for in, want := range cases {
		lo, hi, ok := parseQty(in)
		if !ok || lo != want[0] || hi != want[1] {
			t.Errorf("%q → %d-%d %v, want %v", in, lo, hi, ok, want)
		}
	}
	for _, in := range []string{"", "Quantity", "19 - 1", "abc", "$79.49", "0+"} {
		if lo, hi, ok := parseQty(in); ok {
			t.Errorf("%q read as %d-%d", in, lo, hi)
		}
	}
}

func TestPriceForms(t *testing.T) {
	for in, want := range map[any]string{"34.99": "34.99", "$1,234.56": "1234.56", " $ 7 ": "7", "USD 12.5": "12.5"} {
		got, ok := parsePrice(in)
		if !ok || !got.Equal(d(want)) {
			t.Errorf("%v → %s %v", in, got, ok)
		}
	}
	for _, in := range []any{"", "free", "-3", "0", "1,23", "12.34.5", "99999999", nil} {
		if got, ok := parsePrice(in); ok {
			t.Errorf("%v read as %s", in, got)
		}
	}
}

func FuzzParseProductPage(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("testdata", "pages"))
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join("testdata", "pages", e.Name()))
		f.Add(b)
	}
	f.Add([]byte(`<script type="application/ld+json">[[[{"@type":"Product","offers":{"offers":{"offers":{"price":"1"}}}}]]]</script>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		off, err := ParseProductPage(b)
		if err == nil && (!off.Price.IsPositive() || off.Price.GreaterThan(maxPrice)) {
			t.Fatalf("accepted price %s", off.Price)
		}
	})
}
