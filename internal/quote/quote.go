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

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// Rates is what quoting reads of the exchange rates; *fx.Service provides it.
type Rates interface {
	Lookup(ctx context.Context, currency string, date time.Time) (fx.Rate, error)
	Supported(ctx context.Context) []string
}

// Quoter resolves and converts; a nil Rates knows only the dollar.
type Quoter struct {
	rates Rates
	now   func() time.Time
}

// New builds a Quoter over rates (nil: USD only).
func New(rates Rates, now func() time.Time) *Quoter {
	if now == nil {
		now = time.Now
	}
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
func (q *Quoter) Resolve(ctx context.Context, u *db.User, currency, unit string, perWeight bool) (Target, error) {
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
		pu, err := metals.ParseUnit(un)
		if err != nil {
			return t, apperr.InvalidField("unit", "unknown unit "+fmt.Sprintf("%q", unit)+"; one of "+strings.Join(metals.UnitNames(), ", "))
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
		t.Named = true
	}
	return t, nil
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
