package advisor

import (
	"context"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// Rates is the exchange-rate service as the advisor needs it (*fx.Service).
type Rates interface {
	Lookup(ctx context.Context, currency string, date time.Time) (fx.Rate, error)
}

// view is the money a member reads: their display currency and weight unit, with the rate
// of the day that turns the data's US dollars per troy ounce into them. The zero-cost case,
// US dollars per ounce, writes exactly what the advisor always wrote.
type view struct {
	cur  string
	unit metals.Unit
	// rate is units of cur per US dollar (exact), of rateDay; stale when that rate is old.
	rate    decimal.Decimal
	rateDay time.Time
	stale   bool
}

// usdView is US dollars per troy ounce.
var usdView = view{cur: "USD", unit: metals.Ounce, rate: decimal.NewFromInt(1)}

// viewOf is the member's view at now. Without a rate for their currency (no exchange-rate
// service, or none known) figures stay in US dollars, which every figure then says.
func (s *Service) viewOf(ctx context.Context, u db.User, now time.Time) view {
	set := account.SettingsOf(u)
	v := view{cur: set.DisplayCurrency, unit: set.WeightUnit, rate: decimal.NewFromInt(1)}
	if v.cur == "USD" {
		return v
	}
	if s.fx == nil {
		v.cur = "USD"
		return v
	}
	r, err := s.fx.Lookup(ctx, v.cur, now)
	if err != nil {
		s.log.Warn("advisor: no exchange rate; figures in US dollars", "currency", v.cur, "err", err)
		v.cur = "USD"
		return v
	}
	v.rate, v.rateDay, v.stale = r.PerUSDExact, r.RateDate, r.Stale
	return v
}

// usd reports whether the view writes what the advisor always wrote: dollars per ounce.
func (v view) usd() bool { return v.cur == "USD" && v.unit == metals.Ounce }

// amount is a dollar amount in the view's currency, to the currency's minor unit.
func (v view) amount(d decimal.Decimal) decimal.Decimal {
	if v.cur == "USD" {
		return d
	}
	return d.Mul(v.rate).Round(format.MinorUnits(v.cur))
}

// perUnit is a price in dollars per troy ounce in the view's currency per its unit, to the
// currency's minor unit (a dollar-per-ounce price is kept at its source's precision).
func (v view) perUnit(d decimal.Decimal) decimal.Decimal {
	if v.usd() {
		return d
	}
	return v.ownPerUnit(d.Mul(v.rate))
}

// own is an amount already in the view's currency (the portfolio's valuation in it) to the
// currency's minor unit; dollars are kept as they are, as the advisor always wrote them.
func (v view) own(d decimal.Decimal) decimal.Decimal {
	if v.cur == "USD" {
		return d
	}
	return d.Round(format.MinorUnits(v.cur))
}

func (v view) optOwn(d *decimal.Decimal) *decimal.Decimal { return optional(d, v.own) }

// optional is f of *d, or nil when d is nil.
func optional(d *decimal.Decimal, f func(decimal.Decimal) decimal.Decimal) *decimal.Decimal {
	if d == nil {
		return nil
	}
	a := f(*d)
	return &a
}

// ownPerUnit is a price per troy ounce already in the view's currency (a spot or break-even of
// the portfolio's valuation in it) per the view's unit, to the currency's minor unit (two
// places more under 10).
func (v view) ownPerUnit(perOz decimal.Decimal) decimal.Decimal {
	if v.usd() {
		return perOz
	}
	p, err := metals.PricePer(perOz, v.unit)
	if err != nil {
		return perOz
	}
	// A small price (silver per gram: €0.9135) keeps two more places, so it is not a
	// rounding of half a percent.
	places := format.MinorUnits(v.cur)
	if p.Abs().LessThan(decimal.NewFromInt(10)) {
		places += 2
	}
	return p.Round(places)
}

func (v view) optOwnPerUnit(perOz *decimal.Decimal) *decimal.Decimal {
	return optional(perOz, v.ownPerUnit)
}

// perOz is a price per the view's unit back per troy ounce (a target price the member names
// in their unit), exact where the quotient terminates.
func (v view) perOz(perUnit decimal.Decimal) decimal.Decimal {
	if v.unit == metals.Ounce || !v.unit.Valid() {
		return perUnit
	}
	oz, err := metals.Convert(decimal.NewFromInt(1), v.unit, metals.Ounce)
	if err != nil || !oz.IsPositive() {
		return perUnit
	}
	return perUnit.DivRound(oz, 20)
}

// weight writes fine troy ounces in the view's unit: "10 oz", "311.0348 g".
func (v view) weight(oz decimal.Decimal) string {
	if v.unit == metals.Ounce || !v.unit.Valid() {
		return ounces(oz)
	}
	w, err := metals.Convert(oz, metals.Ounce, v.unit)
	if err != nil {
		return ounces(oz)
	}
	return format.Oz(w) + " " + string(v.unit)
}

// currencyWords names a currency for the model: "US dollars", "EUR (€)".
func currencyWords(cur string) string {
	if cur == "USD" {
		return "US dollars"
	}
	out := cur
	if sym := strings.TrimSpace(format.Symbol(cur)); sym != cur {
		out += " (" + sym + ")"
	}
	return out
}

// money writes an amount already in the view's currency: "$1,234.50", "€1,136.54".
func (v view) money(d decimal.Decimal) string {
	if v.cur == "USD" {
		return money(d)
	}
	return format.Money(d, v.cur)
}

// signedMoney writes a change already in the view's currency.
func (v view) signedMoney(d decimal.Decimal) string {
	if v.cur == "USD" {
		return signedMoney(d)
	}
	return format.SignedMoney(d, v.cur)
}

// price writes a price already in the view's currency and unit, with the unit: "$4,405.80/oz",
// "€122.57/g".
func (v view) price(d decimal.Decimal) string {
	if v.usd() {
		return price(d) + "/oz"
	}
	return format.PricePerUnit(d, v.cur, string(v.unit))
}

// note says what the figures are in, when that is not dollars per ounce: the currency by
// name and code and the day of the rate ("Money is in EUR at the exchange rate of 20 Nov
// 2026; prices are per gram."). Empty for dollars per ounce.
func (v view) note() string {
	if v.usd() {
		return ""
	}
	out := ""
	if v.cur != "USD" {
		out = "Money is in " + v.cur
		if sym := strings.TrimSpace(format.Symbol(v.cur)); sym != v.cur {
			out += " (" + sym + ")"
		}
		out += " at the exchange rate of " + day(v.rateDay)
		if v.stale {
			out += ", the newest known, not today's"
		}
		out += "."
	}
	if v.unit != metals.Ounce {
		if out != "" {
			out += " "
		}
		out += "Prices are per " + unitWord[v.unit] + "."
	}
	return out
}

var unitWord = map[metals.Unit]string{metals.Ounce: "troy ounce", metals.Gram: "gram", metals.Kilogram: "kilogram", metals.Tola: "tola"}

// memberView is the view of a signed-in member (dollars per ounce for anyone else): the view
// answers are written in and the model is told to answer in.
func (s *Service) memberView(ctx context.Context, u db.User) view {
	if u.ID == 0 {
		return usdView
	}
	return s.viewOf(ctx, u, s.now())
}
