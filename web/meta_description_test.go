package web_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestEveryPageHasItsOwnMetaDescription: each main page's head carries exactly one non-empty
// <meta name="description">, and no two of them say the same thing.
func TestEveryPageHasItsOwnMetaDescription(t *testing.T) {
	e := newEnv(t, sqliteStore(t), withMarket(t))
	e.user("meta@ounce.test", "gold")
	br := e.browser()
	br.get("/login")
	if r := br.post("/login", url.Values{"email": {"meta@ounce.test"}, "password": {"correct horse battery"}}, false); r.Status != 303 {
		t.Fatalf("login: %d", r.Status)
	}
	pages := map[string]resp{"dashboard": br.get("/"), "holdings": br.get("/holdings")}
	for _, p := range []string{"/", "/markets", "/vault", "/signal", "/intel", "/calculators/junk-silver", "/calculators/what-if",
		"/dealers", "/login", "/signup", "/docs/api", "/legal", "/no/such/page"} {
		pages[p] = e.do(httptest.NewRequest("GET", p, nil))
	}
	seen := map[string]string{}
	for p, r := range pages {
		if r.Status != 200 && !(p == "/no/such/page" && r.Status == 404) {
			t.Errorf("%s: status %d", p, r.Status)
			continue
		}
		d := doc(t, r)
		if n := d.Find(`meta[name="description"]`).Length(); n != 1 {
			t.Errorf("%s: %d meta descriptions, want 1", p, n)
			continue
		}
		m := d.Find(`head meta[name="description"]`)
		content, ok := m.Attr("content")
		content = strings.TrimSpace(content)
		if !ok || content == "" {
			t.Errorf("%s: the meta description is empty", p)
			continue
		}
		if other, dup := seen[content]; dup {
			t.Errorf("%s and %s share the description %q", p, other, content)
		}
		seen[content] = p
	}
}
