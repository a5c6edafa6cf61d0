package web_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// TestDealerPricesOfflineAreDemoWithTruePremiums is the "done when": offline,
// /v1/dealer-prices?metal=silver&weight=1 answers demo quotes, labelled demo, whose premiums
// are price ÷ (spot × fine oz) − 1 at the board's (stale, dated) spot.
func TestDealerPricesOfflineAreDemoWithTruePremiums(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		r := e.api("GET", "/v1/dealer-prices?metal=silver&weight=1", "", nil)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		v := numbers(t, r)
		spot := e.app.Market.Snapshot().Prices[metals.Silver]
		if v["demo"] != true || v["offline"] != true || v["spot_stale"] != true || !dnum(t, v["spot"]).Equal(metals.Price(spot.Price)) {
			t.Fatalf("header %v %v %v %v", v["demo"], v["offline"], v["spot_stale"], v["spot"])
		}
		products := v["products"].([]any)
		if len(products) != 8 {
			t.Fatalf("%d products", len(products))
		}
		n := 0
		for _, pv := range products {
			p := pv.(map[string]any)
			oz := dnum(t, p["weight_oz"])
			if p["demo"] != true || !oz.Equal(decimal.NewFromInt(1)) {
				t.Errorf("%v demo=%v oz=%s", p["product_id"], p["demo"], oz)
			}
			var prev decimal.Decimal
			for _, qv := range p["quotes"].([]any) {
				q := qv.(map[string]any)
				n++
				price := dnum(t, q["price"])
				want := price.Div(spot.Price.Mul(oz)).Sub(decimal.NewFromInt(1)).Mul(decimal.NewFromInt(100)).Round(2)
				if q["source"] != "demo" || !dnum(t, q["premium_pct"]).Equal(want) || !dnum(t, q["price_per_oz"]).Equal(price) {
					t.Errorf("%v %v: source %v premium %v, want %s", p["product_id"], q["dealer"], q["source"], q["premium_pct"], want)
				}
				if price.LessThan(prev) {
					t.Errorf("%v not sorted by price", p["product_id"])
				}
				prev = price
			}
			best := p["best"].(map[string]any)
			if best["dealer"] == "" || !dnum(t, best["price"]).IsPositive() {
				t.Errorf("best %v", best)
			}
		}
		if n < 24 {
			t.Errorf("only %d demo quotes", n)
		}
		// Fractions and grams select the right products.
		g := numbers(t, e.api("GET", "/v1/dealer-prices?metal=gold&weight=1/10", "", nil))
		var tenths []string
		for _, p := range g["products"].([]any) {
			tenths = append(tenths, p.(map[string]any)["product_id"].(string))
		}
		sort.Strings(tenths)
		if strings.Join(tenths, " ") != "gold-american-eagle-tenth-oz gold-maple-leaf-tenth-oz" {
			t.Errorf("1/10 oz gold: %v", tenths)
		}
		k := numbers(t, e.api("GET", "/v1/dealer-prices?metal=silver&weight=1kg&form=bar", "", nil))
		if ps := k["products"].([]any); len(ps) != 1 || ps[0].(map[string]any)["product_id"] != "silver-bar-1kg" {
			t.Errorf("1 kg silver bar: %v", ps)
		}
		j := numbers(t, e.api("GET", "/v1/dealer-prices?metal=silver&form=junk", "", nil))
		for _, pv := range j["products"].([]any) {
			p := pv.(map[string]any)
			if p["form"] != "junk" {
				t.Errorf("junk filter gave %v", p["product_id"])
			}
			if p["product_id"] == "silver-junk-90-face" && (p["per_face"] != true || !dnum(t, p["weight_oz"]).Equal(decimal.RequireFromString("0.715"))) {
				t.Errorf("junk by face: %v", p)
			}
		}
		for path, field := range map[string]string{
			"/v1/dealer-prices":                                     "metal",
			"/v1/dealer-prices?metal=copper":                        "metal",
			"/v1/dealer-prices?metal=gold&weight=abc":               "weight",
			"/v1/dealer-prices?metal=gold&weight=0":                 "weight",
			"/v1/dealer-prices?metal=gold&form=ingot":               "form",
			"/v1/dealer-prices/products?metal=tin":                  "metal",
			"/v1/dealer-prices/history":                             "product",
			"/v1/dealer-prices/history?product=nope":                "product",
			"/v1/dealer-prices/history?product=gold-bar-1oz&days=0": "days",
		} {
			r := e.api("GET", path, "", nil)
			if r.Status != 400 || !strings.Contains(string(r.Body), `"field":"`+field+`"`) {
				t.Errorf("%s: %d %s", path, r.Status, r.Body)
			}
		}
	})
}

func TestDealerProductsAndHistory(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		v := e.api("GET", "/v1/dealer-prices/products?metal=gold", "", nil).JSON(t)
		ps := v["products"].([]any)
		gold := 0
		for _, p := range metals.Products {
			if p.Metal == metals.Gold {
				gold++
			}
		}
		if len(ps) != gold {
			t.Fatalf("%d gold products, the catalogue has %d", len(ps), gold)
		}
		first := ps[0].(map[string]any)
		if first["product_id"] != "gold-american-eagle-1oz" || len(first["dealers"].([]any)) < 3 || first["purity"] != 0.9167 {
			t.Errorf("first product %v", first)
		}
		h := e.api("GET", "/v1/dealer-prices/history?product=silver-american-eagle-1oz&days=30", "", nil).JSON(t)
		if h["demo"] != true || len(h["overall"].([]any)) < 10 || len(h["dealers"].([]any)) < 3 || h["days"] != 30.0 {
			t.Errorf("history %v", h)
		}
	})
}

// TestDealerPricesShowFetchedQuotes: stored quotes (as a fetch pass leaves them) are shown
// instead of demo ones, with tiers and live premiums; once too old they are hidden again.
func TestDealerPricesShowFetchedQuotes(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		ctx := context.Background()
		setPrices(e.app.Market, intelNow, map[metals.Metal][2]string{metals.Silver: {"64.00", "63.50"}})
		at := intelNow.Add(-time.Hour)
		q := func(dealer, price string, stock bool) db.DealerQuoteRow {
			return db.DealerQuoteRow{Dealer: dealer, Product: "silver-bar-10oz", Price: decimal.RequireFromString(price), InStock: stock,
				URL: "https://example/" + dealer, Source: "page", FetchedAt: at}
		}
		rows := []db.DealerQuoteRow{q("apmex", "689.50", true), q("sd-bullion", "684.10", false), q("jm-bullion", "686.00", true), q("hero-bullion", "1200.00", true)}
		rows[0].Tiers = `[{"min":1,"max":9,"price":"689.50"},{"min":10,"max":0,"price":"685.00"}]`
		if err := e.store.SaveDealerQuotes(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
		v := numbers(t, e.api("GET", "/v1/dealer-prices?metal=silver&weight=10", "", nil))
		p := v["products"].([]any)[0].(map[string]any)
		quotes := p["quotes"].([]any)
		if p["demo"] != false || len(quotes) != 3 || v["spot_stale"] != false {
			t.Fatalf("product %v", p)
		}
		got := []string{}
		for _, qv := range quotes {
			q := qv.(map[string]any)
			got = append(got, q["dealer"].(string)+" "+q["price"].(json.Number).String()+" "+q["premium_pct"].(json.Number).String()+" "+q["source"].(string))
		}
		// hero-bullion's 1200.00 is more than 40 % over the median: left out.
		if strings.Join(got, ", ") != "sd-bullion 684.10 6.89 page, jm-bullion 686.00 7.19 page, apmex 689.50 7.73 page" {
			t.Errorf("quotes %v", got)
		}
		best := p["best"].(map[string]any)
		if best["dealer"] != "jm-bullion" {
			t.Errorf("best in stock %v", best)
		}
		apmex := quotes[2].(map[string]any)
		tiers := apmex["tiers"].([]any)
		if len(tiers) != 2 || tiers[1].(map[string]any)["max_qty"] != nil || apmex["url"] != "https://www.apmex.com/" {
			t.Errorf("apmex %v", apmex)
		}
	})
}

// TestDealerClicksOnlyGoToCatalogueURLs: POST /click and GET /go resolve only pairs the
// catalogue carries, to the catalogue's URL, and log the click with member and referrer.
func TestDealerClicksOnlyGoToCatalogueURLs(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		ctx := context.Background()
		u, key := e.user("buyer@example.com", "free")
		r := e.api("POST", "/v1/dealer-prices/click", key, map[string]string{"dealer": "apmex", "product_id": "silver-bar-10oz"})
		if r.Status != 201 || r.JSON(t)["url"] != "https://www.apmex.com/" {
			t.Fatalf("click %d %s", r.Status, r.Body)
		}
		for _, body := range []any{
			map[string]string{"dealer": "//evil.example", "product_id": "silver-bar-10oz"},
			map[string]string{"dealer": "apmex", "product_id": "javascript:alert(1)"},
			map[string]string{"dealer": "https://evil.example/", "product_id": "//evil.example/x"},
			map[string]string{"dealer": "nobody", "product_id": "silver-bar-10oz"},
			map[string]string{"dealer": "apmex"},
			`{"dealer":"apmex","product_id":"silver-bar-10oz","url":"https://evil.example"}`,
			`not json`,
		} {
			r := e.api("POST", "/v1/dealer-prices/click", "", body)
			if r.Status != 400 || strings.Contains(string(r.Body), "evil.example/") && strings.Contains(string(r.Body), `"url"`) {
				t.Errorf("%v: %d %s", body, r.Status, r.Body)
			}
		}
		b := e.browser()
		req := httptest.NewRequest("GET", "/go/jm-bullion/silver-bar-10oz", nil)
		req.Header.Set("Referer", "http://ounce.test/dealers?metal=silver")
		res := b.send(req)
		if res.Status != 302 || res.Header.Get("Location") != "https://www.jmbullion.com/" {
			t.Fatalf("go: %d %q", res.Status, res.Header.Get("Location"))
		}
		for _, path := range []string{"/go/evil/silver-bar-10oz", "/go/apmex/javascript:alert(1)", "/go/apmex/%2F%2Fevil.example", "/go//evil.example/x",
			"/go/apmex/https:%2F%2Fevil.example", "/go/apmex"} {
			res := b.get(path)
			if res.Status != 404 || res.Header.Get("Location") != "" {
				t.Errorf("%s: %d %q", path, res.Status, res.Header.Get("Location"))
			}
		}
		clicks, err := e.store.DealerClicks(ctx, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(clicks) != 2 || clicks[0].UserID.Int64 != u.ID || clicks[0].Via != "api" || clicks[1].UserID.Valid || clicks[1].Referrer != "ounce.test/dealers" || clicks[1].Via != "web" {
			t.Fatalf("logged %+v", clicks)
		}
	})
}

// TestDealersPageLabelsDemo: the page shows every quote's Demo badge, the demo notice, the spot's
// date, filters, sortable columns and the add-to-holdings prefill link.
func TestDealersPageLabelsDemo(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		r := e.browser().get("/dealers?metal=silver&weight=1&sort=dealer")
		if r.Status != 200 {
			t.Fatalf("%d", r.Status)
		}
		html := string(r.Body)
		rows := strings.Count(html, "data-dealer=")
		demoBadges := strings.Count(html, ">Demo</span>") - strings.Count(html, `id="demo-notice"`) - 8 // one per product heading
		if rows < 24 || demoBadges < rows {
			t.Errorf("%d rows, %d demo badges", rows, demoBadges)
		}
		for _, want := range []string{`id="demo-notice"`, "Not live", "last known price, from", `aria-sort="ascending"`, "/go/", "/holdings/new?dealer=",
			"&amp;price=", "&amp;product=silver-american-eagle-1oz", `hx-get="/dealers/silver-american-eagle-1oz" hx-trigger="toggle once from:closest details"`, `aria-current="page"`} {
			if !strings.Contains(html, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if r := e.browser().get("/dealers?sort=colour"); r.Status != 400 {
			t.Errorf("bad sort: %d", r.Status)
		}
		if r := e.browser().get("/dealers/no-such-product"); r.Status != 404 {
			t.Errorf("unknown product page: %d", r.Status)
		}
		req := httptest.NewRequest("GET", "/dealers/silver-american-eagle-1oz", nil)
		req.Header.Set("HX-Request", "true")
		frag := e.browser().send(req)
		if frag.Status != 200 || strings.Contains(string(frag.Body), "<html") || !strings.Contains(string(frag.Body), "<svg") || !strings.Contains(string(frag.Body), "Demo") {
			t.Errorf("chart fragment %d %.200s", frag.Status, frag.Body)
		}
	})
}
