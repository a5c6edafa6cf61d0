package intel

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

func clusterIDs(clusters [][]Story) [][]string {
	var out [][]string
	for _, c := range clusters {
		var ids []string
		for _, s := range c {
			ids = append(ids, s.ID)
		}
		out = append(out, ids)
	}
	return out
}

// story builds a minimal story for clustering tables.
func story(id, title, category string, relevance int, age time.Duration, ms ...metals.Metal) Story {
	return Story{ID: id, Title: title, URL: "https://news.example/" + id, Source: "Desk " + id,
		Category: category, Metals: ms, Relevance: relevance, PublishedAt: ago(age)}
}

func TestCluster(t *testing.T) {
	gold, silver := metals.Gold, metals.Silver
	h := time.Hour
	tests := []struct {
		name    string
		stories []Story
		want    [][]string
	}{
		{"fixture day", fixtureStories(), [][]string{{"cb1", "cb2"}, {"sd1", "sd2"}, {"geo1"}, {"po1", "po2"}}},
		{"nothing in, nothing out", nil, nil},
		{"weak singleton dropped", []Story{story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 59, h, gold)}, nil},
		{"singleton at the bar stands alone", []Story{story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 60, h, gold)}, [][]string{{"a"}}},
		{"weak pair kept together", []Story{
			story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 30, h, gold),
			story("b", "Zurich refiner to expand vault capacity", CategorySupplyDemand, 20, 2*h, gold),
		}, [][]string{{"a", "b"}}},
		{"different category stays apart", []Story{
			story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 70, h, gold),
			story("b", "Refiner expands vault capacity in Zurich", CategoryMining, 65, h, gold),
		}, [][]string{{"a"}, {"b"}}},
		{"no shared metal stays apart", []Story{
			story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 70, h, gold),
			story("b", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 65, h, silver),
		}, [][]string{{"a"}, {"b"}}},
		{"one shared word is not enough", []Story{
			story("a", "Gold hits record high in Asian trade", CategoryBreaking, 70, h, gold),
			story("b", "Record coin demand reported by mints", CategoryBreaking, 65, h, gold),
		}, [][]string{{"a"}, {"b"}}},
		{"one shared word is not enough, even in short headlines", []Story{
			story("a", "Gold hits record", CategoryBreaking, 70, h, gold),
			story("b", "Record coin demand", CategoryBreaking, 65, h, gold),
		}, [][]string{{"a"}, {"b"}}},
		{"metal names alone do not make a match", []Story{
			story("a", "Gold silver platinum prices bullion market", CategoryAnalysis, 70, h, gold),
			story("b", "Gold silver palladium prices bullion markets", CategoryAnalysis, 65, h, gold),
		}, [][]string{{"a"}, {"b"}}},
		{"category compared case-insensitively", []Story{
			story("a", "Refiner expands vault capacity in Zurich", "supply_demand", 70, h, gold),
			story("b", "Zurich refiner to expand vault capacity", CategorySupplyDemand, 50, h, gold),
		}, [][]string{{"a", "b"}}},
		{"stories without metals may cluster", []Story{
			story("a", "Dollar slides after weak jobs report", CategoryPolicy, 70, h),
			story("b", "Weak jobs report sends dollar lower", CategoryPolicy, 50, h),
		}, [][]string{{"a", "b"}}},
		{"window is 48 hours back and one hour ahead", []Story{
			story("old", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 90, 49*h, gold),
			story("edge", "Mint output falls short of orders", CategorySupplyDemand, 80, 47*h, gold),
			story("soon", "Tariff plan targets imported bars", CategoryPolicy, 70, -30*time.Minute, gold),
			story("future", "Bank raises forecast for year end", CategoryAnalysis, 95, -2*h, gold),
		}, [][]string{{"edge"}, {"soon"}}},
		{"repeated item counted once", []Story{
			story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 70, h, gold),
			story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 70, h, gold),
		}, [][]string{{"a"}}},
		{"same link under two ids counted once", []Story{
			story("a", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 70, h, gold),
			{ID: "b", Title: "Refiner expands vault capacity in Zurich", URL: "https://news.example/a", Category: CategorySupplyDemand, Metals: []metals.Metal{gold}, Relevance: 69, PublishedAt: ago(h)},
		}, [][]string{{"a"}}},
		{"ties ordered by bigger cluster, then id", []Story{
			story("z", "Tariff plan targets imported bars", CategoryPolicy, 70, h, gold),
			story("m", "Refiner expands vault capacity in Zurich", CategorySupplyDemand, 70, h, gold),
			story("b", "Mint output falls short of orders", CategoryMining, 70, h, gold),
			story("c", "Mint output short of orders again", CategoryMining, 10, h, gold),
		}, [][]string{{"b", "c"}, {"m"}, {"z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := clusterIDs(Cluster(tt.stories, fixtureNow))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Cluster = %v, want %v", got, tt.want)
			}
		})
	}
}

// The same stories in any order must give the same clusters, or reruns would write
// different articles.
func TestClusterIgnoresInputOrder(t *testing.T) {
	base := fixtureStories()
	want := clusterIDs(Cluster(base, fixtureNow))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		s := slices.Clone(base)
		r.Shuffle(len(s), func(a, b int) { s[a], s[b] = s[b], s[a] })
		if got := clusterIDs(Cluster(s, fixtureNow)); !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffle %d: Cluster = %v, want %v", i, got, want)
		}
	}
}

func TestKeywords(t *testing.T) {
	tests := []struct {
		title string
		want  []string
	}{
		{"Fed holds rates steady, signals patience", []string{"fed", "hold", "patience", "rate", "signal", "steady"}},
		{"Gold and silver prices rise", []string{"rise"}},
		{"<b>Mint</b> sales: 18 tonnes", []string{"18", "mint", "sale", "tonne"}},
		{"Glass mass class", []string{"class", "glass", "mass"}},
	}
	for _, tt := range tests {
		var got []string
		for w := range keywords(tt.title) {
			got = append(got, w)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("keywords(%q) = %v, want %v", tt.title, got, tt.want)
		}
	}
}

// FuzzSameStory checks the clustering test is symmetric and Cluster does not depend on the
// order of two stories, whatever their headlines.
func FuzzSameStory(f *testing.F) {
	f.Add("Fed holds rates steady", "Federal Reserve keeps rates on hold")
	f.Add("", "<p>x</p>")
	f.Add("Refiner expands vault capacity in Zurich", "Zurich refiner to expand vault capacity")
	f.Fuzz(func(t *testing.T, a, b string) {
		sa := Story{ID: "a", Title: a, Category: CategoryPolicy, Metals: []metals.Metal{metals.Gold}, Relevance: 70, PublishedAt: ago(time.Hour)}
		sb := Story{ID: "b", Title: b, Category: CategoryPolicy, Metals: []metals.Metal{metals.Gold}, Relevance: 70, PublishedAt: ago(time.Hour)}
		ka, kb := keywords(a), keywords(b)
		if sameStory(sa, sb, ka, kb) != sameStory(sb, sa, kb, ka) {
			t.Fatalf("sameStory not symmetric for %q, %q", a, b)
		}
		x := clusterIDs(Cluster([]Story{sa, sb}, fixtureNow))
		y := clusterIDs(Cluster([]Story{sb, sa}, fixtureNow))
		if !reflect.DeepEqual(x, y) {
			t.Fatalf("order matters: %v vs %v", x, y)
		}
		for w := range ka {
			if stopWords[w] || w == "" {
				t.Fatalf("keyword %q should have been dropped", w)
			}
		}
	})
}
