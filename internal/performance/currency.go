package performance

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
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// Performance in any currency (issue 25's rule, as the value-over-time chart): a day's value
// is fine oz × that day's USD close × that day's rate (the last one on or before it); a flow
// (a purchase at cost, a sale's net proceeds, its realized profit) counts at the rate of its
// own day, unless it is in the currency asked for, when it is taken exactly. So the returns,
// gains and the benchmark are all in one currency, whatever currencies the lots were paid in.

// Rates is what the service reads of the exchange rates, the same as the portfolio's;
// *fx.Service provides it.
type Rates = portfolio.Rates

// Converter turns amounts of one currency into the answer's at a day's rate.
type Converter interface {
	Currency() string
	// Factor is what one unit of from is worth in Currency on day: exactly 1 when from is
	// Currency; ok false when there is no rate for that day.
	Factor(from string, day time.Time) (decimal.Decimal, bool)
}

// USD is the identity Converter of a dollar answer without exchange rates.
type USD struct{}

// Currency is "USD".
func (USD) Currency() string { return "USD" }

// Factor is 1 from dollars; there is no rate from anything else.
func (USD) Factor(from string, _ time.Time) (decimal.Decimal, bool) {
	return one, from == "" || from == "USD"
}

// factorTTL bounds how long a day's conversion factor is kept: a corrected old rate (`ounce
// fx import`) or the day's refresh is seen within it, and a recomputation (after an edit, or
// a live tick) does not ask the rate store again for thousands of days.
const factorTTL = 5 * time.Minute

// maxFactors bounds the kept factors (one per currency pair and day: 11 years is ~4,000).
const maxFactors = 200_000

type factorKey struct {
	from, to string
	day      int64
}

// factorCache keeps conversion factors for factorTTL, all dropped together.
type factorCache struct {
	mu sync.Mutex
	at time.Time
	m  map[factorKey]decimal.Decimal
}

func (c *factorCache) get(k factorKey, now time.Time) (decimal.Decimal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Before(c.at) || now.Sub(c.at) > factorTTL {
		c.m, c.at = nil, now
	}
	f, ok := c.m[k]
	return f, ok
}

func (c *factorCache) put(k factorKey, f decimal.Decimal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxFactors {
		c.m = make(map[factorKey]decimal.Decimal)
	}
	c.m[k] = f
}

// epoch is the factor cache's current span, part of an answer's cache state: an answer in
// another currency is recomputed when the factors it used may have been refreshed.
func (c *factorCache) epoch(now time.Time) int64 { return now.Unix() / int64(factorTTL/time.Second) }

// fxConverter converts with the exchange rates, through the euro (before 1999 the dollar), as
// the portfolio's valuation does (portfolio.CrossFactor).
type fxConverter struct {
	ctx   context.Context
	rates Rates
	to    string
	cache *factorCache
	now   time.Time
	err   error // the first lookup error, for a note
}

func (c *fxConverter) Currency() string { return c.to }

func (c *fxConverter) Factor(from string, day time.Time) (decimal.Decimal, bool) {
	if from == "" {
		from = "USD"
	}
	if from == c.to {
		return one, true
	}
	k := factorKey{from, c.to, day.Unix() / 86400}
	if f, ok := c.cache.get(k, c.now); ok {
		return f, !f.IsZero()
	}
	f, err := portfolio.DayFactor(c.ctx, c.rates, from, c.to, day)
	if err != nil {
		if c.err == nil {
			c.err = err
		}
		f = decimal.Zero
	}
	c.cache.put(k, f)
	return f, !f.IsZero()
}

// currency resolves the currency asked for: code when given (Invalid naming "currency" and
// listing the supported codes when unknown), else the member's display currency (USD when the
// server has no exchange rates).
func (s *Service) currency(ctx context.Context, u db.User, code string) (string, error) {
	code = strings.ToUpper(strings.TrimSpace(code))
	if code == "" {
		if s.rates == nil || u.DisplayCurrency == "" {
			return "USD", nil
		}
		return strings.ToUpper(u.DisplayCurrency), nil
	}
	if code == "USD" {
		return code, nil
	}
	supported := []string{"USD"}
	if s.rates != nil {
		supported = s.rates.Supported(ctx)
	}
	if !slices.Contains(supported, code) {
		return "", apperr.InvalidField("currency", fmt.Sprintf("unknown currency %q; supported: %s", code, strings.Join(supported, ", ")))
	}
	return code, nil
}

// converter is the Converter into currency.
func (s *Service) converter(ctx context.Context, currency string) Converter {
	if s.rates == nil {
		return USD{}
	}
	return &fxConverter{ctx: ctx, rates: s.rates, to: currency, cache: &s.factors, now: s.now()}
}

// inCurrency puts the ledger days' money in conv's currency. A stack bought wholly in that
// currency keeps the ledger's exact sums; otherwise the purchases and sales are read per
// purchase currency and each is converted at its own day's rate. ok is false (with a note) when
// a flow has no rate.
func (s *Service) inCurrency(ctx context.Context, u db.User, conv Converter, days []db.PerformanceDay, rev int64) ([]db.PerformanceDay, string, error) {
	outside, err := s.hasLotsOutside(ctx, u.ID, conv.Currency(), rev)
	if err != nil || !outside {
		return days, "", err
	}
	rows, err := s.store.PerformanceCurrencyDays(ctx, u.ID)
	if err != nil {
		return nil, "", err
	}
	type key struct {
		metal metals.Metal
		day   int64
	}
	type money struct{ bought, proceeds, realized decimal.Decimal }
	conv2 := map[key]money{}
	for _, r := range rows {
		f, ok := conv.Factor(r.Currency, r.Day.Time)
		if !ok {
			return days, fmt.Sprintf("there is no %s rate into %s for %s, so flows in %s cannot be counted", r.Currency, conv.Currency(), isoDay(r.Day.Time), r.Currency), nil
		}
		k := key{r.Metal, r.Day.Unix() / 86400}
		m, seen := conv2[k]
		if !seen {
			m = money{decimal.Zero, decimal.Zero, decimal.Zero}
		}
		m.bought, m.proceeds, m.realized = m.bought.Add(r.Bought.Mul(f)), m.proceeds.Add(r.Proceeds.Mul(f)), m.realized.Add(r.Realized.Mul(f))
		conv2[k] = m
	}
	out := make([]db.PerformanceDay, len(days))
	for i, d := range days {
		m, seen := conv2[key{d.Metal, d.Day.Unix() / 86400}]
		if !seen {
			m = money{decimal.Zero, decimal.Zero, decimal.Zero}
		}
		d.Bought, d.Proceeds, d.Realized = m.bought, m.proceeds, m.realized
		out[i] = d
	}
	return out, "", nil
}

// outsideCache keeps, per member and currency, whether any lot or sale is in another currency,
// as of a ledger revision: every write of a lot or sale (its currency included) moves it.
type outsideCache struct {
	mu sync.Mutex
	m  map[outsideKey]outsideAt
}

type outsideKey struct {
	user     int64
	currency string
}

type outsideAt struct {
	rev     int64
	outside bool
}

// maxOutside bounds the kept answers (a few bytes each).
const maxOutside = 100_000

// hasLotsOutside is the store's HasLotsOutside, kept per ledger revision rev (read before).
func (s *Service) hasLotsOutside(ctx context.Context, user int64, currency string, rev int64) (bool, error) {
	k := outsideKey{user, currency}
	s.outside.mu.Lock()
	a, ok := s.outside.m[k]
	s.outside.mu.Unlock()
	if ok && a.rev == rev {
		return a.outside, nil
	}
	outside, err := s.store.HasLotsOutside(ctx, user, currency)
	if err != nil {
		return false, err
	}
	s.outside.mu.Lock()
	defer s.outside.mu.Unlock()
	if s.outside.m == nil || len(s.outside.m) >= maxOutside {
		s.outside.m = map[outsideKey]outsideAt{} // crude but bounded
	}
	if old, ok := s.outside.m[k]; !ok || old.rev <= rev {
		s.outside.m[k] = outsideAt{rev, outside}
	}
	return outside, nil
}

// rateNote says which exchange rate values a period's end, when it is old.
func rateNote(conv Converter, end time.Time) string {
	c, ok := conv.(*fxConverter)
	if !ok || c.to == "USD" {
		return ""
	}
	r, err := c.rates.Lookup(c.ctx, c.to, end)
	if err != nil || !r.Stale {
		return ""
	}
	return fmt.Sprintf("the %s rate for %s is the newest held, of %s (stale)", c.to, isoDay(end), isoDay(r.RateDate))
}
