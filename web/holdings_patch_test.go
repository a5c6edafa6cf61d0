package web_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestPatchHoldingNeedsAField is issue 23, item 14: PATCH /v1/holdings/{id} with {} answered
// 200 though the document says minProperties: 1. Over loopback on both engines it is now 422
// naming body, and the holding is as it was.
func TestPatchHoldingNeedsAField(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("patch@ounce.test", "gold")
		id := pfCreate(t, e, key, pfH("silver", 20, "1", "31.50", "2.00", "2025-03-03"))
		base := e.live()
		patch := func(body string) (int, map[string]any) {
			req, err := http.NewRequest("PATCH", base+"/v1/holdings/"+id, strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("%s: %d %s", body, res.StatusCode, b)
			}
			return res.StatusCode, m
		}
		before := string(e.api("GET", "/v1/holdings/"+id, key, nil).Body)
		for _, body := range []string{"{}", " { } "} {
			status, p := patch(body)
			errs, _ := p["errors"].([]any)
			if status != http.StatusUnprocessableEntity || len(errs) != 1 || errs[0].(map[string]any)["field"] != "body" || p["status"] != 422.0 {
				t.Errorf("PATCH %q: %d %v", body, status, p)
			}
		}
		if after := string(e.api("GET", "/v1/holdings/"+id, key, nil).Body); after != before {
			t.Errorf("an empty patch changed the holding:\n%s\n%s", before, after)
		}
		// One field is enough, and a bad one is still 400 naming it.
		if status, h := patch(`{"notes":"tube of 20"}`); status != 200 || h["notes"] != "tube of 20" || h["quantity"] != 20.0 {
			t.Errorf("PATCH notes: %d %v", status, h)
		}
		if status, p := patch(`{"quantity":0}`); status != 400 || p["errors"].([]any)[0].(map[string]any)["field"] != "quantity" {
			t.Errorf("PATCH quantity 0: %d %v", status, p)
		}
	})
}
