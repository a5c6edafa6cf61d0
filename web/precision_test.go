package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/metals"
)

// premiumFrom is a premium recomputed from shown figures: (price ÷ (spot × oz) − 1) × 100, to
// the 2 decimals premiums are shown with.
func premiumFrom(price, spot, oz decimal.Decimal) decimal.Decimal {
	return price.Div(spot.Mul(oz)).Sub(decimal.NewFromInt(1)).Mul(decimal.NewFromInt(100)).Round(2)
}

// TestShownPricesReproducePremiums: prices per ounce are shown at their source's precision
// (LBMA silver 63.935 stays 63.935), so every dealer premium and every lot premium can be
// recomputed from the spot and price shown beside it — in /v1/dealer-prices, /v1/holdings, the
// dashboard's break-even table and the holdings page.
func TestShownPricesReproducePremiums(t *testing.T) {
	eachEngine(t, pfMarket(t, map[metals.Metal][2]string{metals.Silver: {"63.935", "63.245"}, metals.Gold: {"4405.8", "4398.1"}}), func(t *testing.T, e *env) {
		ctx := context.Background()
		// Dealer quotes whose premiums over 63.935 and over 63.94 round apart.
		at := pfNow.Add(-time.Hour)
		var rows []db.DealerQuoteRow
		for i, price := range []string{"68.45", "69.99", "71.20", "72.05", "74.10"} {
			dealer := []string{"apmex", "jm-bullion", "sd-bullion", "monument-metals", "hero-bullion"}[i]
			rows = append(rows,
				db.DealerQuoteRow{Dealer: dealer, Product: "silver-american-eagle-1oz", Price: decimal.RequireFromString(price), InStock: true, URL: "https://example/" + dealer, Source: "page", FetchedAt: at},
				db.DealerQuoteRow{Dealer: dealer, Product: "silver-bar-10oz", Price: decimal.RequireFromString(price).Mul(decimal.NewFromInt(10)).Sub(decimal.RequireFromString("31.13")), InStock: true, URL: "https://example/" + dealer, Source: "page", FetchedAt: at})
		}
		if err := e.store.SaveDealerQuotes(ctx, rows, nil); err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, w := range []string{"1", "10"} {
			v := numbers(t, e.api("GET", "/v1/dealer-prices?metal=silver&weight="+w, "", nil))
			spot := dnum(t, v["spot"])
			if spot.String() != "63.935" {
				t.Errorf("dealer-prices spot %s, want 63.935", spot)
			}
			for _, pv := range v["products"].([]any) {
				p := pv.(map[string]any)
				oz := dnum(t, p["weight_oz"])
				for _, qv := range p["quotes"].([]any) {
					q := qv.(map[string]any)
					price, shown := dnum(t, q["price"]), dnum(t, q["premium_pct"])
					if want := premiumFrom(price, spot, oz); !want.Equal(shown) {
						t.Errorf("%v %v: premium %s, recomputed from the shown spot %s and price %s: %s", p["product_id"], q["dealer"], shown, spot, price, want)
					}
					checked++
				}
			}
		}
		if checked < 10 {
			t.Fatalf("only %d dealer quotes checked", checked)
		}

		// Lots dated on days of three-decimal silver closes (65.945 on 2025-12-17, 66.295 on
		// 2025-12-18, 65.785 on 2025-12-19 in the embedded history).
		_, key := e.user("precise@example.com", db.TierGold)
		b := e.browser()
		b.signUp("precise-page@example.com")
		b.get("/holdings/new")
		for _, lot := range [][3]string{
			{"2025-12-17", "1", "70.33"}, {"2025-12-18", "1", "71.12"}, {"2025-12-19", "1", "69.95"},
			{"2025-12-17", "10", "700.45"}, {"2025-12-18", "0.5", "35.61"}, {"2025-12-19", "32.15074657", "2280.00"},
		} {
			pfCreate(t, e, key, pfH("silver", 1, lot[1], lot[2], "0", lot[0]))
			if r := b.post("/holdings", url.Values{"metal": {"silver"}, "quantity": {"1"}, "weight_oz": {lot[1]}, "purchase_price": {lot[2]}, "purchase_date": {lot[0]}}, false); r.Status >= 400 {
				t.Fatalf("holding form: %d %s", r.Status, r.Body)
			}
		}
		list := pfJSON(t, e.api("GET", "/v1/holdings", key, nil))
		lots := list["holdings"].([]any)
		if len(lots) != 6 {
			t.Fatalf("%d lots", len(lots))
		}
		for _, lv := range lots {
			l := lv.(map[string]any)
			spot, price, oz, shown := dnum(t, l["spot_at_purchase"]), dnum(t, l["purchase_price"]), dnum(t, l["weight_oz"]), dnum(t, l["premium_pct"])
			if spot.Exponent() != -3 {
				t.Errorf("lot of %v: spot_at_purchase %s is not the three-decimal close", l["purchase_date"], spot)
			}
			if want := premiumFrom(price, spot, oz); !want.Equal(shown) {
				t.Errorf("lot of %v: premium %s, recomputed from the shown spot %s and price %s: %s", l["purchase_date"], shown, spot, price, want)
			}
		}

		// Pages: the dashboard's break-even table and the holdings list show the same figures.
		dash := b.get("/")
		if got := strings.TrimSpace(doc(t, dash).Find("table tbody tr").FilterFunction(func(_ int, s *goquery.Selection) bool {
			return strings.Contains(s.Find("th").Text(), "Silver")
		}).Find("td").Eq(2).Text()); got != "$63.935" {
			t.Errorf("dashboard break-even spot %q, want $63.935", got)
		}
		hold := string(b.get("/holdings").Body)
		for _, want := range []string{"$65.945/oz", "$66.295/oz", "$65.785/oz"} {
			if !strings.Contains(hold, want) {
				t.Errorf("holdings page lacks %s", want)
			}
		}
	})
}
