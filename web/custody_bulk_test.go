package web_test

import (
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// TestCustodyBulkAPI: POST /v1/holdings/bulk moves every lot named recording a transfer for
// each, tags and untags them, and an id that is not the member's (or a lot breaking a move
// rule) changes nothing (both engines).
func TestCustodyBulkAPI(t *testing.T) {
	eachEngine(t, pfMarket(t, pfQuotes), func(t *testing.T, e *env) {
		_, key := e.user("bulk@example.com", db.TierGold)
		_, other := e.user("other@example.com", db.TierGold)
		loc := func(k, name string) string {
			t.Helper()
			r := e.api("POST", "/v1/locations", k, map[string]any{"name": name, "kind": "vault"})
			if r.Status != 201 {
				t.Fatalf("location: %d %s", r.Status, r.Body)
			}
			return r.JSON(t)["id"].(string)
		}
		lot := func(k string) string {
			t.Helper()
			r := e.api("POST", "/v1/holdings", k, validHolding())
			if r.Status != 201 {
				t.Fatalf("lot: %d %s", r.Status, r.Body)
			}
			return r.JSON(t)["id"].(string)
		}
		vault, bank := loc(key, "Vault"), loc(key, "Bank")
		a, b, c := lot(key), lot(key), lot(key)
		theirs := lot(other)
		transfers := func(id string) []any {
			tr, _ := e.api("GET", "/v1/holdings/"+id, key, nil).JSON(t)["transfers"].([]any)
			return tr
		}
		where := func(id string) any { return e.api("GET", "/v1/holdings/"+id, key, nil).JSON(t)["location_id"] }

		r := e.api("POST", "/v1/holdings/bulk", key, map[string]any{"ids": []string{a, b}, "action": "move", "to_location_id": vault, "date": "2026-11-10", "note": "to the vault"})
		if r.Status != 200 || r.JSON(t)["updated"] != 2.0 {
			t.Fatalf("bulk move: %d %s", r.Status, r.Body)
		}
		for _, id := range []string{a, b} {
			tr := transfers(id)
			if len(tr) != 1 || where(id) != vault {
				t.Fatalf("lot %s after the bulk move: %v at %v", id, tr, where(id))
			}
			if m := tr[0].(map[string]any); m["to_location_id"] != vault || m["from_location_id"] != nil || m["date"] != "2026-11-10" || m["note"] != "to the vault" {
				t.Errorf("transfer of %s: %v", id, m)
			}
		}
		if len(transfers(c)) != 0 || where(c) != nil {
			t.Errorf("a lot not named moved")
		}

		// A foreign id, a missing id, a lot already there, a date before a purchase: nothing changes.
		for _, bad := range []struct {
			body   map[string]any
			status int
			names  string
		}{
			{map[string]any{"ids": []string{c, theirs}, "action": "move", "to_location_id": bank}, 404, theirs},
			{map[string]any{"ids": []string{c, "h_missing"}, "action": "move", "to_location_id": bank}, 404, "h_missing"},
			{map[string]any{"ids": []string{c, a}, "action": "move", "to_location_id": vault}, 400, a},
			{map[string]any{"ids": []string{c}, "action": "move", "to_location_id": bank, "date": "2020-01-01"}, 400, "date"},
			{map[string]any{"ids": []string{c}, "action": "move", "to_location_id": loc(other, "Theirs")}, 400, "to_location_id"},
			{map[string]any{"ids": []string{c, theirs}, "action": "tag", "tag": "gift"}, 404, theirs},
			{map[string]any{"ids": []string{c}, "action": "burn"}, 400, "action"},
			{map[string]any{"ids": []string{}, "action": "tag", "tag": "x"}, 400, "ids"},
			{map[string]any{"ids": []string{c}, "action": "tag", "tag": "a,b"}, 400, "tag"},
		} {
			r := e.api("POST", "/v1/holdings/bulk", key, bad.body)
			if r.Status != bad.status || !strings.Contains(string(r.Body), bad.names) {
				t.Errorf("bulk %v: %d %s, want %d naming %s", bad.body, r.Status, r.Body, bad.status, bad.names)
			}
		}
		if len(transfers(c)) != 0 || where(c) != nil || len(transfers(a)) != 1 {
			t.Errorf("a refused bulk action changed lots")
		}
		if h := e.api("GET", "/v1/holdings/"+c, key, nil).JSON(t); len(h["tags"].([]any)) != 0 {
			t.Errorf("a refused bulk tag tagged: %v", h["tags"])
		}
		if tr, _ := e.api("GET", "/v1/holdings/"+theirs, other, nil).JSON(t)["transfers"].([]any); len(tr) != 0 {
			t.Errorf("another member's lot moved")
		}

		// Tag and untag.
		if r := e.api("POST", "/v1/holdings/bulk", key, map[string]any{"ids": []string{a, c}, "action": "tag", "tag": "Gift"}); r.Status != 200 || r.JSON(t)["updated"] != 2.0 {
			t.Fatalf("bulk tag: %d %s", r.Status, r.Body)
		}
		if n := e.api("GET", "/v1/holdings?tag=gift", key, nil).JSON(t)["total"]; n != 2.0 {
			t.Errorf("tagged lots: %v", n)
		}
		if r := e.api("POST", "/v1/holdings/bulk", key, map[string]any{"ids": []string{a}, "action": "untag", "tag": "gift"}); r.Status != 200 {
			t.Fatalf("bulk untag: %d %s", r.Status, r.Body)
		}
		if n := e.api("GET", "/v1/holdings?tag=gift", key, nil).JSON(t)["total"]; n != 1.0 {
			t.Errorf("after untag: %v", n)
		}
		// Unassigning is a move to null.
		if r := e.api("POST", "/v1/holdings/bulk", key, map[string]any{"ids": []string{a, b}, "action": "move", "to_location_id": nil}); r.Status != 200 {
			t.Fatalf("bulk unassign: %d %s", r.Status, r.Body)
		}
		if where(a) != nil || len(transfers(b)) != 2 {
			t.Errorf("unassign: %v %v", where(a), transfers(b))
		}
	})
}
