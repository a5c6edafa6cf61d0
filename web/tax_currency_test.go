package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestDisposalsAPIAcrossCurrencies: over HTTP, three units of a product bought in dollars (A)
// and in euros (B) sold FIFO in euros, with the dollar's euro rates imported on the days that
// matter (USD per EUR: 2024-02-05 1.0800, 2024-06-12 1.2000, 2025-03-12 1.1000):
//
//	A 2 × USD 2,000.00 + USD 10.00 fees = USD 4,010.00 → 4010 ÷ 1.08 = EUR 3,712.96; proceeds 5000.00,
//	  fees 20.00, gain 1267.04
//	B 1 of 2 × EUR 1,900.00 → 1900.00; proceeds 2500.00, fees 10.00, gain 590.00
//	disposal gain 1857.04; the gains report in EUR totals the same, and so do realized_pl of
//	/v1/portfolio and /v1/analytics in EUR.
//
// The preview answers in euros with average unavailable; a lot whose currency has no rate on
// its purchase day (shekels, quoted by the ECB from 2011) is a 422 naming currency, nothing
// stored.
func TestDisposalsAPIAcrossCurrencies(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		var rates []db.FXRate
		for day, perEUR := range map[string]string{"2024-02-05": "1.0800", "2024-06-12": "1.2000", "2025-03-12": "1.1000"} {
			d, _ := time.Parse(time.DateOnly, day)
			rates = append(rates, db.FXRate{Currency: "USD", Day: db.NewDate(d), PerEUR: perEUR, Source: "import:test.csv"})
		}
		if err := e.store.UpsertFXRates(t.Context(), rates); err != nil {
			t.Fatal(err)
		}
		_, key := e.user("cross-http@example.com", db.TierGold)
		if r := e.api("PATCH", "/v1/account/settings", key, map[string]any{"display_currency": "EUR"}); r.Status != 200 {
			t.Fatalf("settings: %d %s", r.Status, r.Body)
		}
		a := pfCreate(t, e, key, map[string]any{"metal": "gold", "product_name": "Maple Leaf 1 oz", "quantity": 2, "weight_oz": 1, "purchase_price": json.Number("2000.00"),
			"fees": json.Number("10.00"), "purchase_currency": "USD", "purchase_date": "2024-02-05"})
		b := pfCreate(t, e, key, map[string]any{"metal": "gold", "product_name": "Maple Leaf 1 oz", "quantity": 2, "weight_oz": 1, "purchase_price": json.Number("1900.00"),
			"purchase_currency": "EUR", "purchase_date": "2024-06-12"})
		body := map[string]any{"product_name": "Maple Leaf 1 oz", "metal": "gold", "quantity": 3, "price_per_unit": json.Number("2500.00"), "fees": json.Number("30.00"),
			"sold_on": "2025-03-12", "currency": "EUR", "method": "fifo"}

		r := e.api("POST", "/v1/sales/preview", key, body)
		if r.Status != 200 {
			t.Fatalf("preview: %d %s", r.Status, r.Body)
		}
		p := pfJSON(t, r)
		taxCheck(t, p, "methods.fifo.gain", "1857.04")
		taxCheck(t, p, "methods.fifo.currency", "EUR")
		taxCheck(t, p, "methods.hifo.gain", "1813.52")
		taxCheck(t, p, "methods.average.method", "average")
		if u, _ := taxAt(p, "methods.average.unavailable"); !strings.Contains(u.(string), "one currency") {
			t.Errorf("average unavailable: %v", u)
		}

		r = e.api("POST", "/v1/sales", key, body)
		if r.Status != 201 {
			t.Fatalf("disposal: %d %s", r.Status, r.Body)
		}
		d := pfJSON(t, r)
		for path, want := range map[string]string{"disposal.currency": "EUR", "disposal.proceeds": "7500.00", "disposal.cost_basis": "5612.96", "disposal.gain": "1857.04",
			"disposal.slices.0.holding_id": a, "disposal.slices.0.cost_basis": "3712.96", "disposal.slices.0.lot_currency": "USD", "disposal.slices.0.lot_cost_basis": "4010.00",
			"disposal.slices.0.gain": "1267.04", "disposal.slices.1.holding_id": b, "disposal.slices.1.cost_basis": "1900.00", "disposal.slices.1.lot_currency": "EUR",
			"disposal.slices.1.lot_cost_basis": "1900.00", "disposal.slices.1.gain": "590.00"} {
			taxCheck(t, d, path, want)
		}
		rep := pfJSON(t, e.api("GET", "/v1/tax/report?year=2025", key, nil))
		taxCheck(t, rep, "currency", "EUR")
		taxCheck(t, rep, "totals.total", "1857.04")
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)), "realized_pl", "1857.04")
		taxCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "totals.realized_pl", "1857.04")
		usd := pfJSON(t, e.api("GET", "/v1/tax/report?year=2025&currency=USD", key, nil))
		taxCheck(t, usd, "totals.total", "1927.00")
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio?currency=USD", key, nil)), "realized_pl", "1927.00")

		// No shekel rate in 2010: 422 naming currency, nothing stored.
		pfCreate(t, e, key, map[string]any{"metal": "silver", "product_name": "Bar 1 kg", "quantity": 1, "weight_oz": 32.15, "purchase_price": 3000,
			"purchase_currency": "ILS", "purchase_date": "2010-06-01"})
		pfCreate(t, e, key, map[string]any{"metal": "silver", "product_name": "Bar 1 kg", "quantity": 1, "weight_oz": 32.15, "purchase_price": 900,
			"purchase_currency": "USD", "purchase_date": "2024-06-03"})
		bad := map[string]any{"product_name": "Bar 1 kg", "metal": "silver", "quantity": 2, "price_per_unit": 1000, "sold_on": "2025-03-12", "currency": "EUR"}
		if r := e.api("POST", "/v1/sales", key, bad); r.Status != 422 || pfProblemField(t, r) != "currency" {
			t.Fatalf("missing rate: %d %s", r.Status, r.Body)
		}
		if rs := pfJSON(t, e.api("GET", "/v1/sales", key, nil)); rs["total"] != json.Number("2") {
			t.Fatalf("sales after the refusal: %v", rs["total"])
		}
	})
}

// TestTaxPageAcrossCurrencies: the sale form takes the currency; its preview shows a dollar and
// a euro lot sold in euros in euros (the dollar lot's own cost beside it), average with the
// reason it cannot pool them, and the sale recorded from the form is in the report.
func TestTaxPageAcrossCurrencies(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		var rates []db.FXRate
		for day, perEUR := range map[string]string{"2024-02-05": "1.0800", "2024-06-12": "1.2000", "2025-03-12": "1.1000"} {
			d, _ := time.Parse(time.DateOnly, day)
			rates = append(rates, db.FXRate{Currency: "USD", Day: db.NewDate(d), PerEUR: perEUR, Source: "import:test.csv"})
		}
		if err := e.store.UpsertFXRates(t.Context(), rates); err != nil {
			t.Fatal(err)
		}
		b := e.browser()
		b.signUp("taxpage-cross@example.com")
		u, err := e.store.UserByEmail(t.Context(), "taxpage-cross@example.com")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []struct{ price, fees, cur, day string }{{"2000", "10", "USD", "2024-02-05"}, {"1900", "0", "EUR", "2024-06-12"}} {
			if _, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", ProductName: "Maple", Quantity: 2, WeightOz: pfD("1"),
				PurchasePrice: pfD(l.price), Fees: pfD(l.fees), PurchaseCurrency: l.cur, PurchaseDate: pfDate(l.day)})); err != nil {
				t.Fatal(err)
			}
		}
		if body := string(b.get("/tax").Body); !strings.Contains(body, `name="currency"`) || !strings.Contains(body, `<option value="EUR"`) {
			t.Fatalf("the sale form has no currency choice")
		}
		form := url.Values{"product": {"gold|Maple"}, "quantity": {"3"}, "price_per_unit": {"2500.00"}, "fees": {"30.00"}, "sold_on": {"2025-03-12"}, "method": {"fifo"}, "currency": {"EUR"}}
		r := b.post("/tax/preview", form, true)
		body := string(r.Body)
		for _, want := range []string{"1,857.04", "5,612.96", "4,010.00", "one currency", "€"} {
			if r.Status != 200 || !strings.Contains(body, want) {
				t.Fatalf("preview lacks %q: %d %s", want, r.Status, body)
			}
		}
		form.Set("use_method", "fifo")
		if r := b.post("/tax/sell", form, false); r.Status != 303 && r.Status != 302 {
			t.Fatalf("sell: %d %s", r.Status, r.Body)
		}
		if body := string(b.get("/tax?year=2025&currency=EUR").Body); !strings.Contains(body, "2 × Maple") || !strings.Contains(body, "1,267.04") || !strings.Contains(body, "1,857.04") {
			t.Fatalf("the report after the sale: %s", body)
		}
	})
}
