package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func socialArticle(t *testing.T, s *db.Store, slug string) db.Article {
	t.Helper()
	a, ok, err := s.InsertArticle(context.Background(), db.Article{Slug: slug, Title: "T", Summary: "s", Commentary: "c", Category: "ANALYSIS",
		PublishedAt: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), Writer: "built-in"})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	return a
}

// checkCounters compares the stored counters with the rows behind them.
func checkCounters(t *testing.T, s *db.Store, id string, likes, comments int64) {
	t.Helper()
	a, err := s.ArticleByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	lr, cr, err := s.SocialRows(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if a.LikeCount != likes || lr != likes || a.CommentCount != comments || cr != comments {
		t.Fatalf("like_count %d (rows %d), comment_count %d (rows %d); want %d likes, %d comments", a.LikeCount, lr, a.CommentCount, cr, likes, comments)
	}
}

func TestSocialStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		a := socialArticle(t, s, "2026-11-20-a")
		b := socialArticle(t, s, "2026-11-20-b")
		ann, _ := s.InsertUser(ctx, "ann@example.com", "h", db.TierFree, false)
		bob, _ := s.InsertUser(ctx, "bob@example.com", "h", db.TierFree, false)

		for _, ref := range []string{a.ID, a.Slug} {
			if id, err := s.ArticleIDByRef(ctx, ref); err != nil || id != a.ID {
				t.Fatalf("ref %s: %s %v", ref, id, err)
			}
		}
		if _, err := s.ArticleIDByRef(ctx, "nope"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown ref: %v", err)
		}
		if _, _, err := s.ToggleLike(ctx, "nope", ann.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("like of a missing article: %v", err)
		}

		// Likes toggle and count; another article is untouched.
		if liked, n, err := s.ToggleLike(ctx, a.ID, ann.ID); err != nil || !liked || n != 1 {
			t.Fatalf("ann likes: %v %d %v", liked, n, err)
		}
		if liked, n, _ := s.ToggleLike(ctx, a.ID, bob.ID); !liked || n != 2 {
			t.Fatalf("bob likes: %v %d", liked, n)
		}
		if liked, n, _ := s.ToggleLike(ctx, a.ID, ann.ID); liked || n != 1 {
			t.Fatalf("ann unlikes: %v %d", liked, n)
		}
		s.ToggleLike(ctx, a.ID, ann.ID)
		s.ToggleLike(ctx, b.ID, ann.ID)
		if n, liked, err := s.LikeState(ctx, a.ID, bob.ID); err != nil || n != 2 || !liked {
			t.Fatalf("bob's state: %d %v %v", n, liked, err)
		}
		if n, liked, _ := s.LikeState(ctx, a.ID, 0); n != 2 || liked {
			t.Fatalf("anonymous state: %d %v", n, liked)
		}

		// Comments: admit sees the author's state and can refuse; nothing is stored then.
		refused := errors.New("refused")
		now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
		var seen db.CommenterState
		c1, err := s.InsertComment(ctx, db.ArticleComment{ArticleID: a.ID, UserID: ann.ID, Body: "one", CreatedAt: now}, now.Add(-time.Hour), 10,
			func(st db.CommenterState) error { seen = st; return nil })
		if err != nil || c1.ID == "" || len(seen.Recent) != 0 || seen.Muted {
			t.Fatalf("first comment: %+v %+v %v", c1, seen, err)
		}
		if _, err := s.InsertComment(ctx, db.ArticleComment{ArticleID: a.ID, UserID: ann.ID, Body: "two", CreatedAt: now}, now.Add(-time.Hour), 10,
			func(st db.CommenterState) error { seen = st; return refused }); !errors.Is(err, refused) || len(seen.Recent) != 1 || !seen.Recent[0].Equal(now) {
			t.Fatalf("refused comment: %v %+v", err, seen)
		}
		checkCounters(t, s, a.ID, 2, 1)
		if err := s.SetCommentMute(ctx, bob.ID, true); err != nil {
			t.Fatal(err)
		}
		c2, err := s.InsertComment(ctx, db.ArticleComment{ArticleID: a.ID, UserID: bob.ID, Body: "three", CreatedAt: now.Add(time.Second)}, now.Add(-time.Hour), 10,
			func(st db.CommenterState) error { seen = st; return nil })
		if err != nil || !seen.Muted {
			t.Fatalf("the store reports the mute to admit: %+v %v", seen, err)
		}
		list, total, err := s.CommentsOfArticle(ctx, a.ID, 10, 0)
		if err != nil || total != 2 || len(list) != 2 || list[0].ID != c1.ID || list[1].ID != c2.ID || list[1].UserID != bob.ID {
			t.Fatalf("list: %+v %d %v", list, total, err)
		}
		if _, err := s.SetCommentHidden(ctx, a.ID, c2.ID, true); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, s, a.ID, 2, 1)
		if err := s.DeleteComment(ctx, b.ID, c1.ID); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("delete through the wrong article: %v", err)
		}
		if err := s.DeleteComment(ctx, a.ID, c1.ID); err != nil {
			t.Fatal(err)
		}
		if c, _ := s.CommentByID(ctx, c1.ID); c.Body != "" || !c.DeletedAt.Valid {
			t.Fatalf("a deleted comment keeps no text: %+v", c)
		}
		checkCounters(t, s, a.ID, 2, 0)
		if _, err := s.SetCommentHidden(ctx, a.ID, c2.ID, false); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, s, a.ID, 2, 1)

		// Views: once per viewer and day; anonymous ones once per address and window.
		day := db.NewDate(now)
		for i, want := range []struct {
			count   int64
			counted bool
		}{{1, true}, {1, false}} {
			if n, counted, err := s.RecordView(ctx, a.ID, "u:1", day); err != nil || n != want.count || counted != want.counted {
				t.Fatalf("view %d: %d %v %v", i, n, counted, err)
			}
		}
		av := db.AnonymousView{AddressHash: "h1", Window: time.Minute, Day: day, At: now, Remember: "c:x"}
		if n, counted, _ := s.RecordAnonymousView(ctx, a.ID, av); n != 2 || !counted {
			t.Fatalf("anonymous view: %d %v", n, counted)
		}
		av.At = now.Add(59 * time.Second)
		if n, counted, _ := s.RecordAnonymousView(ctx, a.ID, av); n != 2 || counted {
			t.Fatalf("within the window: %d %v", n, counted)
		}
		if _, counted, _ := s.RecordView(ctx, a.ID, "c:x", day); counted {
			t.Fatal("the remembered cookie counted again")
		}
		av.At = now.Add(time.Minute)
		if n, counted, _ := s.RecordAnonymousView(ctx, a.ID, av); n != 3 || !counted {
			t.Fatalf("after the window: %d %v", n, counted)
		}
		if n, err := s.PruneViews(ctx, db.NewDate(now.AddDate(0, 0, 1)), now.Add(2*time.Minute)); err != nil || n != 3 {
			t.Fatalf("prune: %d %v", n, err)
		}
		if n, counted, _ := s.RecordView(ctx, a.ID, "u:1", day); !counted || n != 4 {
			t.Fatalf("after pruning the day is forgotten, the count kept: %d %v", n, counted)
		}

		// Deleting an account takes its likes and comments, and the counters follow.
		if _, err := s.ExecForTest(ctx, `DELETE FROM users WHERE id = ?`, bob.ID); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, s, a.ID, 1, 0)
		checkCounters(t, s, b.ID, 1, 0)
		if _, err := s.ExecForTest(ctx, `DELETE FROM users WHERE id = ?`, ann.ID); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, s, a.ID, 0, 0)
		checkCounters(t, s, b.ID, 0, 0)
	})
}
