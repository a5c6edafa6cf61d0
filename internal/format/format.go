// Package format is the one way Ounce writes money, numbers, weights and dates for people —
// on pages, in articles, briefs, receipts checks, advisor replies, news analysis and mail — so
// every figure reads the same wherever it appears. It imports nothing of ours (no Fiber, templ
// or views), so `internal/*` and `views` both use it.
//
// The rules, each in one place:
//   - One minus sign: U+2212 "−" (a hyphen before a number reads as a dash in prose), placed
//     before the currency sign ("−$12.00"). A value that rounds to zero shows no sign.
//     JSON is not formatted here: JSON numbers stay numbers.
//   - Money: dollars with thousands separators and cents ("$1,234.50"); prices per ounce at
//     their source's precision, at least cents and at most four places ("$63.935").
//   - Weights: troy ounces, at most four places, trailing zeros trimmed ("7.15", "0.0322");
//     vault stocks in whole ounces ("12,345,678").
//   - Percentages: two places ("−0.60%", "+0.34%" for changes).
//   - Chart axes: one compact rule for every axis (AxisLabels).
//   - Dates, one style per context:
//     prose, cards, headings, briefs, articles, messages: Date "27 Nov 2026"
//     (a moment: DateTime "27 Nov 2026 14:05 UTC");
//     tables that sort, CSV, forms (<input type=date>), the API and prompts: ISODate "2026-11-27";
//     chart axes: AxisDate, "27 Nov" or "Nov 2026" (the chart's hover text uses Date).
//
// Values arrive as exact decimals; rounding happens here, at display, never before the math.
package format

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Minus is the minus sign every page uses.
const Minus = "−"

// Dash stands in for an unknown value.
const Dash = "—"

// Group inserts thousands separators into a plain decimal string ("-1234567.5" → "-1,234,567.5").
func Group(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(intPart[i])
	}
	out := b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		return "-" + out
	}
	return out
}

// sign renders magnitude text with the house minus sign, or "+" when plus is set and d > 0.
func sign(d decimal.Decimal, text string, plus bool) string {
	switch {
	case d.IsNegative():
		return Minus + text
	case plus && d.IsPositive():
		return "+" + text
	}
	return text
}

// roundedZero is true when d rounds to zero at places (so "−$0.00" never appears).
func roundedZero(d decimal.Decimal, places int32) bool { return d.Round(places).IsZero() }

// USD is a dollar amount with separators and cents: "$1,234.50", "−$12.00".
func USD(d decimal.Decimal) string {
	if roundedZero(d, 2) {
		d = decimal.Zero
	}
	return sign(d, "$"+Group(d.Abs().StringFixed(2)), false)
}

// pricePlaces is how many decimals a price per ounce shows: its own, at least 2 and at most 4
// (LBMA silver 63.935 stays $63.935; gold 4405.8 is $4,405.80).
func pricePlaces(d decimal.Decimal) int32 {
	d = d.Round(4)
	places := int32(2)
	if e := -d.Exponent(); e > places {
		for t := d.StringFixed(e); e > places && t[len(t)-1] == '0'; t = t[:len(t)-1] {
			e--
		}
		places = e
	}
	return places
}

// PriceUSD is a price per ounce at its source's precision: "$63.935", "$4,405.80".
func PriceUSD(d decimal.Decimal) string {
	p := pricePlaces(d)
	if roundedZero(d, p) {
		d = decimal.Zero
	}
	return sign(d, "$"+Group(d.Abs().StringFixed(p)), false)
}

// SignedPriceUSD is a change of a price per ounce at its precision: "−$0.385", "+$15.10".
func SignedPriceUSD(d decimal.Decimal) string {
	p := pricePlaces(d)
	if roundedZero(d, p) {
		return "$0.00"
	}
	return sign(d, "$"+Group(d.Abs().StringFixed(p)), true)
}

// SignedUSD is a change in dollars with an explicit sign: "+$42.53", "−$0.18", "$0.00".
func SignedUSD(d decimal.Decimal) string {
	if roundedZero(d, 2) {
		return "$0.00"
	}
	return sign(d, "$"+Group(d.Abs().StringFixed(2)), true)
}

// orDash is show(*d), or a dash when d is nil (the value is unknown): the rule of every
// formatter of an optional figure.
func orDash(d *decimal.Decimal, show func(decimal.Decimal) string) string {
	if d == nil {
		return Dash
	}
	return show(*d)
}

// USDPtr is USD, or a dash when the value is unknown.
func USDPtr(d *decimal.Decimal) string { return orDash(d, USD) }

// PriceUSDPtr is PriceUSD, or a dash when the price is unknown.
func PriceUSDPtr(d *decimal.Decimal) string { return orDash(d, PriceUSD) }

// SignedUSDPtr is SignedUSD, or a dash when the value is unknown.
func SignedUSDPtr(d *decimal.Decimal) string { return orDash(d, SignedUSD) }

// Price is a price per ounce: cents, or up to places decimals when the source quotes finer
// (silver at 63.935 shows "$63.935"), trailing zeros beyond the cents trimmed.
func Price(d decimal.Decimal, places int32) string {
	if places < 2 {
		places = 2
	}
	s := d.Abs().StringFixed(places)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		for len(s) > i+3 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
	}
	if roundedZero(d, places) {
		return "$" + Group(s)
	}
	return sign(d, "$"+Group(s), false)
}

// Pct is a percentage to two places: "12.34%", "−0.60%".
func Pct(d decimal.Decimal) string {
	if roundedZero(d, 2) {
		return "0.00%"
	}
	return sign(d, d.Abs().StringFixed(2)+"%", false)
}

// SignedPct is a percentage change with an explicit sign: "+0.34%", "−0.60%", "0.00%".
func SignedPct(d decimal.Decimal) string {
	if roundedZero(d, 2) {
		return "0.00%"
	}
	return sign(d, d.Abs().StringFixed(2)+"%", true)
}

// PctPtr is Pct, or a dash when unknown.
func PctPtr(d *decimal.Decimal) string { return orDash(d, Pct) }

// SignedPctPtr is SignedPct, or a dash when unknown.
func SignedPctPtr(d *decimal.Decimal) string { return orDash(d, SignedPct) }

// Oz is a weight in troy ounces to the precision that matters: at most four places, trailing
// zeros trimmed ("50", "7.15", "0.1", "0.0322").
func Oz(d decimal.Decimal) string {
	s := d.Round(4).Abs().String()
	if roundedZero(d, 4) {
		return "0"
	}
	return sign(d, Group(s), false)
}

// WholeOz is ounces rounded to whole ounces with separators ("12,345,678"), as vault stocks are shown.
func WholeOz(d decimal.Decimal) string {
	if roundedZero(d, 0) {
		return "0"
	}
	return sign(d, Group(d.Abs().Round(0).StringFixed(0)), false)
}

// SignedWholeOz is a change in whole ounces with an explicit sign ("+12,000", "−3,500", "0").
func SignedWholeOz(d decimal.Decimal) string {
	if roundedZero(d, 0) {
		return "0"
	}
	return sign(d, Group(d.Abs().Round(0).StringFixed(0)), true)
}

// Number is a plain decimal with separators at the given places ("1,234.5" at 1).
func Number(d decimal.Decimal, places int32) string {
	if roundedZero(d, places) {
		d = decimal.Zero
	}
	return sign(d, Group(d.Abs().StringFixed(places)), false)
}

// Int is a whole count with separators.
func Int(n int64) string {
	return Number(decimal.NewFromInt(n), 0)
}

// Count is "1 unit" / "3 units": a count and its noun, singular for one.
func Count(n int64, singular, plural string) string {
	if n == 1 || n == -1 {
		return Int(n) + " " + singular
	}
	return Int(n) + " " + plural
}

// Date is the page date style: "23 Nov 2026" (in UTC, or in the zone of t when local is set).
func Date(t time.Time) string { return t.UTC().Format("2 Jan 2006") }

// DateIn is the page date style in a time zone.
func DateIn(t time.Time, loc *time.Location) string { return t.In(loc).Format("2 Jan 2006") }

// DateTime is a moment with minutes and zone: "23 Nov 2026 14:05 UTC".
func DateTime(t time.Time) string { return t.UTC().Format("2 Jan 2006 15:04 MST") }

// ISODate is the machine date style used in forms and tables that sort: "2026-11-23".
func ISODate(t time.Time) string { return t.UTC().Format("2006-01-02") }

// PriceTime is when a price is of: a close carries a date ("17 Aug 2026"), a quote a moment.
func PriceTime(t time.Time) string {
	if u := t.UTC(); u.Hour() == 0 && u.Minute() == 0 && u.Second() == 0 {
		return Date(t)
	}
	return DateTime(t)
}

// Dated is a name and the time the figure it names is of.
type Dated struct {
	Name string
	At   time.Time
}

// DatedList names each figure's own date, names sharing a date grouped in order of first
// appearance: "17 Aug 2026 for gold and silver, 29 May 2026 for platinum". One date alone is
// just that date.
func DatedList(items []Dated) string {
	var whens []string
	names := map[string][]string{}
	for _, it := range items {
		w := PriceTime(it.At)
		if _, ok := names[w]; !ok {
			whens = append(whens, w)
		}
		names[w] = append(names[w], it.Name)
	}
	if len(whens) == 1 {
		return whens[0]
	}
	parts := make([]string, len(whens))
	for i, w := range whens {
		parts[i] = w + " for " + AndList(names[w])
	}
	return strings.Join(parts, ", ")
}

// AndList joins words as prose: "a", "a and b", "a, b and c".
func AndList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// Ounces is a weight with its unit: "12.5 oz", "0.0322 oz" (Oz and " oz").
func Ounces(d decimal.Decimal) string { return Oz(d) + " oz" }

// WholeOunces is a vault quantity with its unit: "12,345,678 oz", "−3,500 oz".
func WholeOunces(d decimal.Decimal) string { return WholeOz(d) + " oz" }

// DateTimeIn is a moment in a member's time zone: "23 Nov 2026 09:05 EST".
func DateTimeIn(t time.Time, loc *time.Location) string {
	return t.In(loc).Format("2 Jan 2006 15:04 MST")
}

// SignedOz is a change in troy ounces with an explicit sign, Oz's precision: "+12.5", "−0.25", "0".
func SignedOz(d decimal.Decimal) string {
	if roundedZero(d, 4) {
		return "0"
	}
	return sign(d, Group(d.Round(4).Abs().String()), true)
}

// ISODateIn is the machine date style of t's day in a time zone: a form's "today" where the
// member is ("2026-11-27" in Sydney while UTC is still on the 26th).
func ISODateIn(t time.Time, loc *time.Location) string { return t.In(loc).Format("2006-01-02") }
