package advisor

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/dealers"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/news"
	"github.com/ouncehq/ounce/internal/performance"
	"github.com/ouncehq/ounce/internal/portfolio"
	"github.com/ouncehq/ounce/internal/prices"
)

// fixtureNow is the fixture's clock: a Monday afternoon in New York.
var fixtureNow = time.Date(2026, 11, 23, 18, 0, 0, 0, time.UTC)

// fixtureBoard are the live prices of the fixture: price and previous close.
var fixtureBoard = map[metals.Metal][2]string{
	metals.Gold:      {"2650.40", "2641.15"},
	metals.Silver:    {"31.25", "30.90"},
	metals.Platinum:  {"980.00", "975.50"},
	metals.Palladium: {"1010.00", "1020.00"},
}

// fixture is an advisor over a real store with the embedded price history, live fixture
// prices, the demo articles, the bundled COMEX history and demo dealer quotes, and two
// members: a Gold member holding 10 oz gold at $2,000, 500 oz silver at $25 and 2 oz
// platinum at $1,100 (value $44,089.00, cost $34,700.00), and a free member.
type fixture struct {
	store  *db.Store
	market *prices.Service
	svc    *Service
	deal   *dealers.Service
	pf     *portfolio.Service
	gold   db.User
	free   db.User
	clock  *time.Time
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newFixture(t testing.TB, s *db.Store, cfg Config, live bool) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{store: s}
	now := fixtureNow
	f.clock = &now
	clock := func() time.Time { return *f.clock }
	s.Now = clock
	market, err := prices.NewService(ctx, s, prices.ServiceConfig{Offline: true, Now: clock, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if live {
		setBoard(market, now, fixtureBoard)
	}
	f.market = market
	vault := comex.New(comex.Deps{Store: s, Logger: quiet(), Now: clock, Config: comex.Config{Offline: true}})
	feeds := news.New(news.Deps{Store: s, Logger: quiet(), Now: clock, Config: news.Config{Offline: true}})
	in := intel.New(intel.Deps{Store: s, Market: market, News: feeds, Vault: vault, Logger: quiet(), Now: clock, Config: intel.Config{Offline: true}})
	if err := in.EnsureSeed(ctx); err != nil {
		t.Fatal(err)
	}
	pf := portfolio.New(portfolio.Deps{Store: s, Prices: market, Now: clock, Logger: quiet()})
	dl := dealers.New(dealers.Deps{Store: s, Prices: market, Logger: quiet(), Now: clock, Config: dealers.Config{Offline: true}})
	f.deal, f.pf = dl, pf
	f.svc = New(Deps{Store: s, Portfolio: pf, Market: market, Intel: in, Vault: vault, Dealers: dl, Config: cfg, Now: clock, Logger: quiet()})
	f.gold = f.user(t, "gold@example.test", db.TierGold)
	f.free = f.user(t, "free@example.test", db.TierFree)
	for _, h := range []struct {
		metal  metals.Metal
		qty    int64
		weight string
		price  string
	}{{metals.Gold, 10, "1", "2000"}, {metals.Silver, 500, "1", "25"}, {metals.Platinum, 2, "1", "1100"}} {
		f.hold(t, f.gold, h.metal, h.qty, h.weight, h.price)
	}
	return f
}

func (f *fixture) user(t testing.TB, email, tier string) db.User {
	t.Helper()
	u, err := f.store.InsertUser(context.Background(), email, "x", tier, false)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (f *fixture) hold(t testing.TB, u db.User, m metals.Metal, qty int64, weight, price string) {
	t.Helper()
	_, err := f.store.InsertHolding(context.Background(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: string(m), ProductName: string(m) + " round",
		Quantity: qty, WeightOz: decimal.RequireFromString(weight), PurchasePrice: decimal.RequireFromString(price), Fees: decimal.Zero,
		PurchaseDate: db.NewDate(purchaseDay)}))
	if err != nil {
		t.Fatal(err)
	}
}

// purchaseDay is the day of the fixture's purchases.
var purchaseDay = fixtureNow.AddDate(0, -6, 0)

// useRates gives the advisor and the portfolio the exchange rates, with the dollar stored at
// perEURToday dollars a euro today and perEURBought on the purchase day (the rates of the
// days between are the purchase day's: the last on or before).
func (f *fixture) useRates(t testing.TB, perEURBought, perEURToday string) *fx.Service {
	t.Helper()
	rates := fx.New(fx.Deps{Store: f.store, Now: func() time.Time { return *f.clock }})
	if err := f.store.UpsertFXRates(context.Background(), []db.FXRate{{Currency: "USD", Day: db.NewDate(purchaseDay), PerEUR: perEURBought, Source: "test"},
		{Currency: "USD", Day: db.NewDate(*f.clock), PerEUR: perEURToday, Source: "test"}}); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return *f.clock }
	f.pf = portfolio.New(portfolio.Deps{Store: f.store, Prices: f.market, Rates: rates, Now: clock, Logger: quiet()})
	f.svc.fx, f.svc.portfolio = rates, f.pf
	return rates
}

// usePerformance gives the advisor the performance service over the fixture's store and
// prices (rates nil: US dollars only).
func (f *fixture) usePerformance(rates performance.Rates) *performance.Service {
	perf := performance.New(performance.Deps{Store: f.store, Prices: f.market, Rates: rates, Now: func() time.Time { return *f.clock }, Logger: quiet()})
	f.svc.performance = perf
	return perf
}

// holdOn records a purchase of qty coins of weight oz at price each on a day.
func (f *fixture) holdOn(t testing.TB, u db.User, m metals.Metal, qty int64, weight, price string, on time.Time) {
	t.Helper()
	_, err := f.store.InsertHolding(context.Background(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: string(m), ProductName: string(m) + " round",
		Quantity: qty, WeightOz: decimal.RequireFromString(weight), PurchasePrice: decimal.RequireFromString(price), Fees: decimal.Zero,
		PurchaseDate: db.NewDate(on)}))
	if err != nil {
		t.Fatal(err)
	}
}

// setBoard publishes live prices the way the leader's tick does.
func setBoard(svc *prices.Service, at time.Time, quotes map[metals.Metal][2]string) {
	snap := prices.Snapshot{AsOf: at, MarketsOpen: true, Prices: map[metals.Metal]prices.Spot{}}
	// The previous close is the preceding session's, so the change is today's.
	sess := prices.SessionDate(at)
	for m, q := range quotes {
		p, prev := decimal.RequireFromString(q[0]), decimal.RequireFromString(q[1])
		snap.Prices[m] = prices.Spot{Metal: m, Symbol: m.Symbol(), Price: p, PrevClose: prev, Change: p.Sub(prev),
			ChangePct: metals.Percent(metals.PctChange(prev, p)), AsOf: at, Source: "test-feed", Sources: []string{"test-feed"},
			Session: sess, PrevDate: prices.TradingDayBefore(sess)}
	}
	svc.Feed().Apply(snap)
}
