package intel

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

func slugs(arts []Article) []string {
	var out []string
	for _, a := range arts {
		out = append(out, a.Slug)
	}
	return out
}

func TestGenerate(t *testing.T) {
	all := []string{
		"2026-11-22-central-bank-of-china-extends-gold-purchases-for-18th-straight-month",
		"2026-11-22-silver-coin-premiums-climb-as-us-mint-suspends-sales",
		"2026-11-22-safe-haven-buying-returns-as-border-tensions-flare",
		"2026-11-22-fed-holds-rates-steady-signals-patience",
	}
	twins := []Story{
		story("t1", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 80, time.Hour, metals.Gold),
		story("t2", "Refiner expands vault capacity in Zurich", CategoryInvestment, 70, time.Hour, metals.Gold),
		story("t3", "Refiner expands vault capacity in Zurich", CategoryMining, 65, time.Hour, metals.Gold),
	}
	tests := []struct {
		name    string
		w       Writer
		stories []Story
		max     int
		want    []string
	}{
		{"every cluster, most relevant first", BuiltinWriter{}, fixtureStories(), 0, all},
		{"nil writer means built-in", nil, fixtureStories(), -1, all},
		{"capped", BuiltinWriter{}, fixtureStories(), 2, all[:2]},
		{"nothing recent", BuiltinWriter{}, fixtureStories()[8:9], 0, nil},
		{"same headline in three categories gets distinct slugs", BuiltinWriter{}, twins, 0, []string{
			"2026-11-22-refiner-expands-vault-capacity-in-zurich",
			"2026-11-22-refiner-expands-vault-capacity-in-zurich-2",
			"2026-11-22-refiner-expands-vault-capacity-in-zurich-3",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arts, err := Generate(context.Background(), tt.w, tt.stories, fixtureContext(), tt.max)
			if err != nil {
				t.Fatal(err)
			}
			if got := slugs(arts); !slices.Equal(got, tt.want) {
				t.Errorf("slugs = %v, want %v", got, tt.want)
			}
			for _, a := range arts {
				if a.Writer != BuiltinName || a.PublishedAt != fixtureNow || a.IsSynthesis {
					t.Errorf("article %s: writer %q published %s", a.Slug, a.Writer, a.PublishedAt)
				}
			}
		})
	}
}

// Rerunning later the same day must find the same slugs, even when a more relevant report
// has joined a cluster since.
func TestGenerateSlugsStable(t *testing.T) {
	first, _ := Generate(context.Background(), nil, fixtureStories(), fixtureContext(), 0)
	later := fixtureContext()
	later.Now = fixtureNow.Add(8 * time.Hour)
	more := append(fixtureStories(), Story{ID: "cb3", Title: "China central bank gold purchases extend to 18th month",
		URL: "https://news.example/cb3", Source: "Late Wire", Category: CategoryCentralBank,
		Metals: []metals.Metal{metals.Gold}, Relevance: 99, PublishedAt: fixtureNow.Add(7 * time.Hour)})
	second, _ := Generate(context.Background(), nil, more, later, 0)
	if !slices.Equal(slugs(first), slugs(second)) {
		t.Errorf("slugs moved:\n%v\n%v", slugs(first), slugs(second))
	}
	if !strings.Contains(second[0].Title, "China central bank gold purchases extend") {
		t.Errorf("the new lead story should lead the text: %q", second[0].Title)
	}
	again, _ := Generate(context.Background(), nil, fixtureStories(), fixtureContext(), 0)
	if !reflect.DeepEqual(first, again) {
		t.Errorf("same input, different articles")
	}
}

// picky fails on one cluster to show the others still get written.
type picky struct{ BuiltinWriter }

func (p picky) Article(ctx context.Context, cl []Story, c Context) (Article, error) {
	if cl[0].ID == "sd1" {
		return Article{}, errors.New("cannot write this one")
	}
	return p.BuiltinWriter.Article(ctx, cl, c)
}

func TestGenerateErrors(t *testing.T) {
	arts, err := Generate(context.Background(), picky{}, fixtureStories(), fixtureContext(), 0)
	if len(arts) != 3 || err == nil || !strings.Contains(err.Error(), "cannot write this one") || !strings.Contains(err.Error(), "Silver coin premiums") {
		t.Errorf("got %d articles, err %v", len(arts), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	arts, err = Generate(ctx, nil, fixtureStories(), fixtureContext(), 0)
	if len(arts) != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %d articles, err %v", len(arts), err)
	}
	if _, err := GenerateSynthesis(ctx, nil, fixtureStories(), fixtureContext()); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled synthesis: err %v", err)
	}
}

func TestTopStories(t *testing.T) {
	h := time.Hour
	many := []Story{
		story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 90, h, metals.Gold),
		story("b", "Tariff plan targets imported bars", CategoryPolicy, 80, h, metals.Gold),
		story("c", "Mint output falls short of orders", CategoryMining, 70, h, metals.Silver),
		story("d", "Dollar slides after weak jobs report", CategoryPolicy, 60, h),
		story("e", "Bank raises forecast for year end", CategoryAnalysis, 50, h, metals.Gold),
		story("f", "Palladium recycling hits new high", CategorySupplyDemand, 40, h, metals.Palladium),
	}
	tests := []struct {
		name    string
		stories []Story
		want    []string
	}{
		{"fixture: one per development, last 24 hours", fixtureStories(), []string{"cb1", "sd1", "geo1", "mi1"}},
		{"at most five", many, []string{"a", "b", "c", "d", "e"}},
		{"none", nil, nil},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range TopStories(tt.stories, fixtureNow) {
			got = append(got, s.ID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: TopStories = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestGenerateSynthesis(t *testing.T) {
	a, err := GenerateSynthesis(context.Background(), nil, fixtureStories(), fixtureContext())
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, s := range a.Sources {
		urls = append(urls, s.URL)
	}
	want := []string{"https://news.example/cb1", "https://news.example/sd1", "https://news.example/geo1", "https://news.example/mi1"}
	if !slices.Equal(urls, want) || a.Slug != "2026-11-22-daily-synthesis" {
		t.Errorf("sources %v slug %q", urls, a.Slug)
	}
	if strings.Contains(a.Commentary, "Fed holds rates") {
		t.Errorf("a story older than a day made the synthesis")
	}
}
