package receipts

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// Parser limits: a receipt is a page or two, so anything longer is cut rather than read whole.
const (
	// MaxTextBytes is the most text the parser reads (and the most a tool may hand it).
	MaxTextBytes = 1 << 20
	maxLines     = 4000
	maxLineRunes = 400
	// MaxItems is the most lines a receipt may propose.
	MaxItems = 200
	// MaxOrderNumber bounds a confirmed receipt's order number, in bytes.
	MaxOrderNumber = 60
)

var (
	// Money: "$1,234.56", "$ 34.10", "€ 34.10", "£0", "1,562.00", and OCR's "$1.234.56" for a
	// comma (a receipt with decimal commas has them rewritten with points first).
	moneyRe = regexp.MustCompile(`(?:[$€£¥₹₩₪₱฿₺]\s?)(\d{1,3}(?:[,.]\d{3})+|\d+)(?:\.(\d{2}))?\b|\b(\d{1,3}(?:,\d{3})+|\d+)\.(\d{2})\b`)
	// A quantity said in words: "Qty 3", "Qty: 20", "Quantity 2".
	qtyWordRe = regexp.MustCompile(`(?i)\b(?:qty|quantity)\.?\s*:?\s*(\d{1,7})\b`)
	// "20 x Eagle", "x 30", "20 @ $34.10".
	qtyTimesBeforeRe = regexp.MustCompile(`(?:^|\s)(\d{1,7})\s*[xX×]\s+\S`)
	qtyTimesAfterRe  = regexp.MustCompile(`(?:^|\s)[xX×]\s?(\d{1,7})(?:\s|$)`)
	qtyAtRe          = regexp.MustCompile(`(?:^|\s)(\d{1,7})\s*@`)
	standaloneIntRe  = regexp.MustCompile(`(?:^|\s)(\d{1,3}(?:,\d{3})+|\d{1,7})(?:\s|$)`)
	// Weights.
	junkRe   = regexp.MustCompile(`(?i)\$\s?(\d{1,5})(?:\.00)?\s*(?:face(?:\s*value)?|fv|f\.v\.)`)
	fracOzRe = regexp.MustCompile(`(?i)\b(\d{1,2})\s*/\s*(\d{1,3})(?:th)?\s*-?\s*(?:troy\s*)?(?:oz|0z|ozt|ounces?|unzen?)\b`)
	ozRe     = regexp.MustCompile(`(?i)\b(\d{1,4}(?:\.\d{1,4})?)\s*-?\s*(?:troy\s*)?(?:oz|0z|ozt|ounces?|unzen?)\b`)
	gramRe   = regexp.MustCompile(`(?i)\b(\d{1,5}(?:\.\d{1,3})?)\s*-?\s*(?:g|gr|gm|grams?)\b`)
	kiloRe   = regexp.MustCompile(`(?i)(?:\b(\d{1,3}(?:\.\d{1,3})?)\s*-?\s*)?\b(?:kilo(?:gram)?s?|kg)\b`)
	purityRe = regexp.MustCompile(`\b(90|40|35)\s?%`)
	// German writes the metal into compounds: "Goldbarren", "Silbermünze".
	metalRe   = regexp.MustCompile(`(?i)\b(gold|silver|silber|platinum|platin|palladium)(?:barren|m(?:ü|ue)nzen?)?\b`)
	skuRe     = regexp.MustCompile(`(?i)\b(?:sku|item\s*#|item\s*no\.?|part\s*#)\s*:?\s*[A-Z0-9][A-Z0-9-]*`)
	codeRe    = regexp.MustCompile(`\b[A-Z]{1,5}-[A-Z0-9]{1,10}\b`)
	orderNoRe = regexp.MustCompile(`(?i)\b(?:order|invoice|confirmation|receipt|rechnung|bestellung)\s*(?:number|num\.?|no\.?|nr\.?|id|#)?\s*[:#.+]{0,3}\s*#?\s*([A-Z0-9][A-Z0-9-]{3,29})(\s\d{1,3}-\d{2,10}\b)?`)
	dateAnyRe = regexp.MustCompile(`(?i)\b(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\.\d{1,2}\.\d{4}|\d{1,2}/\d{1,2}/\d{2,4}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+\d{4})\b`)
	dateLabel = regexp.MustCompile(`(?i)\b(?:order\s*date|date\s*placed|date\s*ordered|order\s*placed(?:\s*on)?|placed\s*on|invoice\s*date|purchase\s*date|date|rechnungsdatum|bestelldatum|datum)\b`)
	wordRe    = regexp.MustCompile(`[A-Za-z]{2,}`)
)

// summary kinds of the lines below the items.
const (
	sumNone = iota
	sumSubtotal
	sumShipping
	sumTax
	sumFees
	sumDiscount
	sumTotal
)

var (
	subtotalRe = regexp.MustCompile(`(?i)^(?:sub\s*-?\s*total|merchandise(?:\s+total)?|items?\s+(?:sub)?total|product\s+total|zwischensumme|warenwert)\b`)
	shippingRe = regexp.MustCompile(`(?i)\b(?:shipping|delivery|s\s*&\s*h|postage|handling|versand(?:kosten)?|porto)\b`)
	taxRe      = regexp.MustCompile(`(?i)\b(?:(?:sales\s+)?tax(?:es)?|vat|mwst|ust|mehrwertsteuer)\b`)
	feesRe     = regexp.MustCompile(`(?i)\b(?:fees?|surcharge|processing|convenience|geb(?:ü|ue)hren?)\b`)
	discountRe = regexp.MustCompile(`(?i)\b(?:discount|coupon|promo(?:tion)?|savings|credit\s+applied|rabatt)\b`)
	totalRe    = regexp.MustCompile(`(?i)^(?:order\s+|grand\s+|invoice\s+|total\s+)?total(?:\s+(?:due|paid|charged))?\b|^amount\s+(?:due|paid|charged)\b|^balance\s+due\b|^(?:gesamt(?:betrag|summe)?|summe|endbetrag|rechnungsbetrag|(?:zu\s+zahlender\s+)?betrag)\b`)
	freeRe     = regexp.MustCompile(`(?i)\bfree\b`)
)

// productWords are the words of bullion products; a line with one of them (or a weight or a
// metal) describes an item.
var productWords = regexp.MustCompile(`(?i)\b(eagle|maple|krugerrand|britannia|buffalo|philharmonic|philharmoniker|kangaroo|nugget|panda|round|rounds|bar|bars|coin|coins|bullion|lunar|libertad|sovereign|face|junk|halves|dimes|quarters|nickel|barren|m(?:ü|ue)nzen?)\b`)

// Parse reads receipt text — as pdftotext -layout or the OCR step lays it out, or as pasted from
// an e-mail — into a proposed receipt. It never fails: what it cannot read stays empty, and
// arithmetic that does not add up is reported in Warnings, never corrected.
func Parse(text string) Receipt {
	if len(text) > MaxTextBytes {
		text = text[:MaxTextBytes]
	}
	text = strings.ToValidUTF8(text, " ")
	var lines []string
	for i, l := range strings.Split(text, "\n") {
		if i >= maxLines {
			break
		}
		lines = append(lines, normLine(l))
	}
	// The currency printed, then the numbers in one notation: decimal commas ("1.234,56 €")
	// and Swiss apostrophes ("1'234.50") become points and commas.
	cur := findCurrency(lines)
	comma := decimalComma(lines)
	for i, l := range lines {
		if comma {
			l = toPointDecimals(l)
		}
		lines[i] = fromSwiss(l)
	}
	r := Receipt{Currency: cur.Code, CurrencyRead: cur.Code != "", dollarOnly: cur.DollarOnly}
	r.Dealer = findDealer(lines)
	r.OrderNumber = findOrderNumber(lines)
	r.OrderDate = findDate(lines, dayFirst(cur))

	var sums [sumTotal + 1]decimal.NullDecimal
	pending := "" // a description line waiting for its prices on the next line
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		amounts := moneyIn(l)
		if k := summaryKind(l, amounts); k != sumNone {
			pending = ""
			if !sums[k].Valid || k == sumTotal {
				// A later "Total" wins (an "Order Total" after a "Total" column header line), the
				// first of each of the others.
				v := decimal.Zero
				if len(amounts) > 0 {
					v = amounts[len(amounts)-1].v
				}
				if k == sumFees && sums[k].Valid {
					v = v.Add(sums[k].Decimal)
				}
				sums[k] = decimal.NullDecimal{Decimal: v, Valid: true}
			} else if k == sumFees || k == sumShipping || k == sumTax {
				if len(amounts) > 0 {
					sums[k].Decimal = sums[k].Decimal.Add(amounts[len(amounts)-1].v)
				}
			}
			continue
		}
		described := productLine(l)
		if len(amounts) == 0 {
			if described {
				pending = l
			} else if !isNoise(l) {
				pending = ""
			}
			continue
		}
		if len(r.Items) >= MaxItems {
			continue
		}
		if !described && pending == "" {
			continue
		}
		it, ok := parseItem(pending, l, amounts, described)
		pending = ""
		if ok {
			r.Items = append(r.Items, it)
		}
	}
	r.Subtotal, r.Shipping, r.Tax, r.Fees, r.Total = sums[sumSubtotal], sums[sumShipping], sums[sumTax], sums[sumFees], sums[sumTotal]
	r.discount = sums[sumDiscount]
	r.Warnings = append(r.Warnings, check(r)...)
	return r
}

// normLine folds the characters OCR and PDFs use for the same thing and bounds the length.
func normLine(l string) string {
	if utf8.RuneCountInString(l) > maxLineRunes {
		l = string([]rune(l)[:maxLineRunes])
	}
	var b strings.Builder
	for _, c := range l {
		switch {
		case c == '\t':
			b.WriteString("    ")
		case c == '×':
			b.WriteByte('x')
		case c == '–' || c == '—' || c == '‐':
			b.WriteByte('-')
		case c == '‘' || c == '’' || c == '´' || c == '`':
			b.WriteByte('\'')
		case c == '“' || c == '”':
			b.WriteByte('"')
		case c == 0xA0 || c == '\r' || c == '\f' || unicode.IsControl(c):
			b.WriteByte(' ')
		case c == '＄':
			b.WriteByte('$')
		default:
			b.WriteRune(c)
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// isNoise is a line that neither ends a pending description nor belongs to it (a rule, a
// lone mark OCR saw in the margin).
func isNoise(l string) bool { return len(wordRe.FindAllString(l, -1)) == 0 }

type amount struct {
	v          decimal.Decimal
	start, end int
	dollar     bool
}

// moneyIn finds the amounts of a line, left to right.
func moneyIn(l string) []amount {
	var out []amount
	for _, m := range moneyRe.FindAllStringSubmatchIndex(l, 8) {
		var whole, cents string
		dollar := m[2] >= 0
		if dollar {
			whole = l[m[2]:m[3]]
			if m[4] >= 0 {
				cents = l[m[4]:m[5]]
			}
		} else {
			whole, cents = l[m[6]:m[7]], l[m[8]:m[9]]
		}
		// "1.234.56" is OCR's "1,234.56": separators between thousands groups are commas.
		whole = strings.NewReplacer(",", "", ".", "").Replace(whole)
		if len(whole) > 10 {
			continue
		}
		// "$10 Face Value" is a junk-silver weight, not a price.
		if dollar && junkRe.MatchString(l[m[0]:min(len(l), m[1]+16)]) {
			continue
		}
		// OCR drops a price's decimal point ("$645420" for "$6,454.20"); receipts print cents,
		// so a dollar amount of three or more bare digits without them lost its point.
		if dollar && l[m[0]] == '$' && cents == "" && m[4] < 0 && len(whole) >= 3 && !strings.ContainsAny(l[m[2]:m[3]], ",.") {
			whole, cents = whole[:len(whole)-2], whole[len(whole)-2:]
		}
		if cents == "" {
			cents = "00"
		}
		if whole == "" {
			whole = "0"
		}
		v, err := decimal.NewFromString(whole + "." + cents)
		if err != nil {
			continue
		}
		// A bare number with cents right after a weight or a percent sign is not money.
		if !dollar && m[1] < len(l) && (l[m[1]] == '%' || strings.HasPrefix(strings.ToLower(strings.TrimLeft(l[m[1]:], " ")), "oz")) {
			continue
		}
		out = append(out, amount{v: v, start: m[0], end: m[1], dollar: dollar})
	}
	return out
}

// summaryKind says whether a line is one of the order's totals (and which), by its label.
func summaryKind(l string, amounts []amount) int {
	label := strings.TrimSpace(l)
	if len(amounts) > 0 {
		label = strings.TrimSpace(l[:amounts[0].start])
	}
	label = strings.TrimLeft(label, "-*•|: ")
	if label == "" || (len(amounts) == 0 && !freeRe.MatchString(l)) {
		return sumNone
	}
	if productLine(label) && !shippingRe.MatchString(label) && !feesRe.MatchString(label) {
		return sumNone
	}
	switch {
	case subtotalRe.MatchString(label):
		return sumSubtotal
	case totalRe.MatchString(label):
		return sumTotal
	case shippingRe.MatchString(label):
		return sumShipping
	case discountRe.MatchString(label):
		return sumDiscount
	case taxRe.MatchString(label):
		return sumTax
	case feesRe.MatchString(label) || strings.Contains(strings.ToLower(label), "insurance"):
		return sumFees
	}
	return sumNone
}

// productLine reports whether text names a bullion product: a weight, a metal or a product word.
func productLine(l string) bool {
	return metalRe.MatchString(l) || productWords.MatchString(l) || ozRe.MatchString(l) || fracOzRe.MatchString(l) ||
		kiloRe.MatchString(l) || junkRe.MatchString(l)
}

// parseItem reads one item from its line (and the description line above it, when the prices
// sit on a line of their own).
func parseItem(pending, l string, amounts []amount, described bool) (Item, bool) {
	// The text without its amounts: quantities and the description come from it.
	var rest strings.Builder
	prev := 0
	for _, a := range amounts {
		rest.WriteString(l[prev:a.start])
		rest.WriteString("   ")
		prev = a.end
	}
	rest.WriteString(l[prev:])
	body := rest.String()

	desc := body
	if !described && pending != "" {
		desc = pending
	} else if described && pending != "" && !hasWeight(body) && hasWeight(pending) {
		desc = pending + "  " + body
	}
	it := Item{}
	// Quantity candidates, best first.
	cands := qtyCandidates(body, desc != body)
	q, unit, total, warn := assignMoney(cands, amounts, body)
	it.ProductName = cleanName(desc, q)
	if it.ProductName == "" {
		return it, false
	}
	it.Quantity = q
	it.UnitPrice, it.LineTotal = unit, total
	if warn != "" {
		it.notes = append(it.notes, warn)
	}
	it.WeightOz, it.face, it.purity = weightOf(desc)
	it.Metal = metalOf(desc)
	if it.Metal == "" && it.WeightOz.IsPositive() && it.UnitPrice.Valid {
		// No metal word: the price per ounce tells silver from gold well enough to propose,
		// and the member is told to check.
		perOz := it.UnitPrice.Decimal.Div(it.WeightOz)
		if perOz.LessThan(decimal.NewFromInt(150)) {
			it.Metal = metals.Silver
		} else {
			it.Metal = metals.Gold
		}
		it.notes = append(it.notes, "metal|metal guessed from the price per ounce; check it")
	}
	if p, ok := matchProduct(desc, it); ok {
		it.ProductID = p.ID
		if it.Metal == "" {
			it.Metal = p.Metal
		}
		if p.PerFace {
			it.WeightOz = p.FaceOz(it.face)
		} else {
			it.WeightOz = p.FineOz
		}
	}
	return it, true
}

func hasWeight(s string) bool {
	return ozRe.MatchString(s) || fracOzRe.MatchString(s) || gramRe.MatchString(s) || kiloRe.MatchString(s) || junkRe.MatchString(s)
}

// qtyCand is a quantity the line may state; explicit ones ("Qty 3", "x 30") beat bare numbers.
type qtyCand struct {
	n        int64
	explicit bool
}

func qtyCandidates(body string, separateDesc bool) []qtyCand {
	var out []qtyCand
	add := func(s string, explicit bool) {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil || n < 1 || n > 1_000_000 {
			return
		}
		for _, c := range out {
			if c.n == n {
				return
			}
		}
		out = append(out, qtyCand{n, explicit})
	}
	for _, re := range []*regexp.Regexp{qtyWordRe, qtyTimesAfterRe, qtyTimesBeforeRe, qtyAtRe} {
		for _, m := range re.FindAllStringSubmatch(body, 4) {
			add(m[1], true)
		}
	}
	// Bare integers standing alone (a quantity column), but not a weight's number, a fraction,
	// a year in a product name, or part of a code.
	masked := maskWeights(body)
	if !separateDesc {
		masked = skuRe.ReplaceAllString(masked, " ")
		masked = codeRe.ReplaceAllString(masked, " ")
	}
	// Doubled spaces let neighbouring numbers each find the space they stand by.
	masked = strings.ReplaceAll(masked, " ", "  ")
	var years []string
	for _, m := range standaloneIntRe.FindAllStringSubmatchIndex(masked, 12) {
		s := masked[m[2]:m[3]]
		n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
		if n >= 1900 && n <= 2100 {
			// A year ("2026 1 oz Eagle") is a quantity only when nothing else can be.
			years = append(years, s)
			continue
		}
		add(s, false)
	}
	for _, y := range years {
		add(y, false)
	}
	return out
}

// maskWeights blanks weights, percentages and junk face values so their numbers are not read
// as quantities.
func maskWeights(s string) string {
	blank := func(m string) string { return strings.Repeat(" ", len(m)) }
	for _, re := range []*regexp.Regexp{junkRe, fracOzRe, ozRe, gramRe, kiloRe, purityRe, decimalsRe} {
		s = re.ReplaceAllStringFunc(s, blank)
	}
	return s
}

// assignMoney decides which amounts are the unit price and the line total, and the quantity,
// preferring the reading in which quantity × unit price = line total.
func assignMoney(cands []qtyCand, amounts []amount, body string) (int64, decimal.NullDecimal, decimal.NullDecimal, string) {
	some := func(d decimal.Decimal) decimal.NullDecimal { return decimal.NullDecimal{Decimal: d, Valid: true} }
	best := int64(0)
	for _, c := range cands {
		if c.explicit {
			best = c.n
			break
		}
	}
	if best == 0 && len(cands) > 0 {
		best = cands[0].n
	}
	if len(amounts) >= 2 {
		// Latest pair first: unit price and total are the last two columns on most receipts.
		for j := len(amounts) - 1; j >= 1; j-- {
			for i := j - 1; i >= 0; i-- {
				u, t := amounts[i].v, amounts[j].v
				for _, c := range cands {
					if u.Mul(decimal.NewFromInt(c.n)).Equal(t) {
						return c.n, some(u), some(t), ""
					}
				}
			}
		}
		u, t := amounts[len(amounts)-2].v, amounts[len(amounts)-1].v
		if best == 0 && u.IsPositive() {
			if n := t.Div(u); n.IsInteger() && n.IsPositive() && n.LessThanOrEqual(decimal.NewFromInt(1_000_000)) {
				return n.IntPart(), some(u), some(t), "quantity|quantity read from line total ÷ unit price; check it"
			}
		}
		if best == 0 {
			best = 1
		}
		return best, some(u), some(t), ""
	}
	a := amounts[0]
	if best == 0 {
		best = 1
	}
	after := strings.ToLower(body[min(a.end, len(body)):])
	before := strings.TrimRight(body[:min(a.start, len(body))], " ")
	unitSaid := strings.HasSuffix(before, "@") || strings.HasPrefix(strings.TrimSpace(after), "each") ||
		strings.HasPrefix(strings.TrimSpace(after), "ea") || strings.HasPrefix(strings.TrimSpace(after), "/ea")
	if best == 1 {
		return 1, some(a.v), some(a.v), ""
	}
	if unitSaid {
		return best, some(a.v), decimal.NullDecimal{}, ""
	}
	return best, decimal.NullDecimal{}, some(a.v), ""
}

// weightOf reads the fine weight per unit a description states, in troy ounces, and for junk
// silver its face value per unit and purity.
func weightOf(desc string) (w, face decimal.Decimal, purity int) {
	if m := junkRe.FindStringSubmatch(desc); m != nil {
		face, _ = decimal.NewFromString(m[1])
		purity = 90
		if p := purityRe.FindStringSubmatch(desc); p != nil {
			purity, _ = strconv.Atoi(p[1])
		}
		return decimal.Zero, face, purity
	}
	if m := fracOzRe.FindStringSubmatch(desc); m != nil {
		a, _ := decimal.NewFromString(m[1])
		b, _ := decimal.NewFromString(m[2])
		if b.IsPositive() {
			return a.DivRound(b, 5), decimal.Zero, 0
		}
	}
	if m := ozRe.FindStringSubmatch(desc); m != nil {
		v, _ := decimal.NewFromString(m[1])
		return v, decimal.Zero, 0
	}
	if m := kiloRe.FindStringSubmatch(desc); m != nil {
		v := decimal.NewFromInt(1)
		if m[1] != "" {
			v, _ = decimal.NewFromString(m[1])
		}
		return v.Mul(decimal.NewFromInt(1000)).Div(metals.GramsPerTroyOz).Round(5), decimal.Zero, 0
	}
	if m := gramRe.FindStringSubmatch(desc); m != nil {
		v, _ := decimal.NewFromString(m[1])
		return v.Div(metals.GramsPerTroyOz).Round(5), decimal.Zero, 0
	}
	return decimal.Zero, decimal.Zero, 0
}

// metalOf is the metal a description names; product words that imply one metal count too.
func metalOf(desc string) metals.Metal {
	if m := metalRe.FindStringSubmatch(desc); m != nil {
		switch w := strings.ToLower(m[1]); w {
		case "silber":
			return metals.Silver
		case "platin":
			return metals.Platinum
		default:
			return metals.Metal(w)
		}
	}
	l := strings.ToLower(desc)
	switch {
	case junkRe.MatchString(desc), strings.Contains(l, "junk"), strings.Contains(l, "war nickel"):
		return metals.Silver
	case strings.Contains(l, "krugerrand"), strings.Contains(l, "sovereign"):
		return metals.Gold
	}
	return ""
}

var (
	decimalsRe    = regexp.MustCompile(`\.\d+|\(\S*\)|#\s?\S+`)
	cellSplitRe   = regexp.MustCompile(`\s{2,}|\s\|\s`)
	leadingQtyRe  = regexp.MustCompile(`^(\d{1,7})\s+(\d|[$]|kilo|[A-Za-z])`)
	qtyBeforeName = regexp.MustCompile(`(?:^|\s)\d{1,7}\s*[xX×]\s+`)
	trailingWords = regexp.MustCompile(`(?i)\s(?:each|ea\.?|/ea|per\s+unit)(?:\s|$)|\s=(?:\s|$)`)
)

// cleanName is the product as a person would write it: the description without quantities,
// codes, prices and table leftovers.
func cleanName(desc string, qty int64) string {
	s := skuRe.ReplaceAllString(desc, " ")
	s = codeRe.ReplaceAllString(s, " ")
	s = qtyWordRe.ReplaceAllString(s, " ")
	s = qtyBeforeName.ReplaceAllString(s, " ")
	s = qtyTimesAfterRe.ReplaceAllString(s, " ")
	s = trailingWords.ReplaceAllString(s, " ")
	s = strings.ReplaceAll(s, "@", " ")
	// Cells that are only numbers (a quantity column) go; numbers inside the name stay.
	cells := cellSplitRe.Split(strings.TrimSpace(s), -1)
	var keep []string
	for _, c := range cells {
		c = strings.Trim(c, " |:-")
		if c == "" || !wordRe.MatchString(c) && !strings.ContainsAny(c, "/") {
			continue
		}
		keep = append(keep, c)
	}
	if len(keep) == 0 {
		return ""
	}
	name := strings.Join(keep, " ")
	// A leading quantity column ("25 1 oz Silver Round") is not part of the name; a year
	// ("2026 1 oz Silver Eagle") is.
	if m := leadingQtyRe.FindStringSubmatch(name); m != nil && !hasWeightAtStart(name) && m[1] == strconv.FormatInt(qty, 10) {
		name = strings.TrimSpace(name[len(m[1]):])
	}
	name = strings.Join(strings.Fields(name), " ")
	if utf8.RuneCountInString(name) > 200 {
		name = string([]rune(name)[:200])
	}
	return name
}

// hasWeightAtStart: "1 oz …", "10 oz …", "100 gram …", "1/10 oz …" begin with their weight,
// not a quantity.
func hasWeightAtStart(s string) bool {
	for _, re := range []*regexp.Regexp{fracOzRe, ozRe, gramRe, kiloRe} {
		if loc := re.FindStringIndex(s); loc != nil && loc[0] == 0 {
			return true
		}
	}
	return false
}

// findOrderNumber is the first labelled order, invoice or confirmation number with a digit in it.
func findOrderNumber(lines []string) string {
	for _, l := range lines {
		for _, m := range orderNoRe.FindAllStringSubmatch(l, 3) {
			// OCR splits a long number at a digit ("SD-202601 19-3382"): a short group and a
			// dash right after it continue the number.
			tok := strings.Trim(m[1]+strings.TrimSpace(m[2]), "-")
			if strings.ContainsAny(tok, "0123456789") && !dateAnyRe.MatchString(tok) && len(tok) >= 4 {
				return tok
			}
		}
	}
	return ""
}

// dayFirst is whether the receipt writes slashed dates day first (14/03/2026): receipts in a
// currency other than a dollar do.
func dayFirst(c currencyRead) bool {
	return c.Code != "" && !slices.Contains(dollarCurrencies, c.Code)
}

// findDate is the labelled order date, else the first date on the receipt.
func findDate(lines []string, dayFirst bool) db.Date {
	var first db.Date
	for _, l := range lines {
		for _, loc := range dateAnyRe.FindAllStringIndex(l, 3) {
			d, ok := parseDate(l[loc[0]:loc[1]], dayFirst)
			if !ok {
				continue
			}
			if lab := dateLabel.FindStringIndex(l); lab != nil && lab[1] <= loc[0] && loc[0]-lab[1] <= 6 {
				return d
			}
			if first.IsZero() {
				first = d
			}
		}
	}
	return first
}

var dottedDateRe = regexp.MustCompile(`^\d{1,2}\.\d{1,2}\.\d{4}$`)

var monthNames = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// parseDate reads the date forms dealers print: slashes are month first (day first when
// dayFirst: the receipt is not in a dollar), dots day first (14.03.2026).
func parseDate(s string, dayFirst bool) (db.Date, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	var y, m, d int
	switch {
	case dottedDateRe.MatchString(s):
		if _, err := fmt.Sscanf(s, "%d.%d.%d", &d, &m, &y); err != nil {
			return db.Date{}, false
		}
	case strings.Count(s, "-") == 2 && len(s) >= 8 && s[4] == '-':
		if _, err := fmt.Sscanf(s, "%d-%d-%d", &y, &m, &d); err != nil {
			return db.Date{}, false
		}
	case strings.Contains(s, "/"):
		if _, err := fmt.Sscanf(s, "%d/%d/%d", &m, &d, &y); err != nil {
			return db.Date{}, false
		}
		if dayFirst {
			m, d = d, m
		}
		if y < 100 {
			y += 2000
		}
	default:
		f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '.' })
		if len(f) != 3 {
			return db.Date{}, false
		}
		mon, day := f[0], f[1]
		if f[0][0] >= '0' && f[0][0] <= '9' {
			mon, day = f[1], f[0]
		}
		if len(mon) < 3 {
			return db.Date{}, false
		}
		mm, ok := monthNames[mon[:3]]
		if !ok {
			return db.Date{}, false
		}
		m = int(mm)
		d, _ = strconv.Atoi(strings.TrimRight(day, "stndrh"))
		y, _ = strconv.Atoi(f[2])
	}
	if y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31 {
		return db.Date{}, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return db.Date{}, false
	}
	return db.Date{Time: t}, true
}
