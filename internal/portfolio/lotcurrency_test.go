package portfolio

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestWeightsEnteredExactly: 100 g and 1 kg are kept as entered, come back so from the store,
// leave in the CSV export as typed and import back to the same lots; their troy-ounce weight
// is the 8-decimal equivalent. A lot's currency rides along, and a new lot defaults to the
// member's display currency.
func TestWeightsEnteredExactly(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		ann := member(t, s, "ann@example.com", db.TierGold)
		ann.DisplayCurrency = "EUR"
		bar, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","quantity":2,"weight":100,"weight_unit":"g","purchase_price":8450.00,"purchase_date":"2025-05-30"}`))
		if err != nil {
			t.Fatal(err)
		}
		kilo, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"silver","quantity":1,"weight":1,"weight_unit":"kg","purchase_price":1100,"purchase_currency":"gbp","purchase_date":"2024-03-15"}`))
		if err != nil {
			t.Fatal(err)
		}
		check := func(label string, h Holding, amount string, unit metals.Unit, oz, cur string) {
			t.Helper()
			w := h.EnteredWeight()
			if w.Amount.String() != amount || w.Unit != unit || h.WeightOz.String() != oz || h.Currency() != cur {
				t.Errorf("%s: weight %s, %s troy oz, %s; want %s %s, %s troy oz, %s", label, w, h.WeightOz, h.Currency(), amount, unit, oz, cur)
			}
		}
		check("100 g entered", bar, "100", metals.Gram, "3.21507466", "EUR")
		check("1 kg entered", kilo, "1", metals.Kilogram, "32.15074657", "GBP")
		back, err := svc.GetHolding(ctx, ann, bar.ID)
		if err != nil {
			t.Fatal(err)
		}
		check("100 g read back", back, "100", metals.Gram, "3.21507466", "EUR")

		list, err := svc.ExportHoldings(ctx, ann)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := WriteLedgerCSV(&buf, list, nil); err != nil {
			t.Fatal(err)
		}
		csv := buf.String()
		for _, want := range []string{"notes,currency,weight,weight_unit\n", ",EUR,100,g\n", ",GBP,1,kg\n"} {
			if !strings.Contains(csv, want) {
				t.Errorf("export lacks %q:\n%s", want, csv)
			}
		}
		bob := member(t, s, "bob@example.com", db.TierGold)
		if _, err := svc.ImportHoldings(ctx, bob, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
		again, err := svc.ExportHoldings(ctx, bob)
		if err != nil {
			t.Fatal(err)
		}
		var buf2 bytes.Buffer
		if err := WriteLedgerCSV(&buf2, again, nil); err != nil {
			t.Fatal(err)
		}
		if buf2.String() != csv {
			t.Errorf("round trip changed the CSV:\n%s\nwant\n%s", buf2.String(), csv)
		}

		// A weight_oz that disagrees with the weight is refused naming it; an unknown unit and
		// currency name theirs.
		for body, field := range map[string]string{
			`{"metal":"gold","quantity":1,"weight":100,"weight_unit":"g","weight_oz":3.2,"purchase_price":1}`: "weight_oz",
			`{"metal":"gold","quantity":1,"weight":100,"weight_unit":"lb","purchase_price":1}`:                "weight_unit",
			`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":1,"purchase_currency":"XYZ"}`:        "purchase_currency",
		} {
			_, err := svc.CreateHolding(ctx, ann, holdingIn(t, body))
			e, ok := apperr.As(err)
			if !ok || len(e.Fields) == 0 || e.Fields[0].Field != field {
				t.Errorf("%s: %v, want an error naming %s", body, err, field)
			}
		}
		// A sale is in its lot's currency.
		if _, err := svc.RecordSale(ctx, ann, kilo.ID, saleIn(t, `{"quantity":1,"price_per_unit":1200,"currency":"USD"}`)); apperr.KindOf(err) != apperr.Invalid {
			t.Errorf("a USD sale of a GBP lot: %v, want Invalid", err)
		}
		sale, err := svc.RecordSale(ctx, ann, kilo.ID, saleIn(t, `{"quantity":1,"price_per_unit":1200,"sold_on":"2025-12-31"}`))
		if err != nil || sale.Currency != "GBP" {
			t.Errorf("sale of a GBP lot: %+v, %v; want currency GBP", sale, err)
		}
	})
}

// TestTola: a tola is 0.375 troy oz (11.6638038 g ÷ 31.1034768 g).
func TestTola(t *testing.T) {
	oz := WeightOz(decimal.NewFromInt(1), metals.Tola)
	if oz.Sub(decimal.RequireFromString("0.375")).Abs().GreaterThan(decimal.New(1, -9)) {
		t.Errorf("1 tola = %s oz, want 0.375 ± 1e-9", oz)
	}
}

// currencyStack is the hand-computed stack of the currency tests: a gold lot bought in euros,
// a silver lot in pounds (four of its ten units sold) and a platinum lot in dollars.
func currencyStack(t *testing.T, s *db.Store) (*Service, db.User) {
	t.Helper()
	ctx := t.Context()
	svc := newService(t, s)
	svc.rates = fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
	ann := member(t, s, "ann@example.com", db.TierGold)
	for _, body := range []string{
		`{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":2000.00,"fees":10.00,"purchase_currency":"EUR","purchase_date":"2025-01-10"}`,
		`{"metal":"silver","quantity":10,"weight_oz":1,"purchase_price":20.00,"purchase_currency":"GBP","purchase_date":"2024-03-15"}`,
		`{"metal":"platinum","quantity":1,"weight_oz":1,"purchase_price":1000.00,"purchase_currency":"USD","purchase_date":"2025-02-03"}`,
	} {
		h, err := svc.CreateHolding(ctx, ann, holdingIn(t, body))
		if err != nil {
			t.Fatal(err)
		}
		if h.Metal == metals.Silver {
			if _, err := svc.RecordSale(ctx, ann, h.ID, saleIn(t, `{"quantity":4,"price_per_unit":25.00,"fees":1.00,"sold_on":"2025-12-31"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return svc, ann
}

// TestStackInFourCurrencies values the stack in EUR, GBP, CHF and USD against the embedded ECB
// rates (units per euro), worked out by hand:
//
//	rates      USD     GBP      CHF
//	2024-03-15 1.0892  0.8541   0.9613   (silver bought: £120.00 still held)
//	2025-01-10 1.0304  0.83693  0.9416   (gold bought: €2,010.00 with fees)
//	2025-02-03 1.0274  0.83136  0.9393   (platinum bought: $1,000.00)
//	2025-12-31 1.175   0.8726   0.9314   (4 silver sold at £25, £1 fees: £19.00 realized)
//	2026-04-13 1.1684  0.87058  0.9242   (newest embedded rate: today's values, stale)
//
// value = (2650.40 + 6 × 31.25 + 1000.00) USD × rate now; each cost × rate of its day.
// E.g. in EUR: cost = 2010.00 + 120 ÷ 0.8541 + 1000 ÷ 1.0274 = 3123.83; value = 3837.90 ÷
// 1.1684 = 3284.75. Realized is the sale's proceeds less fees at the sale day's rate less its
// cost at the purchase day's (as the gains report counts it): in EUR 99 ÷ 0.8726 − 80 ÷ 0.8541
// = 113.45 − 93.67 = 19.79.
func TestStackInFourCurrencies(t *testing.T) {
	want := map[string][4]string{ // value, cost, unrealized, realized
		"EUR": {"3284.75", "3123.83", "160.92", "19.79"},
		"GBP": {"2859.64", "2611.42", "248.22", "19.00"},
		"CHF": {"3035.76", "2941.93", "93.84", "15.63"},
		"USD": {"3837.90", "3224.14", "613.76", "31.29"},
	}
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		svc, ann := currencyStack(t, s)
		for cur, w := range want {
			p, err := svc.PortfolioIn(t.Context(), ann, cur)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]string{p.TotalValue.StringFixed(2), p.TotalCost.StringFixed(2), p.UnrealizedPL.StringFixed(2), p.Realized.StringFixed(2)}
			if got != w {
				t.Errorf("%s: value, cost, unrealized, realized = %v, want %v", cur, got, w)
			}
			if p.FX.Currency != cur {
				t.Errorf("%s: answer names %s", cur, p.FX.Currency)
			}
			// Offline (no refresh since the embedded history): the rate names its date and is stale.
			if cur != "USD" && (p.FX.RateDate.Format(time.DateOnly) != "2026-04-13" || !p.FX.Stale) {
				t.Errorf("%s: rate of %s, stale %v; want 2026-04-13, stale", cur, p.FX.RateDate.Format(time.DateOnly), p.FX.Stale)
			}
		}
		// The gold lot bought in euros keeps its exact cost in euros.
		a, err := svc.AnalyticsIn(t.Context(), ann, "EUR")
		if err != nil {
			t.Fatal(err)
		}
		if c := a.Metals[0].Cost; c.String() != "2010" {
			t.Errorf("EUR gold lot's cost in EUR = %s, want exactly 2010", c)
		}
		if _, err := svc.Currency(t.Context(), ann, "XYZ", "currency"); apperr.KindOf(err) != apperr.Invalid || !strings.Contains(err.Error(), "EUR") {
			t.Errorf("unknown currency: %v, want Invalid naming currency and listing the codes", err)
		}
	})
}

// TestEURLotStillWhenOnlyTheDollarMoves: a lot bought in euros, viewed in euros, shows the same
// profit when EUR/USD moves and gold's euro price does not (its dollar price moves with the
// rate): its cost is not re-converted.
func TestEURLotStillWhenOnlyTheDollarMoves(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		rates := fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
		svc.rates = rates
		ann := member(t, s, "ann@example.com", db.TierGold)
		if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","quantity":1,"weight_oz":1,"purchase_price":2000.00,"fees":10.00,"purchase_currency":"EUR","purchase_date":"2025-01-10"}`)); err != nil {
			t.Fatal(err)
		}
		pl := func(usdPerEUR, goldUSD string) string {
			t.Helper()
			if err := rates.Import(ctx, []db.FXRate{{Currency: "USD", Day: day("2026-11-19"), PerEUR: usdPerEUR, Source: "test"}}); err != nil {
				t.Fatal(err)
			}
			svc.market = fakeMarket{board: board(map[metals.Metal][2]string{metals.Gold: {goldUSD, goldUSD}}, false), gen: 2}
			svc.today = todayCache{} // a minute later: today's rate is read again
			p, err := svc.PortfolioIn(ctx, ann, "EUR")
			if err != nil {
				t.Fatal(err)
			}
			if p.FX.Stale {
				t.Errorf("a rate of the day before is not stale")
			}
			return p.UnrealizedPL.StringFixed(2)
		}
		// €2,500 an ounce both times: $2,921.00 at 1.1684, $3,000.00 at 1.2000.
		before, after := pl("1.1684", "2921.00"), pl("1.2000", "3000.00")
		if before != "490.00" || after != before {
			t.Errorf("P/L in EUR %s then %s, want 490.00 both times", before, after)
		}
	})
}

// TestHistoryInEURIsEachDaysRate: the value-over-time chart in euros is, on every day, the
// dollar value (ounces × that day's close) divided by that day's ECB dollar rate; the cost of a
// lot bought in euros stays its exact euro cost. Twenty days are sampled.
func TestHistoryInEURIsEachDaysRate(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		rates := fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
		svc.rates = rates
		var cl []prices.Close
		for d, i := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC), 0; d.Before(time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)); d = d.AddDate(0, 0, 1) {
			if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
				continue
			}
			cl = append(cl, prices.Close{Date: d, Price: decimal.NewFromInt(2600 + int64(i*7%90)).Add(decimal.New(int64(i%100), -2))})
			i++
		}
		svc.market = fakeMarket{board: board(handQuotes, false), gen: 3, closes: map[metals.Metal][]prices.Close{metals.Gold: cl}}
		ann := member(t, s, "ann@example.com", db.TierGold)
		if _, err := svc.CreateHolding(ctx, ann, holdingIn(t, `{"metal":"gold","quantity":2,"weight_oz":1,"purchase_price":2500.00,"purchase_currency":"EUR","purchase_date":"2025-01-02"}`)); err != nil {
			t.Fatal(err)
		}
		usd, err := svc.HistoryIn(ctx, ann, "ALL", "USD")
		if err != nil {
			t.Fatal(err)
		}
		eur, err := svc.HistoryIn(ctx, ann, "ALL", "EUR")
		if err != nil {
			t.Fatal(err)
		}
		if len(eur.Points) < 40 || len(eur.Points) != len(usd.Points) || eur.FX.Currency != "EUR" {
			t.Fatalf("%d EUR points, %d USD, currency %q", len(eur.Points), len(usd.Points), eur.FX.Currency)
		}
		byDay := map[time.Time]decimal.Decimal{}
		for _, c := range cl {
			byDay[c.Date] = c.Price
		}
		for k := 0; k < 20; k++ {
			i := k * (len(eur.Points) - 1) / 19
			p := eur.Points[i]
			r, err := rates.Lookup(ctx, "USD", p.Date)
			if err != nil {
				t.Fatal(err)
			}
			close, ok := byDay[p.Date]
			if !ok {
				t.Fatalf("point %s is not a close", p.Date)
			}
			want := close.Mul(decimal.NewFromInt(2)).Div(*r.PerEUR) // USD per EUR that day
			if p.Value.StringFixed(2) != want.StringFixed(2) {
				t.Errorf("%s: EUR value %s, want 2 × %s ÷ %s = %s", p.Date.Format(time.DateOnly), p.Value.StringFixed(2), close, r.PerEUR, want.StringFixed(2))
			}
			if p.Cost.String() != "5000" {
				t.Errorf("%s: EUR cost %s, want exactly 5000", p.Date.Format(time.DateOnly), p.Cost)
			}
			if usd.Points[i].Value.StringFixed(2) != close.Mul(decimal.NewFromInt(2)).StringFixed(2) {
				t.Errorf("%s: USD value %s, want 2 × %s", p.Date.Format(time.DateOnly), usd.Points[i].Value, close)
			}
		}
	})
}

// TestCurrencyEditSeen: changing only a lot's currency is seen by the next valuation (the
// kept sums are per ledger revision, which the change moves).
func TestCurrencyEditSeen(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := t.Context()
		svc := newService(t, s)
		svc.rates = fx.New(fx.Deps{Store: s, Now: func() time.Time { return now }})
		ann := member(t, s, "ann@example.com", db.TierGold)
		h := create(t, svc, ann, "gold", 1, "1", "2000", "0", "2025-01-10")
		if p, err := svc.PortfolioIn(ctx, ann, "USD"); err != nil || p.TotalCost.String() != "2000" {
			t.Fatalf("USD cost %v, %v", p.TotalCost, err)
		}
		if _, err := svc.UpdateHolding(ctx, ann, h.ID, holdingIn(t, `{"purchase_currency":"EUR"}`)); err != nil {
			t.Fatal(err)
		}
		// €2,000 on 2025-01-10 at 1.0304 dollars per euro.
		if p, err := svc.PortfolioIn(ctx, ann, "USD"); err != nil || p.TotalCost.StringFixed(2) != "2060.80" {
			t.Errorf("after the lot became EUR: USD cost %v, %v; want 2060.80", p.TotalCost, err)
		}
	})
}

// TestLotInItsOwnCurrency: a lot paid for in euros has its premium against the purchase day's
// spot in euros (not against the dollar spot) and its ledger value and profit in euros at
// today's rate; a dollar lot is untouched. Rates as in TestStackInFourCurrencies.
func TestLotInItsOwnCurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		svc, ann := currencyStack(t, s)
		ctx := t.Context()
		page, err := svc.ListHoldings(ctx, ann, HoldingsQuery{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var gold Holding
		for _, h := range page.Holdings {
			if h.Metal == metals.Gold {
				gold = h
			}
		}
		if !gold.SpotAtPurchase.Valid {
			t.Fatal("the fixture's gold lot has no spot at purchase")
		}
		// 2025-01-10: 1.0304 USD per EUR, so a dollar of spot is 1 ÷ 1.0304 euros.
		spotEUR := gold.SpotAtPurchase.Decimal.Div(decimal.RequireFromString("1.0304"))
		want := decimal.RequireFromString("2000").Div(spotEUR).Sub(decimal.NewFromInt(1)).Mul(decimal.NewFromInt(100))
		got := gold.PremiumPct()
		if got == nil || !got.Round(6).Equal(want.Round(6)) {
			t.Errorf("EUR lot premium = %v, want %s (price €2,000.00 over spot $%s at 1.0304)", got, want.Round(6), gold.SpotAtPurchase.Decimal)
		}
		usdAgainstUSD := Premium(decimal.RequireFromString("2000"), gold.SpotAtPurchase.Decimal)
		if got != nil && got.Round(4).Equal(usdAgainstUSD.Round(4)) {
			t.Errorf("EUR lot premium %s compares euros with the dollar spot", got)
		}
		led, err := svc.Ledger(ctx, ann, "gold")
		if err != nil {
			t.Fatal(err)
		}
		if len(led.Lots) != 1 || led.Lots[0].Value == nil {
			t.Fatalf("gold ledger: %+v", led.Lots)
		}
		// Gold is $2,650.40 now; 1.1684 USD per EUR (2026-04-13): €2,268.40; cost €2,010.00.
		if v, pl := led.Lots[0].Value.StringFixed(2), led.Lots[0].PL.StringFixed(2); v != "2268.40" || pl != "258.40" {
			t.Errorf("EUR lot on the ledger: value %s, P/L %s; want 2268.40 and 258.40 (euros)", v, pl)
		}
	})
}
