package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// TestLedgerAPI: /v1/holdings carries sold and remaining units, the spot at purchase and the
// premium paid; DELETE /v1/sales/{id} undoes a sale and puts its units back.
func TestLedgerAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("ledger@example.com", db.TierGold)
		_, other := e.user("other@example.com", db.TierGold)
		// 2025-01-10: gold closed at 2,687.45 in the embedded history.
		id := pfCreate(t, e, key, pfH("gold", 5, "1", "2750.00", "0", "2025-01-10"))
		undated := pfCreate(t, e, key, pfH("silver", 1, "1", "30", "0", ""))
		sale := pfSell(t, e, key, id, map[string]any{"quantity": 2, "price_per_unit": 2900, "sold_on": "2025-06-02"})

		h := pfJSON(t, e.api("GET", "/v1/holdings/"+id, key, nil))
		pfCheck(t, h, "sold_quantity", "2")
		pfCheck(t, h, "remaining_quantity", "3")
		pfCheck(t, h, "spot_at_purchase", "2687.45")
		pfCheck(t, h, "premium_pct", "2.33") // 2,750 ÷ 2,687.45 − 1
		u := pfJSON(t, e.api("GET", "/v1/holdings/"+undated, key, nil))
		pfCheck(t, u, "spot_at_purchase", "null")
		pfCheck(t, u, "premium_pct", "null")
		pfCheck(t, u, "remaining_quantity", "1")
		list := pfJSON(t, e.api("GET", "/v1/holdings", key, nil))
		items := list["holdings"].([]any)
		if len(items) != 2 {
			t.Fatalf("list: %v", list)
		}
		for _, it := range items {
			m := it.(map[string]any)
			for _, f := range []string{"sold_quantity", "remaining_quantity", "spot_at_purchase", "premium_pct"} {
				if _, ok := m[f]; !ok {
					t.Errorf("list item lacks %s", f)
				}
			}
		}

		// Undo: another member's sale is not found; the owner's is undone, units come back.
		sid := sale["id"].(string)
		if r := e.api("DELETE", "/v1/sales/"+sid, other, nil); r.Status != 404 {
			t.Fatalf("another member undoes the sale: %d", r.Status)
		}
		if r := e.api("DELETE", "/v1/sales/"+sid, key, nil); r.Status != 204 {
			t.Fatalf("undo: %d %s", r.Status, r.Body)
		}
		if r := e.api("DELETE", "/v1/sales/"+sid, key, nil); r.Status != 404 {
			t.Fatalf("undo twice: %d", r.Status)
		}
		h = pfJSON(t, e.api("GET", "/v1/holdings/"+id, key, nil))
		pfCheck(t, h, "sold_quantity", "0")
		pfCheck(t, h, "remaining_quantity", "5")
		p := pfJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		pfCheck(t, p, "metals.gold.cost", "13750")
		pfCheck(t, p, "realized_pl", "0")
		// With no sale left the lot can be deleted again.
		if r := e.api("DELETE", "/v1/holdings/"+id, key, nil); r.Status != 204 {
			t.Fatalf("delete after undo: %d %s", r.Status, r.Body)
		}
	})
}

// TestLedgerPages: the ledger shows bought, sold and remaining units per lot with its sales,
// subtotals per metal and a metal filter; the all-sales page undoes a sale.
func TestLedgerPages(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("pages@example.com")
		u, err := e.store.UserByEmail(t.Context(), "pages@example.com")
		if err != nil {
			t.Fatal(err)
		}
		bar, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "silver", ProductName: "10 oz Silver Bar", Quantity: 5, WeightOz: pfD("10"),
			PurchasePrice: pfD("310"), Fees: pfD("0"), PurchaseDate: pfDate("2025-05-05")}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(db.Holding{UserID: u.ID, Metal: "gold", ProductName: "1 oz Gold Eagle", Quantity: 1, WeightOz: pfD("1"),
			PurchasePrice: pfD("2800"), Fees: pfD("0"), PurchaseDate: pfDate("2025-05-05")})); err != nil {
			t.Fatal(err)
		}
		b.get("/holdings/" + bar.ID + "/sell")
		if r := b.post("/holdings/"+bar.ID+"/sell", url.Values{"quantity": {"2"}, "price_per_unit": {"330"}, "sold_on": {"2025-09-01"}}, false); r.Status != 303 {
			t.Fatalf("sell: %d %s", r.Status, r.Body)
		}
		d := doc(t, b.get("/holdings"))
		lot := d.Find("#holding-" + bar.ID).Text()
		// 3 of 5 remain: 30 oz, cost 930 of 1,550, worth 30 × 31.25 = 937.50.
		for _, want := range []string{"5 units · 2 sold", "3 units", "30", "$930.00", "$937.50", "+$7.50", "Undo sale", "+$40.00"} {
			if !strings.Contains(lot, want) {
				t.Errorf("lot lacks %q: %s", want, lot)
			}
		}
		if d.Find("[data-subtotal=silver]").Length() != 1 || d.Find("[data-subtotal=gold]").Length() != 1 {
			t.Errorf("subtotals missing")
		}
		f := doc(t, b.get("/holdings?metal=gold"))
		if f.Find("li[id^=holding-]").Length() != 1 || !strings.Contains(f.Find("li[id^=holding-]").Text(), "Gold Eagle") {
			t.Errorf("gold filter: %s", f.Find("#holdings-table").Text())
		}
		// The edit form of a sold lot shows the locked fields disabled with the reason, and a
		// rename still saves (the locked values travel in hidden fields).
		edit := doc(t, b.get("/holdings/"+bar.ID+"/edit"))
		if _, dis := edit.Find("#f-quantity").Attr("disabled"); !dis || edit.Find("#locked-note").Length() != 1 {
			t.Fatalf("locked fields not disabled: %s", edit.Find("#holding-form").Text())
		}
		if _, dis := edit.Find("#f-product_name").Attr("disabled"); dis {
			t.Fatal("the name is locked too")
		}
		if r := b.post("/holdings/"+bar.ID, url.Values{"metal": {"silver"}, "product_name": {"10 oz Silver Bar (tube)"}, "quantity": {"5"}, "weight_oz": {"10"},
			"purchase_price": {"310.00"}, "fees": {"0.00"}, "purchase_date": {"2025-05-05"}}, false); r.Status != 303 {
			t.Fatalf("rename of a sold lot: %d %s", r.Status, r.Body)
		}
		// All sales, with undo: a link to a confirm page whose form posts (no JavaScript needed).
		s := doc(t, b.get("/holdings/sales"))
		link := s.Find("a[href*=\"/undo\"]")
		if link.Length() != 1 || !strings.Contains(s.Text(), "10 oz Silver Bar (tube)") {
			t.Fatalf("sales page: %s", s.Text())
		}
		href, _ := link.Attr("href")
		action, _ := doc(t, b.get(href)).Find("main form[action$=\"/undo\"]").Attr("action")
		if r := b.post(action, url.Values{"back": {"sales"}}, false); r.Status != 303 || r.Header.Get("Location") != "/holdings/sales?undone=1" {
			t.Fatalf("undo: %d %v", r.Status, r.Header)
		}
		after := doc(t, b.get("/holdings"))
		if lot := after.Find("#holding-" + bar.ID).Text(); !strings.Contains(lot, "5 units · 0 sold") || strings.Contains(lot, "Undo sale") {
			t.Errorf("after undo: %s", lot)
		}
	})
}

// TestProductsCatalogue: GET /v1/products lists the catalogue with fine weights (search by
// words, filter by metal), and the add form's picker offers the same products.
func TestProductsCatalogue(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		all := pfJSON(t, e.api("GET", "/v1/products", "", nil))["products"].([]any)
		if len(all) < 30 {
			t.Fatalf("catalogue has %d products", len(all))
		}
		names := map[string]bool{}
		for _, p := range all {
			names[p.(map[string]any)["id"].(string)] = true
		}
		for _, id := range []string{"gold-american-eagle-1oz", "silver-american-eagle-1oz", "platinum-american-eagle-1oz", "gold-maple-leaf-1oz", "silver-maple-leaf-1oz",
			"platinum-maple-leaf-1oz", "palladium-maple-leaf-1oz", "gold-krugerrand-1oz", "silver-britannia-1oz", "gold-american-buffalo-1oz", "silver-philharmonic-1oz",
			"silver-kangaroo-1oz", "silver-panda-30g", "silver-round-1oz", "silver-bar-1oz", "silver-bar-10oz", "silver-bar-100oz", "silver-bar-1kg",
			"gold-bar-1g", "gold-bar-1oz", "gold-bar-10oz", "gold-bar-1kg", "silver-junk-90-face", "silver-junk-40-face", "silver-war-nickel"} {
			if !names[id] {
				t.Errorf("catalogue lacks %s", id)
			}
		}
		m := pfJSON(t, e.api("GET", "/v1/products?q=MAPLE&metal=silver", "", nil))["products"].([]any)
		if len(m) != 1 {
			t.Fatalf("maple silver: %v", m)
		}
		pfCheck(t, m[0].(map[string]any), "fine_oz", "1")
		j := pfJSON(t, e.api("GET", "/v1/products?q=junk", "", nil))["products"].([]any)[0].(map[string]any)
		pfCheck(t, j, "per_face", "true")
		pfCheck(t, j, "fine_oz", "0.715")
		if r := e.api("GET", "/v1/products?metal=copper", "", nil); r.Status != 400 {
			t.Fatalf("bad metal: %d", r.Status)
		}
		b := e.browser()
		b.signUp("picker@example.com")
		form := doc(t, b.get("/holdings/new"))
		opt := form.Find(`#product-options option[value="Silver Bar 1 kg"]`)
		if oz, _ := opt.Attr("data-oz"); oz != "32.15075" {
			t.Errorf("picker's 1 kg bar: %q", oz)
		}
		if face, _ := form.Find(`#product-options option[value="90% US Silver Coins ($1 face)"]`).Attr("data-face"); face != "1" {
			t.Errorf("junk is not marked per face")
		}
	})
}
