package prices

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// Agg is the aggregated price of one metal: the Quote Ounce publishes plus how
// it was made, so a reader can judge how much the providers agree.
type Agg struct {
	Quote
	// Sources are the providers that priced the metal, in configured order.
	Sources []string
	// SpreadPct is (max−min)/median×100 across Sources, rounded to 2 places;
	// zero with a single source.
	SpreadPct decimal.Decimal
}

// Multi asks several providers at once and combines their answers per metal.
// The median resists one provider going wrong, which a failover chain cannot.
type Multi struct {
	// Providers in configured order. The order never changes a price (a median
	// does not care); it only orders Sources and the joined Source name.
	Providers []Provider
	// Logger, when set, receives a warning for each provider that failed while
	// others answered (that failure is otherwise invisible to the caller).
	Logger *slog.Logger
}

// NewMulti is a convenience for Multi{Providers: providers}.
func NewMulti(providers ...Provider) *Multi { return &Multi{Providers: providers} }

type providerResult struct {
	idx    int
	quotes map[metals.Metal]Quote
	err    error
}

// Latest asks every provider concurrently and aggregates per metal: the median
// of two or more answers (mean of the middle two for an even count, rounded to
// cents), or the single answer. Quotes that fail CheckPrice are dropped.
//
// It returns an error only when no provider priced any metal; that error wraps
// every provider's error. If ctx ends first, the answers in hand are used.
func (mu *Multi) Latest(ctx context.Context) (map[metals.Metal]Agg, error) {
	if len(mu.Providers) == 0 {
		return nil, errors.New("prices: no providers configured")
	}
	ch := make(chan providerResult, len(mu.Providers)) // buffered: late answers never block
	for i, p := range mu.Providers {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					ch <- providerResult{idx: i, err: fmt.Errorf("panic: %v", r)}
				}
			}()
			q, err := p.Latest(ctx)
			ch <- providerResult{idx: i, quotes: q, err: err}
		}()
	}
	results := make([]*providerResult, len(mu.Providers))
collect:
	for range mu.Providers {
		select {
		case r := <-ch:
			results[r.idx] = &r
		case <-ctx.Done():
			break collect
		}
	}

	perMetal := make(map[metals.Metal][]Quote, len(metals.All))
	var errs []error
	for i, r := range results {
		name := mu.Providers[i].Name()
		if r == nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, context.Cause(ctx)))
			continue
		}
		if r.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, r.err))
		}
		for _, m := range metals.All {
			q, ok := r.quotes[m]
			if !ok {
				continue
			}
			if err := CheckPrice(m, q.Price); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", name, err))
				continue
			}
			q.Metal = m
			if q.Source == "" {
				q.Source = name
			}
			perMetal[m] = append(perMetal[m], q)
		}
	}
	if len(perMetal) == 0 {
		return nil, fmt.Errorf("prices: no provider answered: %w", errors.Join(errs...))
	}
	if mu.Logger != nil {
		for _, err := range errs {
			mu.Logger.Warn("price provider failed", "err", err)
		}
	}
	out := make(map[metals.Metal]Agg, len(perMetal))
	for m, qs := range perMetal {
		out[m] = aggregate(m, qs)
	}
	return out, nil
}

// aggregate combines quotes given in provider order.
func aggregate(m metals.Metal, qs []Quote) Agg {
	if len(qs) == 1 {
		return Agg{Quote: qs[0], Sources: []string{qs[0].Source}, SpreadPct: decimal.Zero}
	}
	names := make([]string, len(qs))
	prices := make([]decimal.Decimal, len(qs))
	asOf := qs[0].AsOf
	for i, q := range qs {
		names[i] = q.Source
		prices[i] = q.Price
		if q.AsOf.After(asOf) {
			asOf = q.AsOf
		}
	}
	slices.SortFunc(prices, func(a, b decimal.Decimal) int { return a.Cmp(b) })
	n := len(prices)
	med := prices[n/2]
	if n%2 == 0 {
		med = metals.Price(prices[n/2-1].Add(prices[n/2]).Div(decimal.NewFromInt(2)))
	}
	spread := metals.Percent(prices[n-1].Sub(prices[0]).Div(med).Mul(decimal.NewFromInt(100)))
	return Agg{
		Quote:     Quote{Metal: m, Price: med, AsOf: asOf, Source: strings.Join(names, "+")},
		Sources:   names,
		SpreadPct: spread,
	}
}
