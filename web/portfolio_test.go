package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// pfNow is a Friday afternoon in New York: the trading session of 2026-11-20 is under way.
var pfNow = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

// pfQuotes are the live prices of the hand-computed cases: price and previous close.
var pfQuotes = map[metals.Metal][2]string{
	metals.Gold: {"2650.40", "2630.10"}, metals.Silver: {"31.25", "31.50"},
	metals.Platinum: {"1000.00", "990.00"}, metals.Palladium: {"1100.55", "1100.55"},
}

// pfMarket is an app at pfNow with the embedded history and, when quotes is not nil, live prices.
func pfMarket(t *testing.T, quotes map[metals.Metal][2]string) func(*app.Options) {
	return func(o *app.Options) {
		o.Now = func() time.Time { return pfNow }
		withMarket(t)(o)
		if quotes != nil {
			setPrices(o.Market, pfNow, quotes)
		}
	}
}

// pfJSON decodes a body keeping numbers exact.
func pfJSON(t *testing.T, r resp) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("body is not JSON (%d): %s", r.Status, r.Body)
	}
	return m
}

// pfAt walks a dotted path ("metals.gold.value") through decoded JSON.
func pfAt(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// pfCheck asserts a field: a decimal compared by value, "null", or a string/bool compared as text.
func pfCheck(t *testing.T, body map[string]any, path, want string) {
	t.Helper()
	got, ok := pfAt(body, path)
	if !ok {
		t.Errorf("%s is missing", path)
		return
	}
	switch g := got.(type) {
	case nil:
		if want != "null" {
			t.Errorf("%s = null, want %s", path, want)
		}
	case json.Number:
		w, err := decimal.NewFromString(want)
		if err != nil || !decimal.RequireFromString(g.String()).Equal(w) {
			t.Errorf("%s = %s, want %s", path, g, want)
		}
	default:
		if fmt.Sprint(g) != want {
			t.Errorf("%s = %v, want %s", path, g, want)
		}
	}
}

func pfDec(t *testing.T, body map[string]any, path string) decimal.Decimal {
	t.Helper()
	v, ok := pfAt(body, path)
	n, isNum := v.(json.Number)
	if !ok || !isNum {
		t.Fatalf("%s is %v, not a number", path, v)
	}
	return decimal.RequireFromString(n.String())
}

// pfCreate posts a holding and returns its id.
func pfCreate(t *testing.T, e *env, key string, h map[string]any) string {
	t.Helper()
	r := e.api("POST", "/v1/holdings", key, h)
	if r.Status != 201 {
		t.Fatalf("create holding %v: %d %s", h, r.Status, r.Body)
	}
	return r.JSON(t)["id"].(string)
}

func pfSell(t *testing.T, e *env, key, id string, body map[string]any) map[string]any {
	t.Helper()
	r := e.api("POST", "/v1/holdings/"+id+"/sales", key, body)
	if r.Status != 201 {
		t.Fatalf("sale %v: %d %s", body, r.Status, r.Body)
	}
	return pfJSON(t, r)["sale"].(map[string]any)
}

func pfH(metal string, qty int, w, price, fees, date string) map[string]any {
	h := map[string]any{"metal": metal, "quantity": qty, "weight_oz": json.Number(w), "purchase_price": json.Number(price), "fees": json.Number(fees)}
	if date != "" {
		h["purchase_date"] = date
	}
	return h
}

// pfStack builds the hand-computed stack: fractional ounces, fees, several lots, a lot bought
// today, a zero-cost gift, an undated-free set of all four metals, and two partial sales.
func pfStack(t *testing.T, e *env, key string) {
	t.Helper()
	pfCreate(t, e, key, pfH("gold", 2, "1", "2000.00", "30.50", "2025-01-10"))        // 2 oz, 4,030.50
	pfCreate(t, e, key, pfH("gold", 10, "0.1", "215.25", "0", "2025-06-01"))          // 1 oz, 2,152.50
	pfCreate(t, e, key, pfH("gold", 3, "0.03215", "80", "4.99", "2026-11-20"))        // bought today: 0.09645 oz, 244.99
	pfCreate(t, e, key, pfH("silver", 100, "0.7734", "18.40", "12.00", "2024-03-15")) // 77.34 oz, 1,852.00
	pfCreate(t, e, key, pfH("silver", 5, "1", "0", "0", "2023-12-25"))                // a gift: 5 oz at no cost
	pt := pfCreate(t, e, key, pfH("platinum", 4, "1", "950", "20", "2025-02-01"))     // 4 oz, 3,820.00
	pd := pfCreate(t, e, key, pfH("palladium", 3, "1", "1000.01", "0.02", "2025-03-03"))
	// One platinum unit of four: cost 3,820.00 / 4 = 955.00; realized 1,010 − 5 − 955 = 50.00.
	s := pfSell(t, e, key, pt, map[string]any{"quantity": 1, "price_per_unit": 1010, "fees": 5, "sold_on": "2025-09-01"})
	for k, want := range map[string]string{"proceeds": "1010", "cost_basis": "955", "realized_pl": "50", "quantity": "1", "oz": "1"} {
		pfCheck(t, map[string]any{"s": s}, "s."+k, want)
	}
	// Two palladium units of three: 3,000.05 × 2/3 = 2,000.0333 → 2,000.03; realized 399.97.
	s = pfSell(t, e, key, pd, map[string]any{"quantity": 2, "price_per_unit": json.Number("1200"), "sold_on": "2025-10-10"})
	pfCheck(t, map[string]any{"s": s}, "s.cost_basis", "2000.03")
	pfCheck(t, map[string]any{"s": s}, "s.realized_pl", "399.97")
}

// TestPortfolioHandComputed checks /v1/portfolio and /v1/analytics against a table worked out
// by hand, to the cent, on both engines.
func TestPortfolioHandComputed(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("stacker@example.com", db.TierGold)
		pfStack(t, e, key)

		r := e.api("GET", "/v1/portfolio", key, nil)
		if r.Status != 200 {
			t.Fatalf("portfolio: %d %s", r.Status, r.Body)
		}
		p := pfJSON(t, r)
		for _, c := range []struct{ path, want string }{
			// gold: 3.09645 oz × 2,650.40 = 8,206.83108; cost 4,030.50 + 2,152.50 + 244.99
			{"metals.gold.oz", "3.09645"}, {"metals.gold.spot", "2650.40"}, {"metals.gold.value", "8206.83"},
			{"metals.gold.cost", "6427.99"}, {"metals.gold.unrealized_pl", "1778.84"}, {"metals.gold.unrealized_pl_pct", "27.67"},
			{"metals.gold.day_change", "60.90"}, // only the 3 oz held before today: 3 × 20.30
			{"metals.gold.allocation_pct", "55.15"}, {"metals.gold.stale", "false"},
			// silver: (77.34 + 5) × 31.25 = 2,573.125 → 2,573.13; the gift costs nothing
			{"metals.silver.oz", "82.34"}, {"metals.silver.value", "2573.13"}, {"metals.silver.cost", "1852"},
			{"metals.silver.unrealized_pl", "721.13"}, {"metals.silver.unrealized_pl_pct", "38.94"},
			{"metals.silver.day_change", "-20.59"}, {"metals.silver.allocation_pct", "17.29"},
			// platinum after selling one of four: 3 oz, cost 2,865.00
			{"metals.platinum.oz", "3"}, {"metals.platinum.value", "3000"}, {"metals.platinum.cost", "2865"},
			{"metals.platinum.unrealized_pl", "135"}, {"metals.platinum.unrealized_pl_pct", "4.71"},
			{"metals.platinum.day_change", "30"}, {"metals.platinum.allocation_pct", "20.16"},
			// palladium after selling two of three: 1 oz, cost 3,000.05 − 2,000.03
			{"metals.palladium.oz", "1"}, {"metals.palladium.value", "1100.55"}, {"metals.palladium.cost", "1000.02"},
			{"metals.palladium.unrealized_pl", "100.53"}, {"metals.palladium.day_change", "0"}, {"metals.palladium.allocation_pct", "7.40"},
			{"total_value", "14880.51"}, {"total_cost", "12145.01"}, {"unrealized_pl", "2735.50"}, {"unrealized_pl_pct", "22.52"},
			// 60.90 − 20.585 + 30 = 70.315 → 70.32 on a previous-close value of 14,554.56 (70.31 summed parts already rounded to the cent)
			{"day_change", "70.32"}, {"day_change_pct", "0.48"},
			{"realized_pl", "449.97"}, {"holdings_count", "7"}, {"stale", "false"}, {"as_of", "2026-11-20T15:00:00Z"},
		} {
			pfCheck(t, p, c.path, c.want)
		}

		r = e.api("GET", "/v1/analytics", key, nil)
		if r.Status != 200 {
			t.Fatalf("analytics: %d %s", r.Status, r.Body)
		}
		a := pfJSON(t, r)
		for _, c := range []struct{ path, want string }{
			{"metals.gold.cost_basis", "6427.99"}, {"metals.gold.avg_cost_per_oz", "2075.92"}, {"metals.gold.break_even_price", "2075.92"},
			{"metals.gold.distance_to_break_even_pct", "-21.68"}, {"metals.gold.weight_allocation_pct", "3.46"},
			{"metals.gold.purchases", "3"}, {"metals.gold.first_purchase", "2025-01-10"}, {"metals.gold.last_purchase", "2026-11-20"},
			// Paid 6,152.50 for 3 oz against 2 × 2,687.45 (2025-01-10) + 3,277.55 (2025-05-30, the close before Sunday
			// 2025-06-01); the lot bought today is past the end of the embedded history, so it is left out.
			{"metals.gold.avg_premium_pct", "-28.89"},
			{"metals.silver.break_even_price", "22.49"}, {"metals.silver.avg_cost_per_oz", "22.49"}, {"metals.silver.weight_allocation_pct", "92.07"},
			{"metals.silver.avg_premium_pct", "-5.67"}, // 1,840.00 against 77.34 × 25.22; the gift is no purchase
			// platinum: every purchase cost 955.00/oz, and so does what is left after the sale
			{"metals.platinum.avg_cost_per_oz", "955"}, {"metals.platinum.break_even_price", "955"}, {"metals.platinum.distance_to_break_even_pct", "-4.50"},
			{"metals.platinum.realized_pl", "50"}, {"metals.platinum.sales", "1"}, {"metals.platinum.avg_premium_pct", "-8.05"},
			{"metals.palladium.avg_cost_per_oz", "1000.02"}, {"metals.palladium.break_even_price", "1000.02"}, {"metals.palladium.realized_pl", "399.97"},
			{"metals.palladium.distance_to_break_even_pct", "-9.13"}, {"metals.palladium.avg_premium_pct", "5.13"}, {"metals.palladium.weight_allocation_pct", "1.12"},
			{"totals.oz", "89.43645"}, {"totals.cost_basis", "12145.01"}, {"totals.value", "14880.51"}, {"totals.unrealized_pl", "2735.50"},
			{"totals.realized_pl", "449.97"}, {"totals.purchases", "7"}, {"totals.sales", "2"},
			{"totals.first_purchase", "2023-12-25"}, {"totals.last_purchase", "2026-11-20"}, {"totals.avg_premium_pct", "-15.90"},
		} {
			pfCheck(t, a, c.path, c.want)
		}
	})
}

// TestPortfolioBreakEvenAfterPartialSale: break-even uses the remaining cost ÷ remaining ounces.
func TestPortfolioBreakEvenAfterPartialSale(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("be@example.com", db.TierGold)
		// 3 units of 0.5 oz at 1,000.00 plus 0.01 fees: 3,000.01 for 1.5 oz.
		id := pfCreate(t, e, key, pfH("gold", 3, "0.5", "1000", "0.01", "2025-01-02"))
		// One unit: 3,000.01 / 3 = 1,000.0033 → 1,000.00; 2,000.01 left for 1 oz.
		pfSell(t, e, key, id, map[string]any{"quantity": 1, "price_per_unit": 1500, "sold_on": "2025-02-03"})
		a := pfJSON(t, e.api("GET", "/v1/analytics", key, nil))
		pfCheck(t, a, "metals.gold.oz", "1")
		pfCheck(t, a, "metals.gold.cost_basis", "2000.01")
		pfCheck(t, a, "metals.gold.break_even_price", "2000.01")
		pfCheck(t, a, "metals.gold.avg_cost_per_oz", "2000.01") // 3,000.01 / 1.5
		pfCheck(t, a, "metals.gold.realized_pl", "500")
		// Selling the rest leaves nothing to break even on, and no cost.
		pfSell(t, e, key, id, map[string]any{"quantity": 2, "price_per_unit": 1000, "fees": json.Number("0.10"), "sold_on": "2025-03-03"})
		a = pfJSON(t, e.api("GET", "/v1/analytics", key, nil))
		pfCheck(t, a, "metals.gold.cost_basis", "0")
		pfCheck(t, a, "metals.gold.break_even_price", "null")
		pfCheck(t, a, "metals.gold.distance_to_break_even_pct", "null")
		pfCheck(t, a, "metals.gold.realized_pl", "499.89") // 500 + (2,000 − 0.10 − 2,000.01)
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, p, "holdings_count", "0")
		pfCheck(t, p, "total_value", "0")
		pfCheck(t, p, "unrealized_pl_pct", "null")
		for _, m := range metals.All {
			pfCheck(t, p, "metals."+string(m)+".allocation_pct", "0")
		}
	})
}

// TestPortfolioWithoutPrices: with no price service, prices are never invented.
func TestPortfolioWithoutPrices(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("noprice@example.com", db.TierGold)
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		for path, want := range map[string]string{"total_value": "0", "total_cost": "0", "stale": "true", "as_of": "null", "metals.gold.spot": "null", "metals.gold.value": "0", "day_change": "0"} {
			pfCheck(t, p, path, want)
		}
		pfCreate(t, e, key, pfH("silver", 10, "1", "30", "0", "2025-01-01"))
		p = pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		for path, want := range map[string]string{"total_value": "null", "total_cost": "300", "unrealized_pl": "null", "day_change": "null",
			"metals.silver.value": "null", "metals.silver.oz": "10", "metals.silver.allocation_pct": "null", "metals.gold.value": "0", "stale": "true"} {
			pfCheck(t, p, path, want)
		}
		a := pfJSON(t, e.api("GET", "/v1/analytics", key, nil))
		pfCheck(t, a, "metals.silver.break_even_price", "30")
		pfCheck(t, a, "metals.silver.avg_premium_pct", "null")
		pfCheck(t, a, "metals.silver.weight_allocation_pct", "100")
		h := pfJSON(t, e.api("GET", "/v1/portfolio/history", key, nil))
		pfCheck(t, h, "count", "0")
	})
}

// TestPortfolioStalePrices: prices that are not live are used but flagged.
func TestPortfolioStalePrices(t *testing.T) {
	eachEngine(t, pfMarket(t, nil), func(t *testing.T, e *env) {
		h := e.app
		// Live gold only; the others keep their stale seeded prices.
		setPrices(h.Market, pfNow, map[metals.Metal][2]string{metals.Gold: {"2650.40", "2630.10"}})
		_, key := e.user("partial@example.com", db.TierGold)
		pfCreate(t, e, key, pfH("gold", 1, "1", "2000", "0", "2025-01-01"))
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, p, "total_value", "2650.40")
		pfCheck(t, p, "metals.gold.stale", "false")
		pfCheck(t, p, "metals.silver.stale", "true")
		pfCheck(t, p, "stale", "true") // the board behind the numbers is not all live
		pfCheck(t, p, "metals.gold.allocation_pct", "100")
	})
}

// TestPortfolioProperties: random stacks, random sales, random prices — value and cost are never
// negative, and allocations add up to 100 ± 0.01 whenever there is value.
func TestPortfolioProperties(t *testing.T) {
	eachEngine(t, pfMarket(t, nil), func(t *testing.T, e *env) {
		ctx := context.Background()
		rng := rand.New(rand.NewPCG(3, 5))
		svc := e.app.Market
		for trial := 0; trial < 6; trial++ {
			quotes := map[metals.Metal][2]string{}
			for _, m := range metals.All {
				p := decimal.New(int64(1+rng.IntN(500_000)), -2)
				prev := decimal.New(int64(1+rng.IntN(500_000)), -2)
				quotes[m] = [2]string{p.String(), prev.String()}
			}
			setPrices(svc, pfNow, quotes)
			u, key := e.user(fmt.Sprintf("prop%d@example.com", trial), db.TierGold)
			for i := 0; i < 1+rng.IntN(12); i++ {
				h, err := e.store.InsertHolding(ctx, portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: string(metals.All[rng.IntN(4)]), Quantity: int64(1 + rng.IntN(50)),
					WeightOz: decimal.New(int64(1+rng.IntN(200_000_000)), -8), PurchasePrice: decimal.New(int64(rng.IntN(400_000)), -2),
					Fees: decimal.New(int64(rng.IntN(2)*rng.IntN(9_999)), -2), PurchaseDate: db.NewDate(pfNow.AddDate(0, 0, -rng.IntN(3000)))}))
				if err != nil {
					t.Fatal(err)
				}
				if rng.IntN(3) == 0 {
					q := int64(1 + rng.IntN(int(h.Quantity)))
					if _, err := e.store.InsertSale(ctx, u.ID, h.ID, db.Sale{Quantity: q, PricePerUnit: decimal.New(int64(rng.IntN(500_000)), -2), SoldOn: db.NewDate(pfNow)}, portfolio.DecideSale); err != nil {
						t.Fatal(err)
					}
				}
			}
			p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
			a := pfJSON(t, e.api("GET", "/v1/analytics", key, nil))
			if pfDec(t, p, "total_value").IsNegative() || pfDec(t, p, "total_cost").IsNegative() {
				t.Fatalf("negative totals: %v", p)
			}
			alloc, weight, sum := decimal.Zero, decimal.Zero, decimal.Zero
			for _, m := range metals.All {
				v, c := pfDec(t, p, "metals."+string(m)+".value"), pfDec(t, p, "metals."+string(m)+".cost")
				if v.IsNegative() || c.IsNegative() {
					t.Fatalf("%s negative: value %s cost %s", m, v, c)
				}
				sum = sum.Add(v)
				alloc = alloc.Add(pfDec(t, p, "metals."+string(m)+".allocation_pct"))
				weight = weight.Add(pfDec(t, a, "metals."+string(m)+".weight_allocation_pct"))
			}
			// The total is the exact sum rounded once (the figure the value history gives too), so
			// the rounded parts may differ from it by half a cent each.
			if sum.Sub(pfDec(t, p, "total_value")).Abs().GreaterThan(decimal.RequireFromString("0.02")) {
				t.Fatalf("metal values add to %s, total_value %s", sum, pfDec(t, p, "total_value"))
			}
			hundred, tol := decimal.NewFromInt(100), decimal.RequireFromString("0.01")
			if sum.IsPositive() && alloc.Sub(hundred).Abs().GreaterThan(tol) {
				t.Fatalf("allocation adds to %s", alloc)
			}
			if pfDec(t, a, "totals.oz").IsPositive() && weight.Sub(hundred).Abs().GreaterThan(tol) {
				t.Fatalf("weight allocation adds to %s", weight)
			}
		}
	})
}

func TestPortfolioHistory(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("hist@example.com", db.TierGold)
		pfCreate(t, e, key, pfH("gold", 2, "1", "2000", "10", "2025-01-10"))
		sv := pfCreate(t, e, key, pfH("silver", 100, "1", "25", "0", "2026-03-02"))
		pfSell(t, e, key, sv, map[string]any{"quantity": 40, "price_per_unit": 30, "sold_on": "2026-06-01"})

		r := e.api("GET", "/v1/portfolio/history?range=1Y", key, nil)
		if r.Status != 200 {
			t.Fatalf("history: %d %s", r.Status, r.Body)
		}
		h := pfJSON(t, r)
		pts := h["points"].([]any)
		if len(pts) < 150 || len(pts) > 500 {
			t.Fatalf("1Y has %d points", len(pts))
		}
		pfCheck(t, h, "range", "1Y")
		// The stored closes end on 2026-08-17: 1Y counts back from there, as the price history does.
		pfCheck(t, h, "from", "2025-08-18")
		pfCheck(t, h, "through", "2026-08-17")
		byDate := map[string]map[string]any{}
		for _, p := range pts {
			byDate[p.(map[string]any)["date"].(string)] = p.(map[string]any)
		}
		svc := e.app.Market
		closeOn := func(m metals.Metal, d string) decimal.Decimal {
			day, _ := time.Parse("2006-01-02", d)
			c, ok := svc.CloseOn(m, day)
			if !ok {
				t.Fatalf("no %s close on %s", m, d)
			}
			return c
		}
		for _, c := range []struct {
			date     string
			gold, ag string // ounces held
			cost     string
		}{
			{"2025-12-01", "2", "0", "4010"},
			{"2026-03-02", "2", "100", "6510"}, // bought that day: valued at that day's close
			{"2026-05-29", "2", "100", "6510"},
			{"2026-06-01", "2", "60", "5510"}, // 40 of 100 sold: 1,000 of cost gone
			{"2026-08-10", "2", "60", "5510"},
		} {
			p, ok := byDate[c.date]
			if !ok {
				t.Errorf("no point on %s", c.date)
				continue
			}
			want := closeOn(metals.Gold, c.date).Mul(decimal.RequireFromString(c.gold)).Add(closeOn(metals.Silver, c.date).Mul(decimal.RequireFromString(c.ag)))
			pfCheck(t, map[string]any{"p": p}, "p.value", want.Round(2).String())
			pfCheck(t, map[string]any{"p": p}, "p.cost", c.cost)
		}
		// ALL starts at the first purchase; 5Y and ALL stay within 500 points.
		all := pfJSON(t, e.api("GET", "/v1/portfolio/history?range=ALL", key, nil))
		pfCheck(t, all, "from", "2025-01-10")
		for _, rg := range []string{"5Y", "ALL", "1M"} {
			r := e.api("GET", "/v1/portfolio/history?range="+rg, key, nil)
			if r.Status != 200 || len(pfJSON(t, r)["points"].([]any)) > 500 {
				t.Errorf("range %s: %d", rg, r.Status)
			}
		}
		r = e.api("GET", "/v1/portfolio/history?range=2Y", key, nil)
		if r.Status != 400 || pfProblemField(t, r) != "range" {
			t.Fatalf("bad range: %d %s", r.Status, r.Body)
		}
	})
}

func TestPortfolioAuthAndIsolation(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, free := e.user("free@example.com", db.TierFree)
		_, ann := e.user("ann@example.com", db.TierGold)
		_, bob := e.user("bob@example.com", db.TierGold)
		pfCreate(t, e, ann, pfH("gold", 1, "1", "2000", "0", "2025-01-01"))
		for _, path := range []string{"/v1/portfolio", "/v1/analytics", "/v1/portfolio/history", "/v1/sales", "/v1/holdings/export"} {
			if r := e.api("GET", path, "", nil); r.Status != 401 || r.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s without key: %d", path, r.Status)
			}
			if r := e.api("GET", path, free, nil); r.Status != 403 || r.JSON(t)["type"] != "/problems/membership-required" {
				t.Errorf("%s with a free key: %d %s", path, r.Status, r.Body)
			}
		}
		// Bob sees none of Ann's stack.
		p := pfJSON(t, e.api("GET", "/v1/portfolio", bob, nil))
		pfCheck(t, p, "total_cost", "0")
		pfCheck(t, p, "holdings_count", "0")
	})
}

// pfProblemField is the field the first error of a problem names.
func pfProblemField(t *testing.T, r resp) string {
	t.Helper()
	errs, _ := r.JSON(t)["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	f, _ := errs[0].(map[string]any)["field"].(string)
	return f
}

func TestDashboardPage(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("dash@example.com")
		// An empty stack: the dashboard invites a first holding.
		r := b.get("/")
		if r.Status != 200 || !strings.Contains(string(r.Body), "Your stack is empty.") {
			t.Fatalf("empty dashboard: %d", r.Status)
		}
		u, _ := e.store.UserByEmail(t.Context(), "dash@example.com")
		ctx := t.Context()
		for _, h := range []db.Holding{
			{UserID: u.ID, Metal: "gold", ProductName: "1 oz Buffalo", Quantity: 2, WeightOz: pfD("1"), PurchasePrice: pfD("2000"), Fees: pfD("0"), PurchaseDate: pfDate("2025-01-10")},
			{UserID: u.ID, Metal: "silver", ProductName: "Junk dimes", Quantity: 100, WeightOz: pfD("0.07234"), PurchasePrice: pfD("2.10"), Fees: pfD("0"), PurchaseDate: pfDate("2024-05-01")},
			{UserID: u.ID, Metal: "platinum", ProductName: "Pt bar", Quantity: 1, WeightOz: pfD("1"), PurchasePrice: pfD("1100"), Fees: pfD("0"), PurchaseDate: pfDate("2025-02-01")},
		} {
			if _, err := e.store.InsertHolding(ctx, portfolio.WithTotals(h)); err != nil {
				t.Fatal(err)
			}
		}
		r = b.get("/")
		if r.Status != 200 {
			t.Fatalf("dashboard: %d", r.Status)
		}
		body := string(r.Body)
		d := doc(t, r)
		// 2 × 2,650.40 + 7.234 × 31.25 + 1,000.00 = 6,526.86
		if got := strings.TrimSpace(d.Find("[data-total-value]").Text()); got != "$6,526.86" {
			t.Errorf("total value shown %q", got)
		}
		for _, want := range []string{"−$100.00", "Break-even", "Allocation by value", "Value over time", `sse-connect="/events/prices?have=`, `hx-trigger="sse:prices"`, "/static/js/htmx-sse.min.js"} {
			if !strings.Contains(body, want) {
				t.Errorf("dashboard lacks %q", want)
			}
		}
		if d.Find("#allocation-title").Length() != 1 || d.Find("svg[role=img] desc").Length() < 2 {
			t.Error("charts lack accessible titles and descriptions")
		}
		if d.Find("#dashboard-holdings table caption").Length() != 1 || d.Find("#dashboard-holdings th[scope=col][aria-sort=descending]").Length() != 1 {
			t.Error("holdings table lacks caption or sort state")
		}
		// Strict CSP: no inline scripts or style attributes.
		d.Find("script").Each(func(_ int, s *goquery.Selection) {
			if src, _ := s.Attr("src"); src == "" {
				t.Error("inline script on the dashboard")
			}
		})
		if d.Find("[style]").Length() != 0 {
			t.Error("style attribute on the dashboard")
		}
		// Default order: by value, largest first.
		rows := d.Find("#dashboard-holdings tbody tr")
		if rows.Length() != 3 || !strings.Contains(rows.First().Text(), "1 oz Buffalo") || !strings.Contains(rows.Last().Text(), "Junk dimes") {
			t.Fatalf("value order: %q", rows.Text())
		}
		// Sorting by product, ascending, through the fragment.
		r = b.send(pfHX("/dashboard/holdings?sort=product&dir=asc"))
		fd := doc(t, r)
		if r.Status != 200 || fd.Find("tbody tr").Length() != 3 || !strings.Contains(fd.Find("tbody tr").First().Text(), "1 oz Buffalo") || !strings.Contains(fd.Find("tbody tr").Last().Text(), "Pt bar") {
			t.Fatalf("product order: %d %q", r.Status, fd.Find("tbody tr").Text())
		}
		if v, _ := fd.Find("#dashboard-holdings").Attr("hx-get"); v != "/dashboard/holdings?sort=product&dir=asc" {
			t.Errorf("live refresh loses the sort: %q", v)
		}
		// P/L ascending puts the platinum loss first.
		fd = doc(t, b.send(pfHX("/dashboard/holdings?sort=pl&dir=asc")))
		if !strings.Contains(fd.Find("tbody tr").First().Text(), "Pt bar") {
			t.Errorf("P/L order: %q", fd.Find("tbody tr").Text())
		}
		// The live summary follows a new tick.
		setPrices(e.app.Market, pfNow, map[metals.Metal][2]string{metals.Gold: {"2700.00", "2630.10"}})
		r = b.send(pfHX("/dashboard/summary"))
		if r.Status != 200 || strings.TrimSpace(doc(t, r).Find("[data-total-value]").Text()) != "$6,626.06" {
			t.Fatalf("summary after a tick: %d %q", r.Status, doc(t, r).Find("[data-total-value]").Text())
		}
		// The chart fragment for another range, and a bad one.
		if r := b.send(pfHX("/dashboard/chart?range=5Y")); r.Status != 200 || !strings.Contains(string(r.Body), "Stack value and cost basis, 5Y") {
			t.Fatalf("chart: %d", r.Status)
		}
		if r := b.send(pfHX("/dashboard/chart?range=9Y")); r.Status != 400 {
			t.Fatalf("bad chart range: %d", r.Status)
		}
		if r := b.get("/?range=9Y"); r.Status != 200 || !strings.Contains(doc(t, r).Find("#dashboard-chart [role=status]").Text(), "There is no range “9Y”: showing 1Y instead.") {
			t.Fatalf("bad range in the page address: %d, no note saying so", r.Status)
		}
		// YTD is a range of its own, not a fallback to 1Y.
		if r := b.send(pfHX("/dashboard/chart?range=YTD")); r.Status != 200 || !strings.Contains(string(r.Body), "Stack value and cost basis, YTD") {
			t.Fatalf("YTD chart: %d", r.Status)
		}
		// The performance table: one row per preset period.
		r = b.send(pfHX("/dashboard/performance"))
		if r.Status != 200 || doc(t, r).Find("#dashboard-performance tbody tr").Length() != 10 {
			t.Fatalf("performance table: %d %s", r.Status, r.Body)
		}
	})
}

func TestDashboardOnlyForGoldMembers(t *testing.T) {
	e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Config.Account.NewUsersGold = false; pfMarket(t, pfQuotes)(o) })
	b := e.browser()
	b.signUp("free@example.com")
	r := b.get("/")
	if r.Status != 200 || strings.Contains(string(r.Body), "Your stack") {
		t.Fatalf("a free member got the dashboard: %d", r.Status)
	}
	for _, p := range []string{"/dashboard/summary", "/dashboard/holdings", "/dashboard/chart"} {
		if r := b.send(pfHX(p)); r.Status != 403 {
			t.Errorf("%s for a free member: %d", p, r.Status)
		}
	}
	if r := e.browser().get("/dashboard/summary"); r.Status != 303 {
		t.Errorf("visitor: %d", r.Status)
	}
}

// TestDashboardWithoutPriceFeed: no feed, no event stream; the page polls instead.
func TestDashboardWithoutPriceFeed(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	b := e.browser()
	b.signUp("nofeed@example.com")
	u, _ := e.store.UserByEmail(t.Context(), "nofeed@example.com")
	if _, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", Quantity: 1, WeightOz: pfD("1"), PurchasePrice: pfD("2000"), Fees: pfD("0")})); err != nil {
		t.Fatal(err)
	}
	r := b.get("/")
	body := string(r.Body)
	if r.Status != 200 || strings.Contains(body, "sse-connect") || !strings.Contains(body, `hx-trigger="every 60s"`) || !strings.Contains(body, "Allocation needs a price") {
		t.Fatalf("dashboard without feed: %d", r.Status)
	}
}

func pfHX(path string) *http.Request {
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("HX-Request", "true")
	return req
}

// TestAnalyticsFollowsEdits: the premium sums are cached, but any edit is seen at once.
func TestAnalyticsFollowsEdits(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("edits@example.com", db.TierGold)
		id := pfCreate(t, e, key, pfH("gold", 1, "1", "2687.45", "0", "2025-01-10")) // exactly that day's close
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "metals.gold.avg_premium_pct", "0")
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "metals.gold.avg_premium_pct", "0")
		// Only the date changes: 2,687.45 against 3,370.85 on 2025-06-02.
		if r := e.api("PATCH", "/v1/holdings/"+id, key, map[string]any{"purchase_date": "2025-06-02"}); r.Status != 200 {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "metals.gold.avg_premium_pct", "-20.27")
		// A second lot on another day.
		pfCreate(t, e, key, pfH("gold", 1, "1", "3370.85", "9.99", "2025-06-02"))
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), "metals.gold.avg_premium_pct", "-10.14")
	})
}
