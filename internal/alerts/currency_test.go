package alerts_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// currencyFixture is the alerts fixture with an exchange-rate service over the same store, so
// a test moves a rate by storing it (as `ounce fx import` does).
func currencyFixture(t *testing.T, s *db.Store) *fixture {
	f := newFixture(t, s, alerts.Config{})
	rates := fx.New(fx.Deps{Store: s, Now: f.clock.now})
	f.svc = alerts.New(alerts.Deps{Store: s, Market: f.market, FX: rates, Now: f.clock.now})
	return f
}

// setRate stores a currency's euro rate for the fixture's day.
func (f *fixture) setRate(t *testing.T, currency, perEUR string) {
	t.Helper()
	if err := f.store.UpsertFXRates(context.Background(), []db.FXRate{{Currency: currency, Day: db.NewDate(f.clock.now()), PerEUR: perEUR, Source: "test"}}); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) tickMetal(t *testing.T, m metals.Metal, price string) alerts.TickResult {
	t.Helper()
	f.clock.add(time.Minute)
	f.market.set(m, price)
	r, err := f.svc.Evaluate(context.Background(), alerts.Tick{Metal: m, Price: decimal.RequireFromString(price), AsOf: f.clock.now()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func firedCount(t *testing.T, f *fixture, u db.User, id int64) int64 {
	t.Helper()
	a, err := f.store.Alert(context.Background(), u.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return a.FiredCount
}

// TestEURAlertFiresWhenOnlyTheRateMoves: gold above €3,800/oz is $4,180 at 1.10 dollars a euro.
// The dollar price then rises only to $4,120 — never across $4,180 — but the euro strengthens
// to 1.05, so the euro price crosses €3,800 (4,120 / 1.05 = €3,923.81): the alert fires, once,
// in euros; a dollar alert at the old equivalent does not.
func TestEURAlertFiresWhenOnlyTheRateMoves(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := currencyFixture(t, s)
		ctx := context.Background()
		f.setRate(t, "USD", "1.1000")
		f.market.set(metals.Gold, "4100")
		u := f.user(t, "eur@example.com", db.TierGold)
		eur := alerts.AlertInput{Metal: ptr("gold"), Direction: ptr("above"), TargetPrice: ptr(decimal.RequireFromString("3800")), Currency: ptr("eur"), Unit: ptr("oz")}
		a, err := f.svc.Create(ctx, u, eur)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Armed || a.Currency != "EUR" || a.Unit != metals.Ounce || !a.TargetPrice.Equal(decimal.RequireFromString("3800")) {
			t.Fatalf("created %+v: want armed (€3,727.27 is under €3,800), EUR per oz, target 3800 as entered", a)
		}
		usd, err := f.svc.Create(ctx, u, alerts.AlertInput{Metal: ptr("gold"), Direction: ptr("above"), TargetPrice: ptr(decimal.RequireFromString("4180"))})
		if err != nil {
			t.Fatal(err)
		}
		if r := f.tickMetal(t, metals.Gold, "4110"); r.Fired != 0 {
			t.Fatalf("€3,736.36 fired %d alerts", r.Fired)
		}
		f.setRate(t, "USD", "1.0500") // only the rate moves …
		if r := f.tickMetal(t, metals.Gold, "4120"); r.Fired != 1 {
			t.Fatalf("$4,120 at 1.05 = €3,923.81 fired %d alerts, want the euro alert", r.Fired)
		}
		for _, p := range []string{"4125", "4110", "4130"} { // … and it fires once
			f.tickMetal(t, metals.Gold, p)
		}
		if n := firedCount(t, f, u, a.ID); n != 1 {
			t.Fatalf("euro alert fired %d times, want 1", n)
		}
		if n := firedCount(t, f, u, usd.ID); n != 0 {
			t.Fatalf("the dollar alert at $4,180 fired %d times; the dollar price never crossed it", n)
		}
		notes, err := f.svc.Notifications(ctx, u, 10)
		if err != nil || len(notes) != 1 {
			t.Fatalf("notifications %+v %v", notes, err)
		}
		n := notes[0]
		if n.Currency != "EUR" || n.Unit != metals.Ounce || n.Price.String() != "3923.8095" {
			t.Fatalf("notification %+v: want €3,923.8095 per oz", n)
		}
		if got, want := n.Title(), "Gold above €3,800.00/oz"; got != want {
			t.Fatalf("title %q, want %q", got, want)
		}
		if got, want := n.Body(), "Gold is at €3,923.8095 an ounce, above your target of €3,800.00/oz."; got != want {
			t.Fatalf("body %q, want %q", got, want)
		}
	})
}

// TestAlertPerGramInRupees: silver below ₹95/g, at 100 rupees and 1.10 dollars a euro
// (90.909… rupees a dollar): $33/oz is ₹96.45/g, $32/oz ₹93.53/g, which fires it.
func TestAlertPerGramInRupees(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := currencyFixture(t, s)
		ctx := context.Background()
		f.setRate(t, "USD", "1.1000")
		f.setRate(t, "INR", "100.00")
		f.market.set(metals.Silver, "33")
		u := f.user(t, "inr@example.com", db.TierGold)
		a, err := f.svc.Create(ctx, u, alerts.AlertInput{Metal: ptr("silver"), Direction: ptr("below"), TargetPrice: ptr(decimal.RequireFromString("95")), Currency: ptr("INR"), Unit: ptr("g")})
		if err != nil || !a.Armed {
			t.Fatalf("alert %+v err %v: want armed at ₹96.45/g", a, err)
		}
		if r := f.tickMetal(t, metals.Silver, "32.90"); r.Fired != 0 { // ₹96.16/g
			t.Fatalf("₹96.16/g fired %d", r.Fired)
		}
		if r := f.tickMetal(t, metals.Silver, "32"); r.Fired != 1 {
			t.Fatalf("₹93.53/g fired %d, want 1", r.Fired)
		}
		notes, _ := f.svc.Notifications(ctx, u, 10)
		if len(notes) != 1 || notes[0].Title() != "Silver below ₹95.00/g" || !strings.Contains(notes[0].Body(), " a gram, below") {
			t.Fatalf("notifications %+v", notes)
		}
	})
}

// TestAlertCurrencyAndUnitRefused: an unknown currency or unit is Unprocessable naming the field,
// on create and on change; nothing is stored.
func TestAlertCurrencyAndUnitRefused(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := currencyFixture(t, s)
		ctx := context.Background()
		u := f.user(t, "bad@example.com", db.TierGold)
		for _, c := range []struct{ cur, unit, field string }{{"XYZ", "oz", "currency"}, {"EUR", "lb", "unit"}, {"", "g", "currency"}} {
			in := alertIn("above", "40", "once")
			in.Currency, in.Unit = ptr(c.cur), ptr(c.unit)
			_, err := f.svc.Create(ctx, u, in)
			if e, ok := apperr.As(err); !ok || e.Kind != apperr.Unprocessable || len(e.Fields) != 1 || e.Fields[0].Field != c.field {
				t.Fatalf("%s/%s: %v, want Unprocessable naming %s", c.cur, c.unit, err, c.field)
			}
		}
		if list, _ := f.svc.List(ctx, u); len(list) != 0 {
			t.Fatalf("refused alerts were stored: %+v", list)
		}
		a, err := f.svc.Create(ctx, u, alertIn("above", "40", "once"))
		if err != nil || a.Currency != "USD" || a.Unit != metals.Ounce {
			t.Fatalf("default alert %+v %v: want USD per oz", a, err)
		}
		if _, err := f.svc.Update(ctx, u, a.ID, alerts.AlertInput{Unit: ptr("stone")}); kind(err) != apperr.Unprocessable || !strings.Contains(err.Error(), "unit: must be one of") {
			t.Fatalf("patch unit stone: %v", err)
		}
	})
}

// TestQuotesTickTwiceAtOnce: two instances evaluating the same tick at once, over alerts in
// three quotes, tell each crossing once.
func TestQuotesTickTwiceAtOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := currencyFixture(t, s)
		ctx := context.Background()
		f.setRate(t, "USD", "1.1000")
		f.setRate(t, "GBP", "0.8800")
		f.market.set(metals.Gold, "4000")
		rates := fx.New(fx.Deps{Store: s, Now: f.clock.now})
		other := alerts.New(alerts.Deps{Store: s, Market: f.market, FX: rates, Now: f.clock.now})
		u := f.user(t, "twice@example.com", db.TierGold)
		// $4,100, €3,727.27 and £3,280.00 per oz: each just above the price in its quote.
		for _, in := range []alerts.AlertInput{
			{Metal: ptr("gold"), Direction: ptr("above"), TargetPrice: ptr(decimal.RequireFromString("4100"))},
			{Metal: ptr("gold"), Direction: ptr("above"), TargetPrice: ptr(decimal.RequireFromString("3727.27")), Currency: ptr("EUR")},
			{Metal: ptr("gold"), Direction: ptr("above"), TargetPrice: ptr(decimal.RequireFromString("105.45")), Currency: ptr("GBP"), Unit: ptr("g")},
		} {
			if a, err := f.svc.Create(ctx, u, in); err != nil || !a.Armed {
				t.Fatalf("%+v: %v", a, err)
			}
		}
		f.clock.add(time.Minute)
		tick := alerts.Tick{Metal: metals.Gold, Price: decimal.RequireFromString("4200"), AsOf: f.clock.now()}
		var wg sync.WaitGroup
		got := make([]int, 2)
		for i, svc := range []*alerts.Service{f.svc, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := svc.Evaluate(ctx, tick)
				if err != nil {
					t.Error(err)
				}
				got[i] = r.Fired
			}()
		}
		wg.Wait()
		if got[0]+got[1] != 3 {
			t.Fatalf("fired %v, want 3 in all", got)
		}
		notes, _ := f.svc.Notifications(ctx, u, 10)
		if len(notes) != 3 {
			t.Fatalf("%d notifications, want 3", len(notes))
		}
	})
}
