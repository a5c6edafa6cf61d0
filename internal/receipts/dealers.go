package receipts

import (
	"strings"
	"unicode"
)

// Dealers are the dealers whose receipts the parser recognises by name, as they write it.
var Dealers = []string{"APMEX", "JM Bullion", "SD Bullion", "Monument Metals", "Hero Bullion", "Bullion Exchanges", "Provident Metals", "Money Metals Exchange"}

// dealerKeys are the letters-only forms searched for each dealer (domain names included), so
// "JMBullion.com", "JM BULLION" and OCR's "HERO BU LLION" all match.
var dealerKeys = map[string][]string{
	"APMEX":                 {"apmex"},
	"JM Bullion":            {"jmbullion"},
	"SD Bullion":            {"sdbullion"},
	"Monument Metals":       {"monumentmetals"},
	"Hero Bullion":          {"herobullion"},
	"Bullion Exchanges":     {"bullionexchanges"},
	"Provident Metals":      {"providentmetals"},
	"Money Metals Exchange": {"moneymetalsexchange", "moneymetals"},
}

// letters keeps the lowercase letters of s.
func letters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && unicode.IsLetter(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// findDealer names the dealer mentioned first: its name is in the letterhead, before any
// product that carries another refiner's name. The letterhead lines also match with one
// letter misread.
func findDealer(lines []string) string {
	best, bestAt := "", -1
	var all strings.Builder
	for _, l := range lines {
		all.WriteString(letters(l))
		all.WriteByte('|')
	}
	text := all.String()
	for _, d := range Dealers {
		for _, k := range dealerKeys[d] {
			if i := strings.Index(text, k); i >= 0 && (bestAt < 0 || i < bestAt) {
				best, bestAt = d, i
			}
		}
	}
	if best != "" {
		return best
	}
	// OCR may misread one letter of the letterhead: allow one substitution in the first lines.
	head := text
	if n := strings.IndexByte(text, '|'); n >= 0 {
		count := 0
		for i, c := range text {
			if c == '|' {
				count++
				if count == 8 {
					head = text[:i]
					break
				}
			}
		}
	}
	for _, d := range Dealers {
		for _, k := range dealerKeys[d] {
			if len(k) >= 5 && nearIndex(head, k) {
				return d
			}
		}
	}
	return ""
}

// nearIndex reports whether k occurs in s with at most one letter substituted.
func nearIndex(s, k string) bool {
	for i := 0; i+len(k) <= len(s); i++ {
		diff := 0
		for j := 0; j < len(k) && diff <= 1; j++ {
			if s[i+j] != k[j] {
				diff++
			}
		}
		if diff <= 1 {
			return true
		}
	}
	return false
}
