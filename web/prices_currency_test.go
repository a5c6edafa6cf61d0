package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
)

// pcOffline is pfMarket with every outside source off: the exchange rates are the embedded
// ECB history, whose newest day (2026-04-13) is months before pfNow.
func pcOffline(t *testing.T) func(*app.Options) {
	mod := pfMarket(t, pfQuotes)
	return func(o *app.Options) { mod(o); o.Config.SetOffline(true) }
}

// pcPerUSD is units of EUR per dollar on day, worked out here from the embedded ECB
// reference rate of the dollar (EUR per USD = 1 ÷ USD per EUR).
func pcPerUSD(t *testing.T, e *env, day time.Time) (decimal.Decimal, string) {
	t.Helper()
	usd, err := e.app.FX.Lookup(context.Background(), "USD", day)
	if err != nil || usd.PerEUR == nil {
		t.Fatalf("USD rate of %s: %v", day, err)
	}
	return decimal.NewFromInt(1).DivRound(*usd.PerEUR, 30), usd.RateDate.Format(time.DateOnly)
}

// pcNum reads a number at path exactly.
func pcNum(t *testing.T, body map[string]any, path string) decimal.Decimal {
	t.Helper()
	v, ok := pfAt(body, path)
	n, isNum := v.(json.Number)
	if !ok || !isNum {
		t.Fatalf("%s: %v is not a number", path, v)
	}
	return decimal.RequireFromString(n.String())
}

var troyOunceGrams = decimal.RequireFromString("31.1034768")

// TestPricesInACurrencyAPI: /v1/prices answers in the currency and unit asked for, or the
// member's settings, naming them and the rate's day (stale offline); an anonymous caller
// without parameters gets USD per ounce with no currency fields; unknown codes are 400s
// naming the parameter.
func TestPricesInACurrencyAPI(t *testing.T) {
	eachEngine(t, pcOffline(t), func(t *testing.T, e *env) {
		usd := pfJSON(t, e.api("GET", "/v1/prices", "", nil))
		if _, ok := usd["currency"]; ok {
			t.Errorf("anonymous USD board names a currency: %v", usd)
		}
		pfCheck(t, usd, "prices.gold.price", "2650.40")
		perUSD, rateDay := pcPerUSD(t, e, pfNow)
		if rateDay != "2026-04-13" {
			t.Fatalf("embedded rate day %s, want 2026-04-13 (the newest embedded day)", rateDay)
		}
		check := func(body map[string]any, unit string, div decimal.Decimal) {
			t.Helper()
			pfCheck(t, body, "currency", "EUR")
			pfCheck(t, body, "unit", unit)
			pfCheck(t, body, "fx_rate_date", rateDay)
			pfCheck(t, body, "fx_stale", "true")
			for m, q := range pfQuotes {
				want := decimal.RequireFromString(q[0]).Mul(perUSD).Div(div).Round(4)
				if got := pcNum(t, body, "prices."+string(m)+".price"); !got.Equal(want) {
					t.Errorf("%s in EUR/%s: %s, want %s", m, unit, got, want)
				}
				wantPrev := decimal.RequireFromString(q[1]).Mul(perUSD).Div(div).Round(4)
				if got := pcNum(t, body, "prices."+string(m)+".prev_close"); !got.Equal(wantPrev) {
					t.Errorf("%s prev_close in EUR/%s: %s, want %s", m, unit, got, wantPrev)
				}
			}
			// The metal's move is the same in any currency.
			pfCheck(t, body, "prices.gold.change_pct", usd["prices"].(map[string]any)["gold"].(map[string]any)["change_pct"].(json.Number).String())
		}
		check(pfJSON(t, e.api("GET", "/v1/prices?currency=eur&unit=g", "", nil)), "g", troyOunceGrams)
		check(pfJSON(t, e.api("GET", "/v1/prices?currency=EUR", "", nil)), "oz", decimal.NewFromInt(1))
		// Gold: $2,650.40 × the day's rate ÷ 31.1034768 g, by hand for the 2026-04-13 rate.
		eg := pfJSON(t, e.api("GET", "/v1/prices?currency=EUR&unit=g", "", nil))
		t.Logf("gold 2650.40 USD/oz = %s EUR/g at %s EUR per USD", pcNum(t, eg, "prices.gold.price"), perUSD.Round(6))

		// Explicit USD/oz names itself and converts nothing.
		ex := pfJSON(t, e.api("GET", "/v1/prices?currency=USD&unit=oz", "", nil))
		pfCheck(t, ex, "currency", "USD")
		pfCheck(t, ex, "unit", "oz")
		pfCheck(t, ex, "prices.gold.price", "2650.40")
		if _, ok := ex["fx_rate_date"]; ok {
			t.Errorf("USD answer names a rate date: %v", ex)
		}

		// A member who reads euros per gram gets them without asking.
		u, key := e.user("pc@example.com", db.TierFree)
		if err := e.store.SetUserUnits(context.Background(), u.ID, "EUR", "g", "Europe/Berlin"); err != nil {
			t.Fatal(err)
		}
		check(pfJSON(t, e.api("GET", "/v1/prices", key, nil)), "g", troyOunceGrams)
		// Parameters win over the settings.
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/prices?currency=USD&unit=oz", key, nil)), "prices.gold.price", "2650.40")

		for _, c := range []struct{ query, field, says string }{
			{"currency=XYZ", "currency", "GBP"},
			{"unit=lb", "unit", "tola"},
			{"currency=EUR&unit=stone", "unit", "oz"},
		} {
			for _, path := range []string{"/v1/prices?", "/v1/prices/history?metal=gold&"} {
				r := e.api("GET", path+c.query, "", nil)
				errs, _ := r.JSON(t)["errors"].([]any)
				if r.Status != 400 || len(errs) != 1 || errs[0].(map[string]any)["field"] != c.field || !strings.Contains(string(r.Body), c.says) {
					t.Errorf("%s%s: %d %s, want 400 naming %s", path, c.query, r.Status, r.Body, c.field)
				}
			}
		}
	})
}

// TestPriceHistoryInACurrencyAPI: each close of the history converts at its own day's rate;
// sampled days are checked against the embedded ECB rate of the day.
func TestPriceHistoryInACurrencyAPI(t *testing.T) {
	eachEngine(t, pcOffline(t), func(t *testing.T, e *env) {
		const q = "/v1/prices/history?metal=gold&range=5Y&max_points=200"
		usd := pfJSON(t, e.api("GET", q, "", nil))
		if _, ok := usd["currency"]; ok {
			t.Errorf("USD history names a currency: %v", usd["currency"])
		}
		pfCheck(t, usd, "unit", "USD/oz")
		for _, unit := range []string{"oz", "g"} {
			eur := pfJSON(t, e.api("GET", q+"&currency=EUR&unit="+unit, "", nil))
			pfCheck(t, eur, "unit", "EUR/"+unit)
			pfCheck(t, eur, "currency", "EUR")
			pfCheck(t, eur, "fx_rate_date", "2026-04-13")
			pfCheck(t, eur, "fx_stale", "true")
			up, ep := usd["points"].([]any), eur["points"].([]any)
			if len(up) != len(ep) || len(up) < 20 {
				t.Fatalf("EUR %d points, USD %d", len(ep), len(up))
			}
			div := decimal.NewFromInt(1)
			if unit == "g" {
				div = troyOunceGrams
			}
			rates := map[string]bool{}
			step := len(up) / 10
			for i := 0; i < 10; i++ {
				u, x := up[i*step].(map[string]any), ep[i*step].(map[string]any)
				if u["date"] != x["date"] {
					t.Fatalf("point %d: dates %v and %v", i*step, u["date"], x["date"])
				}
				day, _ := time.Parse(time.DateOnly, u["date"].(string))
				perUSD, _ := pcPerUSD(t, e, day)
				rates[perUSD.String()] = true
				want := decimal.RequireFromString(u["price"].(json.Number).String()).Mul(perUSD).Div(div).Round(4)
				if got := decimal.RequireFromString(x["price"].(json.Number).String()); !got.Equal(want) {
					t.Errorf("%s in EUR/%s: %s, want %s (USD %s × %s)", u["date"], unit, got, want, u["price"], perUSD)
				}
			}
			// Each day at its own rate, not one rate for all.
			if len(rates) < 5 {
				t.Errorf("sampled days used %d distinct rates; want each day's own", len(rates))
			}
		}
	})
}
