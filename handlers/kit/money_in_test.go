package kit

import (
	"testing"

	"github.com/shopspring/decimal"
)

// TestMoneyAndPriceInACurrency: dollars and euros render exactly as Money and PriceNum do;
// yen and won are whole units.
func TestMoneyAndPriceInACurrency(t *testing.T) {
	d := decimal.RequireFromString
	for _, c := range []struct{ got, want string }{
		{MoneyIn(d("1234.565"), "USD").String(), Money(d("1234.565")).String()},
		{MoneyIn(d("1234.5"), "EUR").String(), "1234.50"},
		{MoneyIn(d("1234.5"), "JPY").String(), "1235"},
		{MoneyIn(d("-0.4"), "KRW").String(), "0"},
		{PriceIn(d("63.935"), "USD").String(), PriceNum(d("63.935")).String()},
		{PriceIn(d("4405.8"), "GBP").String(), "4405.80"},
		{PriceIn(d("704196.4653"), "JPY").String(), "704196"},
		{PriceIn(d("13619.8256"), "jpy").String(), "13620"},
	} {
		if c.got != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
	if n := MoneyOf("ISK")(d("99.5")); n.String() != "100" {
		t.Errorf("ISK 99.5 is %s", n)
	}
	if n := PriceOf("USD")(d("2650.4")); n.String() != "2650.40" {
		t.Errorf("USD 2650.4 is %s", n)
	}
}
