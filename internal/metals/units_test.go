package metals

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestTolaIsThreeEighthsOfATroyOunce(t *testing.T) {
	oz, err := Convert(decimal.NewFromInt(1), Tola, Ounce)
	if err != nil {
		t.Fatal(err)
	}
	if diff := oz.Sub(decimal.RequireFromString("0.375")).Abs(); diff.GreaterThan(decimal.RequireFromString("1e-9")) {
		t.Fatalf("1 tola = %s oz, want 0.375 ± 1e-9", oz)
	}
	g, _ := Convert(decimal.NewFromInt(1), Tola, Gram)
	if g.String() != "11.6638038" {
		t.Fatalf("1 tola = %s g", g)
	}
}

func TestConvertExact(t *testing.T) {
	cases := []struct {
		amount   string
		from, to Unit
		want     string
	}{
		{"1", Ounce, Gram, "31.1034768"},
		{"1", Kilogram, Gram, "1000"},
		{"31.1034768", Gram, Ounce, "1"},
		{"1000", Ounce, Kilogram, "31.1034768"},
		{"8", Tola, Ounce, "3"},
		{"3", Ounce, Tola, "8"},
		{"100", Gram, Ounce, "3.21507465686279805221"}, // Python: Decimal(100)/Decimal("31.1034768")
		{"1", Kilogram, Ounce, "32.1507465686279805221"},
		{"10", Gram, Tola, "0.85735324183007948059"},
		{"2.5", Kilogram, Kilogram, "2.5"},
	}
	for _, c := range cases {
		got, err := Convert(decimal.RequireFromString(c.amount), c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != c.want {
			t.Errorf("%s %s in %s = %s, want %s", c.amount, c.from, c.to, got, c.want)
		}
	}
	// A round trip through ounces comes back to what was typed, to the 20th place.
	for _, s := range []string{"100", "1", "250", "0.5", "1000"} {
		w := Weight{Amount: decimal.RequireFromString(s), Unit: Gram}
		back := w.In(Ounce).In(Gram).Amount.Round(15)
		if !back.Equal(w.Amount) {
			t.Errorf("%s g → oz → g = %s", s, back)
		}
	}
	if _, err := Convert(decimal.NewFromInt(1), "lb", Ounce); err == nil {
		t.Fatal("lb accepted")
	}
}

func TestParseWeight(t *testing.T) {
	good := map[string]string{
		"100 g": "100 g", "1kg": "1 kg", "2.5 troy oz": "2.5 oz", "1,000 grams": "1000 g", " 10 Tola ": "10 tola",
		"0.375": "0.375 oz", "1 KILO": "1 kg", "12,500.5 g": "12500.5 g",
	}
	for in, want := range good {
		w, err := ParseWeight(in, Ounce)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if w.String() != want {
			t.Errorf("%q = %q, want %q", in, w, want)
		}
	}
	for _, in := range []string{"", "g", "0 g", "-1 g", "10 lb", "1,00 g", "1.2.3 g", "abc", "10,0000 g"} {
		if w, err := ParseWeight(in, Ounce); err == nil {
			t.Errorf("%q accepted as %s", in, w)
		}
	}
	if _, err := ParseWeight("5", ""); err == nil {
		t.Error("a bare number without a default unit accepted")
	}
}

func TestPricePerUnit(t *testing.T) {
	per := decimal.RequireFromString("3110.34768")
	cases := map[Unit]string{Ounce: "3110.34768", Gram: "100", Kilogram: "100000", Tola: "1166.38038"}
	for u, want := range cases {
		got, err := PricePer(per, u)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("per %s = %s, want %s", u, got, want)
		}
	}
	if Gram.Suffix() != "/g" || Tola.Suffix() != "/tola" {
		t.Fatal("suffix")
	}
	w := Weight{Amount: decimal.RequireFromString("100"), Unit: Gram}
	if got := w.In(Ounce).Format(5); got != "3.21507 oz" {
		t.Fatalf("format %q", got)
	}
}

func FuzzParseWeight(f *testing.F) {
	for _, s := range []string{"100 g", "1kg", "1,000 grams", "0.375", "2 tola", "1e5 g"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := ParseWeight(s, Ounce)
		if err != nil {
			return
		}
		if !w.Amount.IsPositive() || !w.Unit.Valid() {
			t.Fatalf("%q parsed to %v", s, w)
		}
		again, err := ParseWeight(w.String(), Ounce)
		if err != nil || !again.Amount.Equal(w.Amount) || again.Unit != w.Unit {
			t.Fatalf("%q → %q does not parse back: %v", s, w, err)
		}
	})
}
