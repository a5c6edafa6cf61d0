package dealers

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
)

// History lengths in days.
const (
	DefaultHistoryDays = 30
	MaxHistoryDays     = 365
)

// observation is one premium seen on a day, stored or demo.
type observation struct {
	Dealer  string
	Day     time.Time
	Premium decimal.Decimal
}

// HistoryPoint is one day's premiums: the lowest and the median, over Quotes observations.
type HistoryPoint struct {
	Day    time.Time
	Min    decimal.Decimal
	Median decimal.Decimal
	Quotes int
}

// DealerHistory is one dealer's daily premiums.
type DealerHistory struct {
	Dealer Dealer
	Points []HistoryPoint
}

// History is a product's premium over spot, day by day.
type History struct {
	Product metals.Product
	Days    int
	// Overall is across every dealer; Dealers is per dealer, by name.
	Overall []HistoryPoint
	Dealers []DealerHistory
	// Demo is true when no premium of the product was ever observed and the history shown is
	// demo history over the metal's real daily closes.
	Demo bool
}

// HistoryQuery asks for a product's history; Days zero means DefaultHistoryDays.
type HistoryQuery struct {
	Product string
	Days    int
}

// History is the use case behind /v1/dealer-prices/history: the premium over spot of a product
// per day (lowest and median), overall and per dealer, over the last Days days.
func (s *Service) History(ctx context.Context, q HistoryQuery) (History, error) {
	if q.Days == 0 {
		q.Days = DefaultHistoryDays
	}
	if q.Days < 1 || q.Days > MaxHistoryDays {
		return History{}, apperr.InvalidField("days", fmt.Sprintf("must be between 1 and %d", MaxHistoryDays))
	}
	if q.Product == "" {
		return History{}, apperr.InvalidField("product", "is required: a product id from /v1/dealer-prices/products")
	}
	cat, err := s.Catalogue(ctx)
	if err != nil {
		return History{}, err
	}
	p, ok := cat.Product(q.Product)
	if !ok {
		return History{}, apperr.InvalidField("product", "is not a product of the catalogue (see /v1/dealer-prices/products)")
	}
	today := db.NewDate(s.now()).Time
	from := today.AddDate(0, 0, -(q.Days - 1))
	rows, err := s.store.DealerObservations(ctx, p.ID, db.NewDate(from))
	if err != nil {
		return History{}, err
	}
	out := History{Product: p, Days: q.Days}
	var obs []observation
	for _, r := range rows {
		obs = append(obs, observation{Dealer: r.Dealer, Day: r.Day.Time, Premium: r.PremiumPct})
	}
	if len(obs) == 0 && s.market != nil {
		// Offline the last close may be weeks old: the demo window then ends at it, so the
		// chart shows real closes (with their dates) rather than nothing.
		end := today
		if sp := s.spot(p.Metal); sp.Known && sp.Stale && sp.AsOf.Before(from) {
			end = db.NewDate(sp.AsOf).Time
		}
		start := end.AddDate(0, 0, -(q.Days - 1))
		var closes []closePoint
		for _, c := range s.market.DailyCloses(p.Metal, start, end) {
			closes = append(closes, closePoint{Day: c.Date, Price: c.Price})
		}
		obs, out.Demo = demoObservations(cat, p, closes), true
	}
	out.Overall, out.Dealers = aggregate(cat, obs)
	return out, nil
}

// aggregate groups observations by day: overall, and per dealer.
func aggregate(cat Catalogue, obs []observation) ([]HistoryPoint, []DealerHistory) {
	days := map[time.Time][]decimal.Decimal{}
	perDealer := map[string]map[time.Time][]decimal.Decimal{}
	for _, o := range obs {
		days[o.Day] = append(days[o.Day], o.Premium)
		if perDealer[o.Dealer] == nil {
			perDealer[o.Dealer] = map[time.Time][]decimal.Decimal{}
		}
		perDealer[o.Dealer][o.Day] = append(perDealer[o.Dealer][o.Day], o.Premium)
	}
	overall := points(days)
	var dealers []DealerHistory
	for slug, m := range perDealer {
		d, ok := cat.Dealer(slug)
		if !ok {
			d = Dealer{Slug: slug, Name: slug}
		}
		dealers = append(dealers, DealerHistory{Dealer: d, Points: points(m)})
	}
	sort.Slice(dealers, func(i, j int) bool { return dealers[i].Dealer.Name < dealers[j].Dealer.Name })
	return overall, dealers
}

func points(m map[time.Time][]decimal.Decimal) []HistoryPoint {
	out := make([]HistoryPoint, 0, len(m))
	for day, ps := range m {
		lo := ps[0]
		for _, p := range ps[1:] {
			lo = decimal.Min(lo, p)
		}
		out = append(out, HistoryPoint{Day: day, Min: lo, Median: Median(ps), Quotes: len(ps)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day.Before(out[j].Day) })
	return out
}
