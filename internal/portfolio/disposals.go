package portfolio

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// Lot methods: how a disposal picks the lots its units come from.
const (
	MethodFIFO     = "fifo"
	MethodLIFO     = "lifo"
	MethodHIFO     = "hifo"
	MethodSpecific = "specific"
	MethodAverage  = "average"
)

// Disposal kinds.
const (
	KindSold   = "sold"
	KindTraded = "traded"
	KindGifted = "gifted"
	KindLost   = "lost"
)

// DisposalKinds are the kinds a disposal may be; PreviewMethods the methods a preview
// compares (specific needs the lots named, so it is not among them).
var (
	DisposalKinds  = []string{KindSold, KindTraded, KindGifted, KindLost}
	PreviewMethods = []string{MethodFIFO, MethodLIFO, MethodHIFO, MethodAverage}
)

// Holding periods.
const (
	TermShort = "short"
	TermLong  = "long"
)

// Tax categories of a disposal slice (not tax advice).
const (
	CategoryShort       = "short_term"
	CategoryLong        = "long_term"
	CategoryCollectible = "collectible"
	CategoryExempt      = "exempt"
	CategoryTaxFree     = "tax_free"
)

// DisposalFields are the names a disposal body may carry.
var DisposalFields = []string{"product_name", "metal", "quantity", "price_per_unit", "fees", "sold_on", "method", "lots", "kind", "received", "currency"}

// LotPick is one lot named by a specific-identification disposal.
type LotPick = db.LotPick

// DisposalInput is a parsed disposal request: the raw text of each field, numbers still text.
type DisposalInput struct {
	fields  map[string]string
	numeric map[string]bool
	lots    []LotPick
	hasLots bool
	// form marks a browser form's input (all text).
	form bool
}

// ParseDisposalJSON reads a disposal body strictly, as ParseSaleJSON does, with lots an
// array of {holding_id, quantity}.
func ParseDisposalJSON(body []byte) (DisposalInput, error) {
	if len(body) > MaxHoldingBody {
		return DisposalInput{}, apperr.New(apperr.TooLarge, "body larger than %d bytes", MaxHoldingBody)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil || raw == nil {
		return DisposalInput{}, apperr.InvalidField("body", "must be a JSON object")
	}
	in := DisposalInput{}
	if v, ok := raw["lots"]; ok {
		delete(raw, "lots")
		if t := bytes.TrimSpace(v); !bytes.Equal(t, []byte("null")) {
			d := json.NewDecoder(bytes.NewReader(t))
			d.DisallowUnknownFields()
			if err := d.Decode(&in.lots); err != nil {
				return DisposalInput{}, apperr.InvalidField("lots", "must be an array of {holding_id, quantity} with a whole quantity")
			}
			in.hasLots = true
		}
	}
	rest, _ := json.Marshal(raw)
	fields, numeric, err := strictJSONFields(rest, DisposalFields)
	in.fields, in.numeric = fields, numeric
	return in, err
}

// DisposalInputFromForm takes the text fields of the browser's sale form; lots come as
// lot_<holding id> = quantity.
func DisposalInputFromForm(get func(string) string, lots []LotPick) DisposalInput {
	in := DisposalInput{fields: map[string]string{}, numeric: map[string]bool{}, lots: lots, hasLots: len(lots) > 0, form: true}
	for _, k := range DisposalFields {
		if k != "lots" {
			in.fields[k] = get(k)
			in.numeric[k] = true
		}
	}
	return in
}

// Value returns the raw text of a field, for re-filling a form.
func (in DisposalInput) Value(field string) string { return in.fields[field] }

// DisposalSlice is one lot's part of a disposal.
type DisposalSlice struct {
	SaleID     string
	HoldingID  string
	Quantity   int64
	AcquiredOn db.Date
	// Proceeds is quantity × price per unit; Fees the slice's share of the disposal's fees.
	Proceeds, Fees decimal.Decimal
	// CostBasis is the lot's cost of the units (the pool's average cost for method average),
	// in the disposal's currency: for a lot bought in another, LotCostBasis at the ECB rate
	// of AcquiredOn (the last on or before it), to the cent.
	CostBasis decimal.Decimal
	// LotCurrency is the lot's purchase currency; LotCostBasis the units' cost in it, exactly
	// (CostBasis when LotCurrency is the disposal's).
	LotCurrency  string
	LotCostBasis decimal.Decimal
	// Gain is proceeds − fees − cost basis.
	Gain decimal.Decimal
	// Term is short (held a year or less) or long; Category the jurisdiction's label.
	Term, Category string
}

// Disposal is a disposal of units of one product across lots.
type Disposal struct {
	ID, Kind, Method, Metal, ProductName, Received string
	SoldOn                                         db.Date
	Quantity                                       int64
	PricePerUnit, Proceeds, Fees, CostBasis, Gain  decimal.Decimal
	Slices                                         []DisposalSlice
	// Currency is the ISO 4217 code of the price and every amount: the currency named, else the
	// lots' purchase currency when they share one, else the member's display currency.
	Currency string
	// Jurisdiction is the member's tax jurisdiction the categories follow; Notes what it says
	// about this disposal (not tax advice).
	Jurisdiction string
	Notes        []string
}

// AcquiredOn is the day a lot counts as acquired: its purchase date, or the day it was
// recorded when it has none.
func AcquiredOn(h db.Holding) db.Date {
	if !h.PurchaseDate.IsZero() {
		return h.PurchaseDate
	}
	return db.NewDate(h.CreatedAt.UTC())
}

// Term is the holding period from acquired to disposed: long when disposed more than one
// year after acquisition (366 days in a common year), short otherwise.
func Term(acquired, disposed db.Date) string {
	if disposed.After(acquired.AddDate(1, 0, 0)) {
		return TermLong
	}
	return TermShort
}

// UKLegalTender reports whether a product is a UK legal-tender coin (Britannia or
// Sovereign), exempt from UK capital gains tax: the catalogue's Britannias by alias, and any
// product named a Britannia or Sovereign.
func UKLegalTender(productName string) bool {
	if p, ok := metals.ProductByAlias(productName); ok && strings.Contains(p.ID, "britannia") {
		return true
	}
	n := strings.ToLower(productName)
	return strings.Contains(n, "britannia") || strings.Contains(n, "sovereign")
}

// Category is a slice's tax category under a jurisdiction (not tax advice): US long-term
// bullion is a collectible; UK legal-tender coins are exempt; in Germany a disposal after one
// year is tax-free; otherwise short_term or long_term by the holding period.
func Category(jurisdiction, term, productName string) string {
	switch {
	case jurisdiction == "us" && term == TermLong:
		return CategoryCollectible
	case jurisdiction == "uk" && UKLegalTender(productName):
		return CategoryExempt
	case jurisdiction == "de" && term == TermLong:
		return CategoryTaxFree
	case term == TermLong:
		return CategoryLong
	}
	return CategoryShort
}

// NotTaxAdvice labels every tax figure.
const NotTaxAdvice = "Not tax advice: figures follow the rules as Ounce understands them; ask a tax adviser."

// JurisdictionNotes are what a jurisdiction's figures carry, the not-tax-advice label first.
func JurisdictionNotes(jurisdiction string) []string {
	out := []string{NotTaxAdvice}
	switch jurisdiction {
	case "us":
		out = append(out, "US: physical precious metals are collectibles; long-term gains (held more than one year) may be taxed at up to 28 %, reported on Form 8949.")
	case "uk":
		out = append(out, "UK: legal-tender coins (Britannia, Sovereign) are exempt from capital gains tax; other units of one product are pooled at their average cost (lot method average).")
	case "de":
		out = append(out, "Germany: a private sale of physical metal more than one year after purchase is tax-free.")
	}
	return out
}

// PickError names a lot a specific disposal asked for that is not one of the product's
// lots holding units on the disposal's day.
type PickError struct{ HoldingID string }

func (e *PickError) Error() string {
	return fmt.Sprintf("lot %q is not a lot of this product holding units on the sale date", e.HoldingID)
}

// disposalRequest is a validated disposal and the rule that decides it.
type disposalRequest struct {
	d      db.Disposal
	method string
	picks  []LotPick
	// currency is the currency named, or "" (decided from the lots: disposalCurrency).
	currency string
}

func (s *Service) validateDisposal(ctx context.Context, u db.User, in DisposalInput, preview bool) (disposalRequest, error) {
	v := &disposalCheck{in: in, r: disposalRequest{d: db.Disposal{Fees: decimal.Zero, PricePerUnit: decimal.Zero}}}
	for _, f := range []string{"product_name", "metal", "sold_on", "method", "kind", "received", "currency"} {
		if _, ok := in.fields[f]; ok && in.numeric[f] && in.fields[f] != "" && !isFormInput(in) {
			v.bad(f, "must be a string")
		}
	}
	if len(v.errs) > 0 {
		return v.r, apperr.InvalidFields(v.errs)
	}
	v.product()
	v.method(u)
	pickSum := v.lots(preview)
	v.quantity(pickSum)
	v.money()
	v.soldOn(s.now())
	v.received(ctx, s, u, preview)
	if c := v.str("currency"); c != "" {
		if code, msg := parseCurrency(c, true); msg != "" {
			v.bad("currency", msg)
		} else {
			v.r.currency = code
		}
	}
	v.r.d.Method = v.r.method
	return v.r, apperr.InvalidFields(v.errs)
}

// disposalCheck validates a disposal input field by field, gathering the problems.
type disposalCheck struct {
	in   DisposalInput
	r    disposalRequest
	errs []apperr.FieldError
}

func (v *disposalCheck) bad(f, m string) {
	v.errs = append(v.errs, apperr.FieldError{Field: f, Message: m})
}
func (v *disposalCheck) isNum(f string) bool {
	return v.in.numeric[f]
}
func (v *disposalCheck) str(f string) string { return strings.TrimSpace(v.in.fields[f]) }

// product checks metal, product_name and kind.
func (v *disposalCheck) product() {
	if m, err := metals.Parse(v.str("metal")); err != nil {
		v.bad("metal", "must be one of gold, silver, platinum, palladium")
	} else {
		v.r.d.Metal = string(m)
	}
	name, msg := CleanText(v.in.fields["product_name"], MaxProductName, false)
	if msg != "" {
		v.bad("product_name", msg)
	}
	v.r.d.ProductName = name
	v.r.d.Kind = strings.ToLower(v.str("kind"))
	if v.r.d.Kind == "" {
		v.r.d.Kind = KindSold
	}
	if !slices.Contains(DisposalKinds, v.r.d.Kind) {
		v.bad("kind", "must be one of "+strings.Join(DisposalKinds, ", "))
	}
}

// method checks the lot method (default: specific when lots are named, else the member's).
func (v *disposalCheck) method(u db.User) {
	v.r.method = strings.ToLower(v.str("method"))
	switch {
	case v.r.method == "" && v.in.hasLots:
		v.r.method = MethodSpecific
	case v.r.method == "":
		v.r.method = account.SettingsOf(u).LotMethod
	}
	if !slices.Contains(account.LotMethods, v.r.method) {
		v.bad("method", "must be one of "+strings.Join(account.LotMethods, ", "))
	}
}

// lots checks the lots named and returns their units.
func (v *disposalCheck) lots(preview bool) int64 {
	var pickSum int64
	if v.in.hasLots {
		if v.r.method != MethodSpecific {
			v.bad("lots", "name lots only with method specific")
		}
		seen := map[string]bool{}
		for _, p := range v.in.lots {
			switch {
			case p.HoldingID == "" || len(p.HoldingID) > 64:
				v.bad("lots", "each lot needs a holding_id")
			case p.Quantity < 1 || p.Quantity > MaxQuantity:
				v.bad("lots", fmt.Sprintf("each lot's quantity must be between 1 and %d", MaxQuantity))
			case seen[p.HoldingID]:
				v.bad("lots", "names holding "+p.HoldingID+" twice")
			}
			seen[p.HoldingID] = true
			pickSum += p.Quantity
		}
		v.r.picks = v.in.lots
	}
	if v.r.method == MethodSpecific && !preview && len(v.in.lots) == 0 {
		v.bad("lots", "name the lots and quantities for method specific")
	}
	return pickSum
}

// quantity checks the units (the lots' sum when left out).
func (v *disposalCheck) quantity(pickSum int64) {
	if q := v.str("quantity"); q == "" && pickSum > 0 {
		v.r.d.Quantity = pickSum
	} else if n, msg := parseQuantity(q, v.isNum("quantity")); msg != "" {
		v.bad("quantity", msg)
	} else {
		v.r.d.Quantity = n
		if v.in.hasLots && pickSum != n {
			v.bad("quantity", fmt.Sprintf("must equal the units of the lots named (%d)", pickSum))
		}
	}
}

// money checks price_per_unit (none for a gift or loss) and fees.
func (v *disposalCheck) money() {
	asJSON := !isFormInput(v.in)
	noProceeds := v.r.d.Kind == KindGifted || v.r.d.Kind == KindLost
	switch p := v.in.fields["price_per_unit"]; {
	case noProceeds && strings.TrimSpace(p) != "":
		if n, msg := parseAmount(moneyText(p, asJSON), v.isNum("price_per_unit"), false, true, maxPrice, maxMoneyDecimals); msg != "" || !n.IsZero() {
			v.bad("price_per_unit", "a "+v.r.d.Kind+" disposal has no proceeds: leave it out or send 0")
		}
	case noProceeds:
	default:
		if n, msg := parseAmount(moneyText(p, asJSON), v.isNum("price_per_unit"), true, true, maxPrice, maxMoneyDecimals); msg != "" {
			v.bad("price_per_unit", msg)
		} else {
			v.r.d.PricePerUnit = n
		}
	}
	if f := v.in.fields["fees"]; strings.TrimSpace(f) != "" {
		if n, msg := parseAmount(moneyText(f, asJSON), v.isNum("fees"), false, true, maxPrice, maxMoneyDecimals); msg != "" {
			v.bad("fees", msg)
		} else {
			v.r.d.Fees = n
		}
	}
}

// soldOn checks the day (default today, UTC).
func (v *disposalCheck) soldOn(now time.Time) {
	if d := v.str("sold_on"); d == "" {
		v.r.d.SoldOn = db.NewDate(now.UTC())
	} else if day, msg := parseDay(d, now); msg != "" {
		v.bad("sold_on", msg)
	} else {
		v.r.d.SoldOn = day
	}
}

// received checks the lot a trade became: required for a trade (but in a preview), one of the
// member's holdings, and named only by a trade.
func (v *disposalCheck) received(ctx context.Context, s *Service, u db.User, preview bool) {
	v.r.d.Received = v.str("received")
	switch {
	case v.r.d.Kind == KindTraded && v.r.d.Received == "" && !preview:
		v.bad("received", "name the lot the trade became (its holding id)")
	case v.r.d.Kind != KindTraded && v.r.d.Received != "":
		v.bad("received", "only a traded disposal names what it received")
	case v.r.d.Received != "":
		if _, err := s.GetHolding(ctx, u, v.r.d.Received); err != nil {
			v.bad("received", "is not one of your holdings")
		}
	}
}

// isFormInput reports whether the input came from a browser form (all text).
func isFormInput(in DisposalInput) bool { return in.form }

// disposalErr turns a rule's refusal into a field error: more units than held is 422 naming
// quantity (or lots), a lot not of the product names lots.
func disposalErr(err error, d db.Disposal) error {
	var oe *db.OversoldError
	var pe *PickError
	var me *MixedCurrencyError
	var mr *MissingRateError
	var ae *AverageCurrencyError
	switch {
	case errors.As(err, &mr):
		return unprocessable("currency", mr.Error())
	case errors.As(err, &ae):
		return unprocessable("method", ae.Error())
	case errors.As(err, &oe):
		return unprocessable("quantity", fmt.Sprintf("at most %d units of %s are held on %s", oe.Held, productLabel(d.ProductName, d.Metal), d.SoldOn))
	case errors.As(err, &pe):
		return unprocessable("lots", pe.Error())
	case errors.As(err, &me):
		return unprocessable("product_name", me.Error())
	case err != nil && strings.HasPrefix(err.Error(), "the lots named"):
		return unprocessable("lots", err.Error())
	}
	return err
}

func unprocessable(field, msg string) error {
	return &apperr.Error{Kind: apperr.Unprocessable, Msg: field + ": " + msg, Fields: []apperr.FieldError{{Field: field, Message: msg}}}
}

func productLabel(name, metal string) string {
	if name == "" {
		return metals.Metal(metal).Title() + " (no product name)"
	}
	return name
}

// disposalOf renders the store's disposal and slices with terms and categories. Its currency
// is its slices' (every slice is in the disposal's currency).
func disposalOf(d db.Disposal, sales []db.Sale, lots map[string]db.Holding, jurisdiction string) Disposal {
	out := Disposal{ID: d.ID, Kind: d.Kind, Method: d.Method, Metal: d.Metal, ProductName: d.ProductName, Received: d.Received, SoldOn: d.SoldOn,
		Quantity: d.Quantity, PricePerUnit: d.PricePerUnit, Fees: d.Fees, Jurisdiction: jurisdiction, Notes: JurisdictionNotes(jurisdiction)}
	oz := decimal.Zero
	out.Currency = "USD"
	for i, s := range sales {
		oz = oz.Add(s.Oz)
		if i == 0 {
			out.Currency = saleCurrency(s.Currency)
		}
	}
	if jurisdiction == "us" && d.Kind != KindGifted && d.Kind != KindLost && May1099B(d.Metal, d.ProductName, d.Quantity, oz) {
		out.Notes = append(out.Notes, Note1099B)
	}
	var others []string
	for _, s := range sales {
		acq := AcquiredOn(lots[s.HoldingID])
		term := Term(acq, s.SoldOn)
		lc := lotCurrency(lots[s.HoldingID])
		if s.LotCost.Valid && !slices.Contains(others, lc) {
			others = append(others, lc)
		}
		out.Slices = append(out.Slices, DisposalSlice{SaleID: s.ID, HoldingID: s.HoldingID, Quantity: s.Quantity, AcquiredOn: acq,
			Proceeds: s.Proceeds, Fees: s.Fees, CostBasis: s.CostBasis, LotCurrency: lc, LotCostBasis: s.LotCostBasis(), Gain: s.RealizedPL,
			Term: term, Category: Category(jurisdiction, term, d.ProductName)})
		out.Proceeds = out.Proceeds.Add(s.Proceeds)
		out.CostBasis = out.CostBasis.Add(s.CostBasis)
		out.Gain = out.Gain.Add(s.RealizedPL)
	}
	if len(others) > 0 {
		slices.Sort(others)
		out.Notes = append(out.Notes, fmt.Sprintf("Lots bought in %s count in %s at the ECB reference rate of their purchase day (the last on or before it): cost_basis is lot_cost_basis at that rate, to the cent.",
			strings.Join(others, " and "), out.Currency))
	}
	return out
}

// disposalCurrency is the currency a disposal is in: the one named, else the lots' own when
// the lots held on its day share one, else the member's display currency.
func disposalCurrency(u db.User, r disposalRequest, lots []db.SaleLot) string {
	if r.currency != "" {
		return r.currency
	}
	elig, _ := eligibleLots(lots, r.d.SoldOn)
	if cs := lotCurrencies(lots, elig); len(cs) == 1 {
		return cs[0]
	}
	if len(elig) == 0 && len(lots) > 0 {
		return lotCurrency(lots[0].Holding)
	}
	return memberCurrency(u)
}

// disposalFX looks up, before anything is written, the rates a disposal in cur needs: for
// every lot held on its day that was bought in another currency, what one unit of that
// currency was worth in cur on the lot's purchase day (the last ECB-based rate on or before
// it, as the gains report and valuations convert). A currency with no rate then, or only a
// stale one (more than fx.StaleAfter older) while the ECB published others (not quoted
// then), is Missing; when the rates stored stop before the day (offline), the newest counts.
func (s *Service) disposalFX(ctx context.Context, cur string, soldOn db.Date, lots []db.SaleLot) (DisposalFX, error) {
	out := DisposalFX{Currency: cur, Factors: map[FXDay]decimal.Decimal{}, Missing: map[FXDay]string{}}
	elig, _ := eligibleLots(lots, soldOn)
	conv := &converter{ctx: ctx, rates: s.rates, to: cur}
	for _, i := range elig {
		k := LotFXDay(lots[i])
		if k.Currency == cur {
			continue
		}
		if _, ok := out.Factors[k]; ok {
			continue
		}
		if _, ok := out.Missing[k]; ok {
			continue
		}
		if s.rates == nil {
			out.Missing[k] = "exchange rates are not available"
			continue
		}
		day := AcquiredOn(lots[i].Holding)
		rf, rt, err := conv.pair(k.Currency, day.Time)
		switch {
		case err != nil && apperr.KindOf(err) == apperr.Invalid:
			out.Missing[k] = rateWhy(err)
		case err != nil:
			return DisposalFX{}, err
		case rf.Stale || rt.Stale:
			// Old because the currency was not quoted then (the ECB published other rates) is
			// missing; old because no rates at all are stored after it yet (offline) is the
			// newest known, as every valuation takes it.
			behind, err := s.ratesBehind(ctx, day)
			if err != nil {
				return DisposalFX{}, err
			}
			stale := rf
			if !rf.Stale {
				stale = rt
			}
			if !behind {
				out.Missing[k] = fmt.Sprintf("the last %s rate on or before %s is of %s", stale.Currency, day, stale.RateDate.Format(time.DateOnly))
				continue
			}
			out.Factors[k] = CrossFactor(rf, rt)
		default:
			out.Factors[k] = CrossFactor(rf, rt)
		}
	}
	return out, nil
}

// RecordDisposal validates and records a disposal of units of one product across the
// member's lots, as one unit: all its slices or none. More units than are held is 422 naming
// quantity.
func (s *Service) RecordDisposal(ctx context.Context, u db.User, in DisposalInput) (Disposal, error) {
	if err := requireGold(u); err != nil {
		return Disposal{}, err
	}
	r, err := s.validateDisposal(ctx, u, in, false)
	if err != nil {
		return Disposal{}, err
	}
	// The rates are looked up from the lots as they are now, before the write; a lot that
	// arrives in between has none looked up, and the rates are looked up again.
	var d db.Disposal
	var sales []db.Sale
	for attempt := 0; ; attempt++ {
		lots, err := s.store.ProductLots(ctx, u.ID, r.d.Metal, r.d.ProductName)
		if err != nil {
			return Disposal{}, err
		}
		fx, err := s.disposalFX(ctx, disposalCurrency(u, r, lots), r.d.SoldOn, lots)
		if err != nil {
			return Disposal{}, err
		}
		d, sales, err = s.store.InsertDisposal(ctx, u.ID, r.d, DecideDisposalIn(r.method, r.picks, fx))
		if errors.Is(err, errRateNotLooked) && attempt < 3 {
			continue
		}
		if err != nil {
			return Disposal{}, disposalErr(err, r.d)
		}
		break
	}
	lots, err := s.lotsByID(ctx, u)
	if err != nil {
		return Disposal{}, err
	}
	return disposalOf(d, sales, lots, account.SettingsOf(u).TaxJurisdiction), nil
}

func (s *Service) lotsByID(ctx context.Context, u db.User) (map[string]db.Holding, error) {
	all, err := s.store.AllHoldings(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]db.Holding, len(all))
	for _, h := range all {
		out[h.ID] = h
	}
	return out, nil
}

// Preview is what each method would do with a disposal, nothing stored.
type Preview struct {
	Methods map[string]Disposal
	// Unavailable says why a method cannot decide the disposal (average over lots bought in
	// another currency than the disposal's); such a method is not in Methods.
	Unavailable map[string]string
	// LeastGain is the method with the smallest gain (the first in PreviewMethods on a tie).
	LeastGain string
}

// PreviewDisposal decides the disposal under fifo, lifo, hifo and average over the member's
// lots as they are now, storing nothing.
func (s *Service) PreviewDisposal(ctx context.Context, u db.User, in DisposalInput) (Preview, error) {
	if err := requireGold(u); err != nil {
		return Preview{}, err
	}
	r, err := s.validateDisposal(ctx, u, in, true)
	if err != nil {
		return Preview{}, err
	}
	lots, err := s.store.ProductLots(ctx, u.ID, r.d.Metal, r.d.ProductName)
	if err != nil {
		return Preview{}, err
	}
	byID := map[string]db.Holding{}
	for _, l := range lots {
		byID[l.ID] = l.Holding
	}
	jur := account.SettingsOf(u).TaxJurisdiction
	fx, err := s.disposalFX(ctx, disposalCurrency(u, r, lots), r.d.SoldOn, lots)
	if err != nil {
		return Preview{}, err
	}
	out := Preview{Methods: map[string]Disposal{}, Unavailable: map[string]string{}}
	for _, m := range PreviewMethods {
		dec, err := DecideDisposalIn(m, nil, fx)(lots, r.d)
		var ae *AverageCurrencyError
		if errors.As(err, &ae) {
			out.Unavailable[m] = ae.Error()
			continue
		}
		if err != nil {
			return Preview{}, disposalErr(err, r.d)
		}
		sales := make([]db.Sale, len(dec.Slices))
		for i, sl := range dec.Slices {
			sales[i] = sl.Sale
			sales[i].HoldingID = lots[sl.Lot].ID
		}
		d := r.d
		d.Method = m
		out.Methods[m] = disposalOf(d, sales, byID, jur)
		if out.LeastGain == "" || out.Methods[m].Gain.LessThan(out.Methods[out.LeastGain].Gain) {
			out.LeastGain = m
		}
	}
	return out, nil
}

// GetDisposal returns one of the member's disposals.
func (s *Service) GetDisposal(ctx context.Context, u db.User, id string) (Disposal, error) {
	if err := requireGold(u); err != nil {
		return Disposal{}, err
	}
	d, sales, err := s.store.DisposalByID(ctx, u.ID, id)
	if err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return Disposal{}, apperr.NotFoundf("disposal")
		}
		return Disposal{}, err
	}
	lots, err := s.lotsByID(ctx, u)
	if err != nil {
		return Disposal{}, err
	}
	return disposalOf(d, sales, lots, account.SettingsOf(u).TaxJurisdiction), nil
}

// DeleteDisposal undoes a disposal: every slice is removed and the lots hold their units again.
func (s *Service) DeleteDisposal(ctx context.Context, u db.User, id string) error {
	if err := requireGold(u); err != nil {
		return err
	}
	if _, _, err := s.store.DeleteDisposal(ctx, u.ID, id, UndoSale); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return apperr.NotFoundf("disposal")
		}
		return err
	}
	return nil
}

// yearBounds are the first days of year and the next.
func yearBounds(year int) (db.Date, db.Date) {
	return db.NewDate(time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC)), db.NewDate(time.Date(year+1, 1, 1, 0, 0, 0, 0, time.UTC))
}

// ProductLots lists the member's lots of one metal and product name that still hold units,
// earliest acquired first, for choosing lots by hand.
func (s *Service) ProductLots(ctx context.Context, u db.User, metal, product string) ([]db.SaleLot, error) {
	if err := requireGold(u); err != nil {
		return nil, err
	}
	m, err := metals.Parse(metal)
	if err != nil {
		return nil, apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
	}
	lots, err := s.store.ProductLots(ctx, u.ID, string(m), product)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(lots, func(a, b db.SaleLot) int {
		return cmp.Or(AcquiredOn(a.Holding).Compare(AcquiredOn(b.Holding).Time), a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return lots, nil
}

// MixedCurrencyError refuses a disposal across lots of one product bought in several currencies.
type MixedCurrencyError struct{ Currencies []string }

func (e *MixedCurrencyError) Error() string {
	return "the lots of this product were paid for in " + strings.Join(e.Currencies, " and ") + "; record the sale against one lot (POST /v1/holdings/{id}/sales)"
}

// lotCurrencies are the distinct purchase currencies of the lots at idx, sorted.
func lotCurrencies(lots []db.SaleLot, idx []int) []string {
	var out []string
	for _, i := range idx {
		c := lots[i].PurchaseCurrency
		if c == "" {
			c = "USD"
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// lotCurrency is a lot's purchase currency (USD for lots recorded before currencies).
func lotCurrency(h db.Holding) string { return saleCurrency(h.PurchaseCurrency) }

// ratesBehind reports whether the rates known stop before day: the dollar's euro rate (every
// ECB day has one) is stale there too.
func (s *Service) ratesBehind(ctx context.Context, day db.Date) (bool, error) {
	r, err := s.rates.Lookup(ctx, "USD", day.Time)
	if err != nil {
		if apperr.KindOf(err) == apperr.Invalid {
			return false, nil
		}
		return false, err
	}
	return r.Stale, nil
}

// rateWhy is what a rate look-up's refusal says (its field's message).
func rateWhy(err error) string {
	if fs := apperr.FieldsOf(err); len(fs) > 0 {
		return fs[0].Message
	}
	if e, ok := apperr.As(err); ok {
		return e.Msg
	}
	return err.Error()
}
