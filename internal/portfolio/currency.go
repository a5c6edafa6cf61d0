package portfolio

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// Valuation in any currency (issue 25). Spot is in US dollars per troy ounce, so a value is
// fine oz × spot × the currency's rate now; a lot's cost is in the currency it was paid in and
// counts at the rate of its purchase day (the last rate on or before it), unless it was paid in
// the currency asked for, when it keeps its exact cost. Realized profit is a sale's proceeds
// less fees at the rate of its sale day less its cost at the rate of its lot's purchase day, as
// the gains report counts it.

// Rates is what the portfolio reads of the exchange rates; *fx.Service provides it.
type Rates interface {
	Lookup(ctx context.Context, currency string, date time.Time) (fx.Rate, error)
	Supported(ctx context.Context) []string
}

// FXUsed says which rate converted a valuation's dollars into its currency.
type FXUsed struct {
	// Currency is the ISO 4217 code of every amount of the valuation.
	Currency string
	// RateDate is the day of the rate used for today's values (zero for USD); Stale is true
	// when that rate is old (offline, the ECB file unreachable).
	RateDate time.Time
	Stale    bool
	// PerUSD is units of Currency per US dollar at RateDate (1 for USD).
	PerUSD decimal.Decimal
}

// Currency resolves the currency a member asked for: code when given (400 naming field when
// unknown, listing the supported codes), else the member's display currency.
func (s *Service) Currency(ctx context.Context, u db.User, code, field string) (string, error) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if code == "" {
		return memberCurrency(u), nil
	}
	if code == "USD" {
		return code, nil
	}
	if s.rates == nil {
		return "", apperr.InvalidField(field, fmt.Sprintf("unknown currency %q; supported: USD", code))
	}
	supported := s.today.supported(ctx, s.rates, s.now())
	if !slices.Contains(supported, code) {
		return "", apperr.InvalidField(field, fmt.Sprintf("unknown currency %q; supported: %s", code, strings.Join(supported, ", ")))
	}
	return code, nil
}

// converter turns amounts into one currency at a day's rate, remembering the factors it found.
type converter struct {
	ctx   context.Context
	rates Rates
	to    string
	memo  map[convKey]decimal.Decimal
}

type convKey struct {
	from string
	day  int64
}

// convPlaces is the precision of a conversion factor: far below a cent of any amount.
const convPlaces = 20

// factor is what one unit of from is worth in c.to on day.
func (c *converter) factor(from string, day time.Time) (decimal.Decimal, error) {
	if from == "" {
		from = "USD"
	}
	if from == c.to {
		return decimal.NewFromInt(1), nil
	}
	k := convKey{from, day.Unix() / 86400}
	if f, ok := c.memo[k]; ok {
		return f, nil
	}
	f, err := DayFactor(c.ctx, c.rates, from, c.to, day)
	if err != nil {
		return decimal.Zero, err
	}
	if c.memo == nil {
		c.memo = map[convKey]decimal.Decimal{}
	}
	c.memo[k] = f
	return f, nil
}

// pair are the rates of from and of c.to that convert on day (DayRates).
func (c *converter) pair(from string, day time.Time) (fx.Rate, fx.Rate, error) {
	return DayRates(c.ctx, c.rates, from, c.to, day)
}

// DayFactor is what one unit of from is worth in to on day, at both currencies' rates of that
// day (DayRates), crossed by CrossFactor.
func DayFactor(ctx context.Context, rates Rates, from, to string, day time.Time) (decimal.Decimal, error) {
	rf, rt, err := DayRates(ctx, rates, from, to, day)
	if err != nil {
		return decimal.Zero, err
	}
	return CrossFactor(rf, rt), nil
}

// DayRates are the rates of from and of to that convert on day: each the last published on or
// before it; before the euro (1999) a currency without a Fed series has no rate, so its first
// one counts.
func DayRates(ctx context.Context, rates Rates, from, to string, day time.Time) (fx.Rate, fx.Rate, error) {
	at := day
	if at.Before(fx.ECBStart) {
		if _, err := rates.Lookup(ctx, from, at); err != nil {
			at = fx.ECBStart
		} else if _, err := rates.Lookup(ctx, to, at); err != nil {
			at = fx.ECBStart
		}
	}
	rf, err := rates.Lookup(ctx, from, at)
	if err != nil {
		return fx.Rate{}, fx.Rate{}, err
	}
	rt, err := rates.Lookup(ctx, to, at)
	if err != nil {
		return fx.Rate{}, fx.Rate{}, err
	}
	return rf, rt, nil
}

// CrossFactor is what one unit of from's currency is worth in to's: through the euro when both
// have a euro rate (the ECB's own figures, unmodified), else through the dollar.
func CrossFactor(from, to fx.Rate) decimal.Decimal {
	if from.Currency == to.Currency {
		return decimal.NewFromInt(1)
	}
	if from.PerEUR != nil && to.PerEUR != nil && from.PerEUR.IsPositive() {
		return to.PerEUR.DivRound(*from.PerEUR, convPlaces)
	}
	if !from.PerUSDExact.IsPositive() {
		return decimal.Zero
	}
	return to.PerUSDExact.DivRound(from.PerUSDExact, convPlaces)
}

// convertedCosts are the money sums of one metal in the valuation's currency.
type convertedCosts struct {
	HeldCost, BoughtCost, BoughtFees, Paid, Ref, Realized decimal.Decimal
}

// costCacheTTL bounds how long converted cost sums are kept for a member, currency and ledger
// revision: a correction of an old exchange rate (`ounce fx import`) is seen within it.
const costCacheTTL = 5 * time.Minute

type costKey struct {
	user     int64
	currency string
	rev      int64
}

type costEntry struct {
	at   time.Time
	sums map[metals.Metal]convertedCosts
}

type costCache struct {
	mu sync.Mutex
	m  map[costKey]costEntry
}

func (c *costCache) get(k costKey, now time.Time) (map[metals.Metal]convertedCosts, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || now.Sub(e.at) > costCacheTTL || now.Before(e.at) {
		return nil, false
	}
	return e.sums, true
}

func (c *costCache) put(k costKey, now time.Time, sums map[metals.Metal]convertedCosts) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCharts {
		c.m = make(map[costKey]costEntry)
	}
	c.m[k] = costEntry{at: now, sums: sums}
}

// ConvertCosts sums the lots' and sales' money per metal in conv's currency: each purchase at
// its day's rate, each sale's profit in its parts (proceeds less fees on the sale day, the cost
// on the purchase day) at their days' rates; a row already in the currency (to) is taken
// exactly, and so is the cost basis a slice recorded in to from a lot bought in another
// currency (at the rate of the lot's purchase day, to the cent, as the sale said).
func ConvertCosts(rows []db.CurrencyDaySums, to string, factor func(from string, day time.Time) (decimal.Decimal, error)) (map[metals.Metal]convertedCosts, error) {
	out := map[metals.Metal]convertedCosts{}
	for _, m := range metals.All {
		out[m] = convertedCosts{HeldCost: decimal.Zero, BoughtCost: decimal.Zero, BoughtFees: decimal.Zero, Paid: decimal.Zero, Ref: decimal.Zero, Realized: decimal.Zero}
	}
	for _, r := range rows {
		m := metals.Metal(r.Metal)
		c, ok := out[m]
		if !ok {
			continue
		}
		if r.SaleCurrency != "" && r.SaleCurrency == to {
			c.Realized = c.Realized.Add(joinParts(r.SaleCostInt, r.SaleCostC, 2))
			out[m] = c
			continue
		}
		f, err := factor(r.Currency, r.Day.Time)
		if err != nil {
			return nil, err
		}
		// The USD reference (ounces at the purchase day's spot) converts from dollars.
		fUSD, err := factor("USD", r.Day.Time)
		if err != nil {
			return nil, err
		}
		if r.Sale {
			c.Realized = c.Realized.Add(joinParts(r.PLInt, r.PLC, 2).Mul(f))
		} else {
			c.HeldCost = c.HeldCost.Add(joinParts(r.HeldCostInt, r.HeldCostC, 2).Mul(f))
			c.BoughtCost = c.BoughtCost.Add(joinParts(r.CostInt, r.CostC, 2).Mul(f))
			c.BoughtFees = c.BoughtFees.Add(decimal.New(r.FeesC, -2).Mul(f))
			c.Paid = c.Paid.Add(joinParts(r.PaidInt, r.PaidC, 2).Mul(f))
			c.Ref = c.Ref.Add(joinParts(r.RefInt, r.RefE8, 8).Mul(fUSD))
		}
		out[m] = c
	}
	return out, nil
}

// joinParts is whole + frac/10^places, exact: the store's integer parts as one amount.
func joinParts(whole, frac int64, places int32) decimal.Decimal {
	return decimal.NewFromInt(whole).Add(decimal.New(frac, -places))
}

// ConvertBoard expresses the board's dollar prices in another currency at factor (units per
// dollar): price, previous close and change.
func ConvertBoard(b prices.Snapshot, factor decimal.Decimal) prices.Snapshot {
	out := b
	out.Prices = make(map[metals.Metal]prices.Spot, len(b.Prices))
	for m, sp := range b.Prices {
		sp.Price = sp.Price.Mul(factor)
		if !sp.PrevClose.IsZero() {
			sp.PrevClose = sp.PrevClose.Mul(factor)
		}
		sp.Change = sp.Change.Mul(factor)
		out.Prices[m] = sp
	}
	return out
}

// inCurrency rewrites the totals' money in currency and says which rate values today's
// dollars. Totals of a member whose every lot and sale is in currency are left exact.
func (s *Service) inCurrency(ctx context.Context, u db.User, currency string, totals []db.MetalTotals) (FXUsed, decimal.Decimal, error) {
	used := FXUsed{Currency: currency, PerUSD: decimal.NewFromInt(1)}
	if currency == "USD" {
		mixed, err := s.outsideUSD(ctx, u.ID)
		if err != nil || !mixed {
			return used, decimal.NewFromInt(1), err
		}
	}
	if s.rates == nil {
		return used, decimal.Zero, apperr.New(apperr.Unavailable, "exchange rates are not available")
	}
	conv := &converter{ctx: ctx, rates: s.rates, to: currency}
	now := s.now()
	perUSD := decimal.NewFromInt(1)
	if currency != "USD" {
		r, f, err := s.today.rate(ctx, s.rates, currency, now)
		if err != nil {
			return used, decimal.Zero, err
		}
		used.RateDate, used.Stale, used.PerUSD = r.RateDate, r.Stale, r.PerUSD
		perUSD = f
	}
	rev, err := s.store.LedgerRevision(ctx, u.ID)
	if err != nil {
		return used, decimal.Zero, err
	}
	k := costKey{u.ID, currency, rev}
	sums, ok := s.costs.get(k, now)
	if !ok {
		rows, err := s.store.CurrencySums(ctx, u.ID)
		if err != nil {
			return used, decimal.Zero, err
		}
		if sums, err = ConvertCosts(rows, currency, conv.factor); err != nil {
			return used, decimal.Zero, err
		}
		s.costs.put(k, now, sums)
	}
	for i := range totals {
		c := sums[totals[i].Metal]
		t := &totals[i]
		t.HeldCost, t.Realized = c.HeldCost, c.Realized
		t.BoughtCost, t.BoughtFees, t.Paid, t.Ref = c.BoughtCost, c.BoughtFees, c.Paid, c.Ref
	}
	return used, perUSD, nil
}

// historyIn re-expresses a dollar chart in currency: each point's value at that day's rate, and
// the cost basis held that day as each lot's cost at its purchase day's rate (exact for lots
// bought in currency), less the cost basis of the sales made by then.
func (s *Service) historyIn(ctx context.Context, u db.User, h History, currency string) (History, error) {
	if s.rates == nil {
		return h, apperr.New(apperr.Unavailable, "exchange rates are not available")
	}
	conv := &converter{ctx: ctx, rates: s.rates, to: currency}
	events, err := s.store.CostEvents(ctx, u.ID)
	if err != nil {
		return h, err
	}
	type costAt struct {
		day  time.Time
		cost decimal.Decimal
	}
	evs := make([]costAt, 0, len(events))
	for _, e := range events {
		f, err := conv.factor(e.Currency, e.Bought.Time)
		if err != nil {
			return h, err
		}
		evs = append(evs, costAt{e.Day.Time, joinParts(e.CostInt, e.CostC, 2).Mul(f)})
	}
	slices.SortStableFunc(evs, func(a, b costAt) int { return a.day.Compare(b.day) })
	out := h
	out.Points = make([]HistoryPoint, len(h.Points))
	cost, j := decimal.Zero, 0
	for i, p := range h.Points {
		for j < len(evs) && !evs[j].day.After(p.Date) {
			cost = cost.Add(evs[j].cost)
			j++
		}
		f, err := conv.factor("USD", p.Date)
		if err != nil {
			return h, err
		}
		out.Points[i] = HistoryPoint{Date: p.Date, Value: p.Value.Mul(f), Cost: cost}
	}
	out.FX = FXUsed{Currency: currency, PerUSD: decimal.NewFromInt(1)}
	if currency != "USD" {
		r, err := s.rates.Lookup(ctx, currency, s.now())
		if err != nil {
			return h, err
		}
		out.FX.RateDate, out.FX.Stale, out.FX.PerUSD = r.RateDate, r.Stale, r.PerUSD
	}
	return out, nil
}

// todayTTL bounds how long today's rate of a currency and the list of supported codes are
// kept: a refresh or an import is seen within it, and a valuation does not ask the rate store
// on every request.
const todayTTL = time.Minute

// todayCache keeps each currency's rate of today (and the dollar's factor into it) and the
// supported codes, for todayTTL.
type todayCache struct {
	mu    sync.Mutex
	rates map[string]todayRate
	codes []string
	at    time.Time
}

type todayRate struct {
	at     time.Time
	rate   fx.Rate
	perUSD decimal.Decimal
}

func fresh(at, now time.Time) bool { return !at.IsZero() && !now.Before(at) && now.Sub(at) < todayTTL }

// rate is currency's rate of now and what a dollar is worth in it (through the euro).
func (c *todayCache) rate(ctx context.Context, rates Rates, currency string, now time.Time) (fx.Rate, decimal.Decimal, error) {
	c.mu.Lock()
	e, ok := c.rates[currency]
	c.mu.Unlock()
	if ok && fresh(e.at, now) && e.rate.Date.Equal(time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)) {
		return e.rate, e.perUSD, nil
	}
	r, err := rates.Lookup(ctx, currency, now)
	if err != nil {
		return fx.Rate{}, decimal.Zero, err
	}
	usd, err := rates.Lookup(ctx, "USD", now)
	if err != nil {
		return fx.Rate{}, decimal.Zero, err
	}
	f := CrossFactor(usd, r)
	c.mu.Lock()
	if c.rates == nil {
		c.rates = map[string]todayRate{}
	}
	c.rates[currency] = todayRate{at: now, rate: r, perUSD: f}
	c.mu.Unlock()
	return r, f, nil
}

// supported is the list of codes with rates.
func (c *todayCache) supported(ctx context.Context, rates Rates, now time.Time) []string {
	c.mu.Lock()
	if fresh(c.at, now) {
		codes := c.codes
		c.mu.Unlock()
		return codes
	}
	c.mu.Unlock()
	codes := rates.Supported(ctx)
	c.mu.Lock()
	c.codes, c.at = codes, now
	c.mu.Unlock()
	return codes
}

// mixedAt is whether a member had lots outside USD at a ledger revision.
type mixedAt struct {
	rev   int64
	mixed bool
}

// outsideUSD reports whether any of the member's lots or sales is in another currency than
// USD, kept per ledger revision (every write of a lot or sale moves it), so a dollar member's
// valuation reads one revision rather than their lots.
func (s *Service) outsideUSD(ctx context.Context, userID int64) (bool, error) {
	rev, err := s.store.LedgerRevision(ctx, userID)
	if err != nil {
		return false, err
	}
	if v, ok := s.mixed.Load(userID); ok && v.(mixedAt).rev == rev {
		return v.(mixedAt).mixed, nil
	}
	mixed, err := s.store.HasLotsOutside(ctx, userID, "USD")
	if err != nil {
		return false, err
	}
	s.mixed.Store(userID, mixedAt{rev, mixed})
	return mixed, nil
}

// CostsIn is each holding's total cost (every unit bought, fees included) in currency: at the
// rate of its purchase day (the last published on or before it; an undated lot's on the UTC day
// it was recorded, as the value-over-time chart counts it), exact for a lot bought in currency.
func (s *Service) CostsIn(ctx context.Context, currency string, hs []Holding) ([]decimal.Decimal, error) {
	conv := &converter{ctx: ctx, rates: s.rates, to: currency}
	out := make([]decimal.Decimal, len(hs))
	for i, h := range hs {
		if h.Currency() == currency {
			out[i] = h.TotalCost()
			continue
		}
		if s.rates == nil {
			return nil, apperr.New(apperr.Unavailable, "exchange rates are not available")
		}
		day := h.PurchaseDate.Time
		if h.PurchaseDate.IsZero() {
			c := h.CreatedAt.UTC()
			day = time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.UTC)
		}
		f, err := conv.factor(h.Currency(), day)
		if err != nil {
			return nil, err
		}
		out[i] = h.TotalCost().Mul(f)
	}
	return out, nil
}
