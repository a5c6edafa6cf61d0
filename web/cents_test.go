package web_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/portfolio"
)

// usd reads a shown amount such as "$1,234.56" or "−$0.01".
func usd(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	s = strings.TrimSpace(s)
	neg := strings.HasPrefix(s, "−") || strings.HasPrefix(s, "-")
	s = strings.NewReplacer("−", "", "-", "", "+", "", "$", "", ",", "").Replace(s)
	d, err := decimal.NewFromString(s)
	if err != nil {
		t.Fatalf("%q is not an amount", s)
	}
	if neg {
		d = d.Neg()
	}
	return d
}

// jdec is a decoded JSON number as a decimal.
func jdec(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	return decimal.RequireFromString(num(t, v))
}

// TestCalculatorCentsAddUpOverHTTP is issue 23, item 12, over random inputs: in the JSON of
// /v1/junk-silver and /v1/speculation and on both calculator pages, a total is the sum of the
// lines shown beside it and the what-if gain is the projected value less today's (before, a
// junk-silver total was a cent off its lines, and a gain −$111,288.57 stood beside
// $144,832.10 − $256,120.66).
func TestCalculatorCentsAddUpOverHTTP(t *testing.T) {
	offlineEnv(t, func(t *testing.T, e *env) {
		r := rand.New(rand.NewPCG(23, 1212))
		coins := []string{"dimes", "quarters", "half_dollars", "kennedy_40", "dollars", "war_nickels"}
		for i := 0; i < 30; i++ {
			q := url.Values{}
			for _, c := range coins {
				if r.IntN(2) == 0 {
					q.Set(c, fmt.Sprint(r.IntN(100000)))
				}
			}
			if r.IntN(2) == 0 {
				q.Set("face_90", fmt.Sprintf("%d.%02d", r.IntN(20000), r.IntN(100)))
			}
			if r.IntN(3) == 0 {
				q.Set("face_40", fmt.Sprintf("%d.%02d", r.IntN(5000), r.IntN(100)))
			}
			if r.IntN(2) == 0 {
				q.Set("basis", "circulated")
			}
			j := rawJSON(t, e.api("GET", "/v1/junk-silver?"+q.Encode(), "", nil))
			melt, oz := decimal.Zero, decimal.Zero
			for _, list := range []string{"coins", "face"} {
				for _, l := range j[list].([]any) {
					melt, oz = melt.Add(jdec(t, l.(map[string]any)["melt_value"])), oz.Add(jdec(t, l.(map[string]any)["silver_oz"]))
				}
			}
			if !jdec(t, j["total_melt_value"]).Equal(melt) || !jdec(t, j["total_silver_oz"]).Equal(oz) {
				t.Errorf("junk silver %s: total %v (%v oz), the lines add to %s (%s oz)", q.Encode(), j["total_melt_value"], j["total_silver_oz"], melt, oz)
			}
			req := httptest.NewRequest("GET", "/calculators/junk-silver/result?"+q.Encode(), nil)
			req.Header.Set("HX-Request", "true")
			d := doc(t, e.do(req))
			shown := decimal.Zero
			d.Find("#junk-result tbody tr td:last-child").Each(func(_ int, s *goquery.Selection) { shown = shown.Add(usd(t, s.Text())) })
			if total := usd(t, d.Find("#junk-result p.text-3xl").Text()); !total.Equal(shown) || !total.Equal(melt) {
				t.Errorf("junk silver page %s: total %s, its rows add to %s (JSON %s)", q.Encode(), total, shown, melt)
			}
		}

		// A stack of all four metals in odd weights, projected at random targets.
		b := e.browser()
		b.signUp("cents@ounce.test")
		if err := e.store.SetUserTier(t.Context(), "cents@ounce.test", db.TierGold); err != nil {
			t.Fatal(err)
		}
		_, key := e.user("cents-api@ounce.test", "gold")
		u, _ := e.store.UserByEmail(t.Context(), "cents@ounce.test")
		for _, h := range []map[string]any{
			pfH("gold", 37, "0.48228", "1200.00", "0", "2024-02-01"), pfH("silver", 1313, "0.7234", "20.00", "0", "2024-03-01"),
			pfH("platinum", 7, "0.9995", "900.00", "0", "2024-04-01"), pfH("palladium", 3, "0.3215", "300.00", "0", "2024-05-01"),
		} {
			pfCreate(t, e, key, h)
			hh := db.Holding{UserID: u.ID, Metal: h["metal"].(string), ProductName: "lot", Quantity: int64(h["quantity"].(int)), WeightOz: decimal.RequireFromString(string(h["weight_oz"].(json.Number))),
				PurchasePrice: decimal.RequireFromString(string(h["purchase_price"].(json.Number))), Fees: decimal.Zero}
			if _, err := e.store.InsertHolding(t.Context(), portfolio.WithTotals(hh)); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 30; i++ {
			q := url.Values{}
			for _, m := range []string{"gold", "silver", "platinum", "palladium"} {
				if r.IntN(4) > 0 {
					q.Set(m, fmt.Sprintf("%d.%03d", 1+r.IntN(20000), r.IntN(1000)))
				}
			}
			s := rawJSON(t, e.api("GET", "/v1/speculation?"+q.Encode(), key, nil))
			p := s["portfolio"].(map[string]any)
			cur, proj := decimal.Zero, decimal.Zero
			for _, l := range p["metals"].(map[string]any) {
				cur, proj = cur.Add(jdec(t, l.(map[string]any)["current_value"])), proj.Add(jdec(t, l.(map[string]any)["projected_value"]))
			}
			pc, pp, g := jdec(t, p["current_value"]), jdec(t, p["projected_value"]), jdec(t, p["gain"])
			if !pc.Equal(cur) || !pp.Equal(proj) || !g.Equal(pp.Sub(pc)) {
				t.Errorf("speculation %s: current %s (lines %s), projected %s (lines %s), gain %s", q.Encode(), pc, cur, pp, proj, g)
			}
			req := httptest.NewRequest("GET", "/calculators/what-if/result?"+q.Encode(), nil)
			req.Header.Set("HX-Request", "true")
			d := doc(t, b.send(req))
			shown := decimal.Zero
			d.Find("#whatif-result tbody tr td:last-child").Each(func(_ int, s *goquery.Selection) { shown = shown.Add(usd(t, s.Text())) })
			// "from $X today · $G (P%)", or offline "from $X at the last known prices (dates) · $G (P%)"
			line := d.Find("#whatif-result p.text-sm").First().Text()
			head, rest, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "from "), " · ")
			from, _, _ := strings.Cut(head, " ")
			gain, _, _ := strings.Cut(rest, " (")
			total := usd(t, d.Find("#whatif-result p.text-3xl").Text())
			if !total.Equal(shown) || !total.Equal(pp) || !usd(t, from).Equal(pc) || !usd(t, gain).Equal(total.Sub(usd(t, from))) {
				t.Errorf("what-if page %s: %s from %s, gain %s; rows add to %s", q.Encode(), total, from, gain, shown)
			}
		}
	})
}
