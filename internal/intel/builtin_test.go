package intel

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// clusterOf picks fixture stories by id, in the order given.
func clusterOf(t *testing.T, ids ...string) []Story {
	t.Helper()
	var out []Story
	for _, id := range ids {
		i := slices.IndexFunc(fixtureStories(), func(s Story) bool { return s.ID == id })
		if i < 0 {
			t.Fatalf("no fixture story %q", id)
		}
		out = append(out, fixtureStories()[i])
	}
	return out
}

func paragraphCount(s string) int { return len(strings.Split(s, "\n\n")) }

func TestBuiltinArticleText(t *testing.T) {
	stale := fixtureContext()
	stale.Stale = true
	noPrices := fixtureContext()
	noPrices.Prices = nil
	tests := []struct {
		name    string
		ids     []string
		c       Context
		want    []string // in the commentary
		summary []string
		not     []string // nowhere in title, summary or commentary
	}{
		{
			name: "silver supply story quotes prices, ratio and vault",
			ids:  []string{"sd1", "sd2"},
			c:    fixtureContext(),
			want: []string{"Coin Ledger", "Bullion Daily", "$31.20", "+1.40%", "84.9",
				"30,123,457 oz of registered silver", "down 1,234,567 oz", "310,000,000 oz", "21 Nov 2026",
				"Dealers report longer waits for one-ounce coins.", "What to watch"},
			summary: []string{"Coin Ledger reports", "one other outlet", "$31.20", "+1.40%"},
			not:     []string{"$2,650.40", "may be out of date", "Demo"},
		},
		{
			name:    "gold central-bank story",
			ids:     []string{"cb2", "cb1"},
			c:       fixtureContext(),
			want:    []string{"Wire One", "Metals Desk", "$2,650.40", "−0.35%", "added 5 tonnes", "22 Nov 2026"},
			summary: []string{"Wire One reports", "$2,650.40"},
			not:     []string{"ratio", "COMEX", "$31.20"},
		},
		{
			name:    "stale prices are flagged",
			ids:     []string{"geo1"},
			c:       stale,
			want:    []string{"may be out of date", "$2,650.40"},
			summary: []string{"prices may be out of date"},
		},
		{
			name: "no prices, no numbers made up",
			ids:  []string{"geo1"},
			c:    noPrices,
			want: []string{"left out rather than guessed"},
			not:  []string{"$", "%"},
		},
		{
			name: "story naming no metal quotes gold and silver for reference",
			ids:  []string{"nometal"},
			c:    fixtureContext(),
			want: []string{"name no metal", "$2,650.40", "$31.20"},
		},
	}
	extra := Story{ID: "nometal", Title: "Dollar slides after weak jobs report", URL: "https://news.example/nm", Source: "Wire One",
		Category: CategoryPolicy, Relevance: 70, PublishedAt: ago(time.Hour)}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cl []Story
			if tt.ids[0] == "nometal" {
				cl = []Story{extra}
			} else {
				cl = clusterOf(t, tt.ids...)
			}
			a, err := BuiltinWriter{}.Article(context.Background(), cl, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(a.Commentary, w) {
					t.Errorf("commentary lacks %q:\n%s", w, a.Commentary)
				}
			}
			for _, w := range tt.summary {
				if !strings.Contains(a.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, a.Summary)
				}
			}
			all := a.Title + "\n" + a.Summary + "\n" + a.Commentary
			for _, w := range tt.not {
				if strings.Contains(all, w) {
					t.Errorf("text should not contain %q:\n%s", w, all)
				}
			}
			if n := paragraphCount(a.Commentary); n < 3 || n > 5 {
				t.Errorf("commentary has %d paragraphs, want 3-5", n)
			}
			if strings.Count(a.Summary, ". ") > 1 {
				t.Errorf("summary is more than two sentences: %s", a.Summary)
			}
			if a.Title == "" || len([]rune(a.Title)) > MaxTitleRunes {
				t.Errorf("bad title %q", a.Title)
			}
		})
	}
}

func TestBuiltinArticleFrame(t *testing.T) {
	cl := clusterOf(t, "sd2", "sd1")
	cl = append(cl, Story{ID: "sd3", Title: "Mint halts silver eagle sales as coin premium climbs", URL: "javascript:alert(1)",
		Source: "<b>Odd Feed</b>", Category: CategorySupplyDemand, Metals: []metals.Metal{metals.Silver, metals.Gold},
		Relevance: 20, PublishedAt: ago(time.Hour), Demo: true})
	a, err := BuiltinWriter{}.Article(context.Background(), cl, fixtureContext())
	if err != nil {
		t.Fatal(err)
	}
	want := Article{
		Slug:     "2026-11-22-silver-coin-premiums-climb-as-us-mint-suspends-sales", // the earliest report
		Category: CategorySupplyDemand,
		Metals:   []metals.Metal{metals.Gold, metals.Silver},
		Sources: []Source{
			{Name: "Coin Ledger", Title: "Silver coin premiums climb as US Mint suspends sales", URL: "https://news.example/sd1"},
			{Name: "Bullion Daily", Title: "US Mint suspends silver eagle sales amid coin premium climb", URL: "https://news.example/sd2"},
			{Name: "Odd Feed", Title: "Mint halts silver eagle sales as coin premium climbs", URL: ""},
		},
		PricesAtPublish: map[metals.Metal]decimal.Decimal{metals.Gold: dec("2650.40"), metals.Silver: dec("31.20")},
		PublishedAt:     fixtureNow,
		Demo:            true,
		Writer:          BuiltinName,
	}
	got := a
	got.Title, got.Summary, got.Commentary = "", "", ""
	if !reflect.DeepEqual(got.Sources, want.Sources) {
		t.Errorf("Sources = %+v, want %+v", got.Sources, want.Sources)
	}
	if !maps.EqualFunc(got.PricesAtPublish, want.PricesAtPublish, decimal.Decimal.Equal) {
		t.Errorf("PricesAtPublish = %v, want %v", got.PricesAtPublish, want.PricesAtPublish)
	}
	got.Sources, want.Sources, got.PricesAtPublish, want.PricesAtPublish = nil, nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("frame = %+v\nwant %+v", got, want)
	}
	if !strings.HasPrefix(a.Summary, "Demo: ") || !strings.Contains(a.Commentary, demoNote) {
		t.Errorf("demo article not labelled: %q / %q", a.Summary, a.Commentary)
	}
	if strings.Contains(a.Commentary, "<b>") {
		t.Errorf("markup leaked into the commentary")
	}
}

func TestBuiltinErrorsAndCategories(t *testing.T) {
	if _, err := (BuiltinWriter{}).Article(context.Background(), nil, fixtureContext()); !errors.Is(err, ErrNoStories) {
		t.Errorf("empty cluster: err = %v, want ErrNoStories", err)
	}
	tests := []struct{ in, want string }{
		{"MINING", CategoryMining}, {" central_bank ", CategoryCentralBank}, {"rumour", CategoryAnalysis}, {"", CategoryAnalysis},
	}
	for _, tt := range tests {
		s := story("x", "Refiner expands vault capacity", tt.in, 80, time.Hour, metals.Gold)
		a, err := BuiltinWriter{}.Article(context.Background(), []Story{s}, fixtureContext())
		if err != nil || a.Category != tt.want {
			t.Errorf("category %q: got %q, %v; want %q", tt.in, a.Category, err, tt.want)
		}
	}
}

// The feed must not read like one template: each category gets its own title frame and its
// own paragraphs.
func TestBuiltinVariesByCategory(t *testing.T) {
	frames, openers, meanings, watches := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, cat := range Categories {
		s := story("same-id", "Refiner expands vault capacity", cat, 80, time.Hour, metals.Gold)
		a, err := BuiltinWriter{}.Article(context.Background(), []Story{s}, fixtureContext())
		if err != nil {
			t.Fatal(err)
		}
		p := strings.Split(a.Commentary, "\n\n")
		frames[strings.SplitN(a.Title, ":", 2)[0]] = true
		openers[strings.SplitN(p[0], "“", 2)[0]] = true
		meanings[strings.SplitN(p[2], ".", 2)[0]] = true
		watches[p[3]] = true
	}
	for name, set := range map[string]map[string]bool{"title frames": frames, "openers": openers, "meanings": meanings, "watch lists": watches} {
		if len(set) != len(Categories) {
			t.Errorf("%s: %d distinct for %d categories", name, len(set), len(Categories))
		}
	}
}

func TestBuiltinDeterministic(t *testing.T) {
	cl := clusterOf(t, "cb1", "cb2")
	a1, _ := BuiltinWriter{}.Article(context.Background(), cl, fixtureContext())
	a2, _ := BuiltinWriter{}.Article(context.Background(), []Story{cl[1], cl[0]}, fixtureContext())
	if !reflect.DeepEqual(a1, a2) {
		t.Errorf("same cluster in another order wrote a different article:\n%+v\n%+v", a1, a2)
	}
	s1, _ := BuiltinWriter{}.Synthesis(context.Background(), fixtureStories()[:4], fixtureContext())
	rev := fixtureStories()[:4]
	slices.Reverse(rev)
	s2, _ := BuiltinWriter{}.Synthesis(context.Background(), rev, fixtureContext())
	if !reflect.DeepEqual(s1, s2) {
		t.Errorf("synthesis depends on input order")
	}
}

func TestBuiltinSynthesis(t *testing.T) {
	full := fixtureContext()
	stale := fixtureContext()
	stale.Stale = true
	noGold := fixtureContext()
	delete(noGold.Prices, metals.Gold)
	example := Context{Now: fixtureNow, Prices: map[metals.Metal]PricePoint{
		metals.Gold: {Price: dec("2650.4"), ChangePct: dec("0.8")}, metals.Silver: {Price: dec("31.2"), ChangePct: dec("-1.2")},
	}}
	top := TopStories(fixtureStories(), fixtureNow)
	tests := []struct {
		name    string
		top     []Story
		c       Context
		title   string
		want    []string
		summary []string
	}{
		{"full day", top, full, "Daily synthesis, 22 Nov 2026: gold −0.35%, silver +1.40%",
			[]string{"$2,650.40", "−0.35%", "$31.20", "+1.40%", "$985.50", "+0.10%", "$1,012.75", "−2.05%",
				"biggest mover is palladium", "mixed day", "84.9", "30,123,457 oz", "down 1,234,567 oz",
				"Central bank of China extends gold purchases", "Silver coin premiums climb", "Safe-haven buying returns"},
			[]string{"Gold −0.35% at $2,650.40", "palladium −2.05% at $1,012.75", "Lead story"}},
		{"stale prices", top, stale, "Daily synthesis, 22 Nov 2026: gold −0.35%, silver +1.40%",
			[]string{"may be out of date", "Check the live prices"}, []string{"prices may be out of date"}},
		{"the spec's example", nil, example, "Daily synthesis, 22 Nov 2026: gold +0.80%, silver −1.20%",
			[]string{"$2,650.40", "+0.80%", "$31.20", "−1.20%", "rests on prices alone", "no current quote for platinum and palladium"}, nil},
		{"gold missing", top[:1], noGold, "Daily synthesis, 22 Nov 2026: silver +1.40%, platinum +0.10%",
			[]string{"no current quote for gold", "One story stood out"}, nil},
		{"stories but no prices", top[:2], Context{Now: fixtureNow}, "Daily synthesis, 22 Nov 2026: no current prices",
			[]string{"no current quote for gold, silver, platinum and palladium", "First, Wire One"}, []string{"No current prices"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := BuiltinWriter{}.Synthesis(context.Background(), tt.top, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if a.Title != tt.title {
				t.Errorf("title = %q, want %q", a.Title, tt.title)
			}
			for _, w := range tt.want {
				if !strings.Contains(a.Commentary, w) {
					t.Errorf("commentary lacks %q:\n%s", w, a.Commentary)
				}
			}
			for _, w := range tt.summary {
				if !strings.Contains(a.Summary, w) {
					t.Errorf("summary lacks %q: %s", w, a.Summary)
				}
			}
			if n := paragraphCount(a.Commentary); n < 3 || n > 5 {
				t.Errorf("commentary has %d paragraphs, want 3-5", n)
			}
			if a.Slug != "2026-11-22-daily-synthesis" || !a.IsSynthesis || a.Category != CategorySynthesis || a.Writer != BuiltinName {
				t.Errorf("frame: slug %q synthesis %v category %q writer %q", a.Slug, a.IsSynthesis, a.Category, a.Writer)
			}
			if len(a.Sources) != len(tt.top) {
				t.Errorf("%d sources for %d stories", len(a.Sources), len(tt.top))
			}
		})
	}
	if _, err := (BuiltinWriter{}).Synthesis(context.Background(), nil, Context{Now: fixtureNow}); !errors.Is(err, ErrNothingToWrite) {
		t.Errorf("empty synthesis: err = %v, want ErrNothingToWrite", err)
	}
	demo := fixtureStories()[:1]
	demo[0].Demo = true
	a, _ := BuiltinWriter{}.Synthesis(context.Background(), demo, full)
	if !a.Demo || !strings.Contains(a.Commentary, demoNote) {
		t.Errorf("demo synthesis not labelled")
	}
}

// figureRe finds every run of digits in a text, with separators and a fraction.
var figureRe = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// inventedFigures returns the figures in text that are not in allowed. It is written apart
// from the package's own number check so the two cannot share a mistake.
func inventedFigures(text string, allowed []string) []string {
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[decimal.RequireFromString(strings.ReplaceAll(a, ",", "")).String()] = true
	}
	var bad []string
	for _, f := range figureRe.FindAllString(text, -1) {
		f = strings.TrimRight(f, ",")
		d, err := decimal.NewFromString(strings.ReplaceAll(f, ",", ""))
		if err != nil || !ok[d.String()] {
			bad = append(bad, f)
		}
	}
	return bad
}

// fixtureFigures lists every figure the fixture day puts in front of a writer, in the
// forms the text may show them: as given, rounded to cents, ounces rounded to whole, the
// ratio derived from gold and silver, and the calendar dates involved.
func fixtureFigures() []string {
	allowed := []string{
		"2650.4", "0.35", "31.2", "1.4", "985.5", "0.1", "1012.75", "2.05", // prices and changes
		"84.9",                                        // 2650.40 / 31.20 = 84.94…, to one place
		"30123457", "1234567", "310000000", "2000001", // vault ounces, rounded whole
		"22", "21", "2026", // 22 Nov 2026, 21 Nov 2026
	}
	for _, s := range fixtureStories() {
		allowed = append(allowed, figureRe.FindAllString(s.Title+" "+s.Summary+" "+s.Source, -1)...)
	}
	return allowed
}

func TestInventedFiguresCatchesMadeUpNumbers(t *testing.T) {
	tests := []struct {
		text string
		bad  []string
	}{
		{"gold is at $2,650.40 (−0.35%)", nil},
		{"gold could reach $2,700.00 next week", []string{"2,700.00"}},
		{"silver fell 3.5% on 23 Nov", []string{"3.5", "23"}},
	}
	for _, tt := range tests {
		if got := inventedFigures(tt.text, fixtureFigures()); !slices.Equal(got, tt.bad) {
			t.Errorf("inventedFigures(%q) = %v, want %v", tt.text, got, tt.bad)
		}
	}
}

// Every figure the built-in writer prints must come from the input or be derived from it.
func TestBuiltinInventsNoNumbers(t *testing.T) {
	stale := fixtureContext()
	stale.Stale = true
	noVault := fixtureContext()
	noVault.Vault = nil
	contexts := map[string]Context{"full": fixtureContext(), "stale": stale, "no vault": noVault, "no prices": {Now: fixtureNow}}
	allowed := fixtureFigures()
	for name, c := range contexts {
		arts, err := Generate(context.Background(), BuiltinWriter{}, fixtureStories(), c, 0)
		if err != nil {
			t.Fatal(err)
		}
		syn, err := GenerateSynthesis(context.Background(), BuiltinWriter{}, fixtureStories(), c)
		if err != nil {
			t.Fatal(err)
		}
		arts = append(arts, syn)
		if len(arts) != 5 {
			t.Fatalf("%s: %d articles, want 5", name, len(arts))
		}
		for _, a := range arts {
			text := a.Title + "\n" + a.Summary + "\n" + a.Commentary
			if bad := inventedFigures(text, allowed); len(bad) > 0 {
				t.Errorf("%s / %s: figures not in the input: %v\n%s", name, a.Slug, bad, text)
			}
			// The built-in text also passes the check an LLM answer has to pass.
			if bad := ungrounded(text, groundedNumbers(fixtureStories(), c)); len(bad) > 0 {
				t.Errorf("%s / %s: fails the LLM number check: %v", name, a.Slug, bad)
			}
		}
	}
}
