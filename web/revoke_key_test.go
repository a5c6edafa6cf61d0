package web_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestRevokeKeyWithoutJavaScript (issue 29, item 6): revoking an API key asks first without
// JavaScript. The developer page's Revoke is a link to a confirm page (GET, which changes
// nothing) whose form posts the revocation; a browser without JavaScript follows the link, a
// browser with it posts in place through htmx after its own confirm, as before. Someone else's
// key, and a key already revoked, have no confirm page.
func TestRevokeKeyWithoutJavaScript(t *testing.T) {
	eachEngine(t, nil, func(t *testing.T, e *env) {
		ctx := context.Background()
		b := e.browser()
		if r := b.signUp("keys@example.test"); r.Status != http.StatusSeeOther {
			t.Fatalf("sign-up: %d", r.Status)
		}
		u, err := e.store.UserByEmail(ctx, "keys@example.test")
		if err != nil {
			t.Fatal(err)
		}
		secret, k, err := e.app.Account.CreateAPIKey(ctx, u, "sheet sync")
		if err != nil {
			t.Fatal(err)
		}
		_, otherSecret := e.user("other@example.test", "gold")
		keyWorks := func(secret string) bool {
			t.Helper()
			return e.api("GET", "/v1/account/settings", secret, nil).Status == http.StatusOK
		}
		path := "/settings/developer/keys/" + strconv.FormatInt(k.ID, 10) + "/revoke"

		// The list links to the confirm page; there is no form that revokes in one click.
		r := b.get("/settings/developer")
		d := doc(t, r)
		link := d.Find(`#api-keys a[href="` + path + `"]`)
		if r.Status != 200 || link.Length() != 1 || link.AttrOr("hx-post", "") != path || link.AttrOr("hx-confirm", "") == "" {
			t.Fatalf("developer page: %d, want a Revoke link to %s (hx-post and hx-confirm for JavaScript)", r.Status, path)
		}
		if n := d.Find(`form[action="` + path + `"]`).Length(); n != 0 {
			t.Fatalf("the list still has %d form(s) that revoke without asking", n)
		}

		// The confirm page names the key and changes nothing.
		r = b.get(path)
		d = doc(t, r)
		form := d.Find(`form[method="post"][action="` + path + `"]`)
		if r.Status != 200 || !strings.Contains(d.Find("h1").Text(), "sheet sync") || form.Length() != 1 ||
			form.Find(`input[name="_csrf"]`).Length() != 1 || form.Find(`button[type="submit"]`).Text() != "Revoke" ||
			d.Find(`a[href="/settings/developer"]`).Length() == 0 {
			t.Fatalf("confirm page: %d\n%s", r.Status, r.Body)
		}
		if !keyWorks(secret) {
			t.Fatal("showing the confirm page revoked the key")
		}

		// The form's POST (no HX-Request: a plain browser) revokes and goes back to the list.
		r = b.post(path, nil, false)
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/settings/developer" {
			t.Fatalf("revoke: %d %q", r.Status, r.Header.Get("Location"))
		}
		if keyWorks(secret) {
			t.Fatal("the key still works after the confirmed revoke")
		}
		if r := b.get("/settings/developer"); !strings.Contains(string(r.Body), "Revoked") {
			t.Fatal("the list does not show the key revoked")
		}

		// No confirm page for a revoked key or someone else's; their key is untouched.
		if r := b.get(path); r.Status != http.StatusNotFound {
			t.Fatalf("confirm page of a revoked key: %d", r.Status)
		}
		others, err := e.store.APIKeysByUser(ctx, mustUser(t, e, "other@example.test").ID)
		if err != nil || len(others) != 1 {
			t.Fatalf("other's keys: %v %v", others, err)
		}
		if r := b.get("/settings/developer/keys/" + strconv.FormatInt(others[0].ID, 10) + "/revoke"); r.Status != http.StatusNotFound {
			t.Fatalf("confirm page of another member's key: %d", r.Status)
		}
		if !keyWorks(otherSecret) {
			t.Fatal("another member's key stopped working")
		}

		// With JavaScript: htmx posts in place and gets the key panel back.
		secret2, k2, err := e.app.Account.CreateAPIKey(ctx, u, "agent")
		if err != nil {
			t.Fatal(err)
		}
		b.get("/settings/developer")
		r = b.post("/settings/developer/keys/"+strconv.FormatInt(k2.ID, 10)+"/revoke", url.Values{}, true)
		if r.Status != 200 || !bytes.Contains(r.Body, []byte(`id="api-keys"`)) || bytes.Contains(r.Body, []byte("<html")) || keyWorks(secret2) {
			t.Fatalf("htmx revoke: %d", r.Status)
		}
	})
}
