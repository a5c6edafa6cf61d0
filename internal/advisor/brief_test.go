package advisor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
)

type fakeAlerts []FiredAlert

func (f fakeAlerts) FiredSince(_ context.Context, _ int64, since time.Time) ([]FiredAlert, error) {
	var out []FiredAlert
	for _, a := range f {
		if a.FiredAt.After(since) {
			out = append(out, a)
		}
	}
	return out, nil
}

// TestBriefAcrossDays: a brief per member-day, the change since the previous brief with its
// date, alerts that fired, and every figure of the text listed in the figures.
func TestBriefAcrossDays(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		first, created, err := f.svc.GenerateBrief(ctx, f.gold, false, "")
		if err != nil || !created {
			t.Fatalf("first: %v %v", created, err)
		}
		if first.Date.String() != "2026-11-23" || first.Figures.StackValue.String() != "44089" || first.Figures.ChangeFrom != "previous close" {
			t.Fatalf("first brief: %+v", first.Figures)
		}
		if !strings.Contains(first.Body, "Price alerts are not set up") {
			t.Fatalf("no alerts service: %s", first.Body)
		}
		for _, want := range []string{"$44,089.00", "Gold $2,650.40/oz", "Silver breaks even at $25.00/oz", "registered silver"} {
			if !strings.Contains(first.Body, want) {
				t.Errorf("first brief lacks %q:\n%s", want, first.Body)
			}
		}
		if bad := ungrounded(first.text(), first.known()); len(bad) > 0 {
			t.Fatalf("ungrounded: %v", bad)
		}

		// The next morning, silver is up and an alert fired overnight.
		*f.clock = fixtureNow.Add(20 * time.Hour)
		setBoard(f.market, *f.clock, map[metals.Metal][2]string{metals.Gold: {"2650.40", "2650.40"}, metals.Silver: {"34.00", "31.25"},
			metals.Platinum: {"980.00", "980.00"}, metals.Palladium: {"1010.00", "1010.00"}})
		f.svc.SetAlerts(fakeAlerts{{Metal: metals.Silver, Direction: "above", Target: "33.50", Price: "33.52", FiredAt: fixtureNow.Add(10 * time.Hour)}})
		second, created, err := f.svc.GenerateBrief(ctx, f.gold, false, "")
		if err != nil || !created {
			t.Fatalf("second: %v %v", created, err)
		}
		// 500 oz × $2.75 = $1,375.00 more.
		if second.Date.String() != "2026-11-24" || second.Figures.Change.String() != "1375" || second.Figures.ChangeFrom != "2026-11-23" {
			t.Fatalf("second figures: %+v", second.Figures)
		}
		for _, want := range []string{"+$1,375.00 since your brief of 23 Nov 2026", "Silver $34.00/oz, +8.80% since 23 Nov 2026", "Silver went above $33.50 (at $33.52"} {
			if !strings.Contains(second.Body, want) {
				t.Errorf("second brief lacks %q:\n%s", want, second.Body)
			}
		}
		if len(second.Figures.Alerts) != 1 {
			t.Fatalf("alerts: %+v", second.Figures.Alerts)
		}
		again, created, err := f.svc.GenerateBrief(ctx, f.gold, false, "")
		if err != nil || created || again.GeneratedAt != second.GeneratedAt || again.Body != second.Body {
			t.Fatalf("generate twice: %v %v", created, err)
		}
		page, err := f.svc.Briefs(ctx, f.gold, 10, 0)
		if err != nil || page.Total != 2 || page.Briefs[0].Date.String() != "2026-11-24" {
			t.Fatalf("list: %+v %v", page, err)
		}
		if _, err := f.svc.BriefOf(ctx, f.gold, "2026-11-23", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.BriefOf(ctx, f.gold, "2026-11-22", ""); err == nil {
			t.Fatal("a day without a brief was found")
		}
	})
}

// TestMorningJob: the leader job writes Gold members' briefs once their local clock reaches
// 07:00, once a day, and never for free members.
func TestMorningJob(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		london := f.user(t, "london@example.test", db.TierGold)
		if err := s.SetUserProfile(ctx, london.ID, "", "Europe/London"); err != nil {
			t.Fatal(err)
		}
		run := func(at time.Time) int {
			*f.clock = at
			n, err := f.svc.GenerateDue(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		// 06:59 in London, 01:59 in New York.
		if n := run(time.Date(2026, 11, 24, 6, 59, 0, 0, time.UTC)); n != 0 {
			t.Fatalf("before 07:00: %d", n)
		}
		// 07:00 in London: only the London member.
		if n := run(time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)); n != 1 {
			t.Fatalf("07:00 London: %d", n)
		}
		if n := run(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)); n != 0 {
			t.Fatalf("again the same day: %d", n)
		}
		// 07:00 in New York (12:00 UTC): the New York Gold member, not the free one.
		if n := run(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)); n != 1 {
			t.Fatalf("07:00 New York: %d", n)
		}
		if _, err := s.BriefByDay(ctx, f.free.ID, db.Date{Time: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}); err == nil {
			t.Fatal("free member got a brief")
		}
	})
}

// TestBriefThroughModel: a model's rewrite is used when its figures are the brief's, and the
// built-in text stays when it invents one or drops a section.
func TestBriefThroughModel(t *testing.T) {
	ctx := context.Background()
	rewrite := func(invent bool, drop bool) func(int, map[string]any) turn {
		return func(_ int, req map[string]any) turn {
			msgs := req["messages"].([]any)
			var in struct {
				Headline string
				Sections []struct{ Title, Text string }
			}
			_ = json.Unmarshal([]byte(msgs[1].(map[string]any)["content"].(string)), &in)
			out := map[string]any{"headline": "Good morning: " + in.Headline}
			var secs []map[string]string
			for i, s := range in.Sections {
				text := "In short: " + s.Text
				if invent && i == 0 {
					text += " Analysts see $5,000 gold soon."
				}
				if drop && i == 0 {
					continue
				}
				secs = append(secs, map[string]string{"title": s.Title, "text": text})
			}
			out["sections"] = secs
			b, _ := json.Marshal(out)
			return turn{Content: "```json\n" + string(b) + "\n```"}
		}
	}
	for _, c := range []struct {
		name       string
		invent     bool
		drop       bool
		wantWriter string
	}{{"grounded rewrite", false, false, "llm:fake-model"}, {"invented figure", true, false, BuiltinWriter}, {"dropped section", false, true, BuiltinWriter}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeModel(t, rewrite(c.invent, c.drop))
			fx := llmFixture(t, f, 5*time.Second)
			b, _, err := fx.svc.GenerateBrief(ctx, fx.gold, false, "")
			if err != nil {
				t.Fatal(err)
			}
			if b.Writer != c.wantWriter || strings.Contains(b.Body, "5,000") {
				t.Fatalf("writer %s: %s", b.Writer, b.Body)
			}
			if c.wantWriter != BuiltinWriter && (!strings.HasPrefix(b.Headline, "Good morning: Your stack: $44,089.00") || !strings.Contains(b.Body, "In short: Your stack is worth $44,089.00")) {
				t.Fatalf("rewrite not used: %s / %s", b.Headline, b.Body)
			}
		})
	}
}
