package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// TestAlertsAPICurrencyAndUnit: an alert set in a currency and weight unit keeps them (and its
// target as entered) over /v1; an unknown currency or unit is 422 naming the field.
func TestAlertsAPICurrencyAndUnit(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		_, gold := e.user("gold@example.com", db.TierGold)
		r := e.api("POST", "/v1/push/price-alerts", gold, map[string]any{"metal": "gold", "direction": "above", "target_price": "3800.50", "currency": "EUR", "unit": "oz"})
		wantStatus(t, "create EUR alert", r, 201, "")
		a := r.JSON(t)["alert"].(map[string]any)
		if a["currency"] != "EUR" || a["unit"] != "oz" || a["target_price"] != 3800.5 {
			t.Fatalf("alert %s", r.Body)
		}
		id := fmt.Sprint(int64(a["id"].(float64)))
		r = e.api("PATCH", "/v1/push/price-alerts/"+id, gold, map[string]any{"currency": "inr", "unit": "g", "target_price": "95"})
		wantStatus(t, "patch to INR per gram", r, 200, "")
		if a := r.JSON(t)["alert"].(map[string]any); a["currency"] != "INR" || a["unit"] != "g" || a["target_price"] != 95.0 {
			t.Fatalf("patched %s", r.Body)
		}
		list := e.api("GET", "/v1/push/price-alerts", gold, nil)
		if a := list.JSON(t)["alerts"].([]any)[0].(map[string]any); a["currency"] != "INR" || a["unit"] != "g" {
			t.Fatalf("listed %s", list.Body)
		}
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"metal": "gold", "direction": "above", "target_price": 3800, "currency": "XYZ"}, "currency"},
			{map[string]any{"metal": "gold", "direction": "above", "target_price": 3800, "unit": "lb"}, "unit"},
		} {
			r := e.api("POST", "/v1/push/price-alerts", gold, c.body)
			wantStatus(t, fmt.Sprint(c.body), r, 422, "")
			if !strings.Contains(string(r.Body), `"`+c.field+`"`) {
				t.Fatalf("the problem does not name %s: %s", c.field, r.Body)
			}
		}
		wantStatus(t, "patch unknown unit", e.api("PATCH", "/v1/push/price-alerts/"+id, gold, map[string]any{"unit": "stone"}), 422, "")
		wantStatus(t, "patch unknown currency", e.api("PATCH", "/v1/push/price-alerts/"+id, gold, map[string]any{"currency": 7}), 400, "")
	})
}
