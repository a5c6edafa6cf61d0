package format

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestMoneyInCurrencies(t *testing.T) {
	d := decimal.RequireFromString
	cases := []struct {
		got, want string
	}{
		{Money(d("1234.5"), "EUR"), "€1,234.50"},
		{Money(d("-12"), "GBP"), Minus + "£12.00"},
		{Money(d("150000.4"), "JPY"), "¥150,000"},
		{Money(d("980.254"), "CHF"), "CHF 980.25"},
		{Money(d("-0.001"), "EUR"), "€0.00"},
		{SignedMoney(d("42.531"), "EUR"), "+€42.53"},
		{SignedMoney(d("-0.18"), "INR"), Minus + "₹0.18"},
		{SignedMoney(d("0.001"), "EUR"), "€0.00"},
		{SignedMoney(d("0.4"), "JPY"), "¥0"},
		{PriceIn(d("3812.4"), "EUR"), "€3,812.40"},
		{PriceIn(d("63.935"), "GBP"), "£63.935"},
		{PriceIn(d("612345.6"), "JPY"), "¥612,346"},
		{PriceIn(d("704196.4653"), "JPY"), "¥704,196"},
		{PricePerUnit(d("122.5712"), "EUR", "g"), "€122.5712/g"},
		{MoneyPtr(nil, "EUR"), Dash},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

// The dollar forms are the currency forms at USD, so pages that move to Money change no text.
func TestMoneyInUSDIsUSD(t *testing.T) {
	for _, s := range []string{"0", "-0.004", "1234.5", "-12", "63.935", "4405.8", "0.385", "1000000.01"} {
		v := decimal.RequireFromString(s)
		if Money(v, "USD") != USD(v) || PriceIn(v, "USD") != PriceUSD(v) || SignedMoney(v, "USD") != SignedUSD(v) {
			t.Errorf("%s: %q %q %q differ from %q %q %q", s, Money(v, "USD"), PriceIn(v, "USD"), SignedMoney(v, "USD"), USD(v), PriceUSD(v), SignedUSD(v))
		}
	}
}
