package billing

import (
	"context"
	"time"
)

// The billing page shows each plan's price as Stripe's Price object says, so a price changed
// in Stripe is the price shown. Prices change rarely: each is kept for priceTTL, a failed
// lookup is retried after priceRetry, and a stale price is shown rather than none while
// Stripe does not answer.
const (
	priceTTL   = time.Hour
	priceRetry = time.Minute
)

type cachedPrice struct {
	price   Price
	ok      bool      // price holds a real answer
	fetched time.Time // of the last answer
	tried   time.Time // of the last attempt
}

// Offer is one Gold plan as the billing page offers it.
type Offer struct {
	Plan string
	// Available is false when the server has no Stripe Price for this plan.
	Available bool
	// Known is false when the price could not be read from Stripe yet (the page then says
	// the price is shown at checkout).
	Known bool
	Price Price
}

// Offers lists the Gold plans with their prices.
func (s *Service) Offers(ctx context.Context) ([]Offer, error) {
	if err := s.RequireEnabled(); err != nil {
		return nil, err
	}
	var out []Offer
	for _, plan := range Plans() {
		o := Offer{Plan: plan}
		if id := s.priceID(plan); id != "" {
			o.Available = true
			o.Price, o.Known = s.cachedPrice(ctx, id)
		}
		out = append(out, o)
	}
	return out, nil
}

func (s *Service) cachedPrice(ctx context.Context, id string) (Price, bool) {
	now := s.now()
	s.pricesMu.Lock()
	c := s.prices[id]
	s.pricesMu.Unlock()
	if c.ok && now.Sub(c.fetched) < priceTTL || !c.tried.IsZero() && now.Sub(c.tried) < priceRetry {
		return c.price, c.ok
	}
	p, err := s.stripe.price(ctx, id)
	c.tried = now
	if err != nil {
		s.log.WarnContext(ctx, "reading a plan price from Stripe", "price", id, "err", err)
	} else {
		c.price, c.ok, c.fetched = p, true, now
	}
	s.pricesMu.Lock()
	s.prices[id] = c
	s.pricesMu.Unlock()
	return c.price, c.ok
}
