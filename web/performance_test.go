package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// Performance over loopback on both engines: the API's figures agree with each other
// (gain = end − start − net flows, realized from the sale), the summary lists every preset,
// offline YTD names the date of its end price, and bad parameters are named.
func TestPerformanceAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, nil), func(t *testing.T, e *env) {
		_, key := e.user("perf@example.com", db.TierGold)
		pfCreate(t, e, key, pfH("gold", 2, "1", "2000", "10", "2025-01-10"))
		sv := pfCreate(t, e, key, pfH("silver", 100, "1", "25", "0", "2026-03-02"))
		pfSell(t, e, key, sv, map[string]any{"quantity": 40, "price_per_unit": 30, "sold_on": "2026-06-01"})

		r := e.api("GET", "/v1/portfolio/performance?from=2025-01-01&to=2026-08-17", key, nil)
		if r.Status != 200 {
			t.Fatalf("performance: %d %s", r.Status, r.Body)
		}
		p := pfJSON(t, r)
		pfCheck(t, p, "currency", "USD")
		pfCheck(t, p, "start_value", "0")
		// 4,010 + 2,500 in, 1,200 out (40 × 30), realized 1,200 − 1,000.
		pfCheck(t, p, "net_flows", "5310")
		pfCheck(t, p, "realized_gain", "200")
		gain := pfDec(t, p, "end_value").Sub(pfDec(t, p, "start_value")).Sub(pfDec(t, p, "net_flows"))
		if !gain.Equal(pfDec(t, p, "gain")) || !pfDec(t, p, "unrealized_gain").Add(pfDec(t, p, "realized_gain")).Equal(gain) {
			t.Errorf("gain %s: %s", gain, r.Body)
		}
		pfCheck(t, p, "benchmark.metal", "gold")
		pfCheck(t, p, "oz_end", "62")
		if flows := p["flows"].([]any); len(flows) != 3 {
			t.Errorf("flows %v", flows)
		}
		if _, ok := p["twr_pct"].(json.Number); !ok {
			t.Errorf("twr_pct %v", p["twr_pct"])
		}
		if !strings.Contains(p["cpi_series"].(string), "CPI-U") {
			t.Errorf("cpi_series %v", p["cpi_series"])
		}

		// The stored closes end on 2026-08-17 (gold) and 2026-08-10 (silver) and nothing is live: YTD
		// says so and names each date.
		y := pfJSON(t, e.api("GET", "/v1/portfolio/performance?period=YTD", key, nil))
		if y["stale"] != true || !strings.HasPrefix(y["as_of"].(string), "2026-08-10") {
			t.Errorf("YTD: stale %v as_of %v", y["stale"], y["as_of"])
		}
		notes := strings.ToLower(strings.Join(strs(y["notes"]), " "))
		if !strings.Contains(notes, "gold 2026-08-17, silver 2026-08-10") || strings.Contains(notes, "today") {
			t.Errorf("YTD notes %q", notes)
		}

		s := pfJSON(t, e.api("GET", "/v1/portfolio/performance/summary?benchmark=silver", key, nil))
		periods := s["periods"].([]any)
		if len(periods) != 10 || periods[0].(map[string]any)["period"] != "1D" || periods[9].(map[string]any)["period"] != "MAX" {
			t.Fatalf("summary %v", s)
		}
		if b := periods[9].(map[string]any)["benchmark"].(map[string]any)["metal"]; b != "silver" {
			t.Errorf("benchmark %v", b)
		}

		for q, field := range map[string]string{"period=2W": "period", "from=2025-02-30": "from", "from=2025-01-01&to=2099-01-01": "to",
			"metal=tin": "metal", "benchmark=copper": "benchmark", "to=2025-01-01": "from"} {
			r := e.api("GET", "/v1/portfolio/performance?"+q, key, nil)
			if r.Status != 400 || pfProblemField(t, r) != field {
				t.Errorf("%s: %d %s", q, r.Status, r.Body)
			}
		}
		// The advisor answers "how did my stack do in 2026" from the same figures.
		ar := e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": "How did my stack do in 2026?"})
		var out chatOut
		decodeInto(t, ar, &out)
		if ar.Status != 200 || len(out.ToolCalls) == 0 || out.ToolCalls[0].Name != "stack_performance" || !strings.Contains(out.Reply, "In 2026") ||
			!strings.Contains(out.Reply, "Time-weighted return") || strings.Contains(strings.ToLower(out.Reply), "today") {
			t.Errorf("advisor: %d %s", ar.Status, ar.Body)
		}
		_, free := e.user("free@example.com", db.TierFree)
		if r := e.api("GET", "/v1/portfolio/performance", free, nil); r.Status != 403 {
			t.Errorf("free member: %d", r.Status)
		}
	})
}

func strs(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
