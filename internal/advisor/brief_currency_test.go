package advisor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestBriefInMembersCurrency: a member who reads euros per gram gets a brief in them: the
// stack's $44,089.00 at today's 1.10 dollars a euro is €40,080.91, gold's $2,650.40/oz is
// €77.47/g; the break-even is in euros per gram from each lot's cost at its purchase day's
// rate (1.25 dollars a euro then: gold's $20,000 for 10 oz is €16,000, €1,600/oz, €51.44/g);
// the brief names the currency, code and rate date, writes a euro alert in euros, and every
// figure of its text is one its figures list. A dollar member's brief the same day is the
// dollar text.
func TestBriefInMembersCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		f.useRates(t, "1.2500", "1.1000")
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
		beGram, _ := metals.PricePer(decimal.NewFromInt(1600), metals.Gram)
		wantBE := "Gold breaks even at €" + beGram.StringFixed(2) + "/g (each lot's cost at the exchange rate of its purchase day)"
		if b.Figures.StackValue == nil || b.Figures.StackValue.String() != "40080.91" || b.Figures.Currency != "EUR" || b.Figures.Unit != "g" {
			t.Fatalf("figures %+v", b.Figures)
		}
		for _, want := range []string{"Your stack is worth €40,080.91 at spot.", wantGold,
			"Money is in EUR (€) at the exchange rate of 23 Nov 2026.", "Prices are per gram.",
			wantBE, "Gold went above €3800/oz (at €3923.81/oz"} {
			if !strings.Contains(b.Body, want) {
				t.Errorf("brief lacks %q:\n%s", want, b.Body)
			}
		}
		if strings.Contains(b.Body, "US dollars") {
			t.Errorf("a euro brief speaks of US dollars:\n%s", b.Body)
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
		if !strings.Contains(ub.Body, "Gold $2,650.40/oz") || !strings.Contains(ub.Body, "Gold breaks even at $2,000.00/oz") ||
			strings.Contains(ub.Body, "Money is in") || strings.Contains(ub.Body, "exchange rate") || ub.Figures.Currency != "" {
			t.Fatalf("dollar brief:\n%s", ub.Body)
		}
	})
}

// TestAdvisorSpeaksMembersCurrency: the advisor's price, stack, profit and break-even answers
// are in the member's currency and unit, with the rate's date, and every figure passes the
// check that guards replies. The cost basis is the portfolio service's in euros (each lot's
// dollars at its purchase day's 1.25: $34,700.00 is €27,760.00), so the profit is
// €40,080.91 − €27,760.00 = +€12,320.91; a gram member's break-even is per gram, in euros
// (€1,600/oz) or in dollars ($2,000/oz is $64.30/g). A dollar member's answers are unchanged.
func TestAdvisorSpeaksMembersCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		f.useRates(t, "1.2500", "1.1000")
		u := f.gold
		u.DisplayCurrency, u.WeightUnit = "EUR", "g"
		pe, err := f.pf.PortfolioIn(ctx, u, "EUR")
		if err != nil {
			t.Fatal(err)
		}
		if got := format.Money(pe.TotalCost, "EUR"); got != "€27,760.00" {
			t.Fatalf("the portfolio service's euro cost is %s", got)
		}
		perGram, _ := metals.PricePer(decimal.RequireFromString("2650.40").Div(decimal.RequireFromString("1.1")), metals.Gram)
		beGram, _ := metals.PricePer(decimal.NewFromInt(1600), metals.Gram)
		usdGram := u
		usdGram.DisplayCurrency = "USD"
		for _, c := range []struct {
			run  func(context.Context, db.User, args) (result, error)
			u    db.User
			a    args
			want []string
		}{
			{f.svc.spotPrice, u, args{Metal: "gold"}, []string{"Gold is €" + perGram.StringFixed(2) + " per gram", "Money is in EUR (€) at the exchange rate of 23 Nov 2026."}},
			{f.svc.stackValue, u, args{}, []string{"Your stack is worth " + format.Money(*pe.TotalValue, "EUR") + " at spot", "Your stack is worth €40,080.91",
				"You paid " + format.Money(pe.TotalCost, "EUR") + " for what you still hold", "311.0348 g of gold"}},
			{f.svc.profitLoss, u, args{}, []string{"(+€12,320.91)", "on a cost basis of €27,760.00"}},
			{f.svc.breakEven, u, args{Metal: "gold"}, []string{"Gold breaks even at €" + beGram.StringFixed(2) + "/g", "spot €" + perGram.StringFixed(2) + "/g"}},
			{f.svc.breakEven, usdGram, args{Metal: "gold"}, []string{"Gold breaks even at $64.30/g"}},
		} {
			r, err := c.run(ctx, c.u, c.a)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("answer lacks %q: %s", w, r.Text)
				}
			}
			if c.u.DisplayCurrency == "EUR" && (strings.Contains(r.Text, "$") || strings.Contains(r.Text, "US dollars")) {
				t.Errorf("a euro answer speaks dollars: %s", r.Text)
			}
			if _, dropped := verifyText(r.Text, shownFigures(r.Facts)); len(dropped) > 0 {
				t.Errorf("the figure check drops %v", dropped)
			}
		}
		r, err := f.svc.spotPrice(ctx, f.gold, args{Metal: "gold"})
		if err != nil || !strings.HasPrefix(r.Text, "Gold is $2,650.40 per ounce") || strings.Contains(r.Text, "Money is in") {
			t.Fatalf("dollar answer %q %v", r.Text, err)
		}
		r, err = f.svc.breakEven(ctx, f.gold, args{Metal: "gold"})
		if err != nil || !strings.HasPrefix(r.Text, "Gold breaks even at $2,000.00/oz") {
			t.Fatalf("dollar break-even %q %v", r.Text, err)
		}
	})
}

// TestMarketAnswersInMembersCurrency: the ratio, junk silver melt and a price range
// speak the member's currency and unit too (the range each close at its own day's rate), and
// every figure passes the reply check; the melt's face value stays US dollars (the coins').
func TestMarketAnswersInMembersCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		f.useRates(t, "1.2500", "1.1000")
		u := f.gold
		u.DisplayCurrency, u.WeightUnit = "EUR", "g"
		silverGram, _ := metals.PricePer(decimal.RequireFromString("31.25").Div(decimal.RequireFromString("1.1")), metals.Gram)
		for _, c := range []struct {
			name string
			run  func(context.Context, db.User, args) (result, error)
			a    args
			want []string
		}{
			{"ratio", f.svc.ratio, args{}, []string{"buys 84.81 times its weight in silver at €" + silverGram.StringFixed(4) + "/g"}},
			{"melt", f.svc.junkMelt, args{Coin: "dimes", Count: 10}, []string{"at €" + silverGram.StringFixed(4) + "/g silver", "g of silver, worth €"}},
			{"range", f.svc.priceRange, args{Metal: "gold", Range: "1M"}, []string{"/g", "each close at its own day's exchange rate"}},
		} {
			r, err := c.run(ctx, u, c.a)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("%s lacks %q: %s", c.name, w, r.Text)
				}
			}
			if c.name != "melt" && strings.Contains(r.Text, "$") {
				t.Errorf("%s speaks dollars: %s", c.name, r.Text)
			}
			if _, dropped := verifyText(r.Text, shownFigures(r.Facts)); len(dropped) > 0 {
				t.Errorf("%s: the figure check drops %v", c.name, dropped)
			}
		}
	})
}
