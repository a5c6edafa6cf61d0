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

// minorUnits is the ISO 4217 exponent (the digits after the decimal point of an amount) of
// every currency the embedded exchange rates name, current and withdrawn: the yen, the won and
// the króna have none (nor had the old Turkish lira, TRL), every other has two (the forint and
// the rupiah too: ISO keeps their fillér and sen though no coin is struck). A code missing
// from the table counts two decimals.
var minorUnits = map[string]int32{
	"AUD": 2, "BGN": 2, "BRL": 2, "CAD": 2, "CHF": 2, "CNY": 2, "CYP": 2, "CZK": 2, "DKK": 2,
	"EEK": 2, "EUR": 2, "GBP": 2, "HKD": 2, "HRK": 2, "HUF": 2, "IDR": 2, "ILS": 2, "INR": 2,
	"ISK": 0, "JPY": 0, "KRW": 0, "LTL": 2, "LVL": 2, "MTL": 2, "MXN": 2, "MYR": 2, "NOK": 2,
	"NZD": 2, "PHP": 2, "PLN": 2, "ROL": 2, "RON": 2, "RUB": 2, "SEK": 2, "SGD": 2, "SIT": 2,
	"SKK": 2, "THB": 2, "TRL": 0, "TRY": 2, "USD": 2, "ZAR": 2,
}

// Symbol is the prefix amounts in currency are written with: "$", "€", "CHF ".
func Symbol(currency string) string {
	code := strings.ToUpper(currency)
	if s, ok := symbols[code]; ok {
		return s
	}
	return code + " "
}

// MinorUnits is how many decimals an amount in currency shows: its ISO 4217 minor units (2,
// or 0 for yen, won, krónur). The one table of them: pages, the API and exports round money
// through it.
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
	return orDash(d, func(v decimal.Decimal) string { return Money(v, currency) })
}

// PriceIn is a price per unit of weight in currency at its source's precision (2 to 4
// decimals, never fewer than the currency's own): "€3,812.40", "₹9,512.3456".
// PriceIn(d, "USD") is PriceUSD(d).
func PriceIn(d decimal.Decimal, currency string) string {
	p := pricePlaces(d)
	if MinorUnits(currency) == 0 {
		p = 0 // a yen or won price is whole, however many decimals its source has
	}
	if roundedZero(d, p) {
		d = decimal.Zero
	}
	return sign(d, Symbol(currency)+Group(d.Abs().StringFixed(p)), false)
}

// RoundMoney is an amount rounded to currency's minor units (¥1,234.5 is ¥1,235; $1.005 is $1.01).
func RoundMoney(d decimal.Decimal, currency string) decimal.Decimal {
	return d.Round(MinorUnits(currency))
}

// PricePerUnit is PriceIn followed by the weight unit: "€122.57/g", "$4,405.80/oz".
func PricePerUnit(d decimal.Decimal, currency, unit string) string {
	return PriceIn(d, currency) + "/" + unit
}
