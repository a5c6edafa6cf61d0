package web_test

import (
	"net/url"
	"testing"

	"github.com/ouncehq/ounce/db"
)

// TestReservedNamesAndBidi (issue 22 item 11): the profile form refuses a staff word, another
// member's default name and text-direction controls with a field error (422) and keeps the
// old name; a comment holding U+202E is a 422 naming body on /v1 and a field error on the
// article page, and nothing is stored.
func TestReservedNamesAndBidi(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		b := e.browser()
		b.signUp("named@example.test")
		b.get("/settings/account")
		if r := b.post("/settings/account/profile", url.Values{"display_name": {"Gold Bug"}, "time_zone": {"UTC"}}, false); r.Status != 303 {
			t.Fatalf("a plain name: %d", r.Status)
		}
		for _, name := range []string{"Admin", "a.d.m.i.n", "Ounce Support", "Member 8F3A", "Bob\u202Etxt.exe"} {
			r := b.post("/settings/account/profile", url.Values{"display_name": {name}, "time_zone": {"UTC"}}, false)
			d := doc(t, r)
			if r.Status != 422 || d.Find(`#profile-form [aria-invalid="true"]`).Length() != 1 {
				t.Errorf("%q: %d %s", name, r.Status, d.Find("#profile-form").Text())
			}
		}
		u, _ := e.store.UserByEmail(t.Context(), "named@example.test")
		if u.DisplayName != "Gold Bug" {
			t.Fatalf("a refused name replaced the old one: %q", u.DisplayName)
		}

		a := socialArticles(t, e, 1)[0]
		_, key := e.user("commenter@example.test", db.TierFree)
		r := e.api("POST", "/v1/stack-signal/articles/"+a.Slug+"/comments", key, map[string]any{"body": "price is \u202E0001$ not"})
		wantStatus(t, "bidi comment", r, 422, "")
		if errs, _ := r.JSON(t)["errors"].([]any); len(errs) != 1 || errs[0].(map[string]any)["field"] != "body" {
			t.Fatalf("bidi comment problem: %s", r.Body)
		}
		page := "/signal/" + a.Slug
		b.get(page)
		r = b.post(page+"/comments", url.Values{"body": {"\u2066hidden\u2069 text"}}, true)
		if f := doc(t, r); r.Status != 422 || f.Find("#comment-error").Length() != 1 {
			t.Fatalf("bidi comment on the page: %d %s", r.Status, r.Body)
		}
		var list struct{ Total int }
		decodeInto(t, e.api("GET", "/v1/stack-signal/articles/"+a.Slug+"/comments", "", nil), &list)
		if list.Total != 0 {
			t.Fatalf("%d refused comments stored", list.Total)
		}
	})
}
