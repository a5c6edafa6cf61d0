package portfolio

import (
	"context"
	"time"

	"github.com/shopspring/decimal"
)

// A lot paid for in another currency than the dollar is shown in that currency: its premium
// compares its price with the purchase day's spot converted at that day's rate, and its value
// on the ledger is today's dollar value at today's rate. Without a rate (no exchange rates
// configured, or none for the day) the figure is unknown (nil), never a mix of currencies.

// usdIn is what one US dollar is worth in currency on day (today's rate when day is zero);
// false when no rate answers.
func (s *Service) usdIn(ctx context.Context, currency string, day time.Time) (decimal.Decimal, bool) {
	if currency == "" || currency == "USD" {
		return decimal.NewFromInt(1), true
	}
	if s.rates == nil {
		return decimal.Zero, false
	}
	if day.IsZero() {
		_, f, err := s.today.rate(ctx, s.rates, currency, s.now())
		return f, err == nil
	}
	c := converter{ctx: ctx, rates: s.rates, to: currency}
	f, err := c.factor("USD", day)
	return f, err == nil
}

// localize sets the purchase day's spot in the lot's own currency, which its premium uses.
func (s *Service) localize(ctx context.Context, h *Holding) {
	h.spotLocal = decimal.NullDecimal{}
	if h.Currency() == "USD" || !h.SpotAtPurchase.Valid || h.PurchaseDate.IsZero() {
		return
	}
	if f, ok := s.usdIn(ctx, h.Currency(), h.PurchaseDate.Time); ok {
		h.spotLocal = decimal.NewNullDecimal(h.SpotAtPurchase.Decimal.Mul(f))
	}
}

// localizeAll is localize over a list.
func (s *Service) localizeAll(ctx context.Context, hs []Holding) {
	for i := range hs {
		s.localize(ctx, &hs[i])
	}
}

// valueInLot is a dollar value today in the lot's currency (the dollar value itself for a
// dollar lot), rounded by round; nil when no rate answers.
func (s *Service) valueInLot(ctx context.Context, h Holding, usd decimal.Decimal, round func(decimal.Decimal) decimal.Decimal) *decimal.Decimal {
	if h.Currency() == "USD" {
		v := round(usd)
		return &v
	}
	f, ok := s.usdIn(ctx, h.Currency(), time.Time{})
	if !ok {
		return nil
	}
	v := round(usd.Mul(f))
	return &v
}
