package portfolio

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// MetalAnalytics is one metal of the analytics: its valued position, what every purchase
// cost, and the premium paid over the historical spot.
type MetalAnalytics struct {
	Position
	// BoughtOz and BoughtCost are over every purchase, sold units included (fees included).
	BoughtOz, BoughtCost decimal.Decimal
	// FirstPurchase and LastPurchase are zero when no purchase of the metal is dated.
	FirstPurchase, LastPurchase db.Date
	// AvgPremiumPct compares the unit prices paid with the historical spot on each purchase
	// date (fees and zero-cost gifts left out); nil without dated purchases or history.
	AvgPremiumPct *decimal.Decimal
}

// AvgCostPerOz is what every purchase cost per fine ounce; nil without purchases.
func (m MetalAnalytics) AvgCostPerOz() *decimal.Decimal {
	if m.BoughtOz.IsZero() {
		return nil
	}
	return ptr(m.BoughtCost.Div(m.BoughtOz))
}

// AnalyticsTotals sums the metals.
type AnalyticsTotals struct {
	HeldOz, Cost                  decimal.Decimal
	Value                         *decimal.Decimal
	UnrealizedPL, UnrealizedPLPct *decimal.Decimal
	Realized                      decimal.Decimal
	Purchases, Sales              int64
	FirstPurchase, LastPurchase   db.Date
	AvgPremiumPct                 *decimal.Decimal
}

// Analytics is cost basis, break-even, allocation and premiums per metal and in total.
type Analytics struct {
	AsOf   time.Time
	Stale  bool
	Metals []MetalAnalytics // metals.All order
	Totals AnalyticsTotals
}

// Analytics computes the member's analytics at the live board.
func (s *Service) Analytics(ctx context.Context, u db.User) (Analytics, error) {
	p, totals, err := s.value(ctx, u, db.WithPurchases)
	if err != nil {
		return Analytics{}, err
	}
	paid, ref, err := s.premiumSums(ctx, u, totals)
	if err != nil {
		return Analytics{}, err
	}
	return Analyze(p, totals, paid, ref), nil
}

// Analyze is the analytics math over a valuation and the totals it came from (same order),
// with, per metal, what was paid for dated, priced purchases and what those ounces were worth
// at the historical spot of their days.
func Analyze(p Portfolio, totals []db.MetalTotals, paid, ref map[metals.Metal]decimal.Decimal) Analytics {
	out := Analytics{AsOf: p.AsOf, Stale: p.Stale}
	tot := AnalyticsTotals{HeldOz: decimal.Zero, Cost: p.TotalCost, Value: p.TotalValue, UnrealizedPL: p.UnrealizedPL,
		UnrealizedPLPct: p.UnrealizedPLPct, Realized: p.Realized}
	totPaid, totRef := decimal.Zero, decimal.Zero
	for i, pos := range p.Positions {
		t := totals[i]
		m := MetalAnalytics{Position: pos, BoughtOz: t.BoughtOz, BoughtCost: t.BoughtCost, FirstPurchase: t.FirstPurchase, LastPurchase: t.LastPurchase,
			AvgPremiumPct: Premium(paid[pos.Metal], ref[pos.Metal])}
		out.Metals = append(out.Metals, m)
		tot.HeldOz = tot.HeldOz.Add(pos.HeldOz)
		totPaid, totRef = totPaid.Add(paid[pos.Metal]), totRef.Add(ref[pos.Metal])
		tot.Purchases += pos.Purchases
		tot.Sales += pos.Sales
		if !t.FirstPurchase.IsZero() && (tot.FirstPurchase.IsZero() || t.FirstPurchase.Before(tot.FirstPurchase.Time)) {
			tot.FirstPurchase = t.FirstPurchase
		}
		if t.LastPurchase.After(tot.LastPurchase.Time) {
			tot.LastPurchase = t.LastPurchase
		}
	}
	tot.AvgPremiumPct = Premium(totPaid, totRef)
	out.Totals = tot
	return out
}

// Premium is (paid − reference) ÷ reference × 100: how much over the historical spot value
// of the same ounces was paid; nil when there is no reference.
func Premium(paid, reference decimal.Decimal) *decimal.Decimal {
	return PctOf(ptr(paid.Sub(reference)), reference)
}

// premium is a member's cached premium sums and what they were computed from.
type premium struct {
	fingerprint string
	paid, ref   map[metals.Metal]decimal.Decimal
}

// premiumCache keeps each member's premium sums until their holdings or the price history
// change: they depend on every purchase (one historical close per purchase day), but not on
// live prices. Entries are checked against a fingerprint of the totals read on every request,
// so several instances stay correct; the cache is bounded by random eviction.
type premiumCache struct {
	sync.Mutex
	m map[int64]premium
}

const premiumCacheSize = 4096

// premiumSums returns the member's premium sums, from the cache when nothing they depend on
// has changed. Within five minutes a date-only edit made by an instance whose clock runs
// behind could go unnoticed; the time bucket in the fingerprint bounds that.
func (s *Service) premiumSums(ctx context.Context, u db.User, totals []db.MetalTotals) (paid, ref map[metals.Metal]decimal.Decimal, err error) {
	paid, ref = map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
	if s.market == nil {
		return paid, ref, nil
	}
	var fp strings.Builder
	fmt.Fprintf(&fp, "%d/%d", s.market.Generation(), s.now().Unix()/300)
	for _, t := range totals {
		fmt.Fprintf(&fp, "|%d,%s,%s,%s,%s,%s,%s", t.Purchases, t.BoughtOz, t.BoughtCost, t.BoughtFees, t.FirstPurchase, t.LastPurchase, t.LastChange)
	}
	c := &s.premiums
	c.Lock()
	hit, ok := c.m[u.ID]
	c.Unlock()
	if ok && hit.fingerprint == fp.String() {
		return hit.paid, hit.ref, nil
	}
	// Purchases grouped per metal and date in SQL: one historical close per purchase day.
	changes, err := s.store.PositionChanges(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	spotOn := s.spotOn()
	for _, ch := range changes {
		if !ch.Dated || !ch.PricedOz.IsPositive() {
			continue
		}
		spot, ok := spotOn(ch.Metal, ch.Day.Time)
		if !ok {
			continue
		}
		paid[ch.Metal] = paid[ch.Metal].Add(ch.Paid)
		ref[ch.Metal] = ref[ch.Metal].Add(ch.PricedOz.Mul(spot))
	}
	c.Lock()
	if c.m == nil {
		c.m = map[int64]premium{}
	}
	if len(c.m) >= premiumCacheSize {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[u.ID] = premium{fingerprint: fp.String(), paid: paid, ref: ref}
	c.Unlock()
	return paid, ref, nil
}

// spotOn returns, per metal, the historical spot for a purchase day: the last daily close on
// or before it (the monthly average before daily data begins). A day more than a week after
// the last close has none, because a stale close would mislead.
func (s *Service) spotOn() func(m metals.Metal, day time.Time) (decimal.Decimal, bool) {
	now := s.now().UTC()
	last := map[metals.Metal]time.Time{}
	for _, m := range metals.All {
		if cs := s.market.DailyCloses(m, now.AddDate(-3, 0, 0), now); len(cs) > 0 {
			last[m] = cs[len(cs)-1].Date
		}
	}
	return func(m metals.Metal, day time.Time) (decimal.Decimal, bool) {
		if l, ok := last[m]; ok && day.After(l.AddDate(0, 0, 7)) {
			return decimal.Zero, false
		}
		return s.market.CloseOn(m, day)
	}
}
