package prices

import (
	"context"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/metals"
)

// History sizes a caller may ask for. The least is 4: the first and last close and one
// window's lowest and highest, the smallest budget Downsample keeps every window's peaks in.
const (
	MinHistoryPoints = 4
	MaxHistoryPoints = 10000
)

// SpotPrices is the price board behind GET /v1/prices and the markets page: always from
// memory, never the database. A metal never priced is absent; stale prices say so.
func (s *Service) SpotPrices(context.Context) Snapshot { return s.Snapshot() }

// HistoryQuery asks for one metal's closes. Zero values take the defaults: DefaultRange and
// DefaultMaxPoints.
type HistoryQuery struct {
	Metal     metals.Metal
	Range     Range
	MaxPoints int
}

// Check validates the query, filling in the defaults. Every problem names its field.
func (q HistoryQuery) Check() (HistoryQuery, error) {
	if q.Metal == "" {
		return q, apperr.InvalidField("metal", "is required: one of gold, silver, platinum, palladium")
	}
	if !q.Metal.Valid() {
		return q, apperr.InvalidField("metal", "must be one of gold, silver, platinum, palladium")
	}
	r, err := ExactRange(string(q.Range))
	if err != nil {
		return q, err
	}
	q.Range = r
	if q.MaxPoints == 0 {
		q.MaxPoints = DefaultMaxPoints
	}
	if q.MaxPoints < MinHistoryPoints || q.MaxPoints > MaxHistoryPoints {
		return q, apperr.InvalidField("max_points", fmt.Sprintf("must be between %d and %d", MinHistoryPoints, MaxHistoryPoints))
	}
	return q, nil
}

// ExactRange reads a range exactly as the API documents it (1M 3M 6M 1Y 5Y ALL; empty is
// DefaultRange), the way every /v1 enum is read; anything else is Invalid naming "range".
func ExactRange(s string) (Range, error) {
	if s == "" {
		return DefaultRange, nil
	}
	for _, r := range Ranges {
		if string(r) == s {
			return r, nil
		}
	}
	return "", apperr.InvalidField("range", "must be one of 1M, 3M, 6M, 1Y, 5Y, ALL")
}

// PriceHistory is the use case behind GET /v1/prices/history: a metal's closes over a range
// ending today, downsampled so peaks survive.
func (s *Service) PriceHistory(_ context.Context, q HistoryQuery) (HistoryResult, error) {
	q, err := q.Check()
	if err != nil {
		return HistoryResult{}, err
	}
	return s.History(q.Metal, q.Range, q.MaxPoints), nil
}

// Extremes returns the highest and the lowest point of the series (the first of equals);
// ok is false for an empty series.
func (r HistoryResult) Extremes() (hi, lo Close, ok bool) {
	for i, p := range r.Points {
		if i == 0 || p.Price.GreaterThan(hi.Price) {
			hi = p
		}
		if i == 0 || p.Price.LessThan(lo.Price) {
			lo = p
		}
	}
	return hi, lo, len(r.Points) > 0
}

// GoldSilverRatio is ounces of silver per ounce of gold at the board's prices; ok is false
// unless both metals are priced.
func (s Snapshot) GoldSilverRatio() (decimal.Decimal, bool) {
	g, okG := s.Prices[metals.Gold]
	sv, okS := s.Prices[metals.Silver]
	if !okG || !okS || !sv.Price.IsPositive() {
		return decimal.Zero, false
	}
	return g.Price.Div(sv.Price), true
}

// AnyStale reports whether any price on the board is last-known rather than live.
func (s Snapshot) AnyStale() bool {
	for _, sp := range s.Prices {
		if sp.Stale {
			return true
		}
	}
	return false
}

// ChangeNote says, in reader terms, why sp's change is not today's ("" when it is): which
// dates it spans and whether the price is live.
func ChangeNote(sp Spot) string {
	day := format.Date
	switch {
	case sp.ChangeIsToday():
		return ""
	case sp.PrevClose.IsZero() || sp.PrevDate.IsZero():
		return "no previous close is known, so no change is given"
	case !sp.OneSession():
		return fmt.Sprintf("change from the close of %s to %s: the previous close is not the preceding trading session", day(sp.PrevDate), day(sp.Session))
	default:
		return fmt.Sprintf("last known move, of %s (from the close of %s); not live", day(sp.Session), day(sp.PrevDate))
	}
}
