package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestNewsItemsStoreListAndHideDemo(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		base := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
		demo := []db.NewsItem{
			{URL: "https://ounce.invalid/demo/a", Title: "Demo: A", Source: "Ounce demo", PublishedAt: base, Category: "BREAKING", Metals: db.MetalList{"gold"}, Relevance: 80, Demo: true},
			{URL: "https://ounce.invalid/demo/b", Title: "Demo: B", Source: "Ounce demo", PublishedAt: base.Add(-time.Hour), Category: "MINING", Metals: db.MetalList{"silver", "platinum"}, Relevance: 40, Demo: true},
		}
		got, err := s.InsertNewsItems(ctx, demo)
		if err != nil || len(got) != 2 || got[0].ID == "" {
			t.Fatalf("insert demo: %+v %v", got, err)
		}
		// The URL is the key: storing the same item again stores nothing.
		if again, err := s.InsertNewsItems(ctx, demo[:1]); err != nil || len(again) != 0 {
			t.Fatalf("reinsert: %+v %v", again, err)
		}
		all, real, err := s.CountNews(ctx)
		if err != nil || all != 2 || real != 0 {
			t.Fatalf("count = %d/%d %v", all, real, err)
		}
		list, total, err := s.NewsItems(ctx, db.NewsFilter{Limit: 10})
		if err != nil || total != 2 || len(list) != 2 || list[0].Title != "Demo: A" || !list[0].Demo {
			t.Fatalf("demo list: %+v %d %v", list, total, err)
		}
		if !list[0].PublishedAt.Equal(base) || len(list[1].Metals) != 2 || list[1].Metals[1] != "platinum" {
			t.Fatalf("round trip: %v %v", list[0].PublishedAt, list[1].Metals)
		}
		if l, n, _ := s.NewsItems(ctx, db.NewsFilter{Metal: "platinum"}); n != 1 || l[0].Title != "Demo: B" {
			t.Fatalf("metal filter: %d %+v", n, l)
		}
		if _, n, _ := s.NewsItems(ctx, db.NewsFilter{Metal: "palladium"}); n != 0 {
			t.Fatalf("metal filter, none: %d", n)
		}
		if l, n, _ := s.NewsItems(ctx, db.NewsFilter{Category: "MINING"}); n != 1 || l[0].Category != "MINING" {
			t.Fatalf("category filter: %d", n)
		}

		// One real item hides every demo item.
		realItem := db.NewsItem{URL: "https://wire.example.com/x", Title: "Real", Source: "Wire", PublishedAt: base.Add(-48 * time.Hour), Category: "ANALYSIS", Relevance: 10}
		if _, err := s.InsertNewsItems(ctx, []db.NewsItem{realItem}); err != nil {
			t.Fatal(err)
		}
		list, total, _ = s.NewsItems(ctx, db.NewsFilter{})
		if total != 1 || list[0].Title != "Real" || list[0].Demo || len(list[0].Metals) != 0 {
			t.Fatalf("after real item: %+v", list)
		}
		if recent, _ := s.RecentNews(ctx, base.Add(-24*time.Hour), 100); len(recent) != 0 {
			t.Fatalf("recent excludes old real and hidden demo: %+v", recent)
		}
		// Paging.
		if l, n, _ := s.NewsItems(ctx, db.NewsFilter{Limit: 1, Offset: 1}); n != 1 || len(l) != 0 {
			t.Fatalf("offset past end: %d %d", n, len(l))
		}
	})
}

func TestFeedHealth(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		if _, err := s.FeedHealthByURL(ctx, "https://a.example/feed"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown feed: %v", err)
		}
		ok := time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC)
		if err := s.SaveFeedHealth(ctx, db.FeedHealth{URL: "https://a.example/feed", Name: "A", ETag: `"v1"`, LastModified: "Sat, 21 Nov 2026 08:00:00 GMT", LastOK: &ok, LastAttempt: &ok}); err != nil {
			t.Fatal(err)
		}
		later := ok.Add(time.Hour)
		if err := s.SaveFeedHealth(ctx, db.FeedHealth{URL: "https://a.example/feed", Name: "A", ETag: `"v1"`, LastOK: &ok, LastAttempt: &later, LastError: "HTTP 503"}); err != nil {
			t.Fatal(err)
		}
		f, err := s.FeedHealthByURL(ctx, "https://a.example/feed")
		if err != nil || f.ETag != `"v1"` || f.LastOK == nil || !f.LastOK.Equal(ok) || !f.LastAttempt.Equal(later) || f.LastError != "HTTP 503" {
			t.Fatalf("feed health: %+v %v", f, err)
		}
		all, _ := s.FeedHealths(ctx)
		if len(all) != 1 {
			t.Fatalf("feeds: %+v", all)
		}
	})
}
