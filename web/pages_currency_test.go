package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/format"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestPagesSpeakTheDisplayCurrency: a member who reads euros and grams sees the dashboard's
// totals, break-even and spot ("/g") and the ledger's subtotals in euros, each equal to the
// service's valuation in EUR, with the rate's date named; each lot's own row keeps the
// currency it was paid in. A dollar member's pages show no euro.
func TestPagesSpeakTheDisplayCurrency(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		ctx := t.Context()
		lots := []db.Holding{
			{Metal: "gold", ProductName: "100 g bar", Quantity: 1, WeightOz: pfD("3.21507466"), PurchasePrice: pfD("9000"), Fees: pfD("0"), PurchaseDate: pfDate("2025-06-30"), PurchaseCurrency: "EUR"},
			{Metal: "gold", ProductName: "1 oz Buffalo", Quantity: 2, WeightOz: pfD("1"), PurchasePrice: pfD("2000"), Fees: pfD("0"), PurchaseDate: pfDate("2025-01-10")},
			{Metal: "silver", ProductName: "Junk dimes", Quantity: 100, WeightOz: pfD("0.07234"), PurchasePrice: pfD("2.10"), Fees: pfD("0"), PurchaseDate: pfDate("2024-05-01")},
		}
		member := func(email string, lots []db.Holding) (*browser, db.User) {
			b := e.browser()
			b.signUp(email)
			u, err := e.store.UserByEmail(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range lots {
				h.UserID = u.ID
				if _, err := e.store.InsertHolding(ctx, portfolio.WithTotals(h)); err != nil {
					t.Fatal(err)
				}
			}
			return b, u
		}

		b, u := member("euro@example.com", lots)
		eur, unit := "EUR", string(metals.Gram)
		u, err := e.app.Account.UpdateSettings(ctx, u, account.SettingsChange{DisplayCurrency: &eur, WeightUnit: &unit})
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.app.Portfolio.PortfolioIn(ctx, u, "EUR")
		if err != nil {
			t.Fatal(err)
		}
		if want.FX.Currency != "EUR" || want.FX.RateDate.IsZero() || want.TotalValue == nil {
			t.Fatalf("service valuation in EUR: %+v", want.FX)
		}
		gold := want.Positions[0]
		if gold.Metal != metals.Gold || gold.Spot == nil || gold.BreakEven() == nil {
			t.Fatalf("gold position: %+v", gold)
		}
		perGram := func(perOz decimal.Decimal) string {
			d, err := metals.PricePer(perOz, metals.Gram)
			if err != nil {
				t.Fatal(err)
			}
			return format.PricePerUnit(d, "EUR", "g")
		}
		spot, breakEven := perGram(*gold.Spot), perGram(*gold.BreakEven())
		r := b.get("/")
		if r.Status != 200 {
			t.Fatalf("dashboard: %d", r.Status)
		}
		body := string(r.Body)
		d := doc(t, r)
		if got := strings.TrimSpace(d.Find("[data-total-value]").Text()); got != format.Money(*want.TotalValue, "EUR") || !strings.HasPrefix(got, "€") {
			t.Errorf("total value shown %q, service says %s", got, format.Money(*want.TotalValue, "EUR"))
		}
		for _, s := range []string{
			"cost " + format.Money(want.TotalCost, "EUR"),
			format.SignedMoney(*want.UnrealizedPL, "EUR"),
			spot,      // gold spot per gram
			breakEven, // gold break-even per gram
			"at the ECB rate of " + format.Date(want.FX.RateDate),
			"€9,000.00", // the euro lot's own cost in the holdings table
		} {
			if !strings.Contains(body, s) {
				t.Errorf("dashboard lacks %q", s)
			}
		}
		if !strings.HasPrefix(spot, "€") || !strings.HasSuffix(spot, "/g") {
			t.Errorf("spot per gram written %q", spot)
		}
		if strings.Contains(body, format.USD(*want.TotalValue)) {
			t.Error("dashboard shows the euro total with a dollar sign")
		}
		// An old rate says so: the note carries "(stale)" exactly when the service flags it.
		if note := d.Find("[data-fx-note]").Text(); strings.Contains(note, "(stale)") != want.FX.Stale {
			t.Errorf("rate note %q, service stale=%v", note, want.FX.Stale)
		}
		// The live refresh of the summary keeps the currency.
		if frag := string(b.get("/dashboard/summary").Body); !strings.Contains(frag, format.Money(*want.TotalValue, "EUR")) || !strings.Contains(frag, spot) {
			t.Error("the refreshed summary is not in euros per gram")
		}
		chart := string(b.get("/dashboard/chart?range=1Y").Body)
		if !strings.Contains(chart, "€") || strings.Contains(chart, "cost basis $") {
			t.Errorf("chart not in euros: %.300s", chart)
		}

		r = b.get("/holdings")
		if r.Status != 200 {
			t.Fatalf("ledger: %d", r.Status)
		}
		sub := doc(t, r).Find(`[data-subtotal="gold"]`).Text()
		for _, s := range []string{format.Money(gold.Cost, "EUR"), format.MoneyPtr(gold.Value, "EUR"), format.SignedMoney(*gold.UnrealizedPL, "EUR")} {
			if !strings.Contains(sub, s) {
				t.Errorf("ledger gold subtotal lacks %q: %s", s, sub)
			}
		}
		ledger := string(r.Body)
		if !strings.Contains(ledger, "€9,000.00") || !strings.Contains(ledger, "$4,000.00") {
			t.Error("ledger rows do not keep each lot's own currency")
		}
		if !strings.Contains(ledger, format.Date(want.FX.RateDate)) {
			t.Error("ledger does not name the rate's date")
		}

		// The holding form takes the weight in the member's unit: 100 g is kept as 100 g.
		r = b.get("/holdings/new")
		if v, _ := doc(t, r).Find("#f-weight_unit option[selected]").Attr("value"); v != "g" {
			t.Errorf("new holding form's unit defaults to %q, want g", v)
		}
		form := url.Values{"metal": {"gold"}, "product_name": {"Gram bar"}, "quantity": {"1"}, "weight": {"100"}, "weight_unit": {"g"},
			"purchase_price": {"9500"}, "purchase_currency": {"EUR"}, "purchase_date": {"2026-01-05"}}
		if r := b.post("/holdings", form, false); r.Status != 303 {
			t.Fatalf("save 100 g: %d %s", r.Status, r.Body)
		}
		all, _, err := e.store.HoldingsByUser(ctx, u.ID, db.HoldingFilter{Q: "Gram bar", Limit: 10})
		if err != nil || len(all) != 1 {
			t.Fatalf("the 100 g lot: %v %v", all, err)
		}
		if got := all[0].WeightOz.String(); got != "3.21507466" {
			t.Errorf("100 g stored as %s oz", got)
		}
		d = doc(t, b.get("/holdings/"+all[0].ID+"/edit"))
		if v, _ := d.Find("#f-weight").Attr("value"); v != "100" {
			t.Errorf("edit form weight %q, want 100", v)
		}
		if v, _ := d.Find("#f-weight_unit option[selected]").Attr("value"); v != "g" {
			t.Errorf("edit form unit %q, want g", v)
		}
		bad := url.Values{"metal": {"gold"}, "product_name": {"Gram bar"}, "quantity": {"1"}, "weight": {""}, "weight_unit": {"g"}, "purchase_price": {"9500"}, "purchase_date": {"2026-01-05"}}
		if r := b.post("/holdings", bad, true); r.Status != 422 || doc(t, r).Find("#f-weight-error").Text() == "" {
			t.Errorf("a missing weight is not named at the weight input: %d", r.Status)
		}

		// A dollar member with dollar lots: no euro anywhere.
		b, _ = member("dollar@example.com", lots[1:])
		for _, path := range []string{"/", "/holdings", "/dashboard/chart?range=1Y"} {
			body := string(b.get(path).Body)
			if strings.Contains(body, "€") || !strings.Contains(body, "$") {
				t.Errorf("%s for a dollar member is not in dollars", path)
			}
			if strings.Contains(body, "ECB rate") {
				t.Errorf("%s for a dollar member names an exchange rate", path)
			}
		}
	})
}
