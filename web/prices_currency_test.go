package web_test

import (
	"context"
	"encoding/json"
	"strconv"
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

// pcAt walks a dotted path whose parts may index arrays ("products.0.price").
func pcAt(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// pcNum reads a number at path exactly.
func pcNum(t *testing.T, body map[string]any, path string) decimal.Decimal {
	t.Helper()
	v, ok := pcAt(body, path)
	n, isNum := v.(json.Number)
	if !ok || !isNum {
		t.Fatalf("%s: %v is not a number", path, v)
	}
	return decimal.RequireFromString(n.String())
}

var troyOunceGrams = decimal.RequireFromString("31.1034768")

// TestPricesInACurrencyAPI: /v1/prices answers in the currency and unit asked for, or the
// member's settings, naming them and the rate's day (stale offline); an anonymous caller
// without parameters gets USD per ounce, named, with no rate fields; unknown codes are 400s
// naming the parameter.
func TestPricesInACurrencyAPI(t *testing.T) {
	eachEngine(t, pcOffline(t), func(t *testing.T, e *env) {
		usd := pfJSON(t, e.api("GET", "/v1/prices", "", nil))
		// Every answer names its currency and unit, the anonymous dollar board too (no rate).
		if usd["currency"] != "USD" || usd["unit"] != "oz" {
			t.Errorf("anonymous USD board: currency %v unit %v, want USD oz", usd["currency"], usd["unit"])
		}
		if _, ok := usd["fx_rate_date"]; ok {
			t.Errorf("anonymous USD board names a rate date: %v", usd)
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
		mine := e.api("GET", "/v1/prices", key, nil)
		check(pfJSON(t, mine), "g", troyOunceGrams)
		// Chosen by the member's settings, the answer must not be shared by a cache.
		if cc := mine.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
			t.Errorf("member's own board Cache-Control %q, want private", cc)
		}
		if cc := e.api("GET", "/v1/prices?currency=EUR&unit=g", "", nil).Header.Get("Cache-Control"); !strings.HasPrefix(cc, "public") {
			t.Errorf("EUR/g by parameters Cache-Control %q, want public", cc)
		}
		hist := pfJSON(t, e.api("GET", "/v1/prices/history?metal=gold&range=1M", key, nil))
		pfCheck(t, hist, "unit", "EUR/g")
		pfCheck(t, hist, "currency", "EUR")
		for _, path := range []string{"/v1/junk-silver?dimes=1", "/v1/speculation", "/v1/dealer-prices?metal=silver"} {
			pfCheck(t, pfJSON(t, e.api("GET", path, key, nil)), "currency", "EUR")
		}
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
		if usd["currency"] != "USD" {
			t.Errorf("USD history: currency %v, want USD", usd["currency"])
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

// TestCalculatorsAndDealersInACurrencyAPI: junk silver, the what-if and dealer prices answer
// in the currency and unit asked for; their USD answers without parameters name USD and oz.
func TestCalculatorsAndDealersInACurrencyAPI(t *testing.T) {
	eachEngine(t, pcOffline(t), func(t *testing.T, e *env) {
		perUSD, rateDay := pcPerUSD(t, e, pfNow)
		silverEUR := decimal.RequireFromString("31.25").Mul(perUSD)
		goldEUR := decimal.RequireFromString("2650.40").Mul(perUSD)

		// 10 dimes: 0.7234 oz of silver, at spot in euros, to the cent.
		usd := pfJSON(t, e.api("GET", "/v1/junk-silver?dimes=10", "", nil))
		if usd["currency"] != "USD" || usd["unit"] != "oz" {
			t.Errorf("USD junk silver: currency %v unit %v, want USD oz", usd["currency"], usd["unit"])
		}
		j := pfJSON(t, e.api("GET", "/v1/junk-silver?dimes=10&currency=EUR&unit=g", "", nil))
		pfCheck(t, j, "currency", "EUR")
		pfCheck(t, j, "unit", "g")
		pfCheck(t, j, "fx_rate_date", rateDay)
		pfCheck(t, j, "fx_stale", "true")
		pfCheck(t, j, "total_silver_oz", "0.7234")
		pfCheck(t, j, "total_face_value", "1")
		pfCheck(t, j, "spot.price", silverEUR.Div(troyOunceGrams).Round(4).String())
		pfCheck(t, j, "total_melt_value", decimal.RequireFromString("0.7234").Mul(silverEUR).Round(2).String())
		if got := pcNum(t, j, "coins.0.melt_value"); !got.Equal(decimal.RequireFromString("0.7234").Mul(silverEUR).Round(2)) {
			t.Errorf("dimes melt in EUR: %s", got)
		}

		// What-if with a gold target of €100 a gram: the multiplier is target ÷ today in one unit.
		s := pfJSON(t, e.api("GET", "/v1/speculation?gold=100&currency=EUR&unit=g", "", nil))
		pfCheck(t, s, "currency", "EUR")
		pfCheck(t, s, "targets.gold", "100")
		pfCheck(t, s, "current.gold", goldEUR.Div(troyOunceGrams).Round(4).String())
		pfCheck(t, s, "current.silver", silverEUR.Div(troyOunceGrams).Round(4).String())
		pfCheck(t, s, "targets.silver", silverEUR.Div(troyOunceGrams).Round(4).String())
		pfCheck(t, s, "scenarios.moon.gold", goldEUR.Mul(decimal.NewFromInt(2)).Div(troyOunceGrams).Round(4).String())
		pfCheck(t, s, "multipliers.gold", decimal.NewFromInt(100).Mul(troyOunceGrams).Div(goldEUR).Round(4).String())
		r := e.api("GET", "/v1/speculation?gold=abc&currency=EUR", "", nil)
		if r.Status != 400 || !strings.Contains(string(r.Body), `"gold"`) {
			t.Errorf("unreadable target in EUR: %d %s", r.Status, r.Body)
		}

		// Dealer prices: spot per gram, each price at today's rate.
		du := pfJSON(t, e.api("GET", "/v1/dealer-prices?metal=silver&weight=1", "", nil))
		if du["currency"] != "USD" || du["unit"] != "oz" {
			t.Errorf("USD dealer prices: currency %v unit %v, want USD oz", du["currency"], du["unit"])
		}
		de := pfJSON(t, e.api("GET", "/v1/dealer-prices?metal=silver&weight=1&currency=EUR&unit=g", "", nil))
		pfCheck(t, de, "currency", "EUR")
		pfCheck(t, de, "unit", "g")
		pfCheck(t, de, "fx_rate_date", rateDay)
		pfCheck(t, de, "spot", silverEUR.Div(troyOunceGrams).Round(4).String())
		cent := decimal.RequireFromString("0.01")
		for _, f := range []string{"products.0.quotes.0.price", "products.0.best.price"} {
			want := pcNum(t, du, f).Mul(perUSD)
			if got := pcNum(t, de, f); got.Sub(want).Abs().GreaterThan(cent) {
				t.Errorf("%s in EUR: %s, want %s within a cent (USD %s)", f, got, want, pcNum(t, du, f))
			}
		}
		wantPerG := pcNum(t, du, "products.0.quotes.0.price_per_oz").Mul(perUSD).Div(troyOunceGrams)
		if got := pcNum(t, de, "products.0.quotes.0.price_per_oz"); got.Sub(wantPerG).Abs().GreaterThan(cent) {
			t.Errorf("price per g: %s, want %s", got, wantPerG)
		}
		for _, c := range []struct{ path, field string }{
			{"/v1/junk-silver?dimes=1&currency=XYZ", "currency"}, {"/v1/junk-silver?dimes=1&unit=lb", "unit"},
			{"/v1/speculation?currency=XYZ", "currency"}, {"/v1/speculation?unit=lb", "unit"},
			{"/v1/dealer-prices?metal=silver&currency=XYZ", "currency"}, {"/v1/dealer-prices?metal=silver&unit=lb", "unit"},
		} {
			r := e.api("GET", c.path, "", nil)
			errs, _ := r.JSON(t)["errors"].([]any)
			if r.Status != 400 || len(errs) != 1 || errs[0].(map[string]any)["field"] != c.field {
				t.Errorf("%s: %d %s, want 400 naming %s", c.path, r.Status, r.Body, c.field)
			}
		}
	})
}

// TestPriceToolsInACurrency: the MCP price tools take currency and unit like their REST twins
// and give the same answers; an unknown unit is refused naming it.
func TestPriceToolsInACurrency(t *testing.T) {
	e := marketEnv(t, sqliteStore(t), true)
	public := mcpSession(t, e.live(), "")
	for _, c := range []struct {
		tool, rest string
		args       map[string]any
	}{
		{"get_spot_prices", "/v1/prices?currency=EUR&unit=g", map[string]any{"currency": "EUR", "unit": "g"}},
		{"get_price_history", "/v1/prices/history?metal=gold&range=1Y&currency=GBP&unit=kg", map[string]any{"metal": "gold", "range": "1Y", "currency": "GBP", "unit": "kg"}},
		{"get_junk_silver", "/v1/junk-silver?dimes=10&currency=EUR", map[string]any{"dimes": 10, "currency": "EUR"}},
		{"get_speculation", "/v1/speculation?gold=90&currency=EUR&unit=g", map[string]any{"gold": 90, "currency": "EUR", "unit": "g"}},
	} {
		_, got := callTool(t, public, c.tool, c.args)
		rest := e.api("GET", c.rest, "", nil).JSON(t)
		if !jsonEqual(got, rest) || rest["currency"] != c.args["currency"] {
			t.Errorf("%s differs from %s:\n%v\n%v", c.tool, c.rest, got, rest)
		}
	}
}
