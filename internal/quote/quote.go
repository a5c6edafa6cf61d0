// Package quote expresses dollar-per-ounce prices in the currency and weight unit a caller
// asks for (issue 25): the price board, the history, the calculators and dealer prices.
package quote

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Rates is what quoting reads of the exchange rates, the same as the portfolio's;
// *fx.Service provides it.
type Rates = portfolio.Rates

// Quoter resolves and converts; a nil Rates knows only the dollar.
type Quoter struct {
	rates Rates
	now   func() time.Time
}

// New builds a Quoter over rates (nil: USD only).
func New(rates Rates, now func() time.Time) *Quoter {
	now = wallclock.Or(now)
	return &Quoter{rates: rates, now: now}
}

// Target is the currency and unit an answer is in, and today's rate into it.
type Target struct {
	Currency string
	Unit     metals.Unit
	// RateDate is the day of today's rate (zero for USD); Stale is true when it is old.
	RateDate time.Time
	Stale    bool
	// PerUSD is units of Currency per dollar at RateDate (1 for USD).
	PerUSD decimal.Decimal
	// Named is true when the answer must say its currency and unit: a parameter was given,
	// or the member reads another currency or unit than USD per ounce. Without it a dollar
	// member's answer stays exactly as it was before currencies.
	Named bool
	// Personal is true when the member's settings, not the parameters, chose a currency or
	// unit other than USD per ounce: the answer differs between callers of one URL.
	Personal bool
}

// USD is dollars per troy ounce, unnamed: the answer without currencies.
func USD() Target {
	return Target{Currency: "USD", Unit: metals.Ounce, PerUSD: decimal.NewFromInt(1)}
}

// IsUSDOunce is whether no conversion applies.
func (t Target) IsUSDOunce() bool { return t.Currency == "USD" && t.Unit == metals.Ounce }

// Resolve reads the currency and unit parameters: given, they are checked (400 naming
// currency, listing the supported codes; 400 naming unit); absent, the member's display
// currency and weight unit count, USD per ounce for anonymous callers. perWeight false
// ignores the unit (answers with no price per weight).
func (q *Quoter) Resolve(ctx context.Context, u *account.User, currency, unit string, perWeight bool) (Target, error) {
	t := USD()
	code := strings.ToUpper(strings.TrimSpace(currency))
	un := strings.ToLower(strings.TrimSpace(unit))
	if code != "" || (perWeight && un != "") {
		t.Named = true
	}
	if u != nil {
		s := account.SettingsOf(*u)
		if code == "" {
			code = s.DisplayCurrency
		}
		if perWeight && un == "" {
			un = string(s.WeightUnit)
		}
	}
	if code == "" {
		code = "USD"
	}
	if perWeight && un != "" {
		pu, err := parseUnit(un, unit)
		if err != nil {
			return t, err
		}
		t.Unit = pu
	}
	if code != "USD" {
		supported := []string{"USD"}
		if q != nil && q.rates != nil {
			supported = q.rates.Supported(ctx)
		}
		if !slices.Contains(supported, code) {
			return t, apperr.InvalidField("currency", fmt.Sprintf("unknown currency %q; supported: %s", code, strings.Join(supported, ", ")))
		}
		r, f, err := q.factor(ctx, code, q.now())
		if err != nil {
			return t, err
		}
		t.Currency, t.RateDate, t.Stale, t.PerUSD = code, r.RateDate, r.Stale, f
	}
	if !t.IsUSDOunce() {
		t.Personal = !t.Named
		t.Named = true
	}
	return t, nil
}

// parseUnit reads a lower-cased unit; raw is what was sent, quoted in the 400 naming unit.
func parseUnit(un, raw string) (metals.Unit, error) {
	pu, err := metals.ParseUnit(un)
	if err != nil {
		return "", apperr.InvalidField("unit", "unknown unit "+fmt.Sprintf("%q", raw)+"; one of "+strings.Join(metals.UnitNames(), ", "))
	}
	return pu, nil
}

// Unit resolves the unit parameter alone (the valuation routes, whose currency the portfolio
// resolves): given, it is checked (400 naming unit, listing the units); absent, the member's
// weight unit, else troy ounces.
func Unit(u *account.User, unit string) (metals.Unit, error) {
	un := strings.ToLower(strings.TrimSpace(unit))
	if un == "" && u != nil {
		un = string(account.SettingsOf(*u).WeightUnit)
	}
	if un == "" {
		return metals.Ounce, nil
	}
	return parseUnit(un, unit)
}

// PerUnit re-expresses a price per troy ounce (in any currency) per unit u; unchanged for oz.
func PerUnit(perOz decimal.Decimal, u metals.Unit) decimal.Decimal {
	return Target{Unit: u}.perUnit(perOz)
}

// factor is the currency's rate on day and what a dollar is worth in it (through the euro).
func (q *Quoter) factor(ctx context.Context, code string, day time.Time) (fx.Rate, decimal.Decimal, error) {
	r, err := q.rates.Lookup(ctx, code, day)
	if err != nil {
		return fx.Rate{}, decimal.Zero, err
	}
	usd, err := q.rates.Lookup(ctx, "USD", day)
	if err != nil {
		return fx.Rate{}, decimal.Zero, err
	}
	return r, portfolio.CrossFactor(usd, r), nil
}

// Price expresses a dollar amount per troy ounce in the target at today's rate, unrounded.
func (t Target) Price(perOzUSD decimal.Decimal) decimal.Decimal {
	return t.PriceAt(perOzUSD, t.PerUSD)
}

// Money expresses a dollar amount (not per weight) in the target's currency at today's rate.
func (t Target) Money(usd decimal.Decimal) decimal.Decimal {
	if t.Currency == "USD" {
		return usd
	}
	return usd.Mul(t.PerUSD)
}

// PriceAt is a dollar price per ounce in the target's unit, at perUSD units of its currency
// per dollar.
func (t Target) PriceAt(perOzUSD, perUSD decimal.Decimal) decimal.Decimal {
	v := perOzUSD
	if t.Currency != "USD" {
		v = v.Mul(perUSD)
	}
	if t.Unit != metals.Ounce && t.Unit != "" {
		if p, err := metals.PricePer(v, t.Unit); err == nil {
			v = p
		}
	}
	return v
}

// Daily gives each day's factor of dollars into the target's currency (the last rate on or
// before the day), remembering days already asked.
type Daily struct {
	q    *Quoter
	ctx  context.Context
	t    Target
	memo map[int64]decimal.Decimal
}

// Daily starts day-by-day conversion into t.
func (q *Quoter) Daily(ctx context.Context, t Target) *Daily {
	return &Daily{q: q, ctx: ctx, t: t, memo: map[int64]decimal.Decimal{}}
}

// PerUSD is units of the target's currency per dollar on day. Before the euro a currency
// without an older rate takes its first one.
func (d *Daily) PerUSD(day time.Time) (decimal.Decimal, error) {
	if d.t.Currency == "USD" {
		return decimal.NewFromInt(1), nil
	}
	k := day.Unix() / 86400
	if f, ok := d.memo[k]; ok {
		return f, nil
	}
	at := day
	if at.Before(fx.ECBStart) {
		if _, err := d.q.rates.Lookup(d.ctx, d.t.Currency, at); err != nil {
			at = fx.ECBStart
		}
	}
	_, f, err := d.q.factor(d.ctx, d.t.Currency, at)
	if err != nil {
		return decimal.Zero, err
	}
	d.memo[k] = f
	return f, nil
}

// perOz is a dollar price per ounce in the target's currency, still per ounce.
func (t Target) perOz(usdPerOz decimal.Decimal) decimal.Decimal { return t.Money(usdPerOz) }

// perUnit re-expresses a price per ounce (already in the target's currency) per its unit.
func (t Target) perUnit(perOz decimal.Decimal) decimal.Decimal {
	if t.Unit == metals.Ounce || t.Unit == "" {
		return perOz
	}
	p, err := metals.PricePer(perOz, t.Unit)
	if err != nil {
		return perOz
	}
	return p
}

// Junk re-expresses a junk-silver result: its melt values are the same ounces at spot in the
// target's currency (each line to the cent, totals their sums, as in dollars), and the spot
// shown per the target's unit. Face values stay US dollars: they are what is stamped on the coins.
func (t Target) Junk(r portfolio.JunkSilver) portfolio.JunkSilver {
	if t.IsUSDOunce() {
		return r
	}
	qty := map[string]int64{}
	for _, c := range r.Coins {
		qty[c.Type] = c.Quantity
	}
	faces := map[string]decimal.Decimal{}
	for _, f := range r.Face {
		faces[f.Type] = f.FaceValue
	}
	spot := r.Spot
	spot.Price = t.perOz(r.Spot.Price)
	out := portfolio.MeltWithFace(qty, faces, r.Basis, spot)
	out.Spot.Price = t.perUnit(spot.Price)
	return out
}

// Speculation re-expresses a what-if in the target: targets (metal → raw text, in the target's
// currency per its unit; 400 naming the metal when unreadable) against today's prices in it,
// the member's stack at both in the currency. Prices are shown per the target's unit.
func (t Target) Speculation(s portfolio.Speculation, targets map[string]string) (portfolio.Speculation, error) {
	if t.IsUSDOunce() {
		return s, nil
	}
	given, err := portfolio.ParseTargets(targets)
	if err != nil {
		return s, err
	}
	cur, tgt := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
	for m, p := range s.Current {
		cur[m] = t.perOz(p)
	}
	for m, p := range given {
		// A price per unit is per ounce × the ounces in one unit: back to per ounce.
		if t.Unit != metals.Ounce {
			if q, err := metals.Convert(p, metals.Ounce, t.Unit); err == nil {
				p = q
			}
		}
		tgt[m] = p
	}
	var held map[metals.Metal]decimal.Decimal
	if s.Portfolio != nil {
		held = map[metals.Metal]decimal.Decimal{}
		for m, l := range s.Portfolio.Metals {
			held[m] = l.Oz
		}
	}
	out := portfolio.Project(cur, tgt, held)
	out.Stale, out.Note = s.Stale, s.Note
	for m := range out.Current {
		out.Current[m], out.Targets[m] = t.perUnit(out.Current[m]), t.perUnit(out.Targets[m])
	}
	for _, row := range out.Scenarios {
		for m := range row {
			row[m] = t.perUnit(row[m])
		}
	}
	return out, nil
}
