package portfolio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// Holding and sale input limits. The validators below check them and the OpenAPI document
// states them (the handlers' wire structs name them in their schema tags), so the two agree.
const (
	// MaxQuantity bounds the units of a holding and of a sale.
	MaxQuantity = 1_000_000
	// MaxProductName, MaxDealer and MaxNotes bound those text fields, in characters.
	MaxProductName = 200
	MaxDealer      = 120
	MaxNotes       = 2000
	// MaxWeightOz bounds the fine troy ounces of one unit.
	MaxWeightOz = 100_000
	// MaxPrice bounds a price per unit and fees, USD.
	MaxPrice = 100_000_000
	// MaxHoldingBody bounds a JSON holding or sale body.
	MaxHoldingBody = 64 << 10
	// MaxWeightDecimals is the precision a fine weight per unit may carry.
	MaxWeightDecimals = 8
	maxMoneyDecimals  = 2
)

var (
	maxWeight = decimal.NewFromInt(MaxWeightOz)
	maxPrice  = decimal.NewFromInt(MaxPrice)
)

// HoldingFields are the names a holding body, form or CSV may carry, in form order.
var HoldingFields = []string{"metal", "product_name", "quantity", "weight_oz", "purchase_price", "fees", "dealer", "purchase_date", "notes",
	"purchase_currency", "weight", "weight_unit"}

// rawFields is the raw text of each field a request carried, as a holding's and a sale's input
// hold it. Numbers stay text until validation so a float never touches money.
type rawFields struct {
	fields map[string]string
	// numeric marks JSON fields that arrived as numbers (forms send everything as text).
	numeric map[string]bool
	json    bool
}

// jsonFields reads a JSON body strictly (strictJSONFields) with names allowed.
func jsonFields(body []byte, allowed []string) (rawFields, error) {
	fields, numeric, err := strictJSONFields(body, allowed)
	return rawFields{fields: fields, numeric: numeric, json: true}, err
}

// formFields takes the text of each of names from a browser form (or a CSV row).
func formFields(names []string, get func(string) string) rawFields {
	in := rawFields{fields: map[string]string{}, numeric: map[string]bool{}}
	for _, k := range names {
		in.fields[k] = get(k)
	}
	return in
}

// Value returns the raw text of a field, for re-filling a form.
func (in rawFields) Value(field string) string { return in.fields[field] }

// HoldingInput is a parsed create or update request: the raw text of each field present.
type HoldingInput struct {
	rawFields
	// Custody is the location_id and tags the input carries (custody.go).
	Custody CustodyInput
}

// ParseHoldingJSON reads a JSON object strictly: unknown fields, wrong JSON types and
// trailing data are field errors (apperr Invalid), an oversized body is TooLarge.
func ParseHoldingJSON(body []byte) (HoldingInput, error) {
	body, custody, err := splitCustodyJSON(body)
	if err != nil {
		return HoldingInput{}, err
	}
	raw, err := jsonFields(body, HoldingFields)
	return HoldingInput{rawFields: raw, Custody: custody}, err
}

// HoldingInputFromForm takes the text fields of a browser form (or a CSV row); blank
// optional fields count as cleared.
func HoldingInputFromForm(get func(string) string) HoldingInput {
	return HoldingInput{rawFields: formFields(HoldingFields, get)}
}

// strictJSONFields reads a body that must be one JSON object whose members are all among
// allowed, keeping each value's raw text (numbers stay text until validation) and whether it
// was a JSON number. Null reads as "".
func strictJSONFields(body []byte, allowed []string) (map[string]string, map[string]bool, error) {
	fields, numeric := map[string]string{}, map[string]bool{}
	if len(body) > MaxHoldingBody {
		return fields, numeric, apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxHoldingBody)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return fields, numeric, apperr.InvalidField("body", "must be a JSON object")
	}
	if dec.More() {
		return fields, numeric, apperr.InvalidField("body", "must hold exactly one JSON object")
	}
	var errs []apperr.FieldError
	for k, v := range raw {
		if !slices.Contains(allowed, k) {
			errs = append(errs, apperr.FieldError{Field: k, Message: "unknown field"})
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.Equal(v, []byte("null")):
			fields[k] = ""
		case len(v) > 0 && v[0] == '"':
			var str string
			if err := json.Unmarshal(v, &str); err != nil {
				errs = append(errs, apperr.FieldError{Field: k, Message: "is not a valid string"})
				continue
			}
			fields[k] = str
		case len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')):
			fields[k] = string(v)
			numeric[k] = true
		default:
			errs = append(errs, apperr.FieldError{Field: k, Message: "has the wrong type"})
		}
	}
	sortByFieldOrder(errs, allowed)
	return fields, numeric, apperr.InvalidFields(errs)
}

// apply validates the input and writes it onto h. With create, required fields must be
// present; otherwise absent fields keep h's values (PATCH). It returns every problem found.
func (in HoldingInput) apply(h *Holding, create bool, now time.Time) []apperr.FieldError {
	a := &applier{in: in, h: h, create: create}
	a.metal()
	a.quantity()
	a.weight()
	a.money()
	a.texts()
	a.purchaseDate(now)
	a.currency()
	sortByFieldOrder(a.errs, HoldingFields)
	return a.errs
}

// applier is one run of apply: the input, the holding it writes onto and the problems found.
type applier struct {
	in     HoldingInput
	h      *Holding
	create bool
	errs   []apperr.FieldError
}

func (a *applier) bad(f, m string) { a.errs = append(a.errs, apperr.FieldError{Field: f, Message: m}) }

func (a *applier) get(f string) (string, bool) { v, ok := a.in.fields[f]; return v, ok }

func (a *applier) isNum(f string) bool { return !a.in.json || a.in.numeric[f] }

func (a *applier) isStr(f string) bool { return !a.in.json || !a.in.numeric[f] }

func (a *applier) metal() {
	v, ok := a.get("metal")
	if !ok && !a.create {
		return
	}
	// Exactly the documented identifiers: the API promises an enum, so it takes nothing looser.
	m := metals.Metal(v)
	if !a.in.json {
		// Forms and CSV files are typed by people: "Silver" is silver.
		m = metals.Metal(strings.ToLower(strings.TrimSpace(v)))
	}
	switch {
	case !a.isStr("metal"):
		a.bad("metal", "must be a string")
	case strings.TrimSpace(v) == "":
		a.bad("metal", "is required: one of gold, silver, platinum, palladium")
	case !m.Valid():
		a.bad("metal", "must be one of gold, silver, platinum, palladium (lowercase)")
	default:
		a.h.Metal = m
	}
}

func (a *applier) quantity() {
	v, ok := a.get("quantity")
	if !ok && !a.create {
		return
	}
	if q, msg := parseQuantity(v, a.isNum("quantity")); msg != "" {
		a.bad("quantity", msg)
	} else {
		a.h.Quantity = q
	}
}

// weight reads weight and weight_unit (as entered) or else weight_oz.
func (a *applier) weight() {
	h := a.h
	enteredWeight := strings.TrimSpace(a.in.fields["weight"]) != ""
	if enteredWeight {
		a.in.applyWeight(h, a.isNum, a.bad)
	} else if v, ok := a.get("weight_unit"); ok && strings.TrimSpace(v) != "" && a.in.json {
		a.bad("weight", "is required with weight_unit")
	}
	if v, ok := a.get("weight_oz"); !enteredWeight && (ok || a.create) {
		// The same fine weight sent back (an edit form) keeps the weight as it was entered.
		if d, err := parseBoundedDecimal(strings.TrimSpace(v)); a.create || err != nil || !d.Equal(h.WeightOz) {
			h.WeightAmount, h.WeightUnit = decimal.NullDecimal{}, ""
		}
		if d, msg := parseAmount(v, a.isNum("weight_oz"), true, false, maxWeight, MaxWeightDecimals); msg != "" {
			a.bad("weight_oz", msg)
		} else {
			h.WeightOz = d
		}
	}
}

// money reads purchase_price and fees.
func (a *applier) money() {
	h := a.h
	if v, ok := a.get("purchase_price"); ok || a.create {
		if d, msg := parseAmount(a.in.money(v), a.isNum("purchase_price"), true, true, maxPrice, maxMoneyDecimals); msg != "" {
			a.bad("purchase_price", msg)
		} else {
			h.PurchasePrice = d
		}
	}
	if a.create {
		h.Fees = decimal.Zero
	}
	if v, ok := a.get("fees"); ok {
		if strings.TrimSpace(v) == "" {
			h.Fees = decimal.Zero
		} else if d, msg := parseAmount(a.in.money(v), a.isNum("fees"), true, true, maxPrice, maxMoneyDecimals); msg != "" {
			a.bad("fees", msg)
		} else {
			h.Fees = d
		}
	}
}

// texts reads the free-text fields.
func (a *applier) texts() {
	for _, f := range []struct {
		name string
		max  int
		dst  *string
	}{{"product_name", MaxProductName, &a.h.ProductName}, {"dealer", MaxDealer, &a.h.Dealer}, {"notes", MaxNotes, &a.h.Notes}} {
		v, ok := a.get(f.name)
		if !ok {
			continue
		}
		s, msg := CleanText(v, f.max, f.name == "notes")
		if !a.isStr(f.name) {
			msg = "must be a string"
		}
		if msg != "" {
			a.bad(f.name, msg)
			continue
		}
		*f.dst = s
	}
}

func (a *applier) purchaseDate(now time.Time) {
	v, ok := a.get("purchase_date")
	if !ok {
		return
	}
	v = strings.TrimSpace(v)
	switch {
	case !a.isStr("purchase_date"):
		a.bad("purchase_date", "must be a string in YYYY-MM-DD form")
	case v == "":
		a.h.PurchaseDate = db.Date{}
	default:
		if d, msg := parseDay(v, now); msg != "" {
			a.bad("purchase_date", msg)
		} else {
			a.h.PurchaseDate = d
		}
	}
}

func (a *applier) currency() {
	if v, ok := a.get("purchase_currency"); ok && strings.TrimSpace(v) != "" {
		if code, msg := parseCurrency(v, a.isStr("purchase_currency")); msg != "" {
			a.bad("purchase_currency", msg)
		} else {
			a.h.PurchaseCurrency = code
		}
	}
}

// applyWeight reads weight and weight_unit (the weight per unit as entered, oz when no unit is
// given): the lot keeps them exactly and its fine ounces are their equivalent to
// MaxWeightDecimals places. A weight_oz sent beside them must agree with that equivalent.
func (in HoldingInput) applyWeight(h *Holding, isNum func(string) bool, bad func(f, m string)) {
	unit := metals.Ounce
	if v := strings.TrimSpace(in.fields["weight_unit"]); v != "" {
		u, err := metals.ParseUnit(v)
		if err != nil {
			bad("weight_unit", "must be one of "+strings.Join(metals.UnitNames(), ", "))
			return
		}
		unit = u
	}
	amount, msg := parseAmount(in.fields["weight"], isNum("weight"), true, false, maxWeight.Mul(decimal.NewFromInt(1000)), MaxWeightDecimals)
	if msg != "" {
		bad("weight", msg)
		return
	}
	oz := WeightOz(amount, unit)
	switch {
	case !oz.IsPositive():
		bad("weight", fmt.Sprintf("is less than 1e-%d troy oz", MaxWeightDecimals))
		return
	case oz.GreaterThan(maxWeight):
		bad("weight", fmt.Sprintf("must be at most %d troy oz", MaxWeightOz))
		return
	}
	if v := strings.TrimSpace(in.fields["weight_oz"]); v != "" {
		if d, err := parseBoundedDecimal(v); err != nil || !d.Equal(oz) {
			bad("weight_oz", fmt.Sprintf("disagrees with weight %s %s (%s troy oz); send one of them", amount, unit, oz))
			return
		}
	}
	h.WeightOz = oz
	if unit == metals.Ounce {
		h.WeightAmount, h.WeightUnit = decimal.NullDecimal{}, ""
		return
	}
	h.WeightAmount, h.WeightUnit = decimal.NewNullDecimal(amount), unit
}

// WeightOz is amount of unit in fine troy ounces, to MaxWeightDecimals places: what a lot
// entered in grams, kilograms or tolas counts as.
func WeightOz(amount decimal.Decimal, unit metals.Unit) decimal.Decimal {
	oz, err := metals.Convert(amount, unit, metals.Ounce)
	if err != nil {
		return decimal.Zero
	}
	return oz.Round(MaxWeightDecimals)
}

// parseCurrency reads an ISO 4217 code among the supported display currencies.
func parseCurrency(v string, isStr bool) (string, string) {
	code := strings.ToUpper(strings.TrimSpace(v))
	supported := fx.DisplayCurrencies()
	switch {
	case !isStr:
		return "", "must be a string (an ISO 4217 code)"
	case !slices.Contains(supported, code):
		return "", fmt.Sprintf("unknown currency %q; supported: %s", strings.TrimSpace(v), strings.Join(supported, ", "))
	}
	return code, ""
}

// parseQuantity reads a whole number of units in [1, MaxQuantity].
func parseQuantity(v string, numeric bool) (int64, string) {
	v = strings.TrimSpace(v)
	d, err := parseBoundedDecimal(v)
	switch {
	case v == "":
		return 0, "is required"
	case !numeric:
		return 0, "must be a number"
	case err != nil || !d.IsInteger():
		return 0, "must be a whole number"
	case d.LessThan(decimal.NewFromInt(1)) || d.GreaterThan(decimal.NewFromInt(MaxQuantity)):
		return 0, fmt.Sprintf("must be between 1 and %d", MaxQuantity)
	}
	return d.IntPart(), ""
}

// parseDay reads a YYYY-MM-DD date that is not in the future and not before 1900.
func parseDay(v string, now time.Time) (db.Date, string) {
	d, err := db.ParseDate(v)
	// The latest calendar day anywhere on Earth (UTC+14), so no one's today is refused.
	latest := db.NewDate(now.UTC().Add(14 * time.Hour))
	switch {
	case err != nil:
		return db.Date{}, "must be a date in YYYY-MM-DD form"
	case d.After(latest.Time):
		return db.Date{}, "cannot be in the future"
	case d.Year() < 1900:
		return db.Date{}, "must be 1900 or later"
	}
	return d, ""
}

// parseAmount validates a positive (or, with allowZero, non-negative) decimal with at most
// places decimals and at most max.
func parseAmount(v string, numeric, required, allowZero bool, max decimal.Decimal, places int32) (decimal.Decimal, string) {
	v = strings.TrimSpace(v)
	if v == "" {
		if required {
			return decimal.Zero, "is required"
		}
		return decimal.Zero, ""
	}
	if !numeric {
		return decimal.Zero, "must be a number"
	}
	d, err := parseBoundedDecimal(v)
	if err != nil {
		return decimal.Zero, "must be a number"
	}
	if d.IsNegative() || (!allowZero && d.IsZero()) {
		if allowZero {
			return decimal.Zero, "cannot be negative"
		}
		return decimal.Zero, "must be greater than 0"
	}
	if d.GreaterThan(max) {
		return decimal.Zero, "must be at most " + max.String()
	}
	if -d.Exponent() > places && !d.Equal(d.Round(places)) {
		return decimal.Zero, fmt.Sprintf("has more than %d decimal places", places)
	}
	return d, ""
}

// CleanText trims, checks UTF-8 and control characters (newlines and tabs allowed when
// multiline), and enforces a length in characters. It returns the clean text, or a message
// saying what is wrong.
func CleanText(v string, max int, multiline bool) (string, string) {
	if !utf8.ValidString(v) {
		return "", "must be valid UTF-8 text"
	}
	v = strings.TrimSpace(v)
	for _, r := range v {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\r' || r == '\t')) {
			return "", "must not contain control characters"
		}
	}
	if n := utf8.RuneCountInString(v); n > max {
		return "", fmt.Sprintf("must be at most %d characters (got %d)", max, n)
	}
	return v, ""
}

// sortByFieldOrder orders errors by their field's place in order (unknown fields last, by
// name), so messages come out stable.
func sortByFieldOrder(errs []apperr.FieldError, order []string) {
	idx := func(f string) int {
		if i := slices.Index(order, f); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := idx(errs[i].Field), idx(errs[j].Field)
		if a != b {
			return a < b
		}
		return errs[i].Field < errs[j].Field
	})
}

// parseBoundedDecimal parses a decimal (exponent form allowed, as JSON allows it) but refuses
// absurd lengths and exponents, which would otherwise cost unbounded memory to round.
func parseBoundedDecimal(v string) (decimal.Decimal, error) {
	if len(v) > 40 {
		return decimal.Zero, fmt.Errorf("too long")
	}
	d, err := decimal.NewFromString(v)
	if err != nil {
		return decimal.Zero, err
	}
	if e := d.Exponent(); e > 12 || e < -30 {
		return decimal.Zero, fmt.Errorf("exponent out of range")
	}
	return d, nil
}

// groupedMoney is an amount written with thousands separators and an optional dollar sign.
var groupedMoney = regexp.MustCompile(`^\$?\s*\d{1,3}(,\d{3})+(\.\d+)?$`)

// money reads an amount the way people type it in a form or spreadsheet ("$1,234.50",
// "$ 1234.5") as plain digits; JSON numbers are taken as they are.
func (in HoldingInput) money(v string) string { return moneyText(v, in.json) }

func moneyText(v string, json bool) string {
	if json {
		return v
	}
	v = strings.TrimSpace(v)
	if groupedMoney.MatchString(v) {
		v = strings.ReplaceAll(v, ",", "")
	}
	v = strings.TrimSpace(strings.TrimPrefix(v, "$"))
	return v
}
