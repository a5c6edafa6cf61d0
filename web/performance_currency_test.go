package web_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// TestPerformanceAPIInACurrency: a stack bought in euros and in dollars is measured in either
// currency over loopback on both engines: the euro lot's cost is exact in EUR, the dollar lot's
// is converted at its purchase day's rate (the one GET /v1/fx answers for that day), and the
// gain identity holds; an unknown code is 400 naming the parameter and listing the codes.
func TestPerformanceAPIInACurrency(t *testing.T) {
	eachEngine(t, pfMarket(t, nil), func(t *testing.T, e *env) {
		_, key := e.user("perf-eur@example.com", db.TierGold)
		eur := pfH("gold", 2, "1", "1900", "0", "2025-01-10")
		eur["purchase_currency"] = "EUR"
		pfCreate(t, e, key, eur)
		pfCreate(t, e, key, pfH("gold", 1, "1", "2000", "0", "2025-01-10"))

		for _, path := range []string{"/v1/portfolio/performance?from=2025-01-01&to=2026-08-17", "/v1/portfolio/performance/summary"} {
			r := e.api("GET", path+"&currency=XYZ", key, nil)
			if strings.HasSuffix(path, "summary") {
				r = e.api("GET", path+"?currency=XYZ", key, nil)
			}
			if r.Status != 400 || pfProblemField(t, r) != "currency" || !strings.Contains(string(r.Body), "GBP") {
				t.Errorf("%s unknown currency: %d %s", path, r.Status, r.Body)
			}
		}

		// USD per EUR on the purchase day, as the rates answer it: a dollar is 1 ÷ that in euros.
		fx := pfJSON(t, e.api("GET", "/v1/fx?date=2025-01-10&currency=USD", key, nil))
		perEUR := pfDec(t, fx, "per_eur")
		usdLotInEUR := decimal.NewFromInt(2000).Mul(decimal.NewFromInt(1).DivRound(perEUR, 20)).Round(2)

		p := pfJSON(t, e.api("GET", "/v1/portfolio/performance?from=2025-01-01&to=2026-08-17&currency=eur", key, nil))
		pfCheck(t, p, "currency", "EUR")
		pfCheck(t, p, "start_value", "0")
		pfCheck(t, p, "oz_end", "3")
		if got, want := pfDec(t, p, "net_flows"), decimal.NewFromInt(3800).Add(usdLotInEUR); !got.Equal(want) {
			t.Errorf("net flows in EUR %s, want 3800 (exact) + %s (the dollar lot at %s USD per EUR)", got, usdLotInEUR, perEUR)
		}
		gain := pfDec(t, p, "end_value").Sub(pfDec(t, p, "start_value")).Sub(pfDec(t, p, "net_flows"))
		if !gain.Equal(pfDec(t, p, "gain")) {
			t.Errorf("gain %s: %v", gain, p)
		}
		for _, k := range []string{"twr_pct", "mwr_pct", "benchmark.twr_pct"} {
			if v, ok := pfAt(p, k); !ok || v == nil {
				t.Errorf("%s is null: %v", k, p["notes"])
			}
		}

		// In dollars the euro lot converts instead: 3,800 × USD per EUR.
		u := pfJSON(t, e.api("GET", "/v1/portfolio/performance?from=2025-01-01&to=2026-08-17&currency=USD", key, nil))
		pfCheck(t, u, "currency", "USD")
		if got, want := pfDec(t, u, "net_flows"), decimal.NewFromInt(3800).Mul(perEUR).Round(2).Add(decimal.NewFromInt(2000)); !got.Equal(want) {
			t.Errorf("net flows in USD %s, want %s", got, want)
		}

		s := pfJSON(t, e.api("GET", "/v1/portfolio/performance/summary?currency=EUR", key, nil))
		for _, x := range s["periods"].([]any) {
			if c := x.(map[string]any)["currency"]; c != "EUR" {
				t.Errorf("summary period in %v", c)
			}
		}
	})
}
