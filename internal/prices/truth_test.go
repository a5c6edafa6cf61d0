package prices

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
)

// TestChangeAfterAGapIsNotToday is issue 10, case 3: when a provider answers after a gap,
// the change was measured against a close months old and shown as the day's ("Palladium
// −30.21 %"). It is now labelled with both dates and never called today's; the next
// session's change, from the preceding session, is.
func TestChangeAfterAGapIsNotToday(t *testing.T) {
	pd := metals.Palladium
	mon := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) // Monday, COMEX open
	clock := &fakeClock{now: mon}
	src := &scriptSource{steps: []step{
		{aggs: map[metals.Metal]Agg{pd: agg(pd, "1203.53", mon)}}, // held by the spike guard
		{aggs: map[metals.Metal]Agg{pd: agg(pd, "1203.53", mon)}}, // confirmed
		{aggs: map[metals.Metal]Agg{pd: agg(pd, "1210.0812", mon.AddDate(0, 0, 1))}},
	}}
	f := NewFeed(src, FeedOptions{Interval: time.Minute, Clock: clock.Now})
	// Seeded offline from the embedded history: last close 2026-02-05, the one before 02-04.
	f.Seed(map[metals.Metal]Quote{pd: {Metal: pd, Price: dec("1724.5"), AsOf: mustDate("2026-02-05")}},
		map[metals.Metal]Close{pd: {Date: mustDate("2026-02-04"), Price: dec("1726.2")}})
	sp := f.Snapshot().Prices[pd]
	if !sp.Stale || !sp.OneSession() || sp.ChangeIsToday() || !strings.Contains(ChangeNote(sp), "5 Feb 2026") {
		t.Fatalf("seed: stale %t one-session %t today %t note %q", sp.Stale, sp.OneSession(), sp.ChangeIsToday(), ChangeNote(sp))
	}
	for i := 0; i < 2; i++ {
		if err := f.PollOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	sp = f.Snapshot().Prices[pd]
	// 1203.53 against the 5 Feb close of 1724.50: −30.21 %, over nine months.
	if sp.ChangePct.String() != "-30.21" || sp.Stale || sp.ChangeIsToday() || sp.PrevDate.Format(time.DateOnly) != "2026-02-05" ||
		sp.Session.Format(time.DateOnly) != "2026-11-23" || !strings.Contains(ChangeNote(sp), "not the preceding trading session") {
		t.Fatalf("after the gap: %s%% from %s to %s, today %t, note %q", sp.ChangePct, sp.PrevDate.Format(time.DateOnly), sp.Session.Format(time.DateOnly), sp.ChangeIsToday(), ChangeNote(sp))
	}
	clock.Set(mon.AddDate(0, 0, 1))
	if err := f.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	sp = f.Snapshot().Prices[pd]
	if !sp.ChangeIsToday() || ChangeNote(sp) != "" || sp.Change.String() != "6.5512" {
		t.Fatalf("next session: today %t note %q change %s", sp.ChangeIsToday(), ChangeNote(sp), sp.Change)
	}
}
