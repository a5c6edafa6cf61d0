package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

func validHolding() map[string]any {
	return map[string]any{"metal": "silver", "product_name": "  1 oz Eagle ", "quantity": 20, "weight_oz": 1, "purchase_price": 32.5, "fees": 12.4, "dealer": "APMEX", "purchase_date": "2026-11-02", "notes": "tube"}
}

func with(k string, v any) map[string]any {
	m := validHolding()
	if v == nil {
		delete(m, k)
	} else {
		m[k] = v
	}
	return m
}

func TestHoldingsCreateValidation(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("ann@example.com", db.TierGold)
		cases := []struct {
			name  string
			body  any
			field string
		}{
			{"missing metal", with("metal", nil), "metal"},
			{"unknown metal", with("metal", "copper"), "metal"},
			{"symbol for metal", with("metal", "XAG"), "metal"},
			{"metal wrong type", with("metal", 3), "metal"},
			{"missing quantity", with("quantity", nil), "quantity"},
			{"zero quantity", with("quantity", 0), "quantity"},
			{"fractional quantity", with("quantity", 1.5), "quantity"},
			{"huge quantity", with("quantity", 1000001), "quantity"},
			{"quantity as string", with("quantity", "3"), "quantity"},
			{"missing weight", with("weight_oz", nil), "weight_oz"},
			{"zero weight", with("weight_oz", 0), "weight_oz"},
			{"negative weight", with("weight_oz", -1), "weight_oz"},
			{"heavy weight", with("weight_oz", 100000.5), "weight_oz"},
			{"exponent form", `{"metal":"gold","quantity":2e0,"weight_oz":1E-1,"purchase_price":1.5e3}`, ""},
			{"absurd exponent", `{"metal":"gold","quantity":1,"weight_oz":1e999999999,"purchase_price":1}`, "weight_oz"},
			{"missing price", with("purchase_price", nil), "purchase_price"},
			{"negative price", with("purchase_price", -0.01), "purchase_price"},
			{"price over max", with("purchase_price", 100000000.01), "purchase_price"},
			{"sub-cent price", with("purchase_price", 1.234), "purchase_price"},
			{"negative fees", with("fees", -5), "fees"},
			{"future date", with("purchase_date", "2999-01-01"), "purchase_date"},
			{"bad date", with("purchase_date", "02/11/2026"), "purchase_date"},
			{"impossible date", with("purchase_date", "2026-02-30"), "purchase_date"},
			{"long product", with("product_name", strings.Repeat("x", 201)), "product_name"},
			{"long dealer", with("dealer", strings.Repeat("d", 121)), "dealer"},
			{"long notes", with("notes", strings.Repeat("n", 2001)), "notes"},
			{"unknown field", with("userId", 7), "userId"},
			{"not an object", `[1,2]`, "body"},
			{"garbage", `{"metal":`, "body"},
			{"two objects", `{"metal":"gold"} {}`, "body"},
		}
		for _, c := range cases {
			r := e.api("POST", "/v1/holdings", key, c.body)
			if c.field == "" {
				if r.Status != 201 {
					t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
				}
				continue
			}
			if r.Status != 400 {
				t.Errorf("%s: status %d, want 400: %s", c.name, r.Status, r.Body)
				continue
			}
			p := r.JSON(t)
			errs, _ := p["errors"].([]any)
			if p["type"] != "/problems/invalid-parameter" || len(errs) == 0 || errs[0].(map[string]any)["field"] != c.field {
				t.Errorf("%s: problem %v does not name %s", c.name, p, c.field)
			}
		}
		// A control character is refused before the handler, by the rule every text input
		// follows (422 naming the field).
		if r := e.api("POST", "/v1/holdings", key, with("product_name", "a\x00b")); r.Status != 422 || !strings.Contains(string(r.Body), `"field":"product_name"`) {
			t.Errorf("control chars: %d %s", r.Status, r.Body)
		}
		big := fmt.Sprintf(`{"metal":"gold","notes":"%s"}`, strings.Repeat("x", 70<<10))
		if r := e.api("POST", "/v1/holdings", key, big); r.Status != 413 {
			t.Errorf("65 KiB body: %d", r.Status)
		}
		// Nothing invalid was stored (only the one valid exponent case).
		list := e.api("GET", "/v1/holdings", key, nil).JSON(t)
		if list["total"].(float64) != 1 {
			t.Fatalf("stored after rejects: %v", list["total"])
		}
	})
}

func TestHoldingsLifecycle(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("ann@example.com", db.TierGold)
		r := e.api("POST", "/v1/holdings", key, validHolding())
		if r.Status != 201 {
			t.Fatalf("create: %d %s", r.Status, r.Body)
		}
		h := r.JSON(t)
		id := h["id"].(string)
		if r.Header.Get("Location") != "/v1/holdings/"+id {
			t.Fatalf("Location = %q", r.Header.Get("Location"))
		}
		want := map[string]any{"metal": "silver", "product_name": "1 oz Eagle", "quantity": 20.0, "weight_oz": 1.0, "total_oz": 20.0, "purchase_price": 32.5, "fees": 12.4, "total_cost": 662.4, "dealer": "APMEX", "purchase_date": "2026-11-02", "notes": "tube"}
		for k, v := range want {
			if h[k] != v {
				t.Errorf("%s = %v, want %v", k, h[k], v)
			}
		}
		for _, k := range []string{"created_at", "updated_at"} {
			if h[k] == nil {
				t.Errorf("missing %s", k)
			}
		}
		// Fractional ounces and money stay exact: 3 × 0.1 oz at 260.33 + 4.99 fees.
		r = e.api("POST", "/v1/holdings", key, map[string]any{"metal": "gold", "quantity": 3, "weight_oz": 0.1, "purchase_price": 260.33, "fees": 4.99, "purchase_date": "2025-01-15"})
		g := r.JSON(t)
		if g["total_oz"] != 0.3 || g["total_cost"] != 785.98 {
			t.Fatalf("exact sums: %v %v", g["total_oz"], g["total_cost"])
		}
		// An undated holding sorts last.
		e.api("POST", "/v1/holdings", key, map[string]any{"metal": "platinum", "quantity": 1, "weight_oz": 1, "purchase_price": 950})

		list := e.api("GET", "/v1/holdings?limit=2", key, nil).JSON(t)
		items := list["holdings"].([]any)
		if list["total"] != 3.0 || list["limit"] != 2.0 || list["offset"] != 0.0 || len(items) != 2 || items[0].(map[string]any)["id"] != id {
			t.Fatalf("list page: %v", list)
		}
		last := e.api("GET", "/v1/holdings?offset=2", key, nil).JSON(t)["holdings"].([]any)
		if len(last) != 1 || last[0].(map[string]any)["purchase_date"] != nil {
			t.Fatalf("undated last: %v", last)
		}
		gold := e.api("GET", "/v1/holdings?metal=gold", key, nil).JSON(t)
		if gold["total"] != 1.0 {
			t.Fatalf("metal filter: %v", gold)
		}
		for _, q := range []string{"limit=0", "limit=201", "limit=x", "offset=-1", "metal=tin", "metal=GOLD"} {
			if r := e.api("GET", "/v1/holdings?"+q, key, nil); r.Status != 400 {
				t.Errorf("%s: %d", q, r.Status)
			}
		}
		// PATCH changes only what is sent.
		r = e.api("PATCH", "/v1/holdings/"+id, key, map[string]any{"quantity": 25, "notes": ""})
		p := r.JSON(t)
		if r.Status != 200 || p["quantity"] != 25.0 || p["notes"] != "" || p["dealer"] != "APMEX" || p["total_cost"] != 824.9 {
			t.Fatalf("patch: %d %v", r.Status, p)
		}
		if r := e.api("PATCH", "/v1/holdings/"+id, key, map[string]any{"quantity": -1}); r.Status != 400 {
			t.Fatalf("bad patch: %d", r.Status)
		}
		if got := e.api("GET", "/v1/holdings/"+id, key, nil).JSON(t)["quantity"]; got != 25.0 {
			t.Fatalf("bad patch changed data: %v", got)
		}
		if r := e.api("DELETE", "/v1/holdings/"+id, key, nil); r.Status != 204 {
			t.Fatalf("delete: %d", r.Status)
		}
		if r := e.api("GET", "/v1/holdings/"+id, key, nil); r.Status != 404 {
			t.Fatalf("after delete: %d", r.Status)
		}
	})
}

func TestHoldingsAreIsolatedBetweenUsers(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, annKey := e.user("ann@example.com", db.TierGold)
		_, bobKey := e.user("bob@example.com", db.TierGold)
		id := e.api("POST", "/v1/holdings", annKey, validHolding()).JSON(t)["id"].(string)
		for _, c := range []struct {
			method string
			body   any
		}{{"GET", nil}, {"PATCH", map[string]any{"quantity": 1}}, {"DELETE", nil}} {
			r := e.api(c.method, "/v1/holdings/"+id, bobKey, c.body)
			if r.Status != 404 || strings.Contains(string(r.Body), "Eagle") {
				t.Fatalf("bob %s ann's holding: %d %s", c.method, r.Status, r.Body)
			}
		}
		if r := e.api("GET", "/v1/holdings", bobKey, nil).JSON(t); r["total"] != 0.0 {
			t.Fatalf("bob sees: %v", r)
		}
		// A body naming another user is refused, never trusted.
		if r := e.api("POST", "/v1/holdings", bobKey, with("user_id", 1)); r.Status != 400 {
			t.Fatalf("user_id in body: %d", r.Status)
		}
		h := e.api("GET", "/v1/holdings/"+id, annKey, nil).JSON(t)
		if h["quantity"] != 20.0 {
			t.Fatalf("ann's holding changed: %v", h)
		}
	})
}
