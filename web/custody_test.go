package web_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
)

// TestCustodyLocationsAndMoves: a lot moved twice lists both transfers, a location holding
// lots cannot be deleted, another member's location is refused, and the allocation by
// location and by form each sum to the total value (both engines).
func TestCustodyLocationsAndMoves(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("loc@example.com", db.TierGold)
		_, other := e.user("other@example.com", db.TierGold)
		mk := func(k string, body map[string]any) string {
			t.Helper()
			r := e.api("POST", "/v1/locations", k, body)
			if r.Status != 201 {
				t.Fatalf("create location: %d %s", r.Status, r.Body)
			}
			return r.JSON(t)["id"].(string)
		}
		home := mk(key, map[string]any{"name": "Home safe", "kind": "home"})
		bank := mk(key, map[string]any{"name": "Bank box", "kind": "bank_box", "insured_value": 25000})
		ira := mk(key, map[string]any{"name": "IRA custodian", "kind": "ira"})
		theirs := mk(other, map[string]any{"name": "Theirs", "kind": "vault"})
		if r := e.api("POST", "/v1/locations", key, map[string]any{"name": "x", "kind": "garage"}); r.Status != 400 {
			t.Errorf("bad kind: %d", r.Status)
		}
		if l := e.api("GET", "/v1/locations/"+ira, key, nil).JSON(t); l["tax_advantaged"] != true || l["kind"] != "ira" {
			t.Errorf("ira location: %v", l)
		}
		if l := e.api("GET", "/v1/locations/"+bank, key, nil).JSON(t); l["insured_value"] != 25000.0 {
			t.Errorf("insured value: %v", l)
		}

		lot := with("location_id", home)
		lot["tags"] = []string{"Tube", "monster box", "tube"}
		r := e.api("POST", "/v1/holdings", key, lot)
		if r.Status != 201 {
			t.Fatalf("create lot: %d %s", r.Status, r.Body)
		}
		h := r.JSON(t)
		id := h["id"].(string)
		if h["location_id"] != home || len(h["tags"].([]any)) != 2 || h["tags"].([]any)[0] != "tube" {
			t.Errorf("new lot's custody: %v %v", h["location_id"], h["tags"])
		}
		gold := map[string]any{"metal": "gold", "product_name": "Gold Bar 1 oz", "quantity": 2, "weight_oz": 1, "purchase_price": 2500, "purchase_date": "2026-10-01"}
		if r := e.api("POST", "/v1/holdings", key, gold); r.Status != 201 {
			t.Fatalf("gold lot: %d %s", r.Status, r.Body)
		}
		if r := e.api("POST", "/v1/holdings", key, with("location_id", theirs)); r.Status != 400 {
			t.Errorf("another member's location: %d %s", r.Status, r.Body)
		}

		for _, m := range []map[string]any{
			{"to_location_id": bank, "date": "2026-11-05", "note": "to the bank"},
			{"to_location_id": ira, "date": "2026-11-10"},
		} {
			if r := e.api("POST", "/v1/holdings/"+id+"/move", key, m); r.Status != 201 {
				t.Fatalf("move: %d %s", r.Status, r.Body)
			}
		}
		if r := e.api("POST", "/v1/holdings/"+id+"/move", key, map[string]any{"to_location_id": theirs}); r.Status != 400 {
			t.Errorf("move to another member's location: %d", r.Status)
		}
		if r := e.api("POST", "/v1/holdings/"+id+"/move", other, map[string]any{"to_location_id": theirs}); r.Status != 404 {
			t.Errorf("another member moving my lot: %d", r.Status)
		}
		got := e.api("GET", "/v1/holdings/"+id, key, nil).JSON(t)
		tr, _ := got["transfers"].([]any)
		if len(tr) != 2 || got["location_id"] != ira {
			t.Fatalf("transfers: %v location %v", got["transfers"], got["location_id"])
		}
		first, second := tr[0].(map[string]any), tr[1].(map[string]any)
		if first["from_location_id"] != home || first["to_location_id"] != bank || first["date"] != "2026-11-05" || first["note"] != "to the bank" ||
			second["from_location_id"] != bank || second["to_location_id"] != ira {
			t.Errorf("transfers: %v", tr)
		}

		if r := e.api("DELETE", "/v1/locations/"+ira, key, nil); r.Status != 409 {
			t.Errorf("delete a location holding lots: %d %s", r.Status, r.Body)
		}
		if r := e.api("DELETE", "/v1/locations/"+home, key, nil); r.Status != 204 {
			t.Errorf("delete an empty location: %d %s", r.Status, r.Body)
		}
		if r := e.api("DELETE", "/v1/locations/"+theirs, key, nil); r.Status != 404 {
			t.Errorf("delete another member's location: %d", r.Status)
		}

		// Search and filters.
		count := func(q string) float64 { return e.api("GET", "/v1/holdings?"+q, key, nil).JSON(t)["total"].(float64) }
		if n := count("tag=tube"); n != 1 {
			t.Errorf("tag=tube: %v", n)
		}
		if n := count("q=MONSTER"); n != 1 {
			t.Errorf("q=MONSTER: %v", n)
		}
		if n := count("location_id=" + ira); n != 1 {
			t.Errorf("location_id: %v", n)
		}
		if n := count("location_id=none"); n != 1 {
			t.Errorf("unassigned: %v", n)
		}
		if n := count("q=50%25"); n != 0 {
			t.Errorf("q with a LIKE wildcard: %v", n)
		}

		// Allocation: each split sums to the total value.
		var a struct {
			Totals struct {
				Value json.Number `json:"value"`
			} `json:"totals"`
			ByLocation []struct {
				Key   string      `json:"key"`
				Value json.Number `json:"value"`
				Pct   json.Number `json:"allocation_pct"`
			} `json:"allocation_by_location"`
			ByForm []struct {
				Key   string      `json:"key"`
				Value json.Number `json:"value"`
				Pct   json.Number `json:"allocation_pct"`
			} `json:"allocation_by_form"`
		}
		ar := e.api("GET", "/v1/analytics", key, nil)
		dec := json.NewDecoder(bytes.NewReader(ar.Body))
		dec.UseNumber()
		if err := dec.Decode(&a); err != nil {
			t.Fatal(err)
		}
		total := decimal.RequireFromString(a.Totals.Value.String())
		sum, pct := decimal.Zero, decimal.Zero
		keys := map[string]bool{}
		for _, s := range a.ByLocation {
			sum = sum.Add(decimal.RequireFromString(s.Value.String()))
			pct = pct.Add(decimal.RequireFromString(s.Pct.String()))
			keys[s.Key] = true
		}
		if !sum.Equal(total) || !pct.Equal(decimal.NewFromInt(100)) || !keys[ira] || !keys["unassigned"] || len(a.ByLocation) != 2 {
			t.Errorf("allocation by location %v sums to %s (%s %%), total %s", a.ByLocation, sum, pct, total)
		}
		sum = decimal.Zero
		forms := map[string]bool{}
		for _, s := range a.ByForm {
			sum = sum.Add(decimal.RequireFromString(s.Value.String()))
			forms[s.Key] = true
		}
		if !sum.Equal(total) || !forms["bar"] || !forms["coin"] {
			t.Errorf("allocation by form %v sums to %s, total %s", a.ByForm, sum, total)
		}
	})
}

// TestCustodyPages: a location added on the locations page is offered on the holding form,
// the ledger names where a lot is kept with its tags and notes, and its search finds it.
func TestCustodyPages(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("pages@example.com")
		if r := b.get("/locations"); r.Status != 200 || !strings.Contains(string(r.Body), "No locations yet") {
			t.Fatalf("locations page: %d", r.Status)
		}
		if r := b.post("/locations", url.Values{"name": {""}, "kind": {"home"}}, false); r.Status != 422 || !strings.Contains(string(r.Body), `id="f-name-error"`) {
			t.Errorf("blank name: %d", r.Status)
		}
		if r := b.post("/locations", url.Values{"name": {"Bank box"}, "kind": {"bank_box"}, "insured_value": {"25,000"}}, false); r.Status != 303 && r.Status != 302 {
			t.Fatalf("add location: %d %s", r.Status, r.Body)
		}
		page := string(b.get("/locations").Body)
		if !strings.Contains(page, "Bank box") || !strings.Contains(page, "$25,000.00") {
			t.Errorf("locations page lacks the new location")
		}
		form := string(b.get("/holdings/new").Body)
		m := regexp.MustCompile(`<option value="(loc_[a-z0-9]+)"[^>]*>Bank box</option>`).FindStringSubmatch(form)
		if m == nil {
			t.Fatalf("holding form offers no location select: %s", form)
		}
		r := b.post("/holdings", url.Values{"metal": {"silver"}, "product_name": {"Silver Maple"}, "quantity": {"10"}, "weight_oz": {"1"},
			"purchase_price": {"30"}, "purchase_date": {"2026-11-01"}, "notes": {"second shelf"}, "location_id": {m[1]}, "tags": {"Tube, gift"}}, false)
		if r.Status != 303 && r.Status != 302 {
			t.Fatalf("save holding: %d %s", r.Status, r.Body)
		}
		ledger := string(b.get("/holdings").Body)
		for _, want := range []string{"kept at Bank box", "second shelf", ">tube<", ">gift<"} {
			if !strings.Contains(ledger, want) {
				t.Errorf("ledger lacks %q", want)
			}
		}
		if s := string(b.get("/holdings?q=shelf").Body); !strings.Contains(s, "Silver Maple") {
			t.Errorf("search by notes finds nothing")
		}
		if s := string(b.get("/holdings?q=nothing-like-it").Body); strings.Contains(s, "Silver Maple") {
			t.Errorf("search finds what it should not")
		}
		if r := b.post("/locations/"+m[1]+"/delete", nil, false); r.Status != 409 {
			t.Errorf("delete a location holding lots: %d", r.Status)
		}
		if s := string(b.get("/").Body); !strings.Contains(s, "By location") || !strings.Contains(s, "By form") {
			t.Errorf("dashboard lacks the allocation by location and form")
		}
	})
}

// TestPrivacyModeToggle: a signed-in page carries the privacy toggle and loads its script
// before anything is painted (not deferred), and the stylesheet hides marked amounts.
func TestPrivacyModeToggle(t *testing.T) {
	e := newEnv(t, sqliteStore(t), nil)
	b := e.browser()
	b.signUp("private@example.com")
	page := string(b.get("/holdings").Body)
	if !strings.Contains(page, `id="privacy-toggle"`) || !strings.Contains(page, `aria-pressed="false"`) ||
		!regexp.MustCompile(`<script src="/static/js/privacy.js" nonce="[^"]+"></script>`).MatchString(page) {
		t.Errorf("the page lacks the privacy toggle or its blocking script")
	}
	js := b.get("/static/js/privacy.js")
	css := b.get("/static/css/app.css")
	if js.Status != 200 || !strings.Contains(string(js.Body), "localStorage") || !strings.Contains(string(css.Body), `[data-amount]:after{content:"\2022\2022\2022"`) {
		t.Errorf("privacy script %d or its styles missing", js.Status)
	}
}
