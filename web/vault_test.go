package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/internal/comex"
	"github.com/ouncehq/ounce/internal/metals"
)

// importAll stores every real CME workbook of the test data through the use case the CLI uses.
func (e *env) importAll() {
	e.t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "internal", "comex", "testdata", "xls", "*.xls"))
	if err != nil || len(files) != 8 {
		e.t.Fatalf("workbooks: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			e.t.Fatal(err)
		}
		if _, err := e.app.Vault.ImportXLS(context.Background(), b, filepath.Base(f)); err != nil {
			e.t.Fatalf("%s: %v", f, err)
		}
	}
}

// numbers decodes a JSON body keeping numbers exactly as written.
func numbers(t *testing.T, r resp) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(r.Body))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%d %s: %v", r.Status, r.Body, err)
	}
	return m
}

func dnum(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	return decimal.RequireFromString(n.String())
}

// TestVaultWatchFromRealReports checks Vault Watch against the totals CME published in the
// real workbooks (SOURCES.md), the changes between them, and the open-interest figures.
func TestVaultWatchFromRealReports(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.importAll()
		v := numbers(t, e.api("GET", "/v1/vault-watch?days=365", "", nil))
		want := map[string]string{
			"registered_oz": "75715217.37300", "eligible_oz": "239466529.30900", "combined_oz": "315181746.68200",
			"registered_change_oz": "-12475841.89100", "eligible_change_oz": "-39769039.71400", "combined_change_oz": "-52244881.60500",
		}
		for k, w := range want {
			if got := v[k].(json.Number).String(); got != w {
				t.Errorf("%s = %s, want %s", k, got, w)
			}
		}
		reg, comb := decimal.RequireFromString("75715217.373"), decimal.RequireFromString("315181746.682")
		if got, w := dnum(t, v["registered_share_pct"]), reg.Div(comb).Mul(decimal.NewFromInt(100)).Round(2); !got.Equal(w) {
			t.Errorf("registered share %s, want %s", got, w)
		}
		if v["metal"] != "silver" || v["as_of"] != "2026-04-27" || v["stale"] != true || !strings.Contains(v["source"].(string), "Silver_2026-04-27.xls") {
			t.Errorf("header: %v %v %v %v", v["metal"], v["as_of"], v["stale"], v["source"])
		}
		// Unknown is null, never zero.
		if v["oversubscribed_ratio"] != nil || v["open_interest_oz"] != nil || v["open_interest_as_of"] != nil {
			t.Errorf("open interest figures without open interest: %v %v", v["oversubscribed_ratio"], v["open_interest_oz"])
		}
		if v["days_to_zero"] == nil || !dnum(t, v["days_to_zero"]).IsPositive() {
			t.Errorf("silver registered is draining, days_to_zero = %v", v["days_to_zero"])
		}
		hist := v["history"].([]any)
		if len(hist) != 3 || hist[0].(map[string]any)["date"] != "2026-01-22" || hist[2].(map[string]any)["date"] != "2026-04-27" {
			t.Fatalf("history: %v", hist)
		}
		if first := hist[0].(map[string]any); dnum(t, first["registered_change_oz"]).Sign() != 0 {
			t.Errorf("first report has nothing to compare with: %v", first)
		}
		if mid := hist[1].(map[string]any); mid["registered_oz"].(json.Number).String() != "88191059.26400" || mid["combined_oz"].(json.Number).String() != "367426628.28700" {
			t.Errorf("2026-02-18: %v", mid)
		}
		// The depository rows add up to the exchange totals.
		deps := v["depositories"].([]any)
		sumReg, sumElig := decimal.Zero, decimal.Zero
		for _, d := range deps {
			m := d.(map[string]any)
			sumReg, sumElig = sumReg.Add(dnum(t, m["registered_oz"])), sumElig.Add(dnum(t, m["eligible_oz"]))
		}
		if len(deps) < 5 || !sumReg.Equal(reg) || !sumElig.Equal(decimal.RequireFromString("239466529.309")) || v["depositories_as_of"] != "2026-04-27" {
			t.Errorf("depositories: %d rows, registered %s, eligible %s", len(deps), sumReg, sumElig)
		}

		// days counts back from the newest report.
		for days, n := range map[string]int{"1": 1, "30": 1, "70": 2, "100": 3} {
			got := numbers(t, e.api("GET", "/v1/vault-watch?metal=silver&days="+days, "", nil))["history"].([]any)
			if len(got) != n {
				t.Errorf("days=%s: %d reports, want %d", days, len(got), n)
			}
		}
		if got := numbers(t, e.api("GET", "/v1/vault-watch", "", nil))["history"].([]any); len(got) != 1 {
			t.Errorf("default 30 days: %d reports", len(got))
		}

		// Open interest turns into ounces and a ratio.
		if _, err := e.app.Vault.SetOpenInterest(context.Background(), comex.OpenInterest{Metal: metals.Silver, Contracts: 140000, Day: time.Date(2026, 4, 27, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		v = numbers(t, e.api("GET", "/v1/vault-watch?metal=silver", "", nil))
		oiOz := decimal.NewFromInt(140000).Mul(comex.ContractSize(metals.Silver))
		if got := dnum(t, v["open_interest_oz"]); !got.Equal(oiOz) || v["open_interest_as_of"] != "2026-04-27" {
			t.Errorf("open interest: %v %v", v["open_interest_oz"], v["open_interest_as_of"])
		}
		if got, w := dnum(t, v["oversubscribed_ratio"]), oiOz.Div(reg).Round(2); !got.Equal(w) {
			t.Errorf("ratio %s, want %s", got, w)
		}

		// Gold carries pledged metal per depository; platinum and palladium share one file.
		g := numbers(t, e.api("GET", "/v1/vault-watch?metal=gold&days=365", "", nil))
		pledged := decimal.Zero
		for _, d := range g["depositories"].([]any) {
			pledged = pledged.Add(dnum(t, d.(map[string]any)["pledged_oz"]))
		}
		if g["registered_oz"].(json.Number).String() != "15604254.17400" || g["combined_oz"].(json.Number).String() != "29187645.90400" || !pledged.Equal(decimal.RequireFromString("1923030.696")) {
			t.Errorf("gold: registered %v combined %v pledged %s", g["registered_oz"], g["combined_oz"], pledged)
		}
		if n := len(g["history"].([]any)); n != 3 {
			t.Errorf("gold history: %d reports, want 3", n)
		}
		for metal, w := range map[string][3]string{
			"platinum":  {"271575.66200", "224046.45300", "495622.11500"},
			"palladium": {"203694.62500", "35957.85600", "239652.48100"},
		} {
			p := numbers(t, e.api("GET", "/v1/vault-watch?metal="+metal, "", nil))
			if p["registered_oz"].(json.Number).String() != w[0] || p["eligible_oz"].(json.Number).String() != w[1] || p["combined_oz"].(json.Number).String() != w[2] {
				t.Errorf("%s: %v %v %v", metal, p["registered_oz"], p["eligible_oz"], p["combined_oz"])
			}
		}
	})
}

func TestVaultWatchValidationAndMissingData(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		for q, field := range map[string]string{
			"days=0": "days", "days=366": "days", "days=abc": "days", "days=1.5": "days", "metal=copper": "metal", "metal=gold&days=-3": "days",
		} {
			if got := problemField(t, e.api("GET", "/v1/vault-watch?"+q, "", nil)); got != field {
				t.Errorf("%s: field %q, want %q", q, got, field)
			}
		}
		r := e.api("GET", "/v1/vault-watch?metal=palladium", "", nil)
		if r.Status != 404 || r.JSON(t)["type"] != "/problems/not-found" || !strings.Contains(r.JSON(t)["detail"].(string), "palladium") {
			t.Fatalf("no data: %d %s", r.Status, r.Body)
		}
	})
}

// TestVaultWatchSeedHistory: the bundled history is served as it is, stale, with its window
// counted back from its own last report.
func TestVaultWatchSeedHistory(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.seed()
		seed, err := comex.Seed()
		if err != nil {
			t.Fatal(err)
		}
		silver := comex.History(seed, metals.Silver)
		last := silver[len(silver)-1]
		cutoff := last.Date.AddDate(0, 0, -29)
		want := 0
		for _, s := range silver {
			if !s.Date.Before(cutoff) {
				want++
			}
		}
		v := numbers(t, e.api("GET", "/v1/vault-watch?metal=silver&days=30", "", nil))
		if v["as_of"] != last.Date.Format("2006-01-02") || v["stale"] != true || len(v["history"].([]any)) != want || want < 5 {
			t.Fatalf("seed: as_of %v stale %v history %d want %d", v["as_of"], v["stale"], len(v["history"].([]any)), want)
		}
		if got := v["registered_oz"].(json.Number).String(); got != last.Registered.StringFixed(5) {
			t.Fatalf("registered %s, want %s", got, last.Registered.StringFixed(5))
		}
		if deps := v["depositories"].([]any); len(deps) != 0 || v["depositories_as_of"] != nil {
			t.Fatalf("the seed has no depository rows: %v", v["depositories"])
		}
		if r := e.api("GET", "/v1/vault-watch?metal=platinum", "", nil); r.Status != 404 {
			t.Fatalf("platinum has no seed: %d", r.Status)
		}
	})
}

func TestVaultPage(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		e.importAll()
		r := e.do(httptest.NewRequest("GET", "/vault?days=365", nil))
		if r.Status != 200 {
			t.Fatalf("vault page: %d %s", r.Status, r.Body)
		}
		d := doc(t, r)
		svg := d.Find("svg[role=img]")
		labelled, _ := svg.Attr("aria-labelledby")
		if svg.Length() != 1 || labelled != "vault-chart-title vault-chart-desc" || d.Find("svg title#vault-chart-title").Length() != 1 || d.Find("svg desc#vault-chart-desc").Length() != 1 {
			t.Fatalf("chart accessibility: %d %q", svg.Length(), labelled)
		}
		// The crosshair shows each band's label (no native title tooltips).
		hovers := d.Find("svg g.hover-bands rect[data-label]")
		last, _ := hovers.Last().Attr("data-label")
		if hovers.Length() != 3 || !strings.Contains(last, "27 Apr 2026: registered 75,715,217 oz, eligible 239,466,529 oz") {
			t.Fatalf("hover labels: %d %q", hovers.Length(), last)
		}
		if svg.Find("path").Length() != 2 || svg.Find("line").Length() < 4 || svg.Find("text").Length() < 4 {
			t.Fatalf("chart lacks series, gridlines or axis labels: %d paths, %d lines, %d texts", svg.Find("path").Length(), svg.Find("line").Length(), svg.Find("text").Length())
		}
		table := d.Find("table").First()
		if !strings.Contains(table.Find("caption").Text(), "by depository") || table.Find("th[scope=col]").Length() < 4 || table.Find("tbody th[scope=row]").Length() < 5 {
			t.Fatalf("depository table: %s", table.Text())
		}
		if !strings.Contains(d.Find("dl").Text(), "75,715,217 oz") || !strings.Contains(d.Find("dl").Text(), "Unknown") {
			t.Fatalf("stats: %s", d.Find("dl").Text())
		}
		if !strings.Contains(d.Text(), "Stale") || d.Find(`nav[aria-label=Metal] a[aria-current=true]`).Text() != "Silver" {
			t.Fatal("stale label or metal tabs missing")
		}
		if strings.Contains(string(r.Body), "style=") || strings.Contains(string(r.Body), "<script>") {
			t.Fatal("inline style or script on the page")
		}
		// Gold shows the pledged column.
		if g := doc(t, e.do(httptest.NewRequest("GET", "/vault?metal=gold", nil))); !strings.Contains(g.Find("table thead").First().Text(), "Pledged") {
			t.Fatal("gold depository table lacks pledged")
		}
		if r := e.do(httptest.NewRequest("GET", "/vault?metal=copper", nil)); r.Status != 400 {
			t.Fatalf("bad metal page: %d", r.Status)
		}
	})
	// A metal without any report says so instead of drawing nothing.
	e := newEnv(t, sqliteStore(t), offline(t))
	r := e.do(httptest.NewRequest("GET", "/vault?metal=platinum", nil))
	if r.Status != 200 || !strings.Contains(doc(t, r).Find("main").Text(), "No COMEX report is stored for Platinum") {
		t.Fatalf("empty platinum: %d", r.Status)
	}
}
