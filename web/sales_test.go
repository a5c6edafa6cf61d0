package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

func TestSalesAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("seller@example.com", db.TierGold)
		_, other := e.user("other@example.com", db.TierGold)
		id := pfCreate(t, e, key, pfH("silver", 20, "1", "32.50", "12.40", "2026-11-02")) // 662.40

		// Validation: every bad field is a 400 naming it, never a 500.
		for _, c := range []struct {
			name  string
			body  any
			field string
		}{
			{"missing quantity", map[string]any{"price_per_unit": 30}, "quantity"},
			{"zero quantity", map[string]any{"quantity": 0, "price_per_unit": 30}, "quantity"},
			{"fractional quantity", map[string]any{"quantity": 1.5, "price_per_unit": 30}, "quantity"},
			{"quantity as text", map[string]any{"quantity": "2", "price_per_unit": 30}, "quantity"},
			{"missing price", map[string]any{"quantity": 1}, "price_per_unit"},
			{"negative price", map[string]any{"quantity": 1, "price_per_unit": -1}, "price_per_unit"},
			{"sub-cent price", map[string]any{"quantity": 1, "price_per_unit": 30.001}, "price_per_unit"},
			{"negative fees", map[string]any{"quantity": 1, "price_per_unit": 30, "fees": -2}, "fees"},
			{"bad date", map[string]any{"quantity": 1, "price_per_unit": 30, "sold_on": "20/11/2026"}, "sold_on"},
			{"future date", map[string]any{"quantity": 1, "price_per_unit": 30, "sold_on": "2027-01-01"}, "sold_on"},
			{"before purchase", map[string]any{"quantity": 1, "price_per_unit": 30, "sold_on": "2026-11-01"}, "sold_on"},
			{"unknown field", map[string]any{"quantity": 1, "price_per_unit": 30, "userId": 9}, "userId"},
			{"not an object", `[1]`, "body"},
			{"garbage", `{"quantity":`, "body"},
		} {
			r := e.api("POST", "/v1/holdings/"+id+"/sales", key, c.body)
			if r.Status != 400 || pfProblemField(t, r) != c.field {
				t.Errorf("%s: %d %s", c.name, r.Status, r.Body)
			}
		}
		// Another user's holding, or none at all, is 404.
		for _, k := range []string{other} {
			if r := e.api("POST", "/v1/holdings/"+id+"/sales", k, map[string]any{"quantity": 1, "price_per_unit": 30}); r.Status != 404 {
				t.Errorf("selling another user's holding: %d", r.Status)
			}
		}
		if r := e.api("POST", "/v1/holdings/h_nothing/sales", key, map[string]any{"quantity": 1, "price_per_unit": 30}); r.Status != 404 {
			t.Errorf("selling a missing holding: %d", r.Status)
		}

		// A partial sale: 5 of 20 take 662.40 × 5/20 = 165.60 of cost.
		r := e.api("POST", "/v1/holdings/"+id+"/sales", key, map[string]any{"quantity": 5, "price_per_unit": json.Number("34.10"), "fees": json.Number("2.50"), "sold_on": "2026-11-20"})
		if r.Status != 201 || !strings.HasPrefix(r.Header.Get("Location"), "/v1/sales") {
			t.Fatalf("sale: %d %s", r.Status, r.Body)
		}
		s := pfJSON(t, r)
		for path, want := range map[string]string{"sale.holding_id": id, "sale.quantity": "5", "sale.price_per_unit": "34.10", "sale.fees": "2.50",
			"sale.sold_on": "2026-11-20", "sale.proceeds": "170.50", "sale.cost_basis": "165.60", "sale.realized_pl": "2.40", "sale.metal": "silver"} {
			pfCheck(t, s, path, want)
		}
		// The date defaults to today.
		s = pfSell(t, e, key, id, map[string]any{"quantity": 5, "price_per_unit": 30})
		pfCheck(t, map[string]any{"s": s}, "s.sold_on", "2026-11-20")
		pfCheck(t, map[string]any{"s": s}, "s.cost_basis", "165.60") // 496.80 × 5/15

		// More than is held is a conflict naming the quantity, and changes nothing.
		r = e.api("POST", "/v1/holdings/"+id+"/sales", key, map[string]any{"quantity": 11, "price_per_unit": 30})
		if r.Status != 409 || r.JSON(t)["type"] != "/problems/conflict" || pfProblemField(t, r) != "quantity" || !strings.Contains(r.JSON(t)["detail"].(string), "10") {
			t.Fatalf("oversell: %d %s", r.Status, r.Body)
		}
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, p, "metals.silver.oz", "10")
		pfCheck(t, p, "metals.silver.cost", "331.20")

		// The list, filtered and paged, with the realized total.
		l := pfJSON(t, e.api("GET", "/v1/sales?limit=1", key, nil))
		pfCheck(t, l, "total", "2")
		pfCheck(t, l, "limit", "1")
		pfCheck(t, l, "realized_pl", "-13.20") // 2.40 + (150 − 165.60)
		if n := len(l["sales"].([]any)); n != 1 {
			t.Fatalf("page of %d", n)
		}
		for _, q := range []string{"metal=gold", "holding_id=h_other"} {
			if l := pfJSON(t, e.api("GET", "/v1/sales?"+q, key, nil)); len(l["sales"].([]any)) != 0 {
				t.Errorf("%s: %v", q, l)
			}
		}
		if l := pfJSON(t, e.api("GET", "/v1/sales", other, nil)); len(l["sales"].([]any)) != 0 {
			t.Error("another user sees these sales")
		}
		for _, q := range []string{"limit=0", "limit=x", "offset=-1", "metal=copper"} {
			if r := e.api("GET", "/v1/sales?"+q, key, nil); r.Status != 400 {
				t.Errorf("%s: %d", q, r.Status)
			}
		}

		// A holding with sales cannot be deleted, nor repriced; it can be renamed.
		if r := e.api("DELETE", "/v1/holdings/"+id, key, nil); r.Status != 409 || !strings.Contains(r.JSON(t)["detail"].(string), "sales") {
			t.Fatalf("delete with sales: %d %s", r.Status, r.Body)
		}
		if r := e.api("PATCH", "/v1/holdings/"+id, key, `{"purchase_price":1}`); r.Status != 409 || r.JSON(t)["type"] != "/problems/conflict" {
			t.Fatalf("reprice with sales: %d %s", r.Status, r.Body)
		}
		if r := e.api("PATCH", "/v1/holdings/"+id, key, map[string]any{"product_name": "Eagles, tube 1"}); r.Status != 200 {
			t.Fatalf("rename with sales: %d %s", r.Status, r.Body)
		}
		// Selling everything that is left is fine; one more unit is not.
		pfSell(t, e, key, id, map[string]any{"quantity": 10, "price_per_unit": 31})
		if r := e.api("POST", "/v1/holdings/"+id+"/sales", key, map[string]any{"quantity": 1, "price_per_unit": 31}); r.Status != 409 {
			t.Fatalf("sale from an empty lot: %d", r.Status)
		}
	})
}

func TestSalePagesAndDeleteRefused(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("pages@example.com")
		u, err := e.store.UserByEmail(t.Context(), "pages@example.com")
		if err != nil {
			t.Fatal(err)
		}
		h, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", Quantity: 4, WeightOz: pfD("0.25"), PurchasePrice: pfD("700"), Fees: pfD("0"), PurchaseDate: pfDate("2025-05-05")}))
		if err != nil {
			t.Fatal(err)
		}
		r := b.get("/holdings/" + h.ID + "/sell")
		if r.Status != 200 || !strings.Contains(string(r.Body), "4 of 4 units still held") {
			t.Fatalf("sale form: %d", r.Status)
		}
		d := doc(t, r)
		for _, f := range []string{"f-quantity", "f-price_per_unit", "f-fees", "f-sold_on"} {
			if d.Find("label[for="+f+"]").Length() != 1 {
				t.Errorf("field %s has no label", f)
			}
		}
		// Too many units: the form comes back with the error on quantity.
		r = b.post("/holdings/"+h.ID+"/sell", url.Values{"quantity": {"5"}, "price_per_unit": {"800"}, "sold_on": {"2026-01-02"}}, true)
		if r.Status != 422 || !strings.Contains(string(r.Body), "f-quantity-error") {
			t.Fatalf("oversell form: %d %s", r.Status, r.Body)
		}
		r = b.post("/holdings/"+h.ID+"/sell", url.Values{"quantity": {"1"}, "price_per_unit": {"abc"}}, true)
		if r.Status != 422 || !strings.Contains(string(r.Body), "f-price_per_unit-error") {
			t.Fatalf("bad price form: %d", r.Status)
		}
		r = b.post("/holdings/"+h.ID+"/sell", url.Values{"quantity": {"1"}, "price_per_unit": {"800"}, "fees": {"1.50"}, "sold_on": {"2026-01-02"}}, false)
		if r.Status != 303 || r.Header.Get("Location") != "/holdings?sold=1" {
			t.Fatalf("sale: %d %s", r.Status, r.Body)
		}
		// The ledger confirms it and shows what remains; Delete is locked with its reason.
		ledger := doc(t, b.get("/holdings?sold=1"))
		lot := ledger.Find("#holding-" + h.ID)
		if !strings.Contains(ledger.Text(), "Sale recorded.") || !strings.Contains(lot.Text(), "1 sold") || !strings.Contains(lot.Text(), "Undo sale") {
			t.Fatalf("ledger after the sale: %q", lot.Text())
		}
		if del := lot.Find("button[disabled]"); del.Length() != 1 || !strings.Contains(lot.Text(), "undo them first") {
			t.Fatalf("delete is not locked: %q", lot.Text())
		}
		// Without the CSRF token nothing is sold.
		if r := b.post("/holdings/"+h.ID+"/sell", url.Values{"_csrf": {"forged"}, "quantity": {"1"}, "price_per_unit": {"800"}}, false); r.Status != 403 {
			t.Fatalf("forged sale: %d", r.Status)
		}
		// Deleting it from the holdings page is refused with a message, not an error page.
		b.get("/holdings")
		r = b.post("/holdings/"+h.ID+"/delete", nil, true)
		if r.Status != 409 || !strings.Contains(string(r.Body), "recorded sales") {
			t.Fatalf("delete with sales: %d %s", r.Status, r.Body)
		}
		// Another member cannot reach the form.
		o := e.browser()
		o.signUp("other@example.com")
		if r := o.get("/holdings/" + h.ID + "/sell"); r.Status != 404 {
			t.Fatalf("another member's sale form: %d", r.Status)
		}
	})
}

func pfD(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func pfDate(s string) db.Date {
	d, err := db.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}
