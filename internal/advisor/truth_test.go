package advisor

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestFactsDatedWithEachMetalsPrice: with gold live and silver and platinum known only from
// older closes, each holding's fact carries its own metal's price date, and every date and
// figure the reply states is one of its facts.
func TestFactsDatedWithEachMetalsPrice(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t), Config{}, false)
	silverDay := time.Date(2026, 8, 10, 0, 0, 0, 0, time.UTC)
	platDay := time.Date(2026, 5, 29, 0, 0, 0, 0, time.UTC)
	snap := prices.Snapshot{AsOf: fixtureNow, Prices: map[metals.Metal]prices.Spot{
		metals.Gold:     {Metal: metals.Gold, Price: decimal.RequireFromString("2650.40"), AsOf: fixtureNow, Source: "test-feed"},
		metals.Silver:   {Metal: metals.Silver, Price: decimal.RequireFromString("63.935"), AsOf: silverDay, Source: "daily close", Stale: true},
		metals.Platinum: {Metal: metals.Platinum, Price: decimal.RequireFromString("1922.90"), AsOf: platDay, Source: "daily close", Stale: true},
	}}
	f.market.Feed().Apply(snap)
	want := map[string]time.Time{"Gold held": fixtureNow, "Silver held": silverDay, "Platinum held": platDay}
	r, err := f.svc.Builtin(context.Background(), f.gold, "what's my stack worth")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, fa := range r.Facts {
		if d, ok := want[fa.Label]; ok {
			seen++
			if !fa.AsOf.Equal(d) {
				t.Errorf("fact %q dated %s, want its own price's date %s", fa.Label, fa.AsOf, d)
			}
		}
	}
	if seen != len(want) {
		t.Fatalf("facts %+v lack a holding", r.Facts)
	}
	if !strings.Contains(r.Text, "from 10 Aug 2026") || !strings.Contains(r.Text, "from 29 May 2026") {
		t.Errorf("reply does not date the stale prices: %s", r.Text)
	}
	if bad := unfactual(r); len(bad) > 0 || len(r.Unverified) > 0 {
		t.Errorf("numbers in no fact: %v, left out: %v\n%s", bad, r.Unverified, r.Text)
	}
}

// TestFigureCheckLeavesOutUnshownSentences: a sentence stating a figure no fact shows, or a
// fact's figure rounded another way, is left out and reported; the rest is kept as written.
func TestFigureCheckLeavesOutUnshownSentences(t *testing.T) {
	facts := []Fact{{Label: "Gold spot", Value: "$2,650.40/oz", AsOf: fixtureNow}, {Label: "Gold/silver ratio", Value: "84.81"}}
	text := "Gold is $2,650.40 per ounce on 23 Nov 2026. The ratio is 84.81. Silver is $99.99. Gold is about $2,650 today."
	got, dropped := verifyText(text, shownFigures(facts))
	if want := "Gold is $2,650.40 per ounce on 23 Nov 2026. The ratio is 84.81. " + leftOutNote; got != want {
		t.Errorf("kept %q, want %q", got, want)
	}
	if len(dropped) != 2 || !strings.Contains(dropped[0], "$99.99") || !strings.Contains(dropped[1], "$2,650") {
		t.Errorf("left out %q", dropped)
	}
	if got, dropped := verifyText("The ratio is 84.81.", shownFigures(facts)); got != "The ratio is 84.81." || dropped != nil {
		t.Errorf("a true reply was changed: %q %q", got, dropped)
	}
}

// TestBriefFigureCheck: the composed brief passes the check sentence by sentence, and a
// sentence with a figure the brief does not list is taken out of its section before sending.
func TestBriefFigureCheck(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t), Config{}, true)
	b, _, err := f.svc.GenerateBrief(context.Background(), f.gold, false, "")
	if err != nil {
		t.Fatal(err)
	}
	c := b
	c.Sections = append([]Section(nil), b.Sections...)
	if dropped := c.verify(); len(dropped) > 0 {
		t.Fatalf("the built-in brief states figures it does not list: %q", dropped)
	}
	c.Sections[0].Text += " Gold will reach $9,999.00 by spring."
	dropped := c.verify()
	if len(dropped) != 1 || strings.Contains(c.Body, "9,999") || strings.Contains(c.Sections[0].Text, "9,999") {
		t.Fatalf("left out %q; section %q", dropped, c.Sections[0].Text)
	}
	if !strings.Contains(c.Sections[0].Text, "$44,089.00") {
		t.Errorf("the true sentence went too: %q", c.Sections[0].Text)
	}
}

// TestQuestionPartsBounded: a question of many parts is answered up to MaxQuestionParts and
// says the rest was not.
func TestQuestionPartsBounded(t *testing.T) {
	f := newFixture(t, dbtest.SQLite(t), Config{}, true)
	q := strings.Repeat("gold price and silver price and ", 10) + "platinum price"
	r, err := f.svc.Builtin(context.Background(), f.gold, q)
	if err != nil {
		t.Fatal(err)
	}
	// Repeated parts are answered once: gold, silver, platinum.
	if len(r.ToolCalls) != 3 {
		t.Fatalf("%d calls for a repeated question: %s", len(r.ToolCalls), r.Text)
	}
	var parts []string
	for i := 0; i < 2*MaxQuestionParts; i++ {
		parts = append(parts, "what if gold hits "+strconv.Itoa(3000+i))
	}
	r, err = f.svc.Builtin(context.Background(), f.gold, strings.Join(parts, " and "))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ToolCalls) != MaxQuestionParts || !strings.Contains(r.Text, "more parts than the "+strconv.Itoa(MaxQuestionParts)) || len(r.Unverified) > 0 {
		t.Fatalf("%d calls: %s", len(r.ToolCalls), r.Text)
	}
}
