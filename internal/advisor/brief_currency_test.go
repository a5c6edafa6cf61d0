package advisor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestBriefInMembersCurrency: a member who reads euros per gram gets a brief in them, at the
// day's rate (1.10 dollars a euro, stored for the day): the stack's $44,089.00 is €40,080.91,
// gold's $2,650.40/oz is €77.47/g; the brief names the currency, code and rate date, keeps the
// dollar break-even labelled as dollars, writes a euro alert in euros, and every figure of its
// text is one its figures list. A dollar member's brief the same day is the dollar text.
func TestBriefInMembersCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		f.svc.fx = fx.New(fx.Deps{Store: s, Now: func() time.Time { return *f.clock }})
		day := db.NewDate(*f.clock)
		if err := s.UpsertFXRates(ctx, []db.FXRate{{Currency: "USD", Day: day, PerEUR: "1.1000", Source: "test"}}); err != nil {
			t.Fatal(err)
		}
		u := f.gold
		if err := s.SetUserUnits(ctx, u.ID, "EUR", "g", "America/New_York"); err != nil {
			t.Fatal(err)
		}
		u.DisplayCurrency, u.WeightUnit = "EUR", "g"
		f.svc.SetAlerts(fakeAlerts{{Metal: metals.Gold, Direction: "above", Target: "3800", Price: "3923.81", Currency: "EUR", Unit: "oz", FiredAt: f.clock.Add(-time.Hour)}})
		b, _, err := f.svc.GenerateBrief(ctx, u, false, "")
		if err != nil {
			t.Fatal(err)
		}
		perGram, _ := metals.PricePer(decimal.RequireFromString("2650.40").Div(decimal.RequireFromString("1.1")), metals.Gram)
		wantGold := "Gold €" + perGram.StringFixed(2) + "/g"
		if b.Figures.StackValue == nil || b.Figures.StackValue.String() != "40080.91" || b.Figures.Currency != "EUR" || b.Figures.Unit != "g" {
			t.Fatalf("figures %+v", b.Figures)
		}
		for _, want := range []string{"Your stack is worth €40,080.91 at spot.", wantGold,
			"Money is in EUR (€) at the exchange rate of 23 Nov 2026.", "Prices are per gram.",
			"Gold breaks even at $2,000.00/oz (in US dollars, as your costs are recorded)", "Gold went above €3800/oz (at €3923.81/oz"} {
			if !strings.Contains(b.Body, want) {
				t.Errorf("brief lacks %q:\n%s", want, b.Body)
			}
		}
		if strings.Contains(b.Body, leftOutNote) {
			t.Fatalf("the figure check left something out:\n%s", b.Body)
		}
		if bad := ungrounded(b.text(), b.known()); len(bad) > 0 {
			t.Fatalf("ungrounded: %v", bad)
		}
		if b.Headline != "Your stack: €40,080.91" && !strings.HasPrefix(b.Headline, "Your stack: €40,080.91,") {
			t.Fatalf("headline %q", b.Headline)
		}

		// The same day in dollars per ounce: the dollar text, no note.
		usd := f.user(t, "usd@example.test", db.TierGold)
		f.hold(t, usd, metals.Gold, 10, "1", "2000")
		ub, _, err := f.svc.GenerateBrief(ctx, usd, false, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ub.Body, "Gold $2,650.40/oz") || strings.Contains(ub.Body, "Money is in") || ub.Figures.Currency != "" {
			t.Fatalf("dollar brief:\n%s", ub.Body)
		}
	})
}

// TestAdvisorSpeaksMembersCurrency: the advisor's price and stack answers are in the member's
// currency and unit, with the rate's date, and every figure passes the check that guards
// replies; a dollar member's answers are unchanged.
func TestAdvisorSpeaksMembersCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		f.svc.fx = fx.New(fx.Deps{Store: s, Now: func() time.Time { return *f.clock }})
		if err := s.UpsertFXRates(ctx, []db.FXRate{{Currency: "USD", Day: db.NewDate(*f.clock), PerEUR: "1.1000", Source: "test"}}); err != nil {
			t.Fatal(err)
		}
		u := f.gold
		u.DisplayCurrency, u.WeightUnit = "EUR", "g"
		perGram, _ := metals.PricePer(decimal.RequireFromString("2650.40").Div(decimal.RequireFromString("1.1")), metals.Gram)
		for _, c := range []struct {
			run  func(context.Context, db.User, args) (result, error)
			a    args
			want []string
		}{
			{f.svc.spotPrice, args{Metal: "gold"}, []string{"Gold is €" + perGram.StringFixed(2) + " per gram", "Money is in EUR (€) at the exchange rate of 23 Nov 2026."}},
			{f.svc.stackValue, args{}, []string{"Your stack is worth €40,080.91 at spot", "You paid $34,700.00 (US dollars)"}},
		} {
			r, err := c.run(ctx, u, c.a)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("answer lacks %q: %s", w, r.Text)
				}
			}
			if _, dropped := verifyText(r.Text, shownFigures(r.Facts)); len(dropped) > 0 {
				t.Errorf("the figure check drops %v", dropped)
			}
		}
		r, err := f.svc.spotPrice(ctx, f.gold, args{Metal: "gold"})
		if err != nil || !strings.HasPrefix(r.Text, "Gold is $2,650.40 per ounce") || strings.Contains(r.Text, "Money is in") {
			t.Fatalf("dollar answer %q %v", r.Text, err)
		}
	})
}
