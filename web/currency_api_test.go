package web_test

import (
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// TestValuationInACurrencyAPI: /v1/portfolio, /v1/analytics and /v1/portfolio/history answer
// in the currency asked for and name it with the rate's date; without one, a dollar member's
// answers are in USD as before; an unknown code is 400 naming the parameter and listing codes.
// A lot entered as 100 g shows back as 100 g.
func TestValuationInACurrencyAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("cur@example.com", db.TierGold)
		id := pfCreate(t, e, key, map[string]any{"metal": "gold", "quantity": 1, "weight": 100, "weight_unit": "g", "purchase_price": 9000, "purchase_currency": "EUR", "purchase_date": "2025-06-30"})
		h := pfJSON(t, e.api("GET", "/v1/holdings/"+id, key, nil))
		pfCheck(t, h, "weight", "100")
		pfCheck(t, h, "weight_unit", "g")
		pfCheck(t, h, "purchase_currency", "EUR")
		pfCheck(t, h, "weight_oz", "3.21507466")
		for _, path := range []string{"/v1/portfolio", "/v1/analytics", "/v1/portfolio/history?range=ALL"} {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			usd := pfJSON(t, e.api("GET", path, key, nil))
			pfCheck(t, usd, "currency", "USD")
			pfCheck(t, usd, "fx_rate_date", "null")
			eur := pfJSON(t, e.api("GET", path+sep+"currency=eur", key, nil))
			pfCheck(t, eur, "currency", "EUR")
			if d, _ := eur["fx_rate_date"].(string); d == "" {
				t.Errorf("%s in EUR: fx_rate_date %v, want the rate's day", path, eur["fx_rate_date"])
			}
			r := e.api("GET", path+sep+"currency=XYZ", key, nil)
			if r.Status != 400 || !strings.Contains(string(r.Body), "currency") || !strings.Contains(string(r.Body), "GBP") {
				t.Errorf("%s unknown currency: %d %s", path, r.Status, r.Body)
			}
		}
		// The lot was bought in euros: in EUR its cost is exactly what was paid.
		pfCheck(t, pfJSON(t, e.api("GET", "/v1/portfolio?currency=EUR", key, nil)), "total_cost", "9000")
	})
}
