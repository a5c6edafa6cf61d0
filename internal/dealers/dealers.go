// Package dealers is dealer price comparison: the catalogue of dealers and what they list,
// quotes read from dealers' product pages (schema.org JSON-LD and microdata) and JSON price
// feeds by a polite fetcher, the premium of each quote over the metal it holds at live spot,
// premium history, demo quotes for offline installations, and affiliate click-through that
// only ever leads to a URL of the catalogue. It returns domain values and apperr errors; the
// math (premiums, medians, outliers, tiers) lives in pure functions beside the use cases.
package dealers

import (
	"cmp"
	"log/slog"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/internal/wallclock"
)

// Defaults and limits of the configuration.
const (
	// DefaultInterval is how often the leader fetches quotes (OUNCE_QUOTE_INTERVAL).
	DefaultInterval = 30 * time.Minute
	// MinInterval is the shortest allowed interval.
	MinInterval = 10 * time.Second
	// DefaultMaxAge is how old a quote may be and still be shown (OUNCE_QUOTE_MAX_AGE).
	DefaultMaxAge = 24 * time.Hour
	// MinHostGap is the least time between two requests to one host.
	MinHostGap = 5 * time.Second
	// OutlierPct is how far (percent) a quote may sit from the product's median across dealers
	// before it is dropped as a misread (a tube price, a sale banner, another product).
	OutlierPct = 40
	// HistoryKeep is how long premium history is kept.
	HistoryKeep = 400 * 24 * time.Hour
)

// Sources of a quote.
const (
	SourcePage = "page"
	SourceFeed = "feed"
	SourceDemo = "demo"
)

// Config is the dealer-price settings.
type Config struct {
	// Interval between fetch passes on the leader; zero means DefaultInterval.
	Interval time.Duration
	// MaxAge hides quotes fetched longer ago; zero means DefaultMaxAge.
	MaxAge time.Duration
	// ContactEmail goes into the User-Agent (OUNCE_CONTACT_EMAIL); without it Ounce does not
	// fetch dealer sites, because a scraper nobody can contact is not polite.
	ContactEmail string
	// SiteURL is this installation's public address, also in the User-Agent.
	SiteURL string
	// Offline never fetches; stored quotes (if fresh) and demo quotes are still served.
	Offline bool
}

// Deps are what the service is built from.
type Deps struct {
	Store  *db.Store
	Config Config
	// Prices is the live board (spot); nil means no spot, so no premiums and no demo quotes.
	Prices *prices.Service
	Logger *slog.Logger
	Now    func() time.Time
	// Fetcher replaces the polite HTTP fetcher (tests pass one with a fake clock); nil builds
	// one from Config.
	Fetcher *Fetcher
}

// board is what the service reads of the price service; *prices.Service provides it.
type board interface {
	Snapshot() prices.Snapshot
	DailyCloses(m metals.Metal, from, to time.Time) []prices.Close
}

// Service holds the dealer-price use cases.
type Service struct {
	store   Store
	cfg     Config
	market  board // nil without a price service
	log     *slog.Logger
	now     func() time.Time
	fetcher *Fetcher
	// keyMu guards clickKeyBytes, the click-visitor hash key (clicks.go), read once.
	keyMu         sync.Mutex
	clickKeyBytes []byte
}

// New builds the service.
func New(d Deps) *Service {
	s := &Service{store: d.Store, cfg: d.Config, log: d.Logger, now: d.Now, fetcher: d.Fetcher}
	if d.Prices != nil {
		// Only a real service: a nil *prices.Service in the interface would not compare nil.
		s.market = d.Prices
	}
	if s.cfg.Interval <= 0 {
		s.cfg.Interval = DefaultInterval
	}
	if s.cfg.MaxAge <= 0 {
		s.cfg.MaxAge = DefaultMaxAge
	}
	s.log = cmp.Or(s.log, slog.Default())
	s.now = wallclock.Or(s.now)
	if s.fetcher == nil {
		s.fetcher = NewFetcher(nil, UserAgent(s.cfg.SiteURL, s.cfg.ContactEmail))
	}
	return s
}

// Offline reports whether the service never fetches.
func (s *Service) Offline() bool { return s.cfg.Offline }

// MaxAge is how old a shown quote may be.
func (s *Service) MaxAge() time.Duration { return s.cfg.MaxAge }

// Spot is the price of a metal the premiums are measured against.
type Spot struct {
	Metal metals.Metal
	// Known is false when no price of the metal is on the board; Price is zero then.
	Known bool
	Price decimal.Decimal
	AsOf  time.Time
	// Stale is true when the board's price is not live (last known, from before a restart or
	// an outage): pages name its date.
	Stale  bool
	Source string
}

// spot reads a metal's spot from the board.
func (s *Service) spot(m metals.Metal) Spot {
	out := Spot{Metal: m}
	if s.market == nil {
		return out
	}
	p, ok := s.market.Snapshot().Prices[m]
	if !ok || !p.Price.IsPositive() {
		return out
	}
	return Spot{Metal: m, Known: true, Price: p.Price, AsOf: p.AsOf, Stale: p.Stale, Source: p.Source}
}
