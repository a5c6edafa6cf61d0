package web_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestOfflineWordsNameEachPricesDate: with the embedded history only (gold of 17 Aug, silver of
// 10 Aug, platinum of 29 May, palladium of 5 Feb 2026), no page calls a price "today" or says
// COMEX is open or closed beside it; each metal's own date is named.
func TestOfflineWordsNameEachPricesDate(t *testing.T) {
	offlineEnv(t, func(t *testing.T, e *env) {
		const dates = "17 Aug 2026 for gold, 10 Aug 2026 for silver, 29 May 2026 for platinum, 5 Feb 2026 for palladium"

		// The what-if calculator, for a visitor and for a member whose stack is projected.
		_, key := e.user("words@ounce.test", "gold")
		pfCreate(t, e, key, pfH("gold", 1, "1", "2000.00", "0", "2025-01-02"))
		br := e.browser()
		br.get("/login")
		br.post("/login", url.Values{"email": {"words@ounce.test"}, "password": {"correct horse battery"}}, false)
		for who, r := range map[string]resp{"visitor": e.do(httptest.NewRequest("GET", "/calculators/what-if", nil)), "member": br.get("/calculators/what-if?gold=5000")} {
			d := doc(t, r)
			hint := strings.Join(strings.Fields(d.Find("form").Text()), " ")
			if strings.Contains(hint, "Today") || !strings.Contains(hint, "Last close (17 Aug 2026) $4,405.80") || !strings.Contains(hint, "Last close (5 Feb 2026) $1,724.50") {
				t.Errorf("%s: what-if labels %q", who, hint)
			}
			result := strings.Join(strings.Fields(d.Find("#whatif-result").Text()), " ")
			if strings.Contains(strings.ToLower(result), "today") || !strings.Contains(result, "Last price") {
				t.Errorf("%s: what-if result %q", who, result)
			}
			if who == "member" && !strings.Contains(result, "at the last known prices ("+dates+")") {
				t.Errorf("member: projection does not date its starting value: %q", result)
			}
		}

		// The price board (home and dashboard) and the dashboard's summary.
		for who, r := range map[string]resp{"home": e.do(httptest.NewRequest("GET", "/", nil)), "dashboard": br.get("/"), "markets": e.do(httptest.NewRequest("GET", "/markets", nil))} {
			d := doc(t, r)
			body := d.Text()
			if strings.Contains(body, "COMEX open") || strings.Contains(body, "COMEX closed") {
				t.Errorf("%s says COMEX is open or closed beside last-known prices", who)
			}
			var asOf []string
			d.Find("[data-prices-as-of]").Each(func(_ int, s *goquery.Selection) { asOf = append(asOf, strings.Join(strings.Fields(s.Text()), " ")) })
			if len(asOf) != 1 || asOf[0] != "Prices as of "+dates {
				t.Errorf("%s: board dates %q", who, asOf)
			}
			if who == "dashboard" && !strings.Contains(strings.Join(strings.Fields(body), " "), "Prices as of "+dates) {
				t.Errorf("dashboard summary does not name each metal's date")
			}
		}
	})
}
