package web_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/app"
)

// offlineAt is "a fresh start, offline" as issue 10 tried it: a Monday in November with the
// embedded history ending in August (silver's last close 2026-08-10, 63.935).
var offlineAt = time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)

func offlineEnv(t *testing.T, fn func(t *testing.T, e *env)) {
	eachEngine(t, func(o *app.Options) {
		o.Now = func() time.Time { return offlineAt }
		withMarket(t)(o)
	}, fn)
}

func num(t *testing.T, v any) string {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		f, ok := v.(float64)
		if !ok {
			t.Fatalf("%v (%T) is not a number", v, v)
		}
		b, _ := json.Marshal(f)
		return string(b)
	}
	return n.String()
}

// rawJSON decodes keeping numbers as written, so 63.935 is not a float's guess.
func rawJSON(t *testing.T, r resp) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(r.Body)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	return m
}

// TestTruthPrecisionKeptThroughTheMath is issue 10, case 2: silver's stored close 63.935 is
// served and used as 63.935, not 63.94.
func TestTruthPrecisionKeptThroughTheMath(t *testing.T) {
	offlineEnv(t, func(t *testing.T, e *env) {
		b := rawJSON(t, e.api("GET", "/v1/prices", "", nil))
		s := b["prices"].(map[string]any)["silver"].(map[string]any)
		// Before: price 63.94, change -0.38, change_pct -0.59.
		if num(t, s["price"]) != "63.935" || num(t, s["prev_close"]) != "64.32" || num(t, s["change"]) != "-0.385" || num(t, s["change_pct"]) != "-0.60" {
			t.Errorf("silver = price %v prev %v change %v (%v %%)", s["price"], s["prev_close"], s["change"], s["change_pct"])
		}
		// 1,000,000 dimes: 72,340 oz × 63.935 = 4,625,057.90 (63.94 gave 4,625,419.60, $361.70 high).
		j := rawJSON(t, e.api("GET", "/v1/junk-silver?dimes=1000000", "", nil))
		if num(t, j["total_melt_value"]) != "4625057.90" || num(t, j["spot"].(map[string]any)["price"]) != "63.935" {
			t.Errorf("junk silver = %v at %v", j["total_melt_value"], j["spot"])
		}

		// One value, one answer: 36 oz of silver is 2,301.66 on the dashboard, in what-if and
		// at the value-history point of the same close (63.94 gave 2,301.84 against 2,301.66).
		_, key := e.user("truth@ounce.test", "gold")
		pfCreate(t, e, key, pfH("silver", 36, "1", "20.00", "0", "2025-01-02"))
		p := rawJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		sp := rawJSON(t, e.api("GET", "/v1/speculation", key, nil))
		h := rawJSON(t, e.api("GET", "/v1/portfolio/history?range=ALL", key, nil))
		var hist string
		for _, pt := range h["points"].([]any) {
			if pt.(map[string]any)["date"] == "2026-08-10" {
				hist = num(t, pt.(map[string]any)["value"])
			}
		}
		got := []string{num(t, p["total_value"]), num(t, sp["portfolio"].(map[string]any)["current_value"]), hist}
		for i, g := range got {
			if g != "2301.66" {
				t.Errorf("figure %d (dashboard, what-if, history 2026-08-10) = %v, want 2301.66 each", i, got)
				break
			}
		}
	})
}

// TestTruthHistoryRangesSayWhereDataEnds is issue 10, case 4: offline, 1M and 3M answered 200
// with count 0 and nothing saying the data ends in August.
func TestTruthHistoryRangesSayWhereDataEnds(t *testing.T) {
	offlineEnv(t, func(t *testing.T, e *env) {
		for _, rng := range []string{"1M", "3M"} {
			h := e.api("GET", "/v1/prices/history?metal=gold&range="+rng, "", nil).JSON(t)
			if h["through"] != "2026-08-17" || h["stale"] != true || h["count"].(float64) < 15 || h["to"] != "2026-08-17" {
				t.Errorf("%s: through %v stale %v count %v to %v", rng, h["through"], h["stale"], h["count"], h["to"])
			}
		}
		// Every range counts back from the last close (issue 23): 1Y too.
		h := e.api("GET", "/v1/prices/history?metal=gold&range=1Y", "", nil).JSON(t)
		if h["through"] != "2026-08-17" || h["stale"] != true || h["start"] != "2025-08-17" || h["from"] != "2025-08-18" {
			t.Errorf("1Y: through %v stale %v start %v from %v", h["through"], h["stale"], h["start"], h["from"])
		}
		page := string(e.api("GET", "/markets/chart?metal=gold&range=1M", "", nil).Body)
		if !strings.Contains(page, "The data ends on 17 Aug 2026") {
			t.Errorf("chart does not say where the data ends:\n%s", page)
		}
	})
}

// TestTruthVaultWatchRatesAndPublicPage is issue 10, cases 5 and 6. Platinum's two real
// reports, 2026-01-05 and 2026-04-27, gave "3.1 trading days until registered runs out";
// over the 79 business days between them the drain is 1,104 oz a day: 246 days. Visitors saw
// operator instructions and red/green registered/eligible figures.
func TestTruthVaultWatchRatesAndPublicPage(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.importAll()
		v := rawJSON(t, e.api("GET", "/v1/vault-watch?metal=platinum&days=365", "", nil))
		if num(t, v["days_to_zero"]) != "246.0" || num(t, v["registered_per_business_day"]) != "-1104.07562" || num(t, v["drain_business_days"]) != "79" ||
			v["drain_from"] != "2026-01-05" || v["drain_to"] != "2026-04-27" || v["days_to_zero_reason"] != nil || num(t, v["drain_window_business_days"]) != "90" {
			t.Errorf("platinum drain: days %v rate %v over %v (%v..%v) reason %v", v["days_to_zero"], v["registered_per_business_day"], v["drain_business_days"], v["drain_from"], v["drain_to"], v["days_to_zero_reason"])
		}
		page := string(e.do(httptest.NewRequest("GET", "/vault?metal=platinum", nil)).Body)
		if !strings.Contains(page, "246 business days") || strings.Contains(page, "3.1 trading days") {
			t.Errorf("platinum page does not show the per-business-day figure")
		}
		for _, metal := range []string{"platinum", "gold", "silver"} {
			page := string(e.do(httptest.NewRequest("GET", "/vault?metal="+metal, nil)).Body)
			main := page[strings.Index(page, "<main"):]
			for _, bad := range []string{"ounce vault", "Import a CME workbook", "set it with", "text-red-", "text-emerald-"} {
				if strings.Contains(main, bad) {
					t.Errorf("public %s page shows %q", metal, bad)
				}
			}
		}
		// An administrator still sees how to fill the gaps.
		e.admin("ops@ounce.test")
		b := e.browser()
		b.get("/login")
		b.post("/login", url.Values{"email": {"ops@ounce.test"}, "password": {"correct horse battery"}}, false)
		if admin := string(b.get("/vault?metal=platinum").Body); !strings.Contains(admin, "ounce vault open-interest") {
			t.Error("admin page lacks the how-to")
		}
	})
	// A metal with one report in the window: null with a reason, not a number.
	e := newEnv(t, sqliteStore(t), offline(t))
	if _, err := e.app.Vault.ImportXLS(context.Background(), mustRead(t, "../internal/comex/testdata/xls/PA-PL_2026-04-27.xls"), "x.xls"); err != nil {
		t.Fatal(err)
	}
	v := rawJSON(t, e.api("GET", "/v1/vault-watch?metal=platinum", "", nil))
	if v["days_to_zero"] != nil || !strings.Contains(v["days_to_zero_reason"].(string), "fewer than two reports") {
		t.Errorf("one report: days %v reason %v", v["days_to_zero"], v["days_to_zero_reason"])
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTruthNoTodayOrLiveForOldPrices is issue 10, case 3 on the pages and /v1: offline, the
// dashboard said "Valued at live spot prices" with a green "TODAY +$42.53" summing moves of
// four dates, and the home hero said "Live spot prices".
func TestTruthNoTodayOrLiveForOldPrices(t *testing.T) {
	offlineEnv(t, func(t *testing.T, e *env) {
		b := rawJSON(t, e.api("GET", "/v1/prices", "", nil))
		s := b["prices"].(map[string]any)["silver"].(map[string]any)
		if s["change_today"] != false || s["change_from"] != "2026-08-07" || s["change_as_of"] != "2026-08-10" || !strings.Contains(s["change_note"].(string), "10 Aug 2026") {
			t.Errorf("silver change labels: %v %v %v %v", s["change_today"], s["change_from"], s["change_as_of"], s["change_note"])
		}
		_, key := e.user("stack@ounce.test", "gold")
		for _, m := range []string{"gold", "silver", "platinum", "palladium"} {
			pfCreate(t, e, key, pfH(m, 1, "1", "100.00", "0", "2025-01-02"))
		}
		p := rawJSON(t, e.api("GET", "/v1/portfolio", key, nil))
		left, _ := p["day_change_left_out"].([]any)
		if p["day_change"] != nil || len(left) != 4 || p["metals"].(map[string]any)["gold"].(map[string]any)["day_change_note"] == nil {
			t.Errorf("day_change %v left out %v", p["day_change"], p["day_change_left_out"])
		}

		hero := string(e.do(httptest.NewRequest("GET", "/", nil)).Body)
		if strings.Contains(hero, "Live spot prices") {
			t.Error("home hero says live with stale prices")
		}
		if !strings.Contains(hero, "10 Aug 2026 vs 7 Aug 2026 close") || !strings.Contains(hero, "$63.935") || !strings.Contains(hero, "−$0.385") || !strings.Contains(hero, "(gold of 17 Aug 2026, silver of 10 Aug 2026)") {
			t.Error("price card does not date silver's change")
		}
		br := e.browser()
		br.get("/login")
		br.post("/login", url.Values{"email": {"stack@ounce.test"}, "password": {"correct horse battery"}}, false)
		dash := string(br.get("/").Body)
		if !strings.Contains(dash, "Your stack") {
			t.Fatalf("not the dashboard:\n%.500s", dash)
		}
		if strings.Contains(dash, "Valued at live spot prices") || strings.Contains(dash, ">Today<") || !strings.Contains(dash, "leaves out Gold, Silver, Platinum, Palladium") {
			t.Errorf("dashboard words: live %t today %t", strings.Contains(dash, "Valued at live spot prices"), strings.Contains(dash, ">Today<"))
		}
	})
}
