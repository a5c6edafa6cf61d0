package format

import (
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestFormatters(t *testing.T) {
	cases := []struct{ got, want string }{
		{USD(d("1234.5")), "$1,234.50"},
		{USD(d("-12")), "−$12.00"},
		{USD(d("-0.004")), "$0.00"},
		{USD(d("1234567.891")), "$1,234,567.89"},
		{SignedUSD(d("42.525")), "+$42.53"},
		{SignedUSD(d("-0.18")), "−$0.18"},
		{SignedUSD(d("0.001")), "$0.00"},
		{USDPtr(nil), "—"},
		{Price(d("63.935"), 4), "$63.935"},
		{Price(d("63.9"), 4), "$63.90"},
		{Price(d("4100.1234"), 4), "$4,100.1234"},
		{Price(d("4100"), 2), "$4,100.00"},
		{Pct(d("-0.6")), "−0.60%"},
		{SignedPct(d("0.344")), "+0.34%"},
		{SignedPct(d("-0.004")), "0.00%"},
		{Oz(d("50.00000")), "50"},
		{Oz(d("7.15")), "7.15"},
		{Oz(d("0.03215")), "0.0322"},
		{Oz(d("12345.5")), "12,345.5"},
		{WholeOz(d("-3500.4")), "−3,500"},
		{SignedWholeOz(d("12000")), "+12,000"},
		{SignedWholeOz(d("0.4")), "0"},
		{Number(d("1234.56"), 1), "1,234.6"},
		{Int(1000000), "1,000,000"},
		{Count(1, "unit", "units"), "1 unit"},
		{Count(3, "unit", "units"), "3 units"},
		{Date(time.Date(2026, 11, 23, 23, 0, 0, 0, time.UTC)), "23 Nov 2026"},
		{DateTime(time.Date(2026, 11, 23, 14, 5, 0, 0, time.UTC)), "23 Nov 2026 14:05 UTC"},
		{ISODate(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)), "2026-11-03"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

func TestDatedList(t *testing.T) {
	aug := time.Date(2026, 8, 17, 0, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)
	live := time.Date(2026, 11, 20, 14, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		in   []Dated
		want string
	}{
		{[]Dated{{"gold", aug}, {"silver", aug}}, "17 Aug 2026"},
		{[]Dated{{"gold", aug}, {"silver", aug}, {"platinum", may}, {"palladium", aug}}, "17 Aug 2026 for gold, silver and palladium, 29 May 2026 for platinum"},
		{[]Dated{{"gold", live}, {"platinum", may}}, "20 Nov 2026 14:05 UTC for gold, 29 May 2026 for platinum"},
	} {
		if got := DatedList(c.in); got != c.want {
			t.Errorf("DatedList %v = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestOneMinusSign: every formatter writes negatives with U+2212 and never a hyphen, and a
// value that rounds to zero carries no sign.
func TestOneMinusSign(t *testing.T) {
	neg := d("-1234.5678")
	for _, s := range []string{USD(neg), PriceUSD(neg), SignedUSD(neg), SignedPriceUSD(neg), Pct(neg), SignedPct(neg),
		Oz(neg), Ounces(neg), WholeOz(neg), WholeOunces(neg), SignedWholeOz(neg), Number(neg, 2), Int(-5), Price(neg, 2)} {
		if !strings.HasPrefix(s, Minus) || strings.Contains(s, "-") {
			t.Errorf("%q: want the one minus sign first and no hyphen", s)
		}
	}
	for _, s := range []string{USD(d("-0.001")), SignedUSD(d("-0.001")), Pct(d("-0.001")), Oz(d("-0.00001")), WholeOz(d("-0.2"))} {
		if strings.Contains(s, Minus) {
			t.Errorf("%q: a zero has no sign", s)
		}
	}
	if got := Ounces(d("12.50")); got != "12.5 oz" {
		t.Errorf("Ounces = %q", got)
	}
	if got := WholeOunces(d("-3500.4")); got != "−3,500 oz" {
		t.Errorf("WholeOunces = %q", got)
	}
	ny, _ := time.LoadLocation("America/New_York")
	if got := DateTimeIn(time.Date(2026, 11, 23, 14, 5, 0, 0, time.UTC), ny); got != "23 Nov 2026 09:05 EST" {
		t.Errorf("DateTimeIn = %q", got)
	}
}
