package portfolio

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// MaxCoins bounds each junk-silver coin count.
const MaxCoins = 10_000_000

// MaxTarget bounds a what-if target price, USD per troy ounce.
var MaxTarget = decimal.NewFromInt(10_000_000)

// Junk-silver bases: the mint's silver content, or the trade convention for worn coins.
const (
	BasisUncirculated = "uncirculated"
	BasisCirculated   = "circulated"
)

// SpotQuote is the price a calculation used, with its time and whether it is live.
type SpotQuote struct {
	Price decimal.Decimal
	AsOf  time.Time
	Stale bool
}

// CoinMelt is one coin type of a junk-silver result.
type CoinMelt struct {
	// Type is the coin's parameter name (metals.Coin.Param).
	Type            string
	Quantity        int64
	FaceValue       decimal.Decimal
	SilverOzPerCoin decimal.Decimal
	SilverOz        decimal.Decimal
	MeltValue       decimal.Decimal
}

// FaceMelt is junk silver entered by face value (metals.FaceLots).
type FaceMelt struct {
	// Type is the lot's parameter name (metals.FaceLot.Param).
	Type                  string
	FaceValue             decimal.Decimal
	SilverOzPerFaceDollar decimal.Decimal
	SilverOz              decimal.Decimal
	MeltValue             decimal.Decimal
}

// MaxFace bounds a by-face junk-silver entry, US dollars of face value.
var MaxFace = decimal.NewFromInt(1_000_000)

// JunkSilver is the melt value of a pile of pre-1965 US silver coins.
type JunkSilver struct {
	Spot                                     SpotQuote
	Basis                                    string
	Coins                                    []CoinMelt // metals.Coins order, counted coins only
	Face                                     []FaceMelt // metals.FaceLots order, entered lots only
	TotalFaceValue, TotalSilverOz, TotalMelt decimal.Decimal
	// MeltPerFaceDollar is zero when there is no face value.
	MeltPerFaceDollar decimal.Decimal
}

// quote is the current price of m, or Unavailable when there is none at all.
func (s *Service) quote(m metals.Metal) (SpotQuote, error) {
	if sp, ok := s.snapshot().Prices[m]; ok {
		return SpotQuote{Price: sp.Price, AsOf: sp.AsOf, Stale: sp.Stale}, nil
	}
	return SpotQuote{}, apperr.UnavailableF("no %s price is available yet", m)
}

// ParseCoinCounts reads the coin counts of a junk-silver request (coin parameter → raw text,
// "" when absent) and its basis ("" is uncirculated).
func ParseCoinCounts(counts map[string]string, basis string) (map[string]int64, string, error) {
	basis = strings.ToLower(strings.TrimSpace(basis))
	if basis == "" {
		basis = BasisUncirculated
	}
	if basis != BasisUncirculated && basis != BasisCirculated {
		return nil, "", apperr.InvalidField("basis", "must be uncirculated or circulated")
	}
	qty := map[string]int64{}
	var errs []apperr.FieldError
	for _, c := range metals.Coins {
		raw := strings.TrimSpace(counts[c.Param])
		if raw == "" {
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		switch {
		case err != nil:
			errs = append(errs, apperr.FieldError{Field: c.Param, Message: "must be a whole number of coins"})
		case n < 0:
			errs = append(errs, apperr.FieldError{Field: c.Param, Message: "cannot be negative"})
		case n > MaxCoins:
			errs = append(errs, apperr.FieldError{Field: c.Param, Message: "must be at most " + strconv.Itoa(MaxCoins)})
		default:
			qty[c.Param] = n
		}
	}
	return qty, basis, apperr.InvalidFields(errs)
}

// ParseFaceValues reads the by-face entries of a junk-silver request (lot parameter → raw
// text, "" when absent): dollars of face value, at most two decimals, "$" and "," allowed.
func ParseFaceValues(raw map[string]string) (map[string]decimal.Decimal, error) {
	out := map[string]decimal.Decimal{}
	var errs []apperr.FieldError
	for _, f := range metals.FaceLots {
		txt := strings.NewReplacer("$", "", ",", "").Replace(strings.TrimSpace(raw[f.Param]))
		if txt == "" {
			continue
		}
		d, err := decimal.NewFromString(txt)
		switch {
		case err != nil:
			errs = append(errs, apperr.FieldError{Field: f.Param, Message: "must be a dollar amount of face value, like 10 or 12.50"})
		case d.IsNegative():
			errs = append(errs, apperr.FieldError{Field: f.Param, Message: "cannot be negative"})
		case !d.Equal(d.Round(2)):
			errs = append(errs, apperr.FieldError{Field: f.Param, Message: "must be whole cents"})
		case d.GreaterThan(MaxFace):
			errs = append(errs, apperr.FieldError{Field: f.Param, Message: "must be at most $1,000,000 face"})
		default:
			out[f.Param] = d
		}
	}
	return out, apperr.InvalidFields(errs)
}

// Melt is the junk-silver math: each counted coin's face value, silver content and melt value
// at the silver price, and the totals.
func Melt(qty map[string]int64, basis string, spot SpotQuote) JunkSilver {
	return MeltWithFace(qty, nil, basis, spot)
}

// MeltWithFace is Melt with lots entered by face value as well. Each line is what it shows:
// its ounces to OuncePlaces and its melt value, those ounces at spot, to the cent; the totals
// are the sums of the lines, so they add up on every page and in every answer.
func MeltWithFace(qty map[string]int64, faces map[string]decimal.Decimal, basis string, spot SpotQuote) JunkSilver {
	out := JunkSilver{Spot: spot, Basis: basis, Coins: []CoinMelt{}, Face: []FaceMelt{}}
	face, oz, melt := decimal.Zero, decimal.Zero, decimal.Zero
	for _, c := range metals.Coins {
		n := qty[c.Param]
		if n == 0 {
			continue
		}
		per := c.OzPerCoin(basis == BasisCirculated)
		q := decimal.NewFromInt(n)
		cOz := metals.Ounces(per.Mul(q))
		cMelt := metals.Money(cOz.Mul(spot.Price))
		cFace := c.FaceValue.Mul(q)
		out.Coins = append(out.Coins, CoinMelt{Type: c.Param, Quantity: n, FaceValue: cFace, SilverOzPerCoin: per, SilverOz: cOz, MeltValue: cMelt})
		face, oz, melt = face.Add(cFace), oz.Add(cOz), melt.Add(cMelt)
	}
	for _, f := range metals.FaceLots {
		fv, ok := faces[f.Param]
		if !ok || fv.IsZero() {
			continue
		}
		per := f.OzPerDollar(basis == BasisCirculated)
		fOz := metals.Ounces(per.Mul(fv))
		fMelt := metals.Money(fOz.Mul(spot.Price))
		out.Face = append(out.Face, FaceMelt{Type: f.Param, FaceValue: fv, SilverOzPerFaceDollar: per, SilverOz: fOz, MeltValue: fMelt})
		face, oz, melt = face.Add(fv), oz.Add(fOz), melt.Add(fMelt)
	}
	out.TotalFaceValue, out.TotalSilverOz, out.TotalMelt = face, oz, melt
	out.MeltPerFaceDollar = decimal.Zero
	if face.IsPositive() {
		out.MeltPerFaceDollar = melt.Div(face)
	}
	return out
}

// JunkSilver values coins at the current silver price. counts maps a coin parameter (or a
// by-face lot parameter) to its raw value ("" when absent). It is public: no member is needed.
func (s *Service) JunkSilver(_ context.Context, counts map[string]string, basis string) (JunkSilver, error) {
	qty, basis, err := ParseCoinCounts(counts, basis)
	faces, ferr := ParseFaceValues(counts)
	if err != nil || ferr != nil {
		return JunkSilver{}, joinInvalid(err, ferr)
	}
	spot, err := s.quote(metals.Silver)
	if err != nil {
		return JunkSilver{}, err
	}
	return MeltWithFace(qty, faces, basis, spot), nil
}

// joinInvalid merges the field errors of two validations into one.
func joinInvalid(errs ...error) error {
	var fields []apperr.FieldError
	for _, err := range errs {
		if err == nil {
			continue
		}
		fs := apperr.FieldsOf(err)
		if len(fs) == 0 {
			return err
		}
		fields = append(fields, fs...)
	}
	return apperr.InvalidFields(fields)
}

// Scenario is a preset of the what-if calculator: every metal at a multiple of its current price
// (live, or the last close when none is live).
type Scenario struct {
	Name     string
	Multiple decimal.Decimal
	Label    string
}

// Scenarios are the presets, in display order.
var Scenarios = []Scenario{
	{"bull", decimal.RequireFromString("1.25"), "Bull: every metal 25% higher"},
	{"moon", decimal.RequireFromString("2"), "Moon: every metal doubles"},
	{"hyper", decimal.RequireFromString("5"), "Hyper: every metal five times its current price"},
}

// ProjectionLine is one metal of a projected stack.
type ProjectionLine struct {
	Oz, CurrentValue, ProjectedValue decimal.Decimal
}

// Projection is a member's stack (what is still held) at today's and at the target prices.
type Projection struct {
	CurrentValue, ProjectedValue, Gain, GainPct decimal.Decimal
	Metals                                      map[metals.Metal]ProjectionLine
}

// Speculation is the what-if result: the current price, the target and their ratio per metal, the
// preset scenarios' prices, and with a member their projected stack.
type Speculation struct {
	Current, Targets, Multipliers map[metals.Metal]decimal.Decimal
	// Scenarios maps a Scenario.Name to each metal's price under it.
	Scenarios map[string]map[metals.Metal]decimal.Decimal
	Stale     bool
	// Portfolio is nil without a Gold member.
	Portfolio *Projection
	// Note says why a member's own stack was not projected ("" when it was, or for visitors).
	Note string
}

// GoldProjectionNote is the Note of a free member's what-if: the market is projected, their
// stack is not.
const GoldProjectionNote = "projecting your own stack is part of Gold membership; these are the market prices at your targets"

// ParseTargets reads what-if targets (metal → raw text, "" when absent), in USD per ounce.
func ParseTargets(targets map[string]string) (map[metals.Metal]decimal.Decimal, error) {
	tgt := map[metals.Metal]decimal.Decimal{}
	var errs []apperr.FieldError
	for _, m := range metals.All {
		raw := strings.TrimSpace(targets[string(m)])
		if raw == "" {
			continue
		}
		d, err := parseBoundedDecimal(raw)
		switch {
		case err != nil:
			errs = append(errs, apperr.FieldError{Field: string(m), Message: "must be a number (USD per troy ounce)"})
		case !d.IsPositive():
			errs = append(errs, apperr.FieldError{Field: string(m), Message: "must be greater than 0"})
		case d.GreaterThan(MaxTarget):
			errs = append(errs, apperr.FieldError{Field: string(m), Message: "must be at most 10000000"})
		default:
			tgt[m] = d
		}
	}
	return tgt, apperr.InvalidFields(errs)
}

// Project is the what-if math: prices today and at the targets (a missing target is today's
// price), the scenarios, and, given the ounces held per metal, the stack at both. Each metal's
// values are to the cent and the stack's are their sums, the gain their difference, so the
// figures shown add up.
func Project(current, targets map[metals.Metal]decimal.Decimal, held map[metals.Metal]decimal.Decimal) Speculation {
	out := Speculation{Current: map[metals.Metal]decimal.Decimal{}, Targets: map[metals.Metal]decimal.Decimal{},
		Multipliers: map[metals.Metal]decimal.Decimal{}, Scenarios: map[string]map[metals.Metal]decimal.Decimal{}}
	for _, m := range metals.All {
		price := current[m]
		t, ok := targets[m]
		if !ok {
			t = price
		}
		out.Current[m], out.Targets[m] = price, t
		if price.IsPositive() {
			out.Multipliers[m] = t.Div(price)
		} else {
			out.Multipliers[m] = decimal.Zero
		}
	}
	for _, sc := range Scenarios {
		row := map[metals.Metal]decimal.Decimal{}
		for _, m := range metals.All {
			row[m] = out.Current[m].Mul(sc.Multiple)
		}
		out.Scenarios[sc.Name] = row
	}
	if held != nil {
		p := &Projection{Metals: map[metals.Metal]ProjectionLine{}}
		cur, proj := decimal.Zero, decimal.Zero
		for _, m := range metals.All {
			o := held[m]
			cv, pv := metals.Money(o.Mul(out.Current[m])), metals.Money(o.Mul(out.Targets[m]))
			cur, proj = cur.Add(cv), proj.Add(pv)
			p.Metals[m] = ProjectionLine{Oz: o, CurrentValue: cv, ProjectedValue: pv}
		}
		p.CurrentValue, p.ProjectedValue, p.Gain = cur, proj, proj.Sub(cur)
		p.GainPct = metals.PctChange(cur, proj)
		out.Portfolio = p
	}
	return out
}

// Speculation projects the market, and a Gold member's own stack, at target prices (metal →
// raw text). It needs a price for every metal (Unavailable otherwise). The stack projected is
// what the member still holds. The calculator is public; projecting one's own stack is a Gold
// feature, so a free member gets the market projection and a Note saying so.
func (s *Service) Speculation(ctx context.Context, targets map[string]string, u *db.User) (Speculation, error) {
	tgt, err := ParseTargets(targets)
	if err != nil {
		return Speculation{}, err
	}
	cur := map[metals.Metal]decimal.Decimal{}
	stale := false
	for _, m := range metals.All {
		q, err := s.quote(m)
		if err != nil {
			return Speculation{}, err
		}
		cur[m], stale = q.Price, stale || q.Stale
	}
	var held map[metals.Metal]decimal.Decimal
	note := ""
	if u != nil && !account.IsGold(*u) {
		u, note = nil, GoldProjectionNote
	}
	if u != nil {
		// What is still held: sold units are gone from the stack.
		totals, err := s.store.PositionTotals(ctx, u.ID, db.NewDate(s.now()), db.HeldOnly)
		if err != nil {
			return Speculation{}, err
		}
		held = map[metals.Metal]decimal.Decimal{}
		for _, t := range totals {
			held[t.Metal] = t.HeldOz
		}
	}
	out := Project(cur, tgt, held)
	out.Stale, out.Note = stale, note
	return out, nil
}
