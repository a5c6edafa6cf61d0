package format

import (
	"strings"

	"github.com/shopspring/decimal"
)

// symbols are the prefixes money is written with, for the currencies whose symbol a reader
// knows without the code; every other currency is written with its ISO code and a space
// ("CHF 1,234.50", "SEK 99.00"). Ambiguous dollar and yen signs carry their country ("A$", "CN¥").
var symbols = map[string]string{
	"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "KRW": "₩", "ILS": "₪",
	"PHP": "₱", "THB": "฿", "TRY": "₺", "CNY": "CN¥", "AUD": "A$", "CAD": "CA$", "NZD": "NZ$",
	"HKD": "HK$", "SGD": "S$", "MXN": "MX$", "BRL": "R$",
}

// minorUnits are the currencies without cents (ISO 4217 exponent 0); every other has two.
var minorUnits = map[string]int32{"JPY": 0, "KRW": 0, "ISK": 0}

// Symbol is the prefix amounts in currency are written with: "$", "€", "CHF ".
func Symbol(currency string) string {
	code := strings.ToUpper(currency)
	if s, ok := symbols[code]; ok {
		return s
	}
	return code + " "
}

// MinorUnits is how many decimals an amount in currency shows (2, or 0 for yen, won, krónur).
func MinorUnits(currency string) int32 {
	if p, ok := minorUnits[strings.ToUpper(currency)]; ok {
		return p
	}
	return 2
}

// Money is an amount in currency with its symbol and separators: "€1,234.50", "−£12.00",
// "¥150,000", "CHF 980.25". Money(d, "USD") is USD(d).
func Money(d decimal.Decimal, currency string) string {
	p := MinorUnits(currency)
	if roundedZero(d, p) {
		d = decimal.Zero
	}
	return sign(d, Symbol(currency)+Group(d.Abs().StringFixed(p)), false)
}

// SignedMoney is a change in currency with an explicit sign: "+€42.53", "−₹0.18", "€0.00".
func SignedMoney(d decimal.Decimal, currency string) string {
	p := MinorUnits(currency)
	if roundedZero(d, p) {
		return Symbol(currency) + decimal.Zero.StringFixed(p)
	}
	return sign(d, Symbol(currency)+Group(d.Abs().StringFixed(p)), true)
}

// MoneyPtr is Money, or a dash when the value is unknown.
func MoneyPtr(d *decimal.Decimal, currency string) string {
	if d == nil {
		return Dash
	}
	return Money(*d, currency)
}

// PriceIn is a price per unit of weight in currency at its source's precision (2 to 4
// decimals, never fewer than the currency's own): "€3,812.40", "₹9,512.3456".
// PriceIn(d, "USD") is PriceUSD(d).
func PriceIn(d decimal.Decimal, currency string) string {
	p := pricePlaces(d)
	if m := MinorUnits(currency); m == 0 && p == 2 {
		p = 0
	}
	if roundedZero(d, p) {
		d = decimal.Zero
	}
	return sign(d, Symbol(currency)+Group(d.Abs().StringFixed(p)), false)
}

// PricePerUnit is PriceIn followed by the weight unit: "€122.57/g", "$4,405.80/oz".
func PricePerUnit(d decimal.Decimal, currency, unit string) string {
	return PriceIn(d, currency) + "/" + unit
}
