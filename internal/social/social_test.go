package social_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/social"
)

// clock is a settable test clock shared by the service, its limiter and the store.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	store *db.Store
	svc   *social.Service
	clock *clock
	art   db.Article
}

func newFixture(t *testing.T, s *db.Store) *fixture {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	s.Now = clk.now
	a, ok, err := s.InsertArticle(context.Background(), db.Article{Slug: "2026-11-20-silver-drain", Title: "Silver drains", Summary: "s", Commentary: "c",
		Category: "SUPPLY_DEMAND", PublishedAt: clk.now(), Writer: "built-in"})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	svc := social.New(social.Deps{Store: s, Now: clk.now, Config: social.Config{AddressKey: "test key of sixteen+"}})
	return &fixture{store: s, svc: svc, clock: clk, art: a}
}

func (f *fixture) member(t *testing.T, email string) db.User {
	t.Helper()
	u, err := f.store.InsertUser(context.Background(), email, "h", db.TierFree, false)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (f *fixture) admin(t *testing.T, email string) db.User {
	t.Helper()
	u, err := f.store.InsertUser(context.Background(), email, "h", db.TierFree, true)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// counters reads the article's stored counters and the rows behind them.
func (f *fixture) counters(t *testing.T) (likeCount, likeRows, commentCount, commentRows int64) {
	t.Helper()
	a, err := f.store.ArticleByID(context.Background(), f.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	lr, cr, err := f.store.SocialRows(context.Background(), f.art.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a.LikeCount, lr, a.CommentCount, cr
}

func wantKind(t *testing.T, what string, err error, k apperr.Kind) {
	t.Helper()
	if apperr.KindOf(err) != k {
		t.Fatalf("%s: want %v, got %v", what, k, err)
	}
}

// TestLikesExactUnderConcurrency fires 50 toggles from 50 members and, at the same time, 20
// toggles from one more member: every toggle of that member undoes the one before, so the
// article ends with exactly the 50 likes, and the counter equals the rows.
func TestLikesExactUnderConcurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s)
		ctx := context.Background()
		members := make([]db.User, 50)
		for i := range members {
			members[i] = f.member(t, fmt.Sprintf("m%02d@example.com", i))
		}
		one := f.member(t, "toggler@example.com")
		var wg sync.WaitGroup
		errs := make(chan error, 70)
		var mu sync.Mutex
		likedTrue := 0
		start := make(chan struct{})
		for i := 0; i < 70; i++ {
			u := one
			if i < 50 {
				u = members[i]
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				st, err := f.svc.ToggleLike(ctx, u, f.art.ID, "")
				if err != nil {
					errs <- err
					return
				}
				if u.ID == one.ID && st.Liked {
					mu.Lock()
					likedTrue++
					mu.Unlock()
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		count, rows, _, _ := f.counters(t)
		if count != 50 || rows != 50 {
			t.Fatalf("like_count %d, rows %d; want 50 and 50", count, rows)
		}
		// The one member's toggles ran one after another: half of them liked.
		if likedTrue != 10 {
			t.Fatalf("%d of the member's 20 toggles liked, want 10", likedTrue)
		}
		st, err := f.svc.Likes(ctx, one, f.art.Slug, "")
		if err != nil || st.Liked || st.Count != 50 {
			t.Fatalf("after an even number of toggles: %+v %v", st, err)
		}
		st, err = f.svc.Likes(ctx, members[7], f.art.ID, "")
		if err != nil || !st.Liked {
			t.Fatalf("a member who toggled once: %+v %v", st, err)
		}
		if st, err := f.svc.Likes(ctx, db.User{}, f.art.ID, ""); err != nil || st.Liked || st.Count != 50 {
			t.Fatalf("anonymous: %+v %v", st, err)
		}
	})
}

// TestCommentsExactUnderConcurrency posts, deletes and hides comments at once and checks the
// counter against the rows.
func TestCommentsExactUnderConcurrency(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s)
		ctx := context.Background()
		admin := f.admin(t, "admin@example.com")
		var posted []social.Comment
		for i := 0; i < 20; i++ {
			u := f.member(t, fmt.Sprintf("c%02d@example.com", i))
			c, err := f.svc.PostComment(ctx, u, f.art.ID, social.CommentInput{Body: "first"})
			if err != nil {
				t.Fatal(err)
			}
			posted = append(posted, c)
		}
		var wg sync.WaitGroup
		for i, c := range posted {
			wg.Add(2)
			go func() {
				defer wg.Done()
				// Half are deleted by an administrator, while every one is also hidden.
				if i%2 == 0 {
					if err := f.svc.DeleteComment(ctx, admin, f.art.ID, c.ID, ""); err != nil {
						t.Error(err)
					}
				}
			}()
			go func() {
				defer wg.Done()
				if _, err := f.svc.SetCommentHidden(ctx, admin, f.art.ID, c.ID, i%4 == 1); err != nil && apperr.KindOf(err) != apperr.NotFound {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		_, _, count, rows := f.counters(t)
		// 10 deleted; of the other 10, those with i%4 == 1 (5) are hidden.
		if count != rows || count != 5 {
			t.Fatalf("comment_count %d, rows %d; want 5 and 5", count, rows)
		}
	})
}

func TestCommentBodyBoundaries(t *testing.T) {
	rep := strings.Repeat
	cases := []struct {
		name, in, want string
		ok             bool
	}{
		{"empty", "", "", false},
		{"spaces only", " \n\t ", "", false},
		{"one rune", "a", "a", true},
		{"trimmed", "  hello \n", "hello", true},
		{"1000 runes", rep("x", 1000), rep("x", 1000), true},
		{"1001 runes", rep("x", 1001), "", false},
		{"1000 emoji", rep("🪙", 1000), rep("🪙", 1000), true},
		{"1001 emoji", rep("🪙", 1001), "", false},
		{"1000 with surrounding space", "  " + rep("é", 1000) + "  ", rep("é", 1000), true},
		{"CRLF becomes LF", "a\r\nb", "a\nb", true},
		{"NUL", "a\x00b", "", false},
		{"bell", "a\ab", "", false},
		{"invalid UTF-8", "a\xffb", "", false},
		{"markup stays text", `<script>alert(1)</script>`, `<script>alert(1)</script>`, true},
	}
	for _, c := range cases {
		got, err := social.CommentBody(c.in)
		if c.ok != (err == nil) || got != c.want {
			t.Errorf("%s: got %q, %v", c.name, got, err)
		}
		if !c.ok && len(apperr.FieldsOf(err)) != 1 {
			t.Errorf("%s: error does not name the field: %v", c.name, err)
		}
	}
	if _, err := social.CommentBody(rep("x", 1001)); err == nil || !strings.Contains(err.Error(), "at most 1,000 characters (this has 1,001)") {
		t.Errorf("over-long message: %v", err)
	}
}

func FuzzCommentBody(f *testing.F) {
	for _, s := range []string{"", "a", "  x  ", "🪙", "a\r\nb", "<img src=x onerror=alert(1)>", strings.Repeat("y", 1001)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := social.CommentBody(in)
		if err != nil {
			if apperr.KindOf(err) != apperr.Invalid {
				t.Fatalf("%q: %v is not an invalid-field error", in, err)
			}
			return
		}
		if n := len([]rune(out)); n < 1 || n > social.MaxCommentRunes || strings.TrimSpace(out) != out || strings.Contains(out, "\r") {
			t.Fatalf("%q accepted as %q", in, out)
		}
	})
}

func TestCommentRules(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s)
		ctx := context.Background()
		ann, bob := f.member(t, "ann@example.com"), f.member(t, "bob@example.com")
		admin := f.admin(t, "root@example.com")

		// Anonymous, and userId that is not the caller's.
		_, err := f.svc.PostComment(ctx, db.User{}, f.art.ID, social.CommentInput{Body: "hi", ClaimedUserID: fmt.Sprint(ann.ID)})
		wantKind(t, "anonymous with userId", err, apperr.Unauthorized)
		_, err = f.svc.PostComment(ctx, bob, f.art.ID, social.CommentInput{Body: "as ann", ClaimedUserID: fmt.Sprint(ann.ID)})
		wantKind(t, "bob claiming ann", err, apperr.Forbidden)
		_, err = f.svc.PostComment(ctx, ann, "no-such-article", social.CommentInput{Body: "hi"})
		wantKind(t, "unknown article", err, apperr.NotFound)

		c1, err := f.svc.PostComment(ctx, ann, f.art.Slug, social.CommentInput{Body: "  Registered keeps falling.  ", ClaimedUserID: fmt.Sprint(ann.ID)})
		if err != nil || c1.Body != "Registered keeps falling." || !strings.HasPrefix(c1.Author, "Member ") || !c1.Mine {
			t.Fatalf("ann's comment: %+v %v", c1, err)
		}
		if err := s.SetUserProfile(ctx, bob.ID, "Bob the Stacker", "Europe/London"); err != nil {
			t.Fatal(err)
		}
		bob.DisplayName = "Bob the Stacker"
		f.clock.add(time.Second)
		c2, err := f.svc.PostComment(ctx, bob, f.art.ID, social.CommentInput{Body: "Agreed."})
		if err != nil || c2.Author != "Bob the Stacker" {
			t.Fatalf("bob's comment: %+v %v", c2, err)
		}

		// Listing: oldest first, display names only, who may delete what.
		p, err := f.svc.Comments(ctx, ann, f.art.ID, social.CommentsQuery{})
		if err != nil || p.Total != 2 || p.Limit != social.DefaultCommentLimit || len(p.Comments) != 2 || p.Comments[0].ID != c1.ID || p.Comments[1].Author != "Bob the Stacker" {
			t.Fatalf("list: %+v %v", p, err)
		}
		if !p.Comments[0].CanDelete || p.Comments[1].CanDelete {
			t.Fatalf("ann may delete only her own: %+v", p.Comments)
		}
		if p, _ := f.svc.Comments(ctx, admin, f.art.ID, social.CommentsQuery{}); !p.Comments[0].CanDelete || !p.Comments[1].CanDelete {
			t.Fatal("an administrator may delete any")
		}
		for _, q := range []social.CommentsQuery{{Limit: -1}, {Limit: 101}, {Offset: -1}} {
			_, err := f.svc.Comments(ctx, db.User{}, f.art.ID, q)
			wantKind(t, fmt.Sprintf("query %+v", q), err, apperr.Invalid)
		}
		if p, err := f.svc.Comments(ctx, db.User{}, f.art.ID, social.CommentsQuery{Limit: 1, Offset: 1}); err != nil || len(p.Comments) != 1 || p.Comments[0].ID != c2.ID || p.Total != 2 {
			t.Fatalf("second page: %+v %v", p, err)
		}
		_, err = f.svc.Comments(ctx, db.User{}, f.art.ID, social.CommentsQuery{ClaimedUserID: "1"})
		wantKind(t, "list with userId, anonymous", err, apperr.Unauthorized)

		// Deleting: another member's comment does not exist for you (with or without userId).
		wantKind(t, "bob deletes ann's", f.svc.DeleteComment(ctx, bob, f.art.ID, c1.ID, ""), apperr.NotFound)
		wantKind(t, "bob deletes ann's as ann", f.svc.DeleteComment(ctx, bob, f.art.ID, c1.ID, fmt.Sprint(ann.ID)), apperr.Forbidden)
		wantKind(t, "ann's comment via another article", f.svc.DeleteComment(ctx, ann, "nope", c1.ID, ""), apperr.NotFound)
		wantKind(t, "anonymous delete", f.svc.DeleteComment(ctx, db.User{}, f.art.ID, c1.ID, ""), apperr.Unauthorized)
		if _, _, n, rows := f.counters(t); n != 2 || rows != 2 {
			t.Fatalf("after refused deletes: %d/%d", n, rows)
		}
		if err := f.svc.DeleteComment(ctx, ann, f.art.ID, c1.ID, fmt.Sprint(ann.ID)); err != nil {
			t.Fatal(err)
		}
		wantKind(t, "second delete", f.svc.DeleteComment(ctx, ann, f.art.ID, c1.ID, ""), apperr.NotFound)
		if _, _, n, rows := f.counters(t); n != 1 || rows != 1 {
			t.Fatalf("after ann's delete: %d/%d", n, rows)
		}

		// Hiding is for administrators; hidden comments leave the list and the count.
		_, err = f.svc.SetCommentHidden(ctx, bob, f.art.ID, c2.ID, true)
		wantKind(t, "member hides", err, apperr.Forbidden)
		h, err := f.svc.SetCommentHidden(ctx, admin, f.art.ID, c2.ID, true)
		if err != nil || !h.Hidden {
			t.Fatalf("hide: %+v %v", h, err)
		}
		if _, _, n, rows := f.counters(t); n != 0 || rows != 0 {
			t.Fatalf("after hide: %d/%d", n, rows)
		}
		if p, _ := f.svc.Comments(ctx, db.User{}, f.art.ID, social.CommentsQuery{}); p.Total != 0 || len(p.Comments) != 0 {
			t.Fatalf("hidden comment listed: %+v", p)
		}
		if _, err := f.svc.SetCommentHidden(ctx, admin, f.art.ID, c2.ID, true); err != nil {
			t.Fatal("hiding twice:", err)
		}
		if _, _, n, _ := f.counters(t); n != 0 {
			t.Fatalf("hiding twice changed the count: %d", n)
		}
		if _, err := f.svc.SetCommentHidden(ctx, admin, f.art.ID, c2.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, _, n, rows := f.counters(t); n != 1 || rows != 1 {
			t.Fatalf("after unhide: %d/%d", n, rows)
		}
		// Deleting a hidden comment does not count it twice.
		if _, err := f.svc.SetCommentHidden(ctx, admin, f.art.ID, c2.ID, true); err != nil {
			t.Fatal(err)
		}
		if err := f.svc.DeleteComment(ctx, bob, f.art.ID, c2.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, _, n, rows := f.counters(t); n != 0 || rows != 0 {
			t.Fatalf("after deleting a hidden comment: %d/%d", n, rows)
		}
		_, err = f.svc.SetCommentHidden(ctx, admin, f.art.ID, c2.ID, false)
		wantKind(t, "unhide a deleted comment", err, apperr.NotFound)

		// Mute stops new comments; unmute lets them again.
		if _, err := f.svc.SetMuted(ctx, "BOB@example.com", true); err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.PostComment(ctx, bob, f.art.ID, social.CommentInput{Body: "let me in"})
		wantKind(t, "muted", err, apperr.Forbidden)
		if m, _ := f.svc.Muted(ctx, bob); !m {
			t.Fatal("Muted says no")
		}
		if _, err := f.svc.SetMuted(ctx, "bob@example.com", false); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.PostComment(ctx, bob, f.art.ID, social.CommentInput{Body: "back"}); err != nil {
			t.Fatal(err)
		}
		_, err = f.svc.SetMuted(ctx, "nobody@example.com", true)
		wantKind(t, "mute unknown", err, apperr.NotFound)
	})
}

func TestCommentRateLimits(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s)
		ctx := context.Background()
		ann, bob := f.member(t, "ann@example.com"), f.member(t, "bob@example.com")
		post := func(u db.User) error {
			_, err := f.svc.PostComment(ctx, u, f.art.ID, social.CommentInput{Body: "note"})
			return err
		}
		for i := 0; i < social.CommentsPerMinute; i++ {
			if err := post(ann); err != nil {
				t.Fatalf("comment %d: %v", i+1, err)
			}
			f.clock.add(time.Second)
		}
		err := post(ann)
		wantKind(t, "sixth in a minute", err, apperr.RateLimited)
		if e, _ := apperr.As(err); e.RetryAfter != 55*time.Second {
			t.Fatalf("retry after %v, want 55s (the first of the five turns a minute old)", e.RetryAfter)
		}
		if err := post(bob); err != nil {
			t.Fatal("another member is not limited:", err)
		}
		f.clock.add(55 * time.Second)
		if err := post(ann); err != nil {
			t.Fatal("a minute later:", err)
		}
		// The day: 100 in 24 hours, deleted ones included.
		for n := social.CommentsPerMinute + 1; n < social.CommentsPerDay; n++ {
			f.clock.add(15 * time.Second)
			if err := post(ann); err != nil {
				t.Fatalf("comment %d: %v", n+1, err)
			}
		}
		p, _ := f.svc.Comments(ctx, ann, f.art.ID, social.CommentsQuery{Limit: 1})
		if err := f.svc.DeleteComment(ctx, ann, f.art.ID, p.Comments[0].ID, ""); err != nil {
			t.Fatal(err)
		}
		f.clock.add(time.Hour)
		err = post(ann)
		wantKind(t, "101st in a day", err, apperr.RateLimited)
		e, _ := apperr.As(err)
		if e.RetryAfter < 20*time.Hour || e.RetryAfter > 23*time.Hour {
			t.Fatalf("daily retry after %v", e.RetryAfter)
		}
		f.clock.add(e.RetryAfter)
		if err := post(ann); err != nil {
			t.Fatal("after the oldest turned a day old:", err)
		}
		if _, _, n, rows := f.counters(t); n != rows || n != int64(social.CommentsPerDay)+1 {
			t.Fatalf("comment_count %d, rows %d", n, rows)
		}
	})
}

func TestViewsOncePerViewerPerDay(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s)
		ctx := context.Background()
		ann := f.member(t, "ann@example.com")
		view := func(v social.Viewer) social.ViewResult {
			t.Helper()
			r, err := f.svc.RecordView(ctx, f.art.Slug, v)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		steps := []struct {
			name string
			v    social.Viewer
			want int64
		}{
			{"member", social.Viewer{User: ann}, 1},
			{"member again", social.Viewer{User: ann}, 1},
			{"key", social.Viewer{User: ann, KeyID: 9}, 2},
			{"key again", social.Viewer{User: ann, KeyID: 9}, 2},
			{"visitor cookie", social.Viewer{Visitor: "AAAAAAAAAAAAAAAAAAAAAA"}, 3},
			{"same cookie", social.Viewer{Visitor: "AAAAAAAAAAAAAAAAAAAAAA", Address: "192.0.2.9"}, 3},
			{"no cookie", social.Viewer{Address: "192.0.2.1", NewVisitor: "BBBBBBBBBBBBBBBBBBBBBB"}, 4},
			{"no cookie, same address", social.Viewer{Address: "192.0.2.1", NewVisitor: "CCCCCCCCCCCCCCCCCCCCCC"}, 4},
			{"the cookie it was given", social.Viewer{Visitor: "BBBBBBBBBBBBBBBBBBBBBB", Address: "192.0.2.1"}, 4},
			{"no cookie, other address", social.Viewer{Address: "192.0.2.2"}, 5},
		}
		for _, st := range steps {
			if got := view(st.v).Count; got != st.want {
				t.Fatalf("%s: view_count %d, want %d", st.name, got, st.want)
			}
		}
		f.clock.add(time.Minute)
		if got := view(social.Viewer{Address: "192.0.2.1"}).Count; got != 6 {
			t.Fatalf("a minute later the address counts again: %d", got)
		}
		// The next UTC day everyone counts once more.
		f.clock.add(24 * time.Hour)
		if got := view(social.Viewer{User: ann}).Count; got != 7 {
			t.Fatalf("member next day: %d", got)
		}
		if got := view(social.Viewer{Visitor: "AAAAAAAAAAAAAAAAAAAAAA"}).Count; got != 8 {
			t.Fatalf("visitor next day: %d", got)
		}
		// Pruning forgets days before yesterday only; counts stay.
		if err := f.svc.PruneViews(ctx); err != nil {
			t.Fatal(err)
		}
		if got := view(social.Viewer{User: ann}).Count; got != 8 {
			t.Fatalf("pruning forgot today: %d", got)
		}
		a, _ := s.ArticleByID(ctx, f.art.ID)
		if a.ViewCount != 8 {
			t.Fatalf("stored view_count %d", a.ViewCount)
		}
		_, err := f.svc.RecordView(ctx, "no-such-article", social.Viewer{User: ann})
		wantKind(t, "unknown article", err, apperr.NotFound)
		_, err = f.svc.RecordView(ctx, f.art.ID, social.Viewer{Visitor: "AAAAAAAAAAAAAAAAAAAAAA", ClaimedUserID: "1"})
		wantKind(t, "visitor claiming a user", err, apperr.Unauthorized)
		_, err = f.svc.RecordView(ctx, f.art.ID, social.Viewer{User: ann, ClaimedUserID: "999"})
		wantKind(t, "member claiming another", err, apperr.Forbidden)
	})
}

// TestViewsConcurrent counts 30 distinct members viewing at once, each twice.
func TestViewsConcurrent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s)
		ctx := context.Background()
		users := make([]db.User, 30)
		for i := range users {
			users[i] = f.member(t, fmt.Sprintf("v%02d@example.com", i))
		}
		var wg sync.WaitGroup
		for _, u := range append(users, users...) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := f.svc.RecordView(ctx, f.art.ID, social.Viewer{User: u}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if n, _ := s.ViewCount(ctx, f.art.ID); n != 30 {
			t.Fatalf("view_count %d, want 30", n)
		}
	})
}
