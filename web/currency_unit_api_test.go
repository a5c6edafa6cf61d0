package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// Issue 25's /v1 surface: every answer names its currency and unit, amounts follow the
// currency's ISO 4217 minor units, holdings name their view currency, the valuation routes take
// a weight unit, and an unknown code is a 400 naming the parameter and listing the codes.

// cuWhole asserts that the number at path is written without decimals (yen, won).
func cuWhole(t *testing.T, body map[string]any, path string) decimal.Decimal {
	t.Helper()
	v, ok := pcAt(body, path)
	n, isNum := v.(json.Number)
	if !ok || !isNum {
		t.Fatalf("%s: %v is not a number", path, v)
	}
	if strings.ContainsAny(n.String(), ".eE") {
		t.Errorf("%s = %s: an amount in a currency without minor units has no decimals", path, n)
	}
	return decimal.RequireFromString(n.String())
}

// TestPricesNameCurrencyAndUnitByDefault: asked without parameters, the price board and the
// history name USD and oz (anonymously) or the member's own settings (bearer key); the dollar
// figures themselves do not change.
func TestPricesNameCurrencyAndUnitByDefault(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pcOffline(t))
	board := pfJSON(t, e.api("GET", "/v1/prices", "", nil))
	pfCheck(t, board, "currency", "USD")
	pfCheck(t, board, "unit", "oz")
	if p, _ := pcAt(board, "prices.gold.price"); p.(json.Number).String() != "2650.40" {
		t.Errorf("USD gold price written %v, want 2650.40 as before", p)
	}
	for _, f := range []string{"fx_rate_date", "fx_stale"} {
		if _, ok := board[f]; ok {
			t.Errorf("a dollar board names %s", f)
		}
	}
	hist := pfJSON(t, e.api("GET", "/v1/prices/history?metal=gold&range=1M", "", nil))
	pfCheck(t, hist, "currency", "USD")
	pfCheck(t, hist, "unit", "USD/oz")

	u, key := e.user("cu-yen@example.com", db.TierFree)
	if err := e.store.SetUserUnits(context.Background(), u.ID, "JPY", "kg", "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	mine := pfJSON(t, e.api("GET", "/v1/prices", key, nil))
	pfCheck(t, mine, "currency", "JPY")
	pfCheck(t, mine, "unit", "kg")
	mh := pfJSON(t, e.api("GET", "/v1/prices/history?metal=gold&range=1M", key, nil))
	pfCheck(t, mh, "currency", "JPY")
	pfCheck(t, mh, "unit", "JPY/kg")
	for _, path := range []string{"/v1/junk-silver?dimes=1", "/v1/speculation", "/v1/dealer-prices?metal=silver"} {
		b := pfJSON(t, e.api("GET", path, "", nil))
		pfCheck(t, b, "currency", "USD")
		pfCheck(t, b, "unit", "oz")
		m := pfJSON(t, e.api("GET", path, key, nil))
		pfCheck(t, m, "currency", "JPY")
		pfCheck(t, m, "unit", "kg")
	}
}

// TestZeroMinorUnitCurrenciesAPI: yen and won amounts are whole units everywhere (JPY gold is
// not 423623.9302), each the rounded conversion of the dollar figure; money in euros keeps cents.
func TestZeroMinorUnitCurrenciesAPI(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pcOffline(t))
	ctx := context.Background()
	usdRate, err := e.app.FX.Lookup(ctx, "USD", pfNow)
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"JPY", "KRW"} {
		r, err := e.app.FX.Lookup(ctx, code, pfNow)
		if err != nil {
			t.Fatal(err)
		}
		perUSD := r.PerEUR.DivRound(*usdRate.PerEUR, 20)
		b := pfJSON(t, e.api("GET", "/v1/prices?currency="+code, "", nil))
		pfCheck(t, b, "currency", code)
		for m, q := range pfQuotes {
			for i, f := range []string{"price", "prev_close"} {
				got := cuWhole(t, b, "prices."+string(m)+"."+f)
				if want := decimal.RequireFromString(q[i]).Mul(perUSD).Round(0); !got.Equal(want) {
					t.Errorf("%s %s %s = %s, want %s", code, m, f, got, want)
				}
			}
			cuWhole(t, b, "prices."+string(m)+".change")
		}
		t.Logf("gold 2650.40 USD/oz = %s %s/oz", cuWhole(t, b, "prices.gold.price"), code)
		g := pfJSON(t, e.api("GET", "/v1/prices?unit=g&currency="+code, "", nil))
		if got, want := cuWhole(t, g, "prices.gold.price"), decimal.RequireFromString("2650.40").Mul(perUSD).Div(troyOunceGrams).Round(0); !got.Equal(want) {
			t.Errorf("%s gold per gram %s, want %s", code, got, want)
		}
		h := pfJSON(t, e.api("GET", "/v1/prices/history?metal=gold&range=1M&currency="+code, "", nil))
		cuWhole(t, h, "points.0.price")
	}

	_, key := e.user("cu-whole@example.com", db.TierGold)
	pfCreate(t, e, key, pfH("silver", 10, "1", "30", "5", "2025-01-02"))
	pfCreate(t, e, key, map[string]any{"metal": "gold", "quantity": 1, "weight": 100, "weight_unit": "g", "purchase_price": 9000, "purchase_currency": "EUR", "purchase_date": "2025-06-30"})
	for path, fields := range map[string][]string{
		"/v1/portfolio":                  {"total_value", "total_cost", "unrealized_pl", "realized_pl", "metals.gold.spot", "metals.gold.value", "metals.gold.cost", "metals.gold.break_even_price", "metals.silver.break_even_price"},
		"/v1/analytics":                  {"totals.value", "totals.cost_basis", "metals.gold.spot", "metals.gold.break_even_price", "metals.gold.avg_cost_per_oz", "allocation_by_form.0.value"},
		"/v1/portfolio/history?range=1M": {"points.0.value", "points.0.cost"},
		"/v1/holdings":                   {"holdings.0.total_cost_in_currency", "holdings.1.total_cost_in_currency"},
		"/v1/junk-silver?dimes=10":       {"spot.price", "total_melt_value", "coins.0.melt_value", "melt_per_face_dollar"},
		"/v1/speculation?gold=500000":    {"current.gold", "targets.gold", "scenarios.moon.silver", "portfolio.current_value", "portfolio.projected_value", "portfolio.metals.gold.current_value"},
		"/v1/dealer-prices?metal=silver": {"spot", "products.0.best.price", "products.0.quotes.0.price", "products.0.quotes.0.price_per_oz"},
	} {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		b := pfJSON(t, e.api("GET", path+sep+"currency=JPY", key, nil))
		pfCheck(t, b, "currency", "JPY")
		for _, f := range fields {
			cuWhole(t, b, f)
		}
	}
	// Euros keep their cents.
	eur := pfJSON(t, e.api("GET", "/v1/portfolio?currency=EUR", key, nil))
	if v, _ := pcAt(eur, "metals.gold.cost"); v.(json.Number).String() != "9000.00" {
		t.Errorf("EUR gold cost written %v, want 9000.00", v)
	}
}

// TestHoldingsNameTheirCurrencyAPI: the list names its view currency (the parameter, else the
// member's display currency), each lot keeps its purchase_currency and its own amounts, and
// total_cost_in_currency is the lot's cost at its purchase day's rate (exact in its own currency).
func TestHoldingsNameTheirCurrencyAPI(t *testing.T) {
	eachEngine(t, pcOffline(t), func(t *testing.T, e *env) {
		u, key := e.user("cu-lots@example.com", db.TierGold)
		eurLot := pfCreate(t, e, key, map[string]any{"metal": "gold", "quantity": 1, "weight": 100, "weight_unit": "g", "purchase_price": 9000, "purchase_currency": "EUR", "purchase_date": "2025-06-30"})
		usdLot := pfCreate(t, e, key, pfH("silver", 10, "1", "30", "5", "2025-01-02"))
		find := func(b map[string]any, id string) map[string]any {
			for _, h := range b["holdings"].([]any) {
				if h.(map[string]any)["id"] == id {
					return h.(map[string]any)
				}
			}
			t.Fatalf("holding %s not listed", id)
			return nil
		}
		usd := pfJSON(t, e.api("GET", "/v1/holdings", key, nil))
		pfCheck(t, usd, "currency", "USD")
		eur := pfJSON(t, e.api("GET", "/v1/holdings?currency=eur", key, nil))
		pfCheck(t, eur, "currency", "EUR")
		g, s := find(eur, eurLot), find(eur, usdLot)
		pfCheck(t, g, "purchase_currency", "EUR")
		pfCheck(t, g, "total_cost", "9000")
		pfCheck(t, g, "total_cost_in_currency", "9000")
		pfCheck(t, s, "purchase_currency", "USD")
		pfCheck(t, s, "total_cost", "305")
		perUSD, _ := pcPerUSD(t, e, time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC))
		pfCheck(t, s, "total_cost_in_currency", decimal.NewFromInt(305).Mul(perUSD).Round(2).String())
		// In dollars the euro lot counts at its purchase day's rate.
		eurPerUSD, _ := pcPerUSD(t, e, time.Date(2025, 6, 30, 0, 0, 0, 0, time.UTC))
		pfCheck(t, find(usd, eurLot), "total_cost_in_currency", decimal.NewFromInt(9000).DivRound(eurPerUSD, 20).Round(2).String())

		// The member's display currency is the default view.
		if err := e.store.SetUserUnits(context.Background(), u.ID, "GBP", "oz", "Europe/London"); err != nil {
			t.Fatal(err)
		}
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/holdings", key, nil)), "currency", "GBP")
	})
}

// TestPortfolioInAUnitAPI: /v1/portfolio and /v1/analytics take unit: spot and break-even per
// gram are the per-ounce figures ÷ 31.1034768, the answer names its unit, the member's weight
// unit is the default, and the fields named _oz stay troy ounces.
func TestPortfolioInAUnitAPI(t *testing.T) {
	eachEngine(t, pcOffline(t), func(t *testing.T, e *env) {
		u, key := e.user("cu-grams@example.com", db.TierGold)
		pfCreate(t, e, key, pfH("silver", 10, "1", "30", "5", "2025-01-02"))
		pfCreate(t, e, key, map[string]any{"metal": "gold", "quantity": 1, "weight": 100, "weight_unit": "g", "purchase_price": 9000, "purchase_currency": "EUR", "purchase_date": "2025-06-30"})
		oz := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, oz, "unit", "oz")
		pfCheck(t, oz, "metals.silver.spot", "31.25")
		// 10 oz for $305.00: $30.50 an ounce to break even.
		pfCheck(t, oz, "metals.silver.break_even_price", "30.50")
		pfCheck(t, oz, "metals.platinum.break_even_price", "null")
		g := pfJSON(t, e.api("GET", "/v1/portfolio?unit=g", key, nil))
		pfCheck(t, g, "unit", "g")
		pfCheck(t, g, "currency", "USD")
		cent := decimal.RequireFromString("0.01")
		for _, m := range []string{"gold", "silver"} {
			perOz := pcNum(t, oz, "metals."+m+".break_even_price")
			got := pcNum(t, g, "metals."+m+".break_even_price")
			if want := perOz.Div(troyOunceGrams); got.Sub(want).Abs().GreaterThan(cent) {
				t.Errorf("%s break-even per g %s, want %s ÷ 31.1034768 = %s", m, got, perOz, want)
			}
			pfCheck(t, g, "metals."+m+".oz", pcNum(t, oz, "metals."+m+".oz").String())
		}
		pfCheck(t, g, "metals.silver.break_even_price", "0.98")
		pfCheck(t, g, "metals.gold.spot", decimal.RequireFromString("2650.40").Div(troyOunceGrams).Round(4).String())
		// The gold lot is 100 g for €9,000: exactly €90 a gram to break even, in euros.
		eg := pfJSON(t, e.api("GET", "/v1/portfolio?unit=g&currency=EUR", key, nil))
		pfCheck(t, eg, "metals.gold.break_even_price", "90.00")
		pfCheck(t, eg, "metals.gold.spot", pcNum(t, pfJSON(t, e.api("GET", "/v1/prices?currency=EUR&unit=g", "", nil)), "prices.gold.price").String())
		// Value and cost do not depend on the unit.
		for _, f := range []string{"total_value", "total_cost", "metals.gold.value"} {
			pfCheck(t, g, f, pcNum(t, oz, f).String())
		}

		a := pfJSON(t, e.api("GET", "/v1/analytics?unit=kg", key, nil))
		pfCheck(t, a, "unit", "kg")
		ao := pfJSON(t, e.api("GET", "/v1/analytics", key, nil))
		pfCheck(t, ao, "unit", "oz")
		kg := troyOunceGrams.Div(decimal.NewFromInt(1000))
		pfCheck(t, a, "metals.silver.break_even_price", decimal.RequireFromString("30.50").Div(kg).Round(2).String())
		pfCheck(t, a, "metals.silver.avg_cost_per_oz", pcNum(t, ao, "metals.silver.avg_cost_per_oz").String())
		pfCheck(t, a, "metals.silver.distance_to_break_even_pct", pcNum(t, ao, "metals.silver.distance_to_break_even_pct").String())

		// A member who reads grams gets grams without asking; the parameter wins.
		if err := e.store.SetUserUnits(context.Background(), u.ID, "USD", "g", "UTC"); err != nil {
			t.Fatal(err)
		}
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)), "unit", "g")
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)), "metals.silver.break_even_price", "0.98")
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/analytics?unit=oz", key, nil)), "metals.silver.break_even_price", "30.50")

		for _, path := range []string{"/v1/portfolio?unit=lb", "/v1/analytics?unit=stone"} {
			r := e.api("GET", path, key, nil)
			errs, _ := r.JSON(t)["errors"].([]any)
			if r.Status != 400 || len(errs) != 1 || errs[0].(map[string]any)["field"] != "unit" || !strings.Contains(string(r.Body), "tola") {
				t.Errorf("%s: %d %s, want 400 naming unit and listing the units", path, r.Status, r.Body)
			}
		}
	})
}

// TestUnknownCurrencyEveryEndpointAPI: each route that takes currency refuses an unknown code
// with a 400 naming currency and listing the supported codes.
func TestUnknownCurrencyEveryEndpointAPI(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pcOffline(t))
	_, key := e.user("cu-bad@example.com", db.TierGold)
	for _, path := range []string{
		"/v1/prices?", "/v1/prices/history?metal=gold&", "/v1/holdings?", "/v1/portfolio?", "/v1/analytics?",
		"/v1/portfolio/history?", "/v1/junk-silver?dimes=1&", "/v1/speculation?", "/v1/dealer-prices?metal=silver&",
	} {
		r := e.api("GET", path+"currency=XYZ", key, nil)
		errs, _ := r.JSON(t)["errors"].([]any)
		if r.Status != 400 || len(errs) != 1 || errs[0].(map[string]any)["field"] != "currency" {
			t.Errorf("%scurrency=XYZ: %d %s, want 400 naming currency", path, r.Status, r.Body)
			continue
		}
		msg, _ := errs[0].(map[string]any)["message"].(string)
		for _, code := range []string{"EUR", "GBP", "JPY", "USD"} {
			if !strings.Contains(msg, code) {
				t.Errorf("%scurrency=XYZ: %q does not list %s", path, msg, code)
			}
		}
	}
}

// TestValuationToolsTakeCurrencyAndUnit: the MCP portfolio and analytics tools take currency
// and unit like their REST twins and give the same answers.
func TestValuationToolsTakeCurrencyAndUnit(t *testing.T) {
	e := newEnv(t, sqliteStore(t), pcOffline(t))
	_, key := e.user("cu-mcp@example.com", db.TierGold)
	pfCreate(t, e, key, pfH("silver", 10, "1", "30", "5", "2025-01-02"))
	s := mcpSession(t, e.live(), key)
	for _, c := range []struct {
		tool, rest string
		args       map[string]any
	}{
		{"get_portfolio", "/v1/portfolio?currency=EUR&unit=g", map[string]any{"currency": "EUR", "unit": "g"}},
		{"get_analytics", "/v1/analytics?currency=JPY&unit=kg", map[string]any{"currency": "JPY", "unit": "kg"}},
	} {
		_, got := callTool(t, s, c.tool, c.args)
		rest := e.api("GET", c.rest, key, nil).JSON(t)
		if !jsonEqual(got, rest) || rest["currency"] != c.args["currency"] || rest["unit"] != c.args["unit"] {
			t.Errorf("%s differs from %s:\n%v\n%v", c.tool, c.rest, got, rest)
		}
	}
}
