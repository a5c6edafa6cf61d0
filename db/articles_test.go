package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
)

func TestArticlesIdempotentAndListed(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		at := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
		a := db.Article{
			Slug: "2026-11-22-demo-gold-jumps", Title: "Demo: gold jumps", Summary: "s", Commentary: "c", Category: "BREAKING",
			Metals: db.MetalList{"gold"}, Sources: db.ArticleSources{{Name: "Ounce demo", Title: "Demo: Gold jumps", URL: "https://ounce.invalid/demo/x"}},
			PriceGold: decimal.NewNullDecimal(decimal.RequireFromString("2650.4")), PublishedAt: at, Demo: true, Writer: "built-in",
		}
		got, ok, err := s.InsertArticle(ctx, a)
		if err != nil || !ok || got.ID == "" || got.PublishedDay.String() != "2026-11-22" {
			t.Fatalf("insert: %+v %v %v", got, ok, err)
		}
		if _, ok, err := s.InsertArticle(ctx, a); err != nil || ok {
			t.Fatalf("same slug again: inserted=%v err=%v", ok, err)
		}
		back, err := s.ArticleBySlug(ctx, a.Slug)
		if err != nil || back.ID != got.ID || !back.PriceGold.Valid || !back.PriceGold.Decimal.Equal(decimal.RequireFromString("2650.40")) || back.PriceSilver.Valid {
			t.Fatalf("by slug: %+v %v", back, err)
		}
		if len(back.Sources) != 1 || back.Sources[0].URL != "https://ounce.invalid/demo/x" || !back.PublishedAt.Equal(at) || !back.Demo {
			t.Fatalf("round trip: %+v", back)
		}
		if _, err := s.ArticleBySlug(ctx, "nope"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown slug: %v", err)
		}
		if b2, err := s.ArticleByID(ctx, got.ID); err != nil || b2.Slug != a.Slug {
			t.Fatalf("by id: %v", err)
		}

		// One synthesis a day per kind, whatever the slug.
		syn := db.Article{Slug: "2026-11-22-daily-synthesis-demo", Title: "Daily synthesis", Category: "SYNTHESIS", PublishedAt: at, IsSynthesis: true, Demo: true, Writer: "built-in"}
		if _, ok, err := s.InsertArticle(ctx, syn); err != nil || !ok {
			t.Fatalf("synthesis: %v %v", ok, err)
		}
		syn2 := syn
		syn2.Slug = "2026-11-22-another-synthesis"
		if _, ok, err := s.InsertArticle(ctx, syn2); err != nil || ok {
			t.Fatalf("second demo synthesis the same day: inserted=%v err=%v", ok, err)
		}
		if ex, _ := s.SynthesisExists(ctx, db.NewDate(at), true); !ex {
			t.Fatal("demo synthesis not found")
		}
		if ex, _ := s.SynthesisExists(ctx, db.NewDate(at), false); ex {
			t.Fatal("real synthesis reported before any was written")
		}
		latest, err := s.LatestSynthesis(ctx)
		if err != nil || !latest.IsSynthesis || !latest.Demo {
			t.Fatalf("latest demo synthesis: %+v %v", latest, err)
		}
		list, total, err := s.Articles(ctx, db.ArticleFilter{Limit: 10})
		if err != nil || total != 2 || !list[0].IsSynthesis {
			t.Fatalf("list: %d %v", total, err)
		}
		if _, n, _ := s.Articles(ctx, db.ArticleFilter{Category: "SYNTHESIS"}); n != 1 {
			t.Fatalf("synthesis filter: %d", n)
		}

		// A real synthesis the same day may sit beside the demo one and wins "latest";
		// once it exists, lists hide demo articles.
		real := db.Article{Slug: "2026-11-22-daily-synthesis", Title: "Daily synthesis", Category: "SYNTHESIS", PublishedAt: at.Add(-time.Hour), IsSynthesis: true, Writer: "llm:test"}
		if _, ok, err := s.InsertArticle(ctx, real); err != nil || !ok {
			t.Fatalf("real synthesis: %v %v", ok, err)
		}
		latest, _ = s.LatestSynthesis(ctx)
		if latest.Demo || latest.Writer != "llm:test" {
			t.Fatalf("latest prefers real: %+v", latest)
		}
		list, total, _ = s.Articles(ctx, db.ArticleFilter{})
		if total != 1 || list[0].Slug != real.Slug {
			t.Fatalf("demo not hidden: %d %+v", total, list)
		}
		if n, _ := s.CountArticles(ctx); n != 3 {
			t.Fatalf("count %d", n)
		}
	})
}
