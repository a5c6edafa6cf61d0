package advisor

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/fx"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/performance"
)

// Questions about how the stack did over a period go to the performance tool with their
// period; the all-time profit question stays where it was.
func TestPerformanceQuestions(t *testing.T) {
	for q, want := range map[string]string{
		"How did my stack do this year?":                    "YTD",
		"how has my portfolio performed since March":        "since:3",
		"how did my stack do in 2024":                       "in:2024",
		"what did I make since sept 2023 on my stack":       "since:9:2023",
		"how is my stack doing this month":                  "MTD",
		"how did my stack do last month":                    "last:month",
		"how did my stack do last year":                     "last:year",
		"how did my stack do since 2023-05-01":              "from:2023-05-01",
		"how did my stack do from 2024-01-01 to 2024-06-30": "from:2024-01-01:2024-06-30",
		"how did my stack do since 2023":                    "from:2023-01-01",
		"how did my stack do in march 2025":                 "month:3:2025",
		"how did my stack do during the last decade":        "10Y",
		"how did my stack do in the last 2 months":          perfUnknown,
	} {
		in := parse(q)
		if in.Name != ToolPerformance || in.Args.Range != want {
			t.Errorf("%q: %s %q, want %s %q", q, in.Name, in.Args.Range, ToolPerformance, want)
		}
	}
	for _, q := range []string{"how is my stack doing", "what was silver's low this year", "gold ytd", "how is my stack split between metals", "how's my stack doing today"} {
		if in := parse(q); in.Name == ToolPerformance {
			t.Errorf("%q went to the performance tool", q)
		}
	}
	feb := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	nov := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		r             string
		now           time.Time
		from, to, say string
	}{
		{"since:10", feb, "2025-10-01", "2026-02-10", "since October 2025"},
		{"since:3", feb, "2025-03-01", "2026-02-10", "since March 2025"}, // March is still to come in February: last year's
		{"since:3", nov, "2026-03-01", "2026-11-23", "since March 2026"},
		{"in:2024", feb, "2024-01-01", "2024-12-31", "in 2024"},
		{"in:2026", feb, "2026-01-01", "2026-02-10", "in 2026"},
		{"last:month", time.Date(2026, 1, 15, 0, 0, 0, 0, time.UTC), "2025-12-01", "2025-12-31", "last month"},
		{"last:year", feb, "2025-01-01", "2025-12-31", "last year"},
		{"month:3", feb, "2025-03-01", "2025-03-31", "in March 2025"},
		{"from:2023-05-01", feb, "2023-05-01", "2026-02-10", "since 1 May 2023"},
	} {
		a := perfQuery(c.r, c.now)
		if a.why != "" || a.q.From != c.from || a.q.To != c.to || a.words != c.say {
			t.Errorf("%s at %s: %+v", c.r, c.now.Format(time.DateOnly), a)
		}
	}
	for _, r := range []string{"in:2030", "since:12:2026", "from:2027-01-01"} {
		if a := perfQuery(r, nov); a.why == "" || a.q != (performance.Query{}) {
			t.Errorf("%s: a future period is asked of the service: %+v", r, a)
		}
	}
}

// perfMember holds 2 oz of gold bought on 15 Mar 2024 and 100 oz of silver on 2 Feb 2026.
func perfMember(t *testing.T, f *fixture) db.User {
	u := f.user(t, "returns@example.test", db.TierGold)
	f.holdOn(t, u, metals.Gold, 2, "1", "2000", time.Date(2024, 3, 15, 0, 0, 0, 0, time.UTC))
	f.holdOn(t, u, metals.Silver, 100, "1", "25", time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC))
	return u
}

// TestPerformanceAnswers: the advisor answers a period from the performance service's figures
// for it, and says plainly what it cannot answer (before the first purchase, a period still to
// come, a free member) instead of giving all-time figures.
func TestPerformanceAnswers(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, true)
		perf := f.usePerformance(nil)
		u := perfMember(t, f)
		y24, err := perf.Performance(ctx, u, performance.Query{From: "2024-01-01", To: "2024-12-31"})
		if err != nil || y24.Gain == nil || y24.TWRPct == nil {
			t.Fatalf("2024: %+v %v", y24, err)
		}
		all, err := perf.Performance(ctx, u, performance.Query{Period: "MAX"})
		if err != nil || all.EndValue == nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			q          string
			want, bans []string
		}{
			{"how did my stack do in 2024", []string{"In 2024 (1 Jan 2024 to 31 Dec 2024)", "to " + money(*y24.EndValue), "a gain of " + signedMoney(*y24.Gain),
				"Time-weighted return " + signedPct(*y24.TWRPct), "Your first purchase is dated 15 Mar 2024"}, nil},
			{"how did my stack do since March", []string{"Since March 2026 (1 Mar 2026 to 23 Nov 2026)"}, nil},
			{"how did my stack do in 2020", []string{"I cannot say how your stack did in 2020", "your first purchase is dated 15 Mar 2024"},
				[]string{money(*all.EndValue), "Time-weighted"}},
			{"how did my stack do in 2030", []string{"I cannot say how your stack did in 2030: that period has not begun yet (today is 23 Nov 2026)"}, []string{"$"}},
			{"how did my stack do in the last 2 months", []string{"I cannot tell which period you mean", "\"in 2024\""}, []string{"$"}},
		} {
			r, err := f.svc.Builtin(ctx, u, c.q)
			if err != nil {
				t.Fatal(err)
			}
			if r.Intent != ToolPerformance || len(r.Unverified) > 0 {
				t.Errorf("%q: intent %s, left out %v", c.q, r.Intent, r.Unverified)
			}
			for _, w := range c.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("%q lacks %q: %s", c.q, w, r.Text)
				}
			}
			for _, b := range c.bans {
				if strings.Contains(r.Text, b) {
					t.Errorf("%q states %q: %s", c.q, b, r.Text)
				}
			}
		}
		r, err := f.svc.Builtin(ctx, f.free, "how did my stack do this year")
		if err != nil || !strings.Contains(r.Text, "part of Gold membership") || strings.Contains(r.Text, "$") {
			t.Fatalf("free member: %q %v", r.Text, err)
		}

		// A performance service with exchange rates answers a euro member in euros (0.90
		// euros a dollar every day since 2000): the answer is in euros.
		if err := f.store.UpsertFXRates(ctx, []db.FXRate{{Currency: "USD", Day: db.NewDate(time.Date(2000, 1, 3, 0, 0, 0, 0, time.UTC)),
			PerEUR: "1.1111", Source: "test"}}); err != nil {
			t.Fatal(err)
		}
		f.usePerformance(fx.New(fx.Deps{Store: f.store, Now: func() time.Time { return *f.clock }}))
		eu := u
		eu.DisplayCurrency = "EUR"
		r, err = f.svc.Builtin(ctx, eu, "how did my stack do in 2024")
		if err != nil || !strings.Contains(r.Text, "€") || strings.Contains(r.Text, "$") || len(r.Unverified) > 0 {
			t.Fatalf("euro answer: %q %v %v", r.Text, err, r.Unverified)
		}
	})
}

// TestBriefSaysHowTheStackDid: the brief of a member with purchases this year says how the
// stack did this year and this month with the performance service's gain and time-weighted
// return, naming the day of the prices; offline it says the prices are not live and from
// when, with no "today".
func TestBriefSaysHowTheStackDid(t *testing.T) {
	for _, live := range []bool{true, false} {
		name := map[bool]string{true: "live", false: "offline"}[live]
		t.Run(name, func(t *testing.T) { briefPerformanceCase(t, live) })
	}
}

func briefPerformanceCase(t *testing.T, live bool) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		f := newFixture(t, s, Config{}, live)
		perf := f.usePerformance(nil)
		u := f.gold
		f.holdOn(t, u, metals.Silver, 100, "1", "25", time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC))
		ytd, err := perf.Performance(ctx, u, performance.Query{Period: "YTD"})
		if err != nil || ytd.TWRPct == nil || ytd.Gain == nil {
			t.Fatalf("YTD: %+v %v", ytd, err)
		}
		b, _, err := f.svc.GenerateBrief(ctx, u, false, "")
		if err != nil {
			t.Fatal(err)
		}
		var sec string
		for _, x := range b.Sections {
			if x.Title == "How your stack did" {
				sec = x.Text
			}
		}
		want := "This year so far (1 Jan 2026 to 23 Nov 2026) " + signedMoney(*ytd.Gain) + " after the money you put in, a time-weighted return of " + signedPct(*ytd.TWRPct)
		if !strings.Contains(sec, want) || !strings.Contains(sec, "this month so far (1 Nov 2026 to 23 Nov 2026)") {
			t.Fatalf("live %v: the section lacks %q:\n%s", live, want, sec)
		}
		if live && !strings.Contains(sec, "Valued at the live prices of 23 Nov 2026.") {
			t.Errorf("live section: %s", sec)
		}
		if !live && (!strings.Contains(sec, "Prices are not live: the end values are at the last known closes, the oldest of them from "+day(ytd.AsOf)) ||
			strings.Contains(strings.ToLower(sec), "today") || strings.Contains(sec, "live prices")) {
			t.Errorf("offline section: %s", sec)
		}
		if len(b.Figures.Performance) != 2 || !b.Figures.Performance[0].TWRPct.Equal(*ytd.TWRPct) {
			t.Errorf("figures %+v", b.Figures.Performance)
		}
		if strings.Contains(b.Body, leftOutNote) {
			t.Fatalf("the figure check left something out:\n%s", b.Body)
		}
	})
}
