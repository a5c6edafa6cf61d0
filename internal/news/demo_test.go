package news

import (
	"strings"
	"testing"
	"time"
)

func TestDemoItems(t *testing.T) {
	now := time.Date(2025, 6, 10, 15, 30, 45, 0, time.FixedZone("X", 3*3600))
	items := DemoItems(now)
	if len(items) < 14 || len(items) > 20 {
		t.Fatalf("got %d demo items, want about 16", len(items))
	}
	seenCat := map[Category]int{}
	seenURL := map[string]bool{}
	for _, it := range items {
		if !it.Demo || it.Source != DemoSource {
			t.Errorf("%q not marked demo: %+v", it.Title, it)
		}
		if !strings.HasPrefix(it.Title, "Demo: ") {
			t.Errorf("title %q lacks the Demo: prefix", it.Title)
		}
		if !strings.HasPrefix(it.URL, "https://ounce.invalid/demo/") || seenURL[it.URL] || CanonicalURL(it.URL) != it.URL {
			t.Errorf("bad or duplicate URL %q", it.URL)
		}
		seenURL[it.URL] = true
		age := now.Sub(it.PublishedAt)
		if age <= 0 || age > 5*24*time.Hour {
			t.Errorf("%q published %v before now, want within the previous few days", it.Title, age)
		}
		if !it.Category.Valid() || it.Analysis == "" || it.Relevance <= 0 || it.Summary == "" {
			t.Errorf("%q not classified: %+v", it.Title, it)
		}
		// Already classified means classifying again changes nothing.
		if again := Classify(it, PriceContext{}); again.Category != it.Category || again.Analysis != it.Analysis {
			t.Errorf("%q: stored classification differs from Classify", it.Title)
		}
		seenCat[it.Category]++
	}
	for _, c := range Categories {
		if seenCat[c] == 0 {
			t.Errorf("no demo item in category %s", c)
		}
	}
	// Relative to now, so a later start shows equally fresh samples.
	later := DemoItems(now.Add(48 * time.Hour))
	if d := later[0].PublishedAt.Sub(items[0].PublishedAt); d != 48*time.Hour {
		t.Errorf("demo dates do not follow now: shifted by %v", d)
	}
	if items[0].PublishedAt.Location() != time.UTC {
		t.Error("demo dates not in UTC")
	}
	// Every item is new to an empty list and distinct from the others.
	if kept := Dedupe(nil, items); len(kept) != len(items) {
		t.Errorf("Dedupe dropped %d demo items as duplicates", len(items)-len(kept))
	}
}
