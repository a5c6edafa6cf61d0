package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// TestLosslessExport: a stack with partial and full sales exports (CSV and JSON both carry
// the sales) and the CSV imports into an empty account as the same holdings, sales, realized
// P/L and analytics, on both engines.
func TestLosslessExport(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("from@example.com", db.TierGold)
		_, fresh := e.user("to@example.com", db.TierGold)
		bar := pfCreate(t, e, key, pfH("silver", 5, "10", "310", "0", "2025-05-05"))
		eagle := pfCreate(t, e, key, pfH("gold", 3, "1", "2800.10", "12.34", "2025-01-10"))
		pfCreate(t, e, key, pfH("platinum", 2, "1", "950", "0", ""))
		pfSell(t, e, key, bar, map[string]any{"quantity": 2, "price_per_unit": 330, "sold_on": "2025-09-01"})
		pfSell(t, e, key, eagle, map[string]any{"quantity": 1, "price_per_unit": json.Number("3001.01"), "fees": json.Number("4.99"), "sold_on": "2025-06-02"})
		pfSell(t, e, key, eagle, map[string]any{"quantity": 2, "price_per_unit": 3100, "sold_on": "2025-07-01"}) // sold out
		pfSell(t, e, key, bar, map[string]any{"quantity": 1, "price_per_unit": 29, "sold_on": "2025-10-01"})

		csv := e.api("GET", "/v1/holdings/export?format=csv", key, nil)
		if csv.Status != 200 || !strings.Contains(string(csv.Body), "\nsale_of_row,quantity,price_per_unit,fees,sold_on,,,,,,,\n") {
			t.Fatalf("csv export: %d %s", csv.Status, csv.Body)
		}
		js := pfJSON(t, e.api("GET", "/v1/holdings/export?format=json", key, nil))
		nested := 0
		for _, h := range js["holdings"].([]any) {
			nested += len(h.(map[string]any)["sales"].([]any))
		}
		if nested != 4 {
			t.Fatalf("json export nests %d sales, want 4", nested)
		}

		r := pfCSV(e, fresh, string(csv.Body))
		if r.Status != 200 {
			t.Fatalf("import: %d %s", r.Status, r.Body)
		}
		res := pfJSON(t, r)
		pfCheck(t, res, "imported", "3")
		pfCheck(t, res, "sales", "4")

		// Same sales (order, figures), same holdings, same totals and analytics.
		strip := func(m map[string]any, keys ...string) {
			for _, k := range keys {
				delete(m, k)
			}
		}
		sales := func(k string) []any {
			list := pfJSON(t, e.api("GET", "/v1/sales?limit=200", k, nil))
			out := list["sales"].([]any)
			for _, s := range out {
				strip(s.(map[string]any), "id", "holding_id", "created_at")
			}
			return append(out, list["realized_pl"])
		}
		same := func(what string, a, b any) {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Errorf("%s differs after the round trip:\n%s\n%s", what, ja, jb)
			}
		}
		same("sales", sales(key), sales(fresh))
		holdings := func(k string) []any {
			out := pfJSON(t, e.api("GET", "/v1/holdings?limit=200", k, nil))["holdings"].([]any)
			for _, h := range out {
				strip(h.(map[string]any), "id", "created_at", "updated_at")
			}
			return out
		}
		same("holdings", holdings(key), holdings(fresh))
		same("portfolio", pfJSON(t, e.api("GET", "/v1/portfolio", key, nil)), pfJSON(t, e.api("GET", "/v1/portfolio", fresh, nil)))
		same("analytics", pfJSON(t, e.api("GET", "/v1/analytics", key, nil)), pfJSON(t, e.api("GET", "/v1/analytics", fresh, nil)))

		// A second export of the copy is the same file.
		again := e.api("GET", "/v1/holdings/export?format=csv", fresh, nil)
		if string(again.Body) != string(csv.Body) {
			t.Errorf("re-export differs:\n%s\n%s", csv.Body, again.Body)
		}
		// A sale of a row that does not exist, or of too many units, is a row problem.
		bad := "metal,quantity,weight_oz,purchase_price\nsilver,2,1,30\nsale_of_row,quantity,price_per_unit,\n2,1,31,\n1,3,31,\n"
		r = pfCSV(e, fresh, bad)
		if r.Status != 422 || !strings.Contains(string(r.Body), "sale_of_row") || !strings.Contains(string(r.Body), "sells more than") {
			t.Fatalf("bad sales section: %d %s", r.Status, r.Body)
		}
	})
}
