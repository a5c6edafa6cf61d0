package intel_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/intel"
	"github.com/ouncehq/ounce/internal/metals"
)

// serviceNow is mid-day, so a run never straddles midnight and "the same day" is one day.
var serviceNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func offlineService(s *db.Store) *intel.Service {
	return intel.New(intel.Deps{Store: s, Config: intel.Config{Offline: true},
		Now: func() time.Time { return serviceNow }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func invalidField(err error) string {
	if f := apperr.FieldsOf(err); len(f) == 1 {
		return f[0].Field
	}
	return ""
}

func TestSeedAndRunAreIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := offlineService(s)
		if _, err := svc.LatestSynthesis(ctx); apperr.KindOf(err) != apperr.NotFound {
			t.Fatalf("before the seed: %v", err)
		}
		if err := svc.EnsureSeed(ctx); err != nil {
			t.Fatal(err)
		}
		first, err := svc.StackSignal(ctx, intel.SignalQuery{Limit: intel.MaxLimit})
		if err != nil || first.Total == 0 {
			t.Fatalf("seeded articles: %+v %v", first, err)
		}
		for _, a := range first.Articles {
			if !a.Demo || a.Writer != intel.BuiltinName {
				t.Fatalf("seeded article not labelled demo or not built-in: %s %v %q", a.Slug, a.Demo, a.Writer)
			}
		}
		if n, _ := s.CountVaultReports(ctx); n == 0 {
			t.Fatal("the vault seed was not stored")
		}
		synth, err := svc.LatestSynthesis(ctx)
		if err != nil || !synth.IsSynthesis || !synth.Demo || !strings.HasSuffix(synth.Slug, "-demo") {
			t.Fatalf("demo synthesis: %+v %v", synth, err)
		}
		if got, err := svc.Article(ctx, synth.Slug); err != nil || got.ID != synth.ID {
			t.Fatalf("by slug: %v", err)
		}

		// Running again the same day (seeding included) stores nothing new.
		if err := svc.EnsureSeed(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := svc.Run(ctx, intel.GenerateLLMBudget)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Offline || res.DemoSeeded || res.Ingested != 0 || len(res.Articles) != 0 || res.Synthesis != nil || res.Skipped == 0 ||
			res.Writer != intel.BuiltinName || res.Feeds != nil || res.Vault != nil {
			t.Fatalf("offline rerun: %+v", res)
		}
		again, _ := svc.StackSignal(ctx, intel.SignalQuery{Limit: intel.MaxLimit})
		if again.Total != first.Total {
			t.Fatalf("articles %d → %d", first.Total, again.Total)
		}
	})
}

func TestQueriesValidateAndFilter(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		svc := offlineService(s)
		if err := svc.EnsureSeed(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			q     intel.NewsQuery
			field string
		}{
			{intel.NewsQuery{Limit: -1}, "limit"},
			{intel.NewsQuery{Limit: intel.MaxLimit + 1}, "limit"},
			{intel.NewsQuery{Category: "COPPER"}, "category"},
			{intel.NewsQuery{Metal: "copper"}, "metal"},
		} {
			if _, err := svc.MarketIntel(ctx, c.q); invalidField(err) != c.field {
				t.Errorf("%+v: %v, want invalid %s", c.q, err, c.field)
			}
		}
		all, err := svc.MarketIntel(ctx, intel.NewsQuery{})
		if err != nil || all.Limit != intel.DefaultLimit || all.Total == 0 {
			t.Fatalf("defaults: limit %d total %d %v", all.Limit, all.Total, err)
		}
		pt, _ := svc.MarketIntel(ctx, intel.NewsQuery{Metal: metals.Platinum, Limit: intel.MaxLimit})
		if pt.Total == 0 {
			t.Fatal("no platinum headline in the demo")
		}
		for _, it := range pt.Items {
			if !slices.Contains(it.Metals, "platinum") {
				t.Fatalf("metal filter let through %+v", it)
			}
		}
		// Categories in any letter case, with '-' for '_'.
		cb, _ := svc.MarketIntel(ctx, intel.NewsQuery{Category: "central-bank", Limit: intel.MaxLimit})
		if cb.Total == 0 {
			t.Fatal("no central-bank headline in the demo")
		}
		for _, it := range cb.Items {
			if it.Category != "CENTRAL_BANK" {
				t.Fatalf("category filter let through %+v", it)
			}
		}

		for _, c := range []struct {
			q     intel.SignalQuery
			field string
		}{
			{intel.SignalQuery{Limit: 51}, "limit"},
			{intel.SignalQuery{Offset: -1}, "offset"},
			{intel.SignalQuery{Offset: intel.MaxOffset + 1}, "offset"},
			{intel.SignalQuery{Category: "bullion"}, "category"},
		} {
			if _, err := svc.StackSignal(ctx, c.q); invalidField(err) != c.field {
				t.Errorf("%+v: %v, want invalid %s", c.q, err, c.field)
			}
		}
		syn, err := svc.StackSignal(ctx, intel.SignalQuery{Category: "synthesis"})
		if err != nil || syn.Total != 1 || !syn.Articles[0].IsSynthesis {
			t.Fatalf("lower-case SYNTHESIS: %+v %v", syn, err)
		}
		page, _ := svc.StackSignal(ctx, intel.SignalQuery{Limit: 1, Offset: 1})
		if len(page.Articles) != 1 || page.Offset != 1 || page.Limit != 1 {
			t.Fatalf("paging: %+v", page)
		}
		for _, slug := range []string{"", "no-such-article", strings.Repeat("a", intel.MaxSlugQuery+1)} {
			if _, err := svc.Article(ctx, slug); apperr.KindOf(err) != apperr.NotFound {
				t.Errorf("slug %.20q: %v", slug, err)
			}
		}
	})
}

func FuzzParseArticleCategory(f *testing.F) {
	for _, s := range []string{"", "synthesis", "Central-Bank", " supply demand ", "COPPER", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := intel.ParseArticleCategory(raw)
		switch {
		case err != nil:
			if got != "" || invalidField(err) != "category" {
				t.Fatalf("%q: %q %v", raw, got, err)
			}
		case got == "":
			if strings.TrimSpace(raw) != "" {
				t.Fatalf("%q accepted as every category", raw)
			}
		case !slices.Contains(intel.ArticleCategories(), got):
			t.Fatalf("%q → %q, not a category", raw, got)
		}
	})
}
