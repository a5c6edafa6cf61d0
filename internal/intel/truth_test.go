package intel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

func utcDay(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// TestSynthesisNamesTheDatesOfOldMoves is issue 10, case 3: offline on 23 Nov 2026 the
// synthesis was titled "Daily synthesis, 23 Nov 2026: gold +0.34%, silver −0.59%" and called
// moves of 17 Aug, 10 Aug, 29 May and 5 Feb "the day".
func TestSynthesisNamesTheDatesOfOldMoves(t *testing.T) {
	c := Context{Now: time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC), Stale: true, Prices: map[metals.Metal]PricePoint{
		metals.Gold:      {Price: dec("4405.8"), ChangePct: dec("0.34"), Day: utcDay("2026-08-17"), From: utcDay("2026-08-14")},
		metals.Silver:    {Price: dec("63.935"), ChangePct: dec("-0.60"), Day: utcDay("2026-08-10"), From: utcDay("2026-08-07")},
		metals.Platinum:  {Price: dec("1922.9"), ChangePct: dec("0.07"), Day: utcDay("2026-05-29"), From: utcDay("2026-05-28")},
		metals.Palladium: {Price: dec("1724.5"), ChangePct: dec("-0.10"), Day: utcDay("2026-02-05"), From: utcDay("2026-02-04")},
	}}
	a, err := BuiltinWriter{}.Synthesis(context.Background(), nil, c)
	if err != nil {
		t.Fatal(err)
	}
	want := "Daily synthesis, 23 Nov 2026: last known moves, gold +0.34% on 17 Aug 2026, silver −0.60% on 10 Aug 2026"
	if a.Title != want {
		t.Errorf("title %q\nwant  %q", a.Title, want)
	}
	text := a.Title + "\n" + a.Summary + "\n" + a.Commentary
	if strings.Contains(text, "on the day") || strings.Contains(text, "The day in prices") {
		t.Errorf("old moves called the day's:\n%s", text)
	}
	for _, d := range []string{"17 Aug 2026", "10 Aug 2026", "29 May 2026", "5 Feb 2026"} {
		if !strings.Contains(a.Commentary, d) {
			t.Errorf("commentary does not name %s:\n%s", d, a.Commentary)
		}
	}
	// The ratio divides a gold close of 17 Aug by a silver close of 10 Aug: it says so.
	if !strings.Contains(a.Commentary, "from gold of 17 Aug 2026 and silver of 10 Aug 2026, not the same day") {
		t.Errorf("ratio without its dates:\n%s", a.Commentary)
	}

	// Live prices whose change is today's keep the short wording.
	for m, p := range c.Prices {
		p.Today = true
		c.Prices[m] = p
	}
	c.Stale = false
	a, _ = BuiltinWriter{}.Synthesis(context.Background(), nil, c)
	if a.Title != "Daily synthesis, 23 Nov 2026: gold +0.34%, silver −0.60%" || !strings.Contains(a.Commentary, "on the day") {
		t.Errorf("live synthesis: %q\n%s", a.Title, a.Commentary)
	}
}

// TestDemoArticleSaysDemoOnceAndWhenItWasMade is issue 10, case 7: a demo article read
// "Demo: Ounce demo reports “Demo: …”" and said the sample "reached our feeds" at an
// invented time.
func TestDemoArticleSaysDemoOnceAndWhenItWasMade(t *testing.T) {
	made := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	st := Story{ID: "1", Title: "Demo: Gold jumps sharply in a volatile session", Source: "Ounce demo", URL: "https://ounce.invalid/demo/x",
		Category: "breaking", Metals: []metals.Metal{metals.Gold}, Relevance: 80, PublishedAt: made, Demo: true}
	a, err := BuiltinWriter{}.Article(context.Background(), []Story{st}, Context{Now: made})
	if err != nil {
		t.Fatal(err)
	}
	text := a.Title + "\n" + a.Summary + "\n" + a.Commentary
	if strings.Count(a.Summary, "Demo") != 1 || strings.Count(a.Title, "Demo") != 1 || strings.Contains(text, "Ounce demo reports") || strings.Contains(text, "“Demo:") {
		t.Errorf("demo label repeated:\n%s", text)
	}
	if strings.Contains(text, "reached our feeds") || !strings.Contains(text, "Ounce created this sample on 23 Nov 2026") {
		t.Errorf("demo time not stated as its creation:\n%s", text)
	}
}
