package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/social"
)

// xssPayloads are comments that would run script or link somewhere if shown as markup.
var xssPayloads = []string{
	`<script>alert("x")</script>`,
	`<img src=x onerror=alert(1)>`,
	`[click](javascript:alert(1)) <a href="javascript:alert(2)">link</a> javascript:alert(3)`,
}

// socialArticle seeds the demo articles and returns one's id and slug.
func socialArticle(t *testing.T, e *env) (id, slug string) {
	t.Helper()
	a := socialArticles(t, e, 1)
	return a[0].ID, a[0].Slug
}

// socialArticles seeds the demo articles and returns the newest n, the latest synthesis first.
func socialArticles(t *testing.T, e *env, n int) []articleOut {
	t.Helper()
	e.seed()
	var list struct{ Articles []articleOut }
	decodeInto(t, e.api("GET", fmt.Sprintf("/v1/stack-signal?limit=%d", n), "", nil), &list)
	if len(list.Articles) < n {
		t.Fatalf("%d articles seeded, want %d", len(list.Articles), n)
	}
	return list.Articles
}

// TestSocialAPI runs the /v1 scenarios on one app per engine, each on an article of its own
// (an app costs seconds to build on PostgreSQL).
func TestSocialAPI(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		a := socialArticles(t, e, 3)
		socialAPITwoMembers(t, e, a[0].ID, a[0].Slug)
		socialAPICommentLimitsAndMute(t, e, a[1].Slug)
		socialAPIViews(t, e, a[2].Slug)
	})
}

// TestSocialPages runs the page scenarios on one app per engine.
func TestSocialPages(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		a := socialArticles(t, e, 2)
		socialPagesTwoMembers(t, e, a[0].Slug)
		socialPagesModeration(t, e, a[1].Slug)
	})
}

type likeOut struct {
	Liked     bool  `json:"liked"`
	UserLiked bool  `json:"user_liked"`
	LikeCount int64 `json:"like_count"`
}

type commentOut struct {
	ID, Author, Body string
	CreatedAt        string `json:"created_at"`
	Hidden           *bool
}

func wantStatus(t *testing.T, what string, r resp, status int, problem string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: want %d, got %d %s", what, status, r.Status, r.Body)
	}
	if problem != "" && r.JSON(t)["type"] != "/problems/"+problem {
		t.Fatalf("%s: problem %s", what, r.Body)
	}
}

// socialAPITwoMembers: two members like and comment through /v1; nobody acts as anyone
// else, with or without userId; counts stay exact after deletes and hides.
func socialAPITwoMembers(t *testing.T, e *env, id, slug string) {
	base := "/v1/stack-signal/articles/"
	ann, annKey := e.user("ann@example.com", db.TierFree)
	bob, bobKey := e.user("bob@example.com", db.TierGold)
	adminKey := e.admin("root@example.com")
	annID, bobID := itoa64(ann.ID), itoa64(bob.ID)

	var l likeOut
	decodeInto(t, e.api("GET", base+slug+"/likes", "", nil), &l)
	if l.LikeCount != 0 || l.UserLiked {
		t.Fatalf("fresh likes: %+v", l)
	}
	// Likes by id or slug, body or none; userId must be the caller's own.
	decodeInto(t, e.api("POST", base+id+"/like", annKey, nil), &l)
	if !l.Liked || l.LikeCount != 1 {
		t.Fatalf("ann likes: %+v", l)
	}
	decodeInto(t, e.api("POST", base+slug+"/like", bobKey, map[string]any{"userId": bob.ID}), &l)
	if !l.Liked || l.LikeCount != 2 {
		t.Fatalf("bob likes: %+v", l)
	}
	wantStatus(t, "bob likes as ann (body)", e.api("POST", base+slug+"/like", bobKey, map[string]any{"userId": annID}), 403, "forbidden")
	wantStatus(t, "bob likes as ann (query)", e.api("POST", base+slug+"/like?userId="+annID, bobKey, nil), 403, "forbidden")
	wantStatus(t, "query and body disagree", e.api("POST", base+slug+"/like?userId="+bobID, bobKey, map[string]any{"userId": annID}), 403, "forbidden")
	wantStatus(t, "like without a key", e.api("POST", base+slug+"/like", "", nil), 401, "unauthorized")
	wantStatus(t, "like as ann without a key", e.api("POST", base+slug+"/like", "", map[string]any{"userId": annID}), 401, "unauthorized")
	wantStatus(t, "likes as ann without a key", e.api("GET", base+slug+"/likes?userId="+annID, "", nil), 401, "unauthorized")
	wantStatus(t, "bad userId type", e.api("POST", base+slug+"/like", bobKey, `{"userId":{"id":1}}`), 400, "invalid-parameter")
	wantStatus(t, "unknown field", e.api("POST", base+slug+"/like", bobKey, `{"user":1}`), 400, "invalid-parameter")
	decodeInto(t, e.api("GET", base+slug+"/likes?userId="+annID, annKey, nil), &l)
	if !l.UserLiked || l.LikeCount != 2 {
		t.Fatalf("ann's view of likes: %+v", l)
	}
	decodeInto(t, e.api("POST", base+slug+"/like", annKey, map[string]any{"userId": annID}), &l)
	if l.Liked || l.LikeCount != 1 {
		t.Fatalf("ann takes her like back: %+v", l)
	}

	// Comments: display names only, plain text kept as written.
	post := func(key, body string) resp {
		return e.api("POST", base+slug+"/comments", key, map[string]any{"body": body})
	}
	var created struct{ Comment commentOut }
	r := post(annKey, "  Registered silver fell again.  ")
	wantStatus(t, "ann comments", r, 201, "")
	decodeInto(t, r, &created)
	annComment := created.Comment
	if annComment.Body != "Registered silver fell again." || !strings.HasPrefix(annComment.Author, "Member ") || annComment.ID == "" {
		t.Fatalf("ann's comment: %+v", annComment)
	}
	for _, leak := range []string{"ann@example.com", `"user_id"`, `"userId"`, `"email"`} {
		if strings.Contains(string(r.Body), leak) {
			t.Fatalf("comment leaks %s: %s", leak, r.Body)
		}
	}
	if err := e.store.SetUserProfile(context.Background(), bob.ID, "Bob B.", "UTC"); err != nil {
		t.Fatal(err)
	}
	for _, x := range xssPayloads {
		wantStatus(t, "bob's payload", post(bobKey, x), 201, "")
	}
	wantStatus(t, "bob as ann", e.api("POST", base+slug+"/comments", bobKey, map[string]any{"body": "hi", "userId": ann.ID}), 403, "forbidden")
	wantStatus(t, "comment without a key", post("", "hi"), 401, "unauthorized")
	for name, body := range map[string]any{
		"empty": map[string]any{"body": ""}, "blank": map[string]any{"body": " \n "}, "1,001 runes": map[string]any{"body": strings.Repeat("a", 1001)},
		"1,001 emoji": map[string]any{"body": strings.Repeat("🥇", 1001)}, "missing": map[string]any{}, "number": map[string]any{"body": 5}, "not JSON": "body=hi",
	} {
		r := e.api("POST", base+slug+"/comments", annKey, body)
		if f := problemField(t, r); f != "body" {
			t.Fatalf("%s: field %q", name, f)
		}
	}
	wantStatus(t, "1,000 emoji", post(annKey, strings.Repeat("🥈", 1000)), 201, "")

	var page struct {
		Comments             []commentOut
		Limit, Offset, Total int
	}
	decodeInto(t, e.api("GET", base+id+"/comments", "", nil), &page)
	if page.Total != 5 || page.Limit != 50 || len(page.Comments) != 5 || page.Comments[0].ID != annComment.ID || page.Comments[1].Author != "Bob B." || page.Comments[1].Body != xssPayloads[0] {
		t.Fatalf("list: %+v", page)
	}
	decodeInto(t, e.api("GET", base+slug+"/comments?limit=2&offset=3", "", nil), &page)
	if page.Total != 5 || len(page.Comments) != 2 || page.Offset != 3 || page.Comments[0].Body != xssPayloads[2] {
		t.Fatalf("second page: %+v", page)
	}
	for q, field := range map[string]string{"limit=0": "limit", "limit=101": "limit", "offset=-1": "offset", "limit=x": "limit"} {
		if f := problemField(t, e.api("GET", base+slug+"/comments?"+q, "", nil)); f != field {
			t.Fatalf("%s: field %q", q, f)
		}
	}

	// Deleting another member's comment: not found, with or without userId.
	del := func(key, cid, q string) resp { return e.api("DELETE", base+slug+"/comments/"+cid+q, key, nil) }
	wantStatus(t, "bob deletes ann's", del(bobKey, annComment.ID, ""), 404, "not-found")
	wantStatus(t, "bob deletes ann's with his userId", del(bobKey, annComment.ID, "?userId="+bobID), 404, "not-found")
	wantStatus(t, "bob deletes ann's as ann", del(bobKey, annComment.ID, "?userId="+annID), 403, "forbidden")
	wantStatus(t, "delete without a key", del("", annComment.ID, ""), 401, "unauthorized")
	wantStatus(t, "ann deletes hers", del(annKey, annComment.ID, "?userId="+annID), 204, "")
	wantStatus(t, "ann deletes it again", del(annKey, annComment.ID, ""), 404, "not-found")

	// Moderation: administrators only; hidden comments leave the list and the count.
	decodeInto(t, e.api("GET", base+slug+"/comments", "", nil), &page)
	target := page.Comments[0].ID
	patch := func(key string, body any) resp { return e.api("PATCH", base+slug+"/comments/"+target, key, body) }
	wantStatus(t, "member hides", patch(bobKey, map[string]any{"hidden": true}), 403, "forbidden")
	wantStatus(t, "hide without a key", patch("", map[string]any{"hidden": true}), 401, "unauthorized")
	if f := problemField(t, patch(adminKey, map[string]any{"hidden": "yes"})); f != "hidden" {
		t.Fatalf("hidden field: %s", f)
	}
	var mod struct{ Comment commentOut }
	decodeInto(t, patch(adminKey, map[string]any{"hidden": true}), &mod)
	if mod.Comment.Hidden == nil || !*mod.Comment.Hidden || mod.Comment.ID != target {
		t.Fatalf("hide: %+v", mod)
	}
	decodeInto(t, e.api("GET", base+slug+"/comments", "", nil), &page)
	var art struct {
		Article struct {
			CommentCount int64 `json:"comment_count"`
			LikeCount    int64 `json:"like_count"`
		}
	}
	decodeInto(t, e.api("GET", "/v1/stack-signal/"+slug, "", nil), &art)
	if page.Total != 3 || art.Article.CommentCount != 3 || art.Article.LikeCount != 1 {
		t.Fatalf("after a delete and a hide: %d listed, comment_count %d, like_count %d", page.Total, art.Article.CommentCount, art.Article.LikeCount)
	}
	likes, comments, err := e.store.SocialRows(context.Background(), id)
	if err != nil || likes != 1 || comments != 3 {
		t.Fatalf("rows: %d likes, %d comments, %v", likes, comments, err)
	}

	// Unknown articles and comments.
	for _, r := range []resp{
		e.api("POST", base+"nope/view", "", nil), e.api("POST", base+"nope/like", annKey, nil), e.api("GET", base+"nope/likes", "", nil),
		e.api("POST", base+"nope/comments", annKey, map[string]any{"body": "x"}), e.api("GET", base+"nope/comments", "", nil),
		e.api("DELETE", base+slug+"/comments/c_nope", annKey, nil), e.api("PATCH", base+slug+"/comments/c_nope", adminKey, map[string]any{"hidden": true}),
	} {
		wantStatus(t, "unknown", r, 404, "not-found")
	}
}

// socialAPICommentLimitsAndMute: the sixth comment in a minute is 429 with Retry-After; a
// muted member gets 403.
func socialAPICommentLimitsAndMute(t *testing.T, e *env, slug string) {
	path := "/v1/stack-signal/articles/" + slug + "/comments"
	_, key := e.user("quick@example.com", db.TierFree)
	for i := 0; i < social.CommentsPerMinute; i++ {
		wantStatus(t, fmt.Sprint("comment ", i+1), e.api("POST", path, key, map[string]any{"body": fmt.Sprint("note ", i)}), 201, "")
	}
	r := e.api("POST", path, key, map[string]any{"body": "one too many"})
	wantStatus(t, "sixth comment in a minute", r, 429, "rate-limited")
	if ra := r.Header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After %q", ra)
	}
	_, other := e.user("muted@example.com", db.TierFree)
	if _, err := e.app.Social.SetMuted(context.Background(), "muted@example.com", true); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "muted member", e.api("POST", path, other, map[string]any{"body": "hello"}), 403, "forbidden")
}

// socialAPIViews: once per key per day, once per cookie per day, and without either once
// per minute per address; the cookie is first-party, HttpOnly and no session.
func socialAPIViews(t *testing.T, e *env, slug string) {
	path := "/v1/stack-signal/articles/" + slug + "/view"
	count := func(r resp) int64 {
		t.Helper()
		var v struct {
			ViewCount int64 `json:"view_count"`
		}
		wantStatus(t, "view", r, 200, "")
		decodeInto(t, r, &v)
		return v.ViewCount
	}
	r := e.api("POST", path, "", nil)
	if count(r) != 1 {
		t.Fatalf("first view: %s", r.Body)
	}
	ck := (&http.Response{Header: r.Header}).Cookies()
	if len(ck) != 1 || ck[0].Name != "ounce_vid" || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteLaxMode || len(ck[0].Value) != 45 {
		t.Fatalf("visitor cookie: %v", r.Header["Set-Cookie"])
	}
	if n := count(e.api("POST", path, "", nil)); n != 1 {
		t.Fatalf("no cookie, same address, same minute: %d", n)
	}
	withCookie := func(v string) resp {
		req := httptest.NewRequest("POST", path, nil)
		req.AddCookie(&http.Cookie{Name: "ounce_vid", Value: v})
		return e.do(req)
	}
	if r := withCookie(ck[0].Value); count(r) != 1 || r.Header.Get("Set-Cookie") != "" {
		t.Fatalf("the cookie the first view was given counts no more today: %s %v", r.Body, r.Header)
	}
	// Invented cookies count as none: the same address in the same minute counts no more,
	// and each is answered with a genuine cookie.
	var minted []*http.Cookie
	for i := range 50 {
		invented := fmt.Sprintf("ZZZZZZZZZZZZZZZZZZZZ%02d", i) // an id without the server's signature
		if i%2 == 1 {
			invented += ".ZZZZZZZZZZZZZZZZZZZZZZ" // and with a made-up one
		}
		r := withCookie(invented)
		if n := count(r); n != 1 || !strings.Contains(r.Header.Get("Set-Cookie"), "ounce_vid=") {
			t.Fatalf("invented cookie %d: %d views, Set-Cookie %q", i, n, r.Header.Get("Set-Cookie"))
		}
		minted = (&http.Response{Header: r.Header}).Cookies()
	}
	// A genuine cookie the server gave (to a view that did not count) counts, once.
	if len(minted) != 1 || minted[0].Value == ck[0].Value {
		t.Fatalf("the minted cookie: %v", minted)
	}
	if n := count(withCookie(minted[0].Value)); n != 2 {
		t.Fatalf("another visitor: %d", n)
	}
	if n := count(withCookie(minted[0].Value)); n != 2 {
		t.Fatalf("the same visitor again: %d", n)
	}
	// Its id with another signature is no cookie.
	id, _, _ := strings.Cut(minted[0].Value, ".")
	if n := count(withCookie(id + ".AAAAAAAAAAAAAAAAAAAAAA")); n != 2 {
		t.Fatalf("a forged signature: %d", n)
	}
	_, key := e.user("reader@example.com", db.TierFree)
	if n := count(e.api("POST", path, key, nil)); n != 3 {
		t.Fatalf("a key: %d", n)
	}
	if r := e.api("POST", path, key, nil); count(r) != 3 || r.Header.Get("Set-Cookie") != "" {
		t.Fatal("the same key again counted or got a cookie")
	}
	wantStatus(t, "view claiming a user without a key", e.api("POST", path+"?userId=1", "", nil), 401, "unauthorized")
}

// socialPagesTwoMembers: likes and comments on the article page through HTMX, escaped
// comments, own-comment deletion, the visitor cookie and the counts on the list.
func socialPagesTwoMembers(t *testing.T, e *env, slug string) {
	page := "/signal/" + slug

	// A visitor: counted by a first-party cookie, invited to sign in.
	v := e.browser()
	r := v.get(page)
	d := doc(t, r)
	if r.Status != 200 || d.Find(`#article-like a[href^="/login"]`).Length() != 1 || d.Find("#comment-form").Length() != 0 || d.Find(`#comments a[href^="/login"]`).Length() != 1 {
		t.Fatalf("visitor's article page: %d", r.Status)
	}
	if v.cookies["ounce_vid"] == "" || !strings.Contains(strings.Join(r.Header.Values("Set-Cookie"), "\n"), "ounce_vid=") {
		t.Fatal("no visitor cookie")
	}
	for _, sc := range (&http.Response{Header: r.Header}).Cookies() {
		if sc.Name == "ounce_vid" && (!sc.HttpOnly || sc.SameSite != http.SameSiteLaxMode) {
			t.Fatalf("visitor cookie attributes: %+v", sc)
		}
	}
	if got := strings.TrimSpace(d.Find("#article-views").Text()); got != "1 view" {
		t.Fatalf("views after one visit: %q", got)
	}
	if got := strings.TrimSpace(doc(t, v.get(page)).Find("#article-views").Text()); got != "1 view" {
		t.Fatalf("a reload counted again: %q", got)
	}
	v.get("/login") // a page with a form, for the CSRF token
	if r := v.post(page+"/like", nil, false); r.Status != 303 || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
		t.Fatalf("visitor likes: %d %v", r.Status, r.Header)
	}

	// Two members.
	ann, bob := e.browser(), e.browser()
	ann.signUp("ann@example.com")
	bob.signUp("bob@example.com")
	d = doc(t, ann.get(page))
	if btn := d.Find("#like-button"); btn.AttrOr("aria-pressed", "") != "false" || btn.AttrOr("type", "") != "submit" {
		t.Fatalf("like button: %v", btn.Nodes)
	}
	if d.Find(`#comment-form textarea#comment-body[name=body][data-max-chars="1000"]`).Length() != 1 || d.Find(`#comment-form a[href="/settings/account"]`).Length() != 1 {
		t.Fatal("comment form, counter hook or display-name link missing")
	}
	if d.Find(`script[src="/static/js/social.js"][nonce]`).Length() != 1 {
		t.Fatal("counter script missing or without nonce")
	}
	if got := strings.TrimSpace(d.Find("#article-views").Text()); got != "2 views" {
		t.Fatalf("member's view: %q", got)
	}
	r = ann.post(page+"/like", nil, true)
	f := doc(t, r)
	if r.Status != 200 || f.Find("header").Length() != 0 || f.Find("#like-button").AttrOr("aria-pressed", "") != "true" || strings.TrimSpace(f.Find("#like-count").Text()) != "1 like" {
		t.Fatalf("ann likes: %d %s", r.Status, r.Body)
	}
	bob.get(page) // signing in rotates the CSRF token: Bob's form comes from a page he has open
	f = doc(t, bob.post(page+"/like", nil, true))
	if strings.TrimSpace(f.Find("#like-count").Text()) != "2 likes" {
		t.Fatalf("bob likes: %s", f.Text())
	}
	if r := bob.post(page+"/like", nil, false); r.Status != 303 || r.Header.Get("Location") != page {
		t.Fatalf("plain form like: %d %v", r.Status, r.Header)
	}
	if r := bob.post(page+"/like", url.Values{"_csrf": {"forged"}}, true); r.Status != 403 {
		t.Fatalf("like without the CSRF token: %d", r.Status)
	}

	// Comments through HTMX: escaped, counted, refused text kept in the form.
	for _, x := range xssPayloads {
		r := bob.post(page+"/comments", url.Values{"body": {x}}, true)
		if r.Status != 200 {
			t.Fatalf("bob comments: %d %s", r.Status, r.Body)
		}
	}
	r = ann.post(page+"/comments", url.Values{"body": {"Plain and simple."}}, true)
	f = doc(t, r)
	if r.Status != 200 || f.Find("section#comments").Length() != 1 || f.Find("#comment-list > li").Length() != 4 || !strings.Contains(f.Find("#comments-heading").Text(), "4 comments") {
		t.Fatalf("thread after ann's comment: %d %s", r.Status, r.Body)
	}
	if f.Find("#comments script").Length() != 0 || f.Find("#comments img").Length() != 0 || f.Find(`#comments a[href^="javascript"]`).Length() != 0 || f.Find("#comments [onerror]").Length() != 0 {
		t.Fatalf("a payload became markup: %s", r.Body)
	}
	bodies := f.Find("#comment-list .comment-body")
	for i, x := range xssPayloads {
		if got := bodies.Eq(i).Text(); got != x {
			t.Fatalf("payload %d shown as %q", i, got)
		}
	}
	if strings.Contains(string(r.Body), "<script>alert") || !strings.Contains(string(r.Body), "&lt;script&gt;alert(") {
		t.Fatal("the script payload is not escaped in the HTML")
	}
	// Only her own comment carries a delete button for ann.
	if f.Find("#comment-list form[action$='/delete']").Length() != 1 {
		t.Fatalf("ann sees %d delete buttons", f.Find("#comment-list form[action$='/delete']").Length())
	}
	r = ann.post(page+"/comments", url.Values{"body": {"  \n "}}, true)
	f = doc(t, r)
	if r.Status != 422 || f.Find("#comment-error").Length() != 1 || f.Find("#comment-body").AttrOr("aria-invalid", "") != "true" {
		t.Fatalf("empty comment: %d %s", r.Status, r.Body)
	}
	long := strings.Repeat("🪙", 1001)
	f = doc(t, ann.post(page+"/comments", url.Values{"body": {long}}, true))
	if f.Find("#comment-body").Text() != long || !strings.Contains(f.Find("#comment-error").Text(), "1,000") || strings.TrimSpace(f.Find("#comment-counter").Text()) != "1,001 / 1,000" {
		t.Fatalf("over-long comment not kept with its reason: %s", f.Find("#comment-form").Text())
	}
	if r := ann.post(page+"/comments", url.Values{"body": {long}}, false); r.Status != 422 || doc(t, r).Find("#comment-body").Text() != long || doc(t, r).Find("h1").Length() != 1 {
		t.Fatalf("plain form, over-long comment: %d", r.Status)
	}

	// Deleting: bob cannot delete ann's comment; ann can.
	d = doc(t, ann.get(page))
	action, _ := d.Find("#comment-list form[action$='/delete']").Attr("action")
	if r := bob.post(action, nil, true); r.Status != 404 {
		t.Fatalf("bob deletes ann's comment: %d", r.Status)
	}
	f = doc(t, ann.post(action, nil, true))
	if f.Find("#comment-list > li").Length() != 3 || !strings.Contains(f.Find("#comments-heading").Text(), "3 comments") {
		t.Fatalf("after ann's delete: %s", f.Text())
	}

	// The list shows the counts.
	list := doc(t, v.get("/signal"))
	card := list.Find(fmt.Sprintf(`section:has(a[href="%s"]) .reader-counts`, page)).Text()
	if !strings.Contains(card, "1 like") || !strings.Contains(card, "3 comments") || !strings.Contains(card, "3 views") {
		t.Fatalf("card counts: %q", card)
	}
	if r := e.do(httptest.NewRequest("GET", "/llms.txt", nil)); !strings.Contains(string(r.Body), "/v1/stack-signal/articles/{id}/comments") {
		t.Fatal("llms.txt lacks the social routes")
	}
}

// socialPagesModeration: an administrator hides from the page; a muted member sees why
// there is no form.
func socialPagesModeration(t *testing.T, e *env, slug string) {
	page := "/signal/" + slug
	ann := e.browser()
	ann.signUp("mod-ann@example.com")
	ann.get(page)
	ann.post(page+"/comments", url.Values{"body": {"first"}}, true)
	if r := ann.post(page+"/comments/c_x/hide", nil, true); r.Status != 404 {
		t.Fatalf("member hides: %d", r.Status)
	}
	e.admin("mod-root@example.com")
	admin := e.browser()
	admin.get("/login")
	if r := admin.post("/login", url.Values{"email": {"mod-root@example.com"}, "password": {"correct horse battery"}}, false); r.Status != 303 {
		t.Fatalf("admin sign-in: %d", r.Status)
	}
	d := doc(t, admin.get(page))
	action, ok := d.Find("#comment-list form[action$='/hide']").Attr("action")
	if !ok {
		t.Fatal("no hide button for the administrator")
	}
	f := doc(t, admin.post(action, nil, true))
	if f.Find("#comment-list > li").Length() != 0 || strings.TrimSpace(f.Find("#comments-heading").Text()) != "Comments" || !strings.Contains(f.Find("#comments").Text(), "No comments yet.") {
		t.Fatalf("after hide: %s", f.Text())
	}
	if _, err := e.app.Social.SetMuted(context.Background(), "mod-ann@example.com", true); err != nil {
		t.Fatal(err)
	}
	d = doc(t, ann.get(page))
	if d.Find("#comment-form").Length() != 0 || !strings.Contains(d.Find("#comments [role=note]").Text(), "stopped") {
		t.Fatal("muted member still sees the form")
	}
	if r := ann.post(page+"/comments", url.Values{"body": {"again"}}, true); r.Status != 403 || r.Header.Get("HX-Retarget") != "#toasts" {
		t.Fatalf("muted member posts: %d %v", r.Status, r.Header)
	}
}

// TestSocialPagesEarlierComments: the page shows the latest 50 comments, oldest first; HTMX
// brings the earlier ones in place of the link, and without script the link leads to them.
func TestSocialPagesEarlierComments(t *testing.T) {
	e := newEnv(t, sqliteStore(t), offline(t))
	id, slug := socialArticle(t, e)
	svc := e.app.Social
	for m := 0; m < 12; m++ {
		u, _ := e.user(fmt.Sprintf("m%02d@example.com", m), db.TierFree)
		for i := 0; i < social.CommentsPerMinute; i++ {
			if _, err := svc.PostComment(context.Background(), u, id, social.CommentInput{Body: fmt.Sprintf("comment %02d", m*5+i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	d := doc(t, e.do(httptest.NewRequest("GET", "/signal/"+slug, nil)))
	items := d.Find("#comment-list > li[id^=comment-]")
	if items.Length() != 50 || !strings.Contains(items.First().Text(), "comment 10") || !strings.Contains(items.Last().Text(), "comment 59") || !strings.Contains(d.Find("#comments-heading").Text(), "60 comments") {
		t.Fatalf("latest page: %d items, first %q", items.Length(), items.First().Text())
	}
	link := d.Find("#comments-earlier a")
	hx, _ := link.Attr("hx-get")
	if hx != "/signal/"+slug+"/comments?offset=0&limit=10" {
		t.Fatalf("earlier link %q", hx)
	}
	req := httptest.NewRequest("GET", hx, nil)
	req.Header.Set("HX-Request", "true")
	f := doc(t, e.do(req))
	if n := f.Find("li[id^=comment-]").Length(); n != 10 || f.Find("#comments-earlier").Length() != 0 || !strings.Contains(f.Find("li").First().Text(), "comment 00") {
		t.Fatalf("earlier fragment: %d items", n)
	}
	r := e.do(httptest.NewRequest("GET", hx, nil))
	if r.Status != 303 || r.Header.Get("Location") != "/signal/"+slug+"?comments=0#comments" {
		t.Fatalf("without HTMX: %d %v", r.Status, r.Header.Get("Location"))
	}
	d = doc(t, e.do(httptest.NewRequest("GET", "/signal/"+slug+"?comments=0", nil)))
	if items := d.Find("#comment-list > li[id^=comment-]"); items.Length() != 50 || !strings.Contains(items.First().Text(), "comment 00") || d.Find(`#comments a[href="/signal/`+slug+`#comments"]`).Length() != 1 {
		t.Fatalf("thread from the start: %d", items.Length())
	}
	if r := e.do(httptest.NewRequest("GET", "/signal/"+slug+"?comments=x", nil)); r.Status != 400 {
		t.Fatalf("bad comments offset: %d", r.Status)
	}
}
