package web_test

import (
	"context"
	"fmt"
	"net/url"
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

// TestAlertsPageCurrencyAndUnit: a member who reads euros per gram is offered alerts in them
// (the selects preselected, the card's price converted), sets one from the form, and sees it
// listed in its currency and unit; an unknown unit comes back as 422 with the choices kept.
func TestAlertsPageCurrencyAndUnit(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		ctx := context.Background()
		b := e.browser()
		b.signUp("euro@example.com")
		u, err := e.app.Store.UserByEmail(ctx, "euro@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.app.Store.SetUserUnits(ctx, u.ID, "EUR", "g", "Europe/Berlin"); err != nil {
			t.Fatal(err)
		}
		body := string(b.get("/alerts").Body)
		for _, want := range []string{`name="currency"`, `name="unit"`, `<option value="EUR" selected>`, `<option value="g" selected>`} {
			if !strings.Contains(body, want) {
				t.Fatalf("page lacks %q", want)
			}
		}
		if !strings.Contains(body, "/g</p>") || !strings.Contains(body, "€") {
			t.Fatalf("the cards do not show euros per gram:\n%s", body)
		}
		r := b.post("/alerts", url.Values{"metal": {"gold"}, "direction": {"above"}, "target_price": {"€125.50"}, "currency": {"EUR"}, "unit": {"g"}, "repeat": {"once"}}, false)
		if r.Status != 303 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		if r = b.get("/alerts"); !strings.Contains(string(r.Body), "€125.50/g") {
			t.Fatalf("the alert is not listed in euros per gram:\n%s", r.Body)
		}
		r = b.post("/alerts", url.Values{"metal": {"silver"}, "direction": {"below"}, "target_price": {"1"}, "currency": {"EUR"}, "unit": {"stone"}, "repeat": {"once"}}, false)
		if r.Status != 422 || !strings.Contains(string(r.Body), "oz, g, kg, tola") {
			t.Fatalf("unknown unit: %d %s", r.Status, r.Body)
		}
	})
}
