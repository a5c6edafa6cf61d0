package portfolio

import (
	"context"
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
	// FX names the currency of every amount and the rate that converted today's dollars.
	FX FXUsed
	// ByLocation and ByForm split the value held by storage location and product form
	// (allocation.go); nil when a held metal has no price.
	ByLocation, ByForm []Slice
}

// Analytics computes the member's analytics at the live board.
func (s *Service) Analytics(ctx context.Context, u db.User) (Analytics, error) {
	return s.AnalyticsIn(ctx, u, "USD")
}

// AnalyticsIn computes the member's analytics in currency (resolved by Currency).
func (s *Service) AnalyticsIn(ctx context.Context, u db.User, currency string) (Analytics, error) {
	p, totals, err := s.value(ctx, u, db.WithPurchases, currency)
	if err != nil {
		return Analytics{}, err
	}
	// Each lot carries its spot at purchase, so the premium's sums come with the totals.
	paid, ref := map[metals.Metal]decimal.Decimal{}, map[metals.Metal]decimal.Decimal{}
	for _, t := range totals {
		paid[t.Metal], ref[t.Metal] = t.Paid, t.Ref
	}
	a := Analyze(p, totals, paid, ref)
	a.ByLocation, a.ByForm, err = s.Allocations(ctx, u, p)
	return a, err
}

// Analyze is the analytics math over a valuation and the totals it came from (same order),
// with, per metal, what was paid for dated, priced purchases and what those ounces were worth
// at the historical spot of their days.
func Analyze(p Portfolio, totals []db.MetalTotals, paid, ref map[metals.Metal]decimal.Decimal) Analytics {
	out := Analytics{AsOf: p.AsOf, Stale: p.Stale, FX: p.FX}
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
