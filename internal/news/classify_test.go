package news

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestDetectMetals(t *testing.T) {
	G, S, PT, PD := metals.Gold, metals.Silver, metals.Platinum, metals.Palladium
	tests := []struct {
		title, summary string
		want           []metals.Metal
	}{
		{"Gold edges higher in quiet trade", "", []metals.Metal{G}},
		{"XAU/USD holds above support", "", []metals.Metal{G}},
		{"XAG and XPT diverge", "", []metals.Metal{S, PT}},
		{"Bullion slips as yields rise", "", []metals.Metal{G}},
		{"Silver bullion coins sell out", "", []metals.Metal{S}},
		{"PGMs rally on supply worries", "", []metals.Metal{PT, PD}},
		{"Platinum group metals added to list", "", []metals.Metal{PT, PD}},
		{"Palladium and gold move apart", "", []metals.Metal{G, PD}},
		{"Precious metals mixed ahead of data", "", nil},
		{"Goldman raises forecasts for copper", "", nil},
		{"Silverware maker expands", "", nil},
		{"The yellow metal extends its gains", "", []metals.Metal{G}},
		{"Markets wait for the Fed", "Silver traders are cautious.", []metals.Metal{S}},
		{"Gold rises", "Silver and platinum lag.", []metals.Metal{G}}, // title wins over summary
	}
	for _, tt := range tests {
		got := Classify(Item{Title: tt.title, Summary: tt.summary}, PriceContext{}).Metals
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q / %q: metals %v, want %v", tt.title, tt.summary, got, tt.want)
		}
	}
}

func TestClassifyCategory(t *testing.T) {
	tests := []struct {
		title, summary string
		want           Category
	}{
		{"BREAKING: silver moves after data", "", Breaking},
		{"Gold plummets 5% in heavy selling", "", Breaking},
		{"Central bank of Brazil adds gold to its reserves", "", CentralBank},
		{"New sales tax rules for coin buyers", "", Policy},
		{"Producer lifts output at its flagship gold mine", "", Mining},
		{"Silver ETF inflows continue", "", Investment},
		{"Sanctions on exporters unsettle the platinum market", "", Geopolitical},
		{"Gold price forecast for next month", "", Analysis},
		{"Solar demand tightens the silver market", "", SupplyDemand},
		// Nothing in the title: the summary decides.
		{"Weekend reading", "Jewellery demand and mint sales of coins fell, and the market deficit narrowed.", SupplyDemand},
		// No signal anywhere: general commentary.
		{"A few thoughts for the weekend", "", Analysis},
		{"", "", Analysis},
	}
	for _, tt := range tests {
		got := Classify(Item{Title: tt.title, Summary: tt.summary}, PriceContext{})
		if got.Category != tt.want {
			t.Errorf("%q: category %s, want %s", tt.title, got.Category, tt.want)
		}
	}
}

func TestPickCategoryTieBreak(t *testing.T) {
	tests := []struct {
		scores map[Category]int
		want   Category
	}{
		{map[Category]int{}, Analysis},
		{map[Category]int{Analysis: 30, Mining: 30}, Mining},
		{map[Category]int{Investment: 45, CentralBank: 45, Breaking: 10}, CentralBank},
		{map[Category]int{Breaking: 45, Policy: 45}, Breaking},
		{map[Category]int{SupplyDemand: 46, Breaking: 45}, SupplyDemand},
		{map[Category]int{Geopolitical: 30, Mining: 30, SupplyDemand: 30}, Geopolitical},
	}
	for _, tt := range tests {
		if got, _ := pickCategory(tt.scores); got != tt.want {
			t.Errorf("pickCategory(%v) = %s, want %s", tt.scores, got, tt.want)
		}
	}
}

func TestRelevance(t *testing.T) {
	rel := func(title string) int { return Classify(Item{Title: title}, PriceContext{}).Relevance }
	tests := []struct {
		higher, lower string
	}{
		{"Gold plunges $90 as stop orders cascade", "Morning note: markets mixed"},
		{"Silver coin premiums jump as dealers run short", "Exploration budgets rise at junior miners"},
		{"Capital gains tax on gold coins to be scrapped", "Lawmakers debate a highway bill"},
		{"Central bank adds gold to reserves", "Local bakery opens a second branch"},
	}
	for _, tt := range tests {
		if h, l := rel(tt.higher), rel(tt.lower); h <= l {
			t.Errorf("relevance %q = %d should exceed %q = %d", tt.higher, h, tt.lower, l)
		}
	}
	if r := rel("Local bakery opens a second branch"); r > 30 {
		t.Errorf("off-topic item relevance %d, want at most 30", r)
	}
	for _, l := range loadLabelled(t) {
		if r := rel(l.title); r < 0 || r > 100 {
			t.Errorf("%q relevance %d out of range", l.title, r)
		}
	}
}

var sentenceEnd = regexp.MustCompile(`[.?!](\s|$)`)

func TestAnalysis(t *testing.T) {
	fresh := PriceContext{Prices: map[metals.Metal]PricePoint{
		metals.Gold:     {Price: dec("2345.6"), ChangePct: dec("-0.5249")},
		metals.Silver:   {Price: dec("31.2"), ChangePct: dec("1.4")},
		metals.Platinum: {Price: dec("980"), ChangePct: dec("0")},
	}}
	stale := fresh
	stale.Stale = true
	tests := []struct {
		name     string
		title    string
		pc       PriceContext
		contains []string
		excludes []string
	}{
		{
			name: "fresh price, rising", title: "Silver soars on solar buying frenzy", pc: fresh,
			contains: []string{"Silver is at $31.20, up 1.40% today.", "sharp rise"},
			excludes: []string{"out of date"},
		},
		{
			name: "fresh price, falling", title: "Gold plunges as stop orders cascade", pc: fresh,
			contains: []string{"Gold is at $2,345.60, down 0.52% today.", "sharp drop"},
		},
		{
			name: "unchanged", title: "Platinum ETF holdings steady", pc: fresh,
			contains: []string{"Platinum is at $980.00, unchanged today."},
		},
		{
			name: "two metals", title: "Gold and silver diverge as ratio widens", pc: fresh,
			contains: []string{"Gold is at $2,345.60, down 0.52% today and silver is at $31.20, up 1.40% today."},
		},
		{
			name: "stale prices", title: "Silver deficit widens", pc: stale,
			contains: []string{"may be out of date", "silver was last at $31.20, up 1.40% on the day"},
			excludes: []string{"is at $"},
		},
		{
			name: "no price for the named metal", title: "Palladium surplus looms", pc: fresh,
			contains: []string{"Ounce has no current price for palladium"},
		},
		{
			name: "no metal named uses gold as the benchmark", title: "Fed holds rates steady", pc: fresh,
			contains: []string{"For reference, gold is at $2,345.60", "does not name a specific metal", "central banks"},
		},
		{
			name: "no metal and no prices", title: "Fed holds rates steady", pc: PriceContext{},
			contains: []string{"does not name a specific metal"},
			excludes: []string{"$"},
		},
		{
			name: "platinum geopolitics is about supply, not haven buying", title: "Sanctions threaten platinum exports", pc: fresh,
			contains: []string{"supply and trade routes"},
			excludes: []string{"safe haven"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it := Classify(Item{Title: tt.title}, tt.pc)
			for _, c := range tt.contains {
				if !strings.Contains(it.Analysis, c) {
					t.Errorf("analysis %q\nmissing %q", it.Analysis, c)
				}
			}
			for _, c := range tt.excludes {
				if strings.Contains(it.Analysis, c) {
					t.Errorf("analysis %q\nshould not contain %q", it.Analysis, c)
				}
			}
			if n := len(sentenceEnd.FindAllString(it.Analysis, -1)); n < 2 || n > 4 {
				t.Errorf("analysis has %d sentences: %q", n, it.Analysis)
			}
			if again := Classify(Item{Title: tt.title}, tt.pc); !reflect.DeepEqual(again, it) {
				t.Errorf("not deterministic:\n%+v\n%+v", it, again)
			}
		})
	}
}

func TestClassifyKeepsItemFields(t *testing.T) {
	in := Item{Title: "Gold ETF inflows", URL: "https://x.example.com/a", Source: "s", Summary: "sum",
		PublishedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Demo: true}
	out := Classify(in, PriceContext{})
	if out.Title != in.Title || out.URL != in.URL || out.Source != in.Source || out.Summary != in.Summary ||
		!out.PublishedAt.Equal(in.PublishedAt) || !out.Demo {
		t.Errorf("Classify changed input fields: %+v", out)
	}
}

func TestFormatUSD(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0", "$0.00"},
		{"5", "$5.00"},
		{"999.999", "$1,000.00"},
		{"1234.5", "$1,234.50"},
		{"2345.605", "$2,345.61"},
		{"1000000", "$1,000,000.00"},
		{"-5.5", "−$5.50"},
	}
	for _, tt := range tests {
		if got := FormatUSD(dec(tt.in)); got != tt.want {
			t.Errorf("FormatUSD(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Gold tops $2,500.50!", []string{"gold", "tops", "$", "2,500.50"}},
		{"Silver's 7% jump", []string{"silver", "s", "7", "%", "jump"}},
		{"XAU/USD, all-time high.", []string{"xau", "usd", "all", "time", "high"}},
		{"end, 3", []string{"end", "3"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := tokenize(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("Gold plunges $90 as stop orders cascade", "<p>summary</p>", true)
	f.Add("BREAKING: PGMs", "", false)
	f.Add("", "bullion bullion bullion", false)
	f.Add("$ % # * $$ 1,2,3.4.", "\xff", true)
	pc := PriceContext{Prices: map[metals.Metal]PricePoint{
		metals.Gold: {Price: dec("2000"), ChangePct: dec("1.5")},
	}}
	f.Fuzz(func(t *testing.T, title, summary string, stale bool) {
		pc.Stale = stale
		it := Classify(Item{Title: title, Summary: summary}, pc)
		if !it.Category.Valid() {
			t.Fatalf("invalid category %q", it.Category)
		}
		if it.Relevance < 0 || it.Relevance > 100 {
			t.Fatalf("relevance %d", it.Relevance)
		}
		last := -1
		for _, m := range it.Metals {
			i := indexOf(metals.All, m)
			if i <= last {
				t.Fatalf("metals out of order or unknown: %v", it.Metals)
			}
			last = i
		}
		if !utf8.ValidString(it.Analysis) {
			t.Fatalf("invalid UTF-8 analysis")
		}
		if n := len(sentenceEnd.FindAllString(it.Analysis, -1)); n < 2 || n > 4 {
			t.Fatalf("analysis has %d sentences: %q", n, it.Analysis)
		}
		if strings.Contains(it.Analysis, title) && len(title) > 40 {
			t.Fatalf("analysis echoes untrusted input")
		}
	})
}

func indexOf(ms []metals.Metal, m metals.Metal) int {
	for i, x := range ms {
		if x == m {
			return i
		}
	}
	return -1
}
