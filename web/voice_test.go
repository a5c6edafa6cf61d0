package web_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestPagesSpeakOneErrorVoice: every form says what to do in one voice ("Enter a quantity
// between 1 and 1000000."), whichever area's rule refused the value; the API's wording
// ("must be …") never reaches a page.
func TestPagesSpeakOneErrorVoice(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("voice@example.com")
		b.get("/holdings/new") // the forms echo the token this page carries
		for _, c := range []struct {
			name string
			get  func() resp
			want string
		}{
			{"holding form, quantity 0", func() resp {
				return b.post("/holdings", url.Values{"metal": {"silver"}, "quantity": {"0"}, "weight_oz": {"1"}, "purchase_price": {"30"}}, true)
			}, "Enter a quantity between 1 and 1000000."},
			{"holding form, future date", func() resp {
				return b.post("/holdings", url.Values{"metal": {"silver"}, "quantity": {"1"}, "weight_oz": {"1"}, "purchase_price": {"30"}, "purchase_date": {"2999-01-01"}}, true)
			}, "Enter a purchase date that is not in the future."},
			{"import preview, bad row", func() resp {
				return b.post("/portfolio/import/preview", url.Values{"csv": {"metal,quantity,weight_oz,purchase_price\ngold,x,1,2000\n"}}, true)
			}, "Enter a quantity as a whole number."},
			{"junk silver, 10.5 dimes", func() resp { return b.get("/calculators/junk-silver/result?dimes=10.5") },
				"Enter a whole number of coins."},
			{"account, long display name", func() resp {
				return b.post("/settings/account/profile", url.Values{"display_name": {strings.Repeat("n", 41)}, "time_zone": {"America/New_York"}}, true)
			}, "Keep the display name to 40 characters or fewer."},
		} {
			r := c.get()
			body := string(r.Body)
			if !strings.Contains(body, c.want) {
				t.Errorf("%s: %d, want %q in %.400s", c.name, r.Status, c.want, body)
			}
			for _, apiVoice := range []string{"Must be", "must be between", "Cannot be", "Is required"} {
				if strings.Contains(body, apiVoice) {
					t.Errorf("%s: the API's wording %q reached the page", c.name, apiVoice)
				}
			}
		}
	})
}
