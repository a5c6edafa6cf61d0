package receipts

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ouncehq/ounce/internal/fx"
)

// Reading the currency a receipt is written in (issue 25): the symbols and ISO codes it
// prints beside its amounts or in its labels ("Total (EUR)", "Betrag in EUR", "Summe €",
// "£1,234.50", "1.234,56 €"). A receipt that prints none is in no currency as far as the scan
// knows, and the confirmation takes the member's display currency, saying it assumed it.

// currencySigns are the signs that name one currency wherever they stand (the dollar sign,
// which many currencies share, is read apart). Longer signs are matched first.
var currencySigns = []struct{ sign, code string }{
	{"€", "EUR"}, {"£", "GBP"}, {"CN¥", "CNY"}, {"¥", "JPY"}, {"₹", "INR"}, {"₩", "KRW"}, {"₪", "ILS"},
	{"₱", "PHP"}, {"฿", "THB"}, {"₺", "TRY"}, {"zł", "PLN"}, {"Kč", "CZK"}, {"元", "CNY"},
}

// dollarPrefixRe are the dollar signs that say whose dollar: "US$", "A$", "CA$", "NZ$", "R$".
var dollarPrefixRe = regexp.MustCompile(`(?:^|[^A-Za-z])(US|AU|A|CA|CAD|C|NZ|HK|SG|S|MX|R)\$`)

var dollarPrefixCode = map[string]string{"US": "USD", "AU": "AUD", "A": "AUD", "CA": "CAD", "CAD": "CAD", "C": "CAD",
	"NZ": "NZD", "HK": "HKD", "SG": "SGD", "S": "SGD", "MX": "MXN", "R": "BRL"}

// dollarCurrencies are the currencies written with a bare "$" at home: a receipt that prints
// only "$" is in the member's own dollar when they count in one of these, else in US dollars.
var dollarCurrencies = []string{"USD", "AUD", "CAD", "NZD", "HKD", "SGD", "MXN"}

var (
	// An ISO code counts only where it names money: next to an amount ("EUR 34.10",
	// "34,10 EUR"), in brackets ("Total (EUR)"), or after "in"/"currency" ("Betrag in EUR",
	// "Currency: GBP", "Währung: CHF"). A bare capitalised word elsewhere ("RON", "TRY") does not.
	codeBesideAmountRe = regexp.MustCompile(`\b([A-Z]{3})\s?\d|\d\s?([A-Z]{3})\b`)
	codeBracketRe      = regexp.MustCompile(`[(\[]([A-Z]{3})[)\]]`)
	codeLabelRe        = regexp.MustCompile(`\b(?i:in|currency|w(?:ä|ae)hrung|devise|valuta|moneda)\s*:?\s*([A-Z]{3})\b`)
	// "Fr. 1'234.50", "SFr. 980.00": Swiss francs.
	francRe = regexp.MustCompile(`\bS?Fr\.\s?\d`)
)

// currencyRead is what a receipt prints about its currency.
type currencyRead struct {
	// Code is the ISO 4217 code read, or "" when none was printed.
	Code string
	// DollarOnly is true when the only sign was a bare "$" (US dollars, unless the member
	// counts in another dollar).
	DollarOnly bool
}

// findCurrency reads the currency the receipt's lines print: the currency named most often by
// its signs and codes (codes and whose-dollar signs count double: they are unambiguous), among
// the currencies a lot may be bought in. A bare "$" only counts for US dollars when nothing
// else is printed.
func findCurrency(lines []string) currencyRead {
	supported := fx.DisplayCurrencies()
	votes := map[string]int{}
	first := map[string]int{}
	n := 0
	vote := func(code string, w int) {
		if !slices.Contains(supported, code) {
			return
		}
		if _, ok := first[code]; !ok {
			first[code] = n
		}
		n++
		votes[code] += w
	}
	dollars := 0
	for _, l := range lines {
		rest := l
		for _, m := range dollarPrefixRe.FindAllStringSubmatchIndex(l, -1) {
			vote(dollarPrefixCode[l[m[2]:m[3]]], 2)
		}
		rest = dollarPrefixRe.ReplaceAllString(rest, " ")
		dollars += strings.Count(rest, "$")
		for _, s := range currencySigns {
			if c := strings.Count(rest, s.sign); c > 0 {
				for range c {
					vote(s.code, 1)
				}
				rest = strings.ReplaceAll(rest, s.sign, " ")
			}
		}
		for _, re := range []*regexp.Regexp{codeBesideAmountRe, codeBracketRe, codeLabelRe} {
			for _, m := range re.FindAllStringSubmatch(l, -1) {
				for _, c := range m[1:] {
					if c != "" {
						vote(strings.ToUpper(c), 2)
					}
				}
			}
		}
		if francRe.MatchString(l) {
			vote("CHF", 2)
		}
	}
	best := ""
	for c, v := range votes {
		if best == "" || v > votes[best] || v == votes[best] && first[c] < first[best] {
			best = c
		}
	}
	if best != "" {
		return currencyRead{Code: best}
	}
	if dollars > 0 {
		return currencyRead{Code: "USD", DollarOnly: true}
	}
	return currencyRead{}
}

// Decimal commas: "1.234,56" and "34,10" are European ways of writing 1,234.56 and 34.10.
var (
	euAmountRe = regexp.MustCompile(`\b\d{1,3}(?:\.\d{3})*,\d{2}\b`)
	usAmountRe = regexp.MustCompile(`\b\d{1,3}(?:,\d{3})*\.\d{2}\b`)
	// euNumberRe are the numbers to rewrite on a receipt with decimal commas: thousands
	// groups after dots, and a decimal part after a comma.
	euNumberRe = regexp.MustCompile(`\b\d{1,3}(?:\.\d{3})+(?:,\d+)?\b|\b\d+,\d+\b`)
	// swissRe is "1'234.50": an apostrophe between thousands.
	swissRe = regexp.MustCompile(`(\d)'(\d{3})\b`)
)

// decimalComma reports whether the receipt writes its amounts with decimal commas: more of
// its amounts read "1.234,56" than "1,234.56".
func decimalComma(lines []string) bool {
	eu, us := 0, 0
	for _, l := range lines {
		eu += len(euAmountRe.FindAllStringIndex(l, -1))
		us += len(usAmountRe.FindAllStringIndex(l, -1))
	}
	return eu > us
}

// toPointDecimals rewrites a decimal-comma line's numbers with points: "1.234,56 €" becomes
// "1234.56 €", "31,1 g" "31.1 g". Dates ("14.03.2026") keep their dots.
func toPointDecimals(l string) string {
	return euNumberRe.ReplaceAllStringFunc(l, func(m string) string {
		return strings.ReplaceAll(strings.ReplaceAll(m, ".", ""), ",", ".")
	})
}

// fromSwiss rewrites "1'234.50" as "1,234.50".
func fromSwiss(l string) string { return swissRe.ReplaceAllString(l, "$1,$2") }

// resolveCurrency is the currency of a scan for the member: the one printed, or for a bare
// "$" the member's own dollar, or (none printed) the member's display currency. read is
// false when the currency was assumed, and note says why when it is worth a look.
func resolveCurrency(c currencyRead, display string) (code string, read bool, note string) {
	if display == "" {
		display = "USD"
	}
	switch {
	case c.Code == "":
		return display, false, ""
	case c.DollarOnly && display != "USD" && slices.Contains(dollarCurrencies, display):
		return display, false, "the receipt prints $ without saying which dollar; it is taken as " + display + ", your display currency: check it"
	}
	return c.Code, true, ""
}
