package web_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/app"
)

// /v1/fx answers from the embedded ECB and H.10 history, every answer checked against the
// OpenAPI document by the harness.
func TestFXAPIAnswersTheRateUsedForADay(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	e := newEnv(t, sqliteStore(t), func(o *app.Options) { o.Now = func() time.Time { return now }; o.Config.SetOffline(true) })
	for _, c := range []struct {
		query                    string
		perUSD, perEUR, rateDate string
		stale                    bool
		source                   string
	}{
		// ECB 2016-06-24: GBP 0.8075, USD 1.1066 per EUR; 0.8075 ÷ 1.1066 = 0.729712… per USD.
		{"currency=GBP&date=2016-06-24", "0.72971", "0.8075", "2016-06-24", false, "ECB"},
		{"currency=GBP&date=2016-06-26", "0.72971", "0.8075", "2016-06-24", false, "ECB"},
		{"currency=USD&date=2008-07-15", "1", "1.599", "2008-07-15", false, "ECB"},
		// H.10 1985-02-25: 1.0545 dollars per pound; no euro yet.
		{"currency=GBP&date=1985-02-25", "0.94832", "", "1985-02-25", false, "Federal Reserve"},
		// Offline on 2026-11-27: the newest embedded rate, 2026-04-13, named and stale.
		{"currency=EUR", "0.85587", "1", "2026-04-13", true, "ECB"},
	} {
		r := e.api("GET", "/v1/fx?"+c.query, "", nil)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.query, r.Status, r.Body)
		}
		body := string(r.Body)
		want := `"per_usd":` + c.perUSD + `,`
		if c.perEUR == "" {
			want += `"per_eur":null,`
		} else {
			want += `"per_eur":` + c.perEUR + `,`
		}
		j := r.JSON(t)
		if !strings.Contains(body, want) || j["rate_date"] != c.rateDate || j["stale"] != c.stale || !strings.Contains(j["source"].(string), c.source) {
			t.Errorf("%s: %s, want %s rate_date %s stale %v", c.query, body, want, c.rateDate, c.stale)
		}
	}
	for _, c := range []struct{ query, field, says string }{
		{"currency=XYZ&date=2020-01-02", "currency", "CHF"},
		{"date=2020-01-02", "currency", "EUR"},
		{"currency=EUR&date=2020-13-01", "date", "date like"},
		{"currency=EUR&date=1990-01-02", "date", "1999-01-04"},
		{"currency=EUR&date=2027-01-01", "date", "future"},
	} {
		r := e.api("GET", "/v1/fx?"+c.query, "", nil)
		j := r.JSON(t)
		errs, _ := j["errors"].([]any)
		if r.Status != 400 || len(errs) != 1 || errs[0].(map[string]any)["field"] != c.field || !strings.Contains(string(r.Body), c.says) {
			t.Errorf("%s: %d %s, want 400 naming %s", c.query, r.Status, r.Body, c.field)
		}
	}
}

func TestAccountSettingsAPIAndPage(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		_, key := e.user("units@example.com", db.TierFree)
		if r := e.api("GET", "/v1/account/settings", "", nil); r.Status != 401 {
			t.Fatalf("anonymous: %d", r.Status)
		}
		r := e.api("GET", "/v1/account/settings", key, nil)
		if r.Status != 200 || string(r.Body) != `{"display_currency":"USD","weight_unit":"oz","time_zone":"America/New_York","lot_method":"fifo","tax_jurisdiction":"none"}` {
			t.Fatalf("defaults: %d %s", r.Status, r.Body)
		}
		r = e.api("PATCH", "/v1/account/settings", key, map[string]any{"display_currency": "eur", "weight_unit": "g"})
		if r.Status != 200 || string(r.Body) != `{"display_currency":"EUR","weight_unit":"g","time_zone":"America/New_York","lot_method":"fifo","tax_jurisdiction":"none"}` {
			t.Fatalf("patch: %d %s", r.Status, r.Body)
		}
		for _, c := range []struct {
			body   any
			fields []string
		}{
			{map[string]any{"display_currency": "XYZ"}, []string{"display_currency"}},
			{map[string]any{"weight_unit": "lb"}, []string{"weight_unit"}},
			{map[string]any{"time_zone": "Mars/Olympus"}, []string{"time_zone"}},
			{map[string]any{"display_currency": "CYP", "weight_unit": "grain", "time_zone": "Europe/Berlin"}, []string{"display_currency", "weight_unit"}},
			{map[string]any{"weight_unit": 5}, []string{"weight_unit"}},
			{map[string]any{}, []string{"body"}},
		} {
			r := e.api("PATCH", "/v1/account/settings", key, c.body)
			errs, _ := r.JSON(t)["errors"].([]any)
			var got []string
			for _, x := range errs {
				got = append(got, x.(map[string]any)["field"].(string))
			}
			if r.Status != 422 || strings.Join(got, ",") != strings.Join(c.fields, ",") {
				t.Errorf("%v: %d %s, want 422 naming %v", c.body, r.Status, r.Body, c.fields)
			}
		}
		if r := e.api("PATCH", "/v1/account/settings", key, map[string]any{"currency": "EUR"}); r.Status != 400 {
			t.Errorf("unknown field: %d %s", r.Status, r.Body)
		}
		// Nothing of a refused change was stored.
		if r := e.api("GET", "/v1/account/settings", key, nil); string(r.Body) != `{"display_currency":"EUR","weight_unit":"g","time_zone":"America/New_York","lot_method":"fifo","tax_jurisdiction":"none"}` {
			t.Fatalf("after refusals: %s", r.Body)
		}

		b := e.browser()
		b.signUp("page@example.com")
		page := b.get("/settings/account")
		if page.Status != 200 || !strings.Contains(string(page.Body), `action="/settings/account/units"`) || !strings.Contains(string(page.Body), `<option value="INR"`) {
			t.Fatalf("settings page: %d", page.Status)
		}
		if r := b.post("/settings/account/units", url.Values{"display_currency": {"XYZ"}, "weight_unit": {"tola"}}, false); r.Status != 422 || !strings.Contains(string(r.Body), "Choose one of AUD, BRL") {
			t.Fatalf("bad form: %d %s", r.Status, r.Body)
		}
		if r := b.post("/settings/account/units", url.Values{"display_currency": {"INR"}, "weight_unit": {"tola"}}, false); r.Status != 303 {
			t.Fatalf("good form: %d %s", r.Status, r.Body)
		}
		u, err := e.store.UserByEmail(t.Context(), "page@example.com")
		if err != nil || u.DisplayCurrency != "INR" || u.WeightUnit != "tola" {
			t.Fatalf("stored: %+v %v", u, err)
		}
	})
}
