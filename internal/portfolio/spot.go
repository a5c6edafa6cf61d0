package portfolio

import (
	"context"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// spotAtPurchase is the spot price a lot is measured against: the metal's close on its
// purchase date, or the last close before it (the monthly average before daily data begins).
// Undated lots and days more than a week after the newest close have none, because a stale
// close would mislead. It is stored with each lot on every write and refreshed when the
// price history changes (RefreshSpots), so nothing prices purchases per request.
type spotFinder func(m metals.Metal, day db.Date) decimal.NullDecimal

// spotFinder returns the lookup over the current history (cheap to call per lot once built).
func (s *Service) spotFinder() spotFinder {
	if s.market == nil {
		return func(metals.Metal, db.Date) decimal.NullDecimal { return decimal.NullDecimal{} }
	}
	on := s.spotOn()
	return func(m metals.Metal, day db.Date) decimal.NullDecimal {
		if day.IsZero() {
			return decimal.NullDecimal{}
		}
		p, ok := on(m, day.Time)
		if !ok || !p.IsPositive() {
			return decimal.NullDecimal{}
		}
		return decimal.NullDecimal{Decimal: p, Valid: true}
	}
}

// withSpot sets the lot's spot at purchase from its metal and date.
func (f spotFinder) withSpot(h *Holding) { h.SpotAtPurchase = f(h.Metal, h.PurchaseDate) }

// spotOn returns, per metal, the historical spot for a purchase day: the last daily close on
// or before it. A day more than a week after the last close has none.
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

// RefreshSpots recomputes the stored spot at purchase of every dated lot of every member
// against the current price history, writing only the lots whose spot changed. It returns
// how many changed. Run after the history is loaded or corrected (RunSpotRefresh does).
func (s *Service) RefreshSpots(ctx context.Context) (int, error) {
	find := s.spotFinder()
	changed, after := 0, ""
	for {
		page, err := s.store.LotSpots(ctx, after, 1000)
		if err != nil {
			return changed, err
		}
		for _, l := range page {
			want := find(metals.Metal(l.Metal), l.PurchaseDate)
			if want.Valid == l.SpotAtPurchase.Valid && (!want.Valid || want.Decimal.Equal(l.SpotAtPurchase.Decimal)) {
				continue
			}
			if err := s.store.SetLotSpot(ctx, l, want, PremiumRef(l.Quantity, l.WeightOz, l.PurchasePrice, want)); err != nil {
				return changed, err
			}
			changed++
		}
		if len(page) < 1000 {
			return changed, nil
		}
		after = page[len(page)-1].ID
	}
}

// spotRefreshLockKey is the advisory lock of the refresh, so one instance does it.
const spotRefreshLockKey = 0x6f756e63650712

// RunSpotRefresh refreshes stored spots whenever the price history changes (its generation
// moves): at start, when the history is first loaded, and after any correction. It looks
// every interval, and at once when the price service re-reads its history from the database
// (an import picked up). It returns when ctx ends; without a price service there is nothing
// to do.
func (s *Service) RunSpotRefresh(ctx context.Context, every time.Duration) {
	if s.market == nil {
		return
	}
	s.store.RunAsLeader(ctx, spotRefreshLockKey, time.Minute, func(ctx context.Context) {
		var done uint64
		first := true
		for {
			// Taken before the generation is read, so a reload in between still wakes the wait.
			var reloaded <-chan struct{}
			if r, ok := s.market.(interface{ Reloaded() <-chan struct{} }); ok {
				reloaded = r.Reloaded()
			}
			if g := s.market.Generation(); first || g != done {
				n, err := s.RefreshSpots(ctx)
				if err != nil {
					s.log.Warn("spot at purchase refresh failed", "err", err)
				} else {
					first, done = false, g
					if n > 0 {
						s.log.Info("spot at purchase refreshed", "lots", n, "generation", g)
					}
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			case <-reloaded:
			}
		}
	})
}
