package prices

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ouncehq/ounce/internal/metals"
	"github.com/shopspring/decimal"
)

// fakeClock is a settable clock safe for concurrent use.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// scriptSource answers each Latest call with the next scripted step.
type scriptSource struct {
	mu    sync.Mutex
	steps []step
	calls int
}

type step struct {
	aggs map[metals.Metal]Agg
	err  error
}

func (s *scriptSource) Latest(context.Context) (map[metals.Metal]Agg, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if len(s.steps) == 0 {
		return nil, errors.New("script exhausted")
	}
	st := s.steps[0]
	if len(s.steps) > 1 {
		s.steps = s.steps[1:]
	}
	return st.aggs, st.err
}

func agg(m metals.Metal, price string, asOf time.Time, sources ...string) Agg {
	if len(sources) == 0 {
		sources = []string{"p"}
	}
	return Agg{Quote: Quote{Metal: m, Price: dec(price), AsOf: asOf, Source: sources[0]}, Sources: sources, SpreadPct: decimal.Zero}
}

func tick(asOf time.Time, kv ...string) step {
	aggs := map[metals.Metal]Agg{}
	for i := 0; i < len(kv); i += 2 {
		aggs[metals.Metal(kv[i])] = agg(metals.Metal(kv[i]), kv[i+1], asOf)
	}
	return step{aggs: aggs}
}

type spotWant struct {
	price, prev, change, pct string
	stale                    bool
}

func checkSpot(t *testing.T, s Snapshot, m metals.Metal, w *spotWant) {
	t.Helper()
	sp, ok := s.Prices[m]
	if w == nil {
		if ok {
			t.Errorf("%s present (%+v), want absent", m, sp)
		}
		return
	}
	if !ok {
		t.Errorf("%s absent", m)
		return
	}
	if !sp.Price.Equal(dec(w.price)) || !sp.PrevClose.Equal(dec(w.prev)) || !sp.Change.Equal(dec(w.change)) || !sp.ChangePct.Equal(dec(w.pct)) || sp.Stale != w.stale {
		t.Errorf("%s = price %s prev %s change %s (%s%%) stale %t; want %s %s %s (%s%%) %t",
			m, sp.Price, sp.PrevClose, sp.Change, sp.ChangePct, sp.Stale, w.price, w.prev, w.change, w.pct, w.stale)
	}
	if sp.Metal != m || sp.Symbol != m.Symbol() {
		t.Errorf("%s labelled %s/%s", m, sp.Metal, sp.Symbol)
	}
}

func TestFeedScenarios(t *testing.T) {
	g, s := metals.Gold, metals.Silver
	wed := et(2026, 3, 4, 15, 0) // a Wednesday afternoon, markets open
	type check struct {
		at   time.Time // clock when snapshot is taken
		want map[metals.Metal]*spotWant
	}
	type act struct {
		clock   time.Time
		poll    *step // nil = no poll
		wantErr bool
		check   check
	}
	tests := []struct {
		name      string
		seed      map[metals.Metal]Quote
		seedPrev  map[metals.Metal]Close
		acts      []act
		wantTicks int
	}{
		{
			name:     "seed is served stale until a live tick",
			seed:     map[metals.Metal]Quote{g: {Metal: g, Price: dec("4000"), AsOf: wed.Add(-time.Hour), Source: "db"}},
			seedPrev: map[metals.Metal]Close{g: {Price: dec("3990")}},
			acts: []act{
				{clock: wed, check: check{wed, map[metals.Metal]*spotWant{g: {"4000", "3990", "10", "0.25", true}, s: nil}}},
				{clock: wed, poll: ptr(tick(wed, "gold", "4010", "silver", "58.41")), check: check{wed, map[metals.Metal]*spotWant{
					g: {"4010", "3990", "20", "0.5", false},
					s: {"58.41", "0", "0", "0", false}, // no previous close known: no change invented
				}}},
			},
			wantTicks: 1,
		},
		{
			name:     "a seed from an earlier session becomes the previous close",
			seed:     map[metals.Metal]Quote{g: {Metal: g, Price: dec("4000"), AsOf: et(2026, 3, 3, 16, 59), Source: "db"}},
			seedPrev: map[metals.Metal]Close{g: {Price: dec("3990")}},
			acts: []act{
				{clock: wed, poll: ptr(tick(wed, "gold", "4020")), check: check{wed, map[metals.Metal]*spotWant{g: {"4020", "4000", "20", "0.5", false}}}},
			},
			wantTicks: 1,
		},
		{
			name: "a new session rolls the previous close",
			acts: []act{
				{clock: wed, poll: ptr(tick(wed, "gold", "4000")), check: check{wed, map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", false}}}},
				{clock: wed.Add(time.Hour), poll: ptr(tick(wed.Add(time.Hour), "gold", "4010")), check: check{wed.Add(time.Hour), map[metals.Metal]*spotWant{g: {"4010", "0", "0", "0", false}}}},
				// 18:05 Wednesday belongs to Thursday's session: Wednesday's last price becomes the close.
				{clock: et(2026, 3, 4, 18, 5), poll: ptr(tick(et(2026, 3, 4, 18, 5), "gold", "4030.5")), check: check{et(2026, 3, 4, 18, 5), map[metals.Metal]*spotWant{g: {"4030.50", "4010", "20.50", "0.51", false}}}},
				{clock: et(2026, 3, 5, 10, 0), poll: ptr(tick(et(2026, 3, 5, 10, 0), "gold", "3990")), check: check{et(2026, 3, 5, 10, 0), map[metals.Metal]*spotWant{g: {"3990", "4010", "-20", "-0.5", false}}}},
			},
			wantTicks: 4,
		},
		{
			name: "weekend ticks keep Friday's change",
			acts: []act{
				{clock: et(2026, 3, 5, 16, 0), poll: ptr(tick(et(2026, 3, 5, 16, 0), "gold", "4000")), check: check{et(2026, 3, 5, 16, 0), nil}},
				{clock: et(2026, 3, 6, 16, 59), poll: ptr(tick(et(2026, 3, 6, 16, 59), "gold", "4040")), check: check{et(2026, 3, 6, 16, 59), map[metals.Metal]*spotWant{g: {"4040", "4000", "40", "1", false}}}},
				{clock: et(2026, 3, 7, 12, 0), poll: ptr(tick(et(2026, 3, 6, 16, 59), "gold", "4040")), check: check{et(2026, 3, 7, 12, 0), map[metals.Metal]*spotWant{g: {"4040", "4000", "40", "1", false}}}},
				{clock: et(2026, 3, 8, 18, 1), poll: ptr(tick(et(2026, 3, 8, 18, 1), "gold", "4050")), check: check{et(2026, 3, 8, 18, 1), map[metals.Metal]*spotWant{g: {"4050", "4040", "10", "0.25", false}}}},
			},
			wantTicks: 4,
		},
		{
			name: "prices age into staleness and recover",
			acts: []act{
				{clock: wed, poll: ptr(tick(wed, "gold", "4000", "silver", "58")), check: check{wed.Add(3 * time.Minute), map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", false}, s: {"58", "0", "0", "0", false}}}},
				{clock: wed.Add(2 * time.Minute), poll: ptr(tick(wed.Add(2*time.Minute), "gold", "4001")), check: check{wed.Add(3*time.Minute + time.Second), map[metals.Metal]*spotWant{g: {"4001", "0", "0", "0", false}, s: {"58", "0", "0", "0", true}}}},
				{clock: wed.Add(4 * time.Minute), check: check{wed.Add(5*time.Minute + time.Second), map[metals.Metal]*spotWant{g: {"4001", "0", "0", "0", true}, s: {"58", "0", "0", "0", true}}}},
				{clock: wed.Add(6 * time.Minute), poll: ptr(tick(wed.Add(6*time.Minute), "silver", "58.1")), check: check{wed.Add(6 * time.Minute), map[metals.Metal]*spotWant{g: {"4001", "0", "0", "0", true}, s: {"58.10", "0", "0", "0", false}}}},
			},
			wantTicks: 3,
		},
		{
			name: "a spike is held for one poll, then confirmed",
			seed: map[metals.Metal]Quote{g: {Metal: g, Price: dec("4000"), AsOf: wed.Add(-time.Minute), Source: "db"}},
			acts: []act{
				{clock: wed, poll: ptr(tick(wed, "gold", "4500", "silver", "58")), check: check{wed, map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", true}, s: {"58", "0", "0", "0", false}}}},
				{clock: wed.Add(time.Minute), poll: ptr(tick(wed.Add(time.Minute), "gold", "4510")), check: check{wed.Add(time.Minute), map[metals.Metal]*spotWant{g: {"4510", "0", "0", "0", false}}}},
			},
			wantTicks: 2,
		},
		{
			name: "a glitch is dropped",
			acts: []act{
				{clock: wed, poll: ptr(tick(wed, "gold", "4000")), check: check{wed, nil}},
				{clock: wed.Add(time.Minute), poll: ptr(tick(wed.Add(time.Minute), "gold", "400")), check: check{wed.Add(time.Minute), map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", false}}}},
				{clock: wed.Add(2 * time.Minute), poll: ptr(tick(wed.Add(2*time.Minute), "gold", "4002")), check: check{wed.Add(2 * time.Minute), map[metals.Metal]*spotWant{g: {"4002", "0", "0", "0", false}}}},
			},
			wantTicks: 3,
		},
		{
			name: "failures change nothing and do not tick",
			acts: []act{
				{clock: wed, poll: ptr(tick(wed, "gold", "4000")), check: check{wed, nil}},
				{clock: wed.Add(time.Minute), poll: &step{err: errors.New("all down")}, wantErr: true, check: check{wed.Add(time.Minute), map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", false}}}},
				{clock: wed.Add(time.Minute), poll: &step{aggs: map[metals.Metal]Agg{}}, wantErr: true, check: check{wed.Add(time.Minute), map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", false}, s: nil}}},
				{clock: wed.Add(time.Minute), poll: ptr(tick(wed, "gold", "-4")), check: check{wed.Add(time.Minute), map[metals.Metal]*spotWant{g: {"4000", "0", "0", "0", false}}}},
			},
			wantTicks: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{now: wed}
			src := &scriptSource{}
			var ticks atomic.Int32
			f := NewFeed(src, FeedOptions{Interval: time.Minute, Clock: clock.Now, OnTick: func(Snapshot) { ticks.Add(1) }})
			if tt.seed != nil {
				f.Seed(tt.seed, tt.seedPrev)
			}
			for i, a := range tt.acts {
				clock.Set(a.clock)
				if a.poll != nil {
					src.steps = []step{*a.poll}
					err := f.PollOnce(context.Background())
					if (err != nil) != a.wantErr {
						t.Fatalf("act %d: PollOnce error = %v, want error %t", i, err, a.wantErr)
					}
				}
				if a.check.want != nil {
					clock.Set(a.check.at)
					snap := f.Snapshot()
					for m, w := range a.check.want {
						checkSpot(t, snap, m, w)
					}
				}
			}
			if got := int(ticks.Load()); got != tt.wantTicks {
				t.Errorf("OnTick called %d times, want %d", got, tt.wantTicks)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestFeedSnapshotFields(t *testing.T) {
	wed := et(2026, 3, 4, 15, 0)
	clock := &fakeClock{now: wed}
	src := &scriptSource{steps: []step{{aggs: map[metals.Metal]Agg{
		metals.Gold:   {Quote: Quote{Metal: metals.Gold, Price: dec("4165.204"), AsOf: wed.Add(-time.Second), Source: "a+b"}, Sources: []string{"a", "b"}, SpreadPct: dec("0.1234")},
		metals.Silver: agg(metals.Silver, "58.41", wed.Add(-2*time.Second), "a"),
	}}}}
	var got Snapshot
	f := NewFeed(src, FeedOptions{Interval: time.Minute, Clock: clock.Now, OnTick: func(s Snapshot) { got = s }})
	if s := f.Snapshot(); len(s.Prices) != 0 || !s.AsOf.IsZero() {
		t.Fatalf("empty feed snapshot = %+v", s)
	}
	if err := f.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	sp := got.Prices[metals.Gold]
	if !sp.Price.Equal(dec("4165.204")) || sp.Source != "a+b" || len(sp.Sources) != 2 || !sp.SpreadPct.Equal(dec("0.12")) || !sp.AsOf.Equal(wed.Add(-time.Second)) {
		t.Errorf("gold spot = %+v", sp)
	}
	if !got.AsOf.Equal(wed.Add(-time.Second)) || !got.MarketsOpen {
		t.Errorf("snapshot AsOf %v open %t", got.AsOf, got.MarketsOpen)
	}
	if len(got.Prices) != 2 {
		t.Errorf("prices = %v", got.Prices)
	}
	clock.Set(et(2026, 3, 7, 12, 0)) // Saturday
	if f.Snapshot().MarketsOpen {
		t.Error("MarketsOpen not re-evaluated per call")
	}
	if s := got.String(); s == "" {
		t.Error("empty String()")
	}
}

func TestFeedSnapshotIsCheap(t *testing.T) {
	wed := et(2026, 3, 4, 15, 0)
	clock := &fakeClock{now: wed}
	f := NewFeed(&scriptSource{steps: []step{tick(wed, "gold", "4000", "silver", "58", "platinum", "1990", "palladium", "1700")}}, FeedOptions{Interval: time.Minute, Clock: clock.Now})
	if err := f.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(200, func() { _ = f.Snapshot() }); n != 0 {
		t.Errorf("Snapshot allocates %v times per call while nothing changes", n)
	}
	clock.Set(wed.Add(10 * time.Minute))
	_ = f.Snapshot() // ages once...
	if n := testing.AllocsPerRun(200, func() { _ = f.Snapshot() }); n != 0 {
		t.Errorf("Snapshot allocates %v times per call once everything is stale", n)
	}
}

func TestFeedApply(t *testing.T) {
	wed := et(2026, 3, 4, 15, 0)
	clock := &fakeClock{now: wed}
	var ticks atomic.Int32
	f := NewFeed(&scriptSource{}, FeedOptions{Interval: time.Minute, Clock: clock.Now, OnTick: func(Snapshot) { ticks.Add(1) }})
	ch, stop := f.Subscribe()
	defer stop()

	leader := Snapshot{AsOf: wed, Prices: map[metals.Metal]Spot{
		metals.Gold:   {Metal: metals.Gold, Price: dec("4010"), PrevClose: dec("4000"), AsOf: wed, Source: "a", Sources: []string{"a"}},
		metals.Silver: {Metal: metals.Silver, Price: dec("58"), AsOf: wed, Source: "a", Stale: true},
		"copper":      {Metal: "copper", Price: dec("4.5"), AsOf: wed},
	}}
	f.Apply(leader)
	select {
	case s := <-ch:
		checkSpot(t, s, metals.Gold, &spotWant{"4010", "4000", "10", "0.25", false})
	case <-time.After(time.Second):
		t.Fatal("subscriber not notified")
	}
	s := f.Snapshot()
	checkSpot(t, s, metals.Silver, &spotWant{"58", "0", "0", "0", true})
	if _, ok := s.Prices["copper"]; ok {
		t.Error("unknown metal adopted")
	}
	// An older message must not roll the price back.
	f.Apply(Snapshot{Prices: map[metals.Metal]Spot{metals.Gold: {Metal: metals.Gold, Price: dec("3900"), AsOf: wed.Add(-time.Minute)}}})
	checkSpot(t, f.Snapshot(), metals.Gold, &spotWant{"4010", "4000", "10", "0.25", false})
	// Applied prices age like polled ones.
	clock.Set(wed.Add(3*time.Minute + time.Second))
	checkSpot(t, f.Snapshot(), metals.Gold, &spotWant{"4010", "4000", "10", "0.25", true})
	if ticks.Load() != 0 {
		t.Error("Apply called OnTick")
	}
}

func TestFeedSubscribe(t *testing.T) {
	wed := et(2026, 3, 4, 15, 0)
	clock := &fakeClock{now: wed}
	src := &scriptSource{}
	f := NewFeed(src, FeedOptions{Interval: time.Minute, Clock: clock.Now})

	ch, stop := f.Subscribe()
	select {
	case s := <-ch:
		t.Fatalf("empty feed delivered %v", s)
	default:
	}
	// A subscriber that never reads does not block polls and ends up with the newest.
	for i := range 5 {
		src.steps = []step{tick(wed, "gold", fmt.Sprintf("40%02d", i))}
		if err := f.PollOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case s := <-ch:
		checkSpot(t, s, metals.Gold, &spotWant{"4004", "0", "0", "0", false})
	default:
		t.Fatal("nothing delivered")
	}
	select {
	case s := <-ch:
		t.Fatalf("more than one pending snapshot: %v", s)
	default:
	}
	// A late subscriber gets the current board at once.
	ch2, stop2 := f.Subscribe()
	if s := <-ch2; s.Prices[metals.Gold].Price.String() != "4004" {
		t.Errorf("late subscriber got %v", s)
	}
	stop()
	stop() // idempotent
	if _, ok := <-ch; ok {
		t.Error("channel open after unsubscribe")
	}
	src.steps = []step{tick(wed, "gold", "4005")}
	if err := f.PollOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := <-ch2; s.Prices[metals.Gold].Price.String() != "4005" {
		t.Errorf("remaining subscriber got %v", s)
	}
	stop2()
}

func TestFeedRunBackoff(t *testing.T) {
	wed := et(2026, 3, 4, 15, 0)
	fail := step{err: errors.New("down")}
	src := &scriptSource{steps: []step{fail, fail, fail, fail, tick(wed, "gold", "4000"), fail, tick(wed, "gold", "4001")}}
	f := NewFeed(src, FeedOptions{Interval: time.Second, MaxBackoff: 3 * time.Second, Clock: func() time.Time { return wed }})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waits []time.Duration
	ready := make(chan time.Time)
	close(ready)
	f.after = func(d time.Duration) <-chan time.Time {
		waits = append(waits, d)
		if len(waits) == 7 {
			cancel()
		}
		return ready
	}
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 3 * time.Second, time.Second, time.Second, time.Second}
	if fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("waits = %v, want %v", waits, want)
	}
	if p := f.Snapshot().Prices[metals.Gold].Price; !p.Equal(dec("4001")) {
		t.Errorf("gold = %s after Run", p)
	}
}

func TestFeedRunStopsPromptly(t *testing.T) {
	f := NewFeed(&scriptSource{steps: []step{tick(time.Now(), "gold", "4000")}}, FeedOptions{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Run ignored cancellation")
	}
	if _, ok := f.Snapshot().Prices[metals.Gold]; !ok {
		t.Error("Run did not poll at once")
	}
}

// TestFeedConcurrent exercises every entry point at once for the race detector.
func TestFeedConcurrent(t *testing.T) {
	wed := et(2026, 3, 4, 15, 0)
	clock := &fakeClock{now: wed}
	src := &scriptSource{steps: []step{tick(wed, "gold", "4000", "silver", "58")}}
	f := NewFeed(src, FeedOptions{Interval: time.Millisecond, Clock: clock.Now, OnTick: func(s Snapshot) { _ = s.Prices[metals.Gold].Price.String() }})
	f.Seed(map[metals.Metal]Quote{metals.Platinum: {Metal: metals.Platinum, Price: dec("1990"), AsOf: wed}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); f.Run(ctx) }()
	for i := range 4 {
		wg.Add(3)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				s := f.Snapshot()
				for _, sp := range s.Prices {
					_ = sp.Price.String()
				}
				clock.Set(wed.Add(time.Duration(i) * time.Millisecond))
			}
		}()
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				f.Apply(Snapshot{Prices: map[metals.Metal]Spot{metals.Palladium: {Metal: metals.Palladium, Price: dec("1700"), AsOf: wed}}})
				_ = f.PollOnce(ctx)
			}
		}()
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				ch, stop := f.Subscribe()
				select {
				case <-ch:
				case <-time.After(time.Millisecond):
				}
				stop()
			}
		}()
	}
	wg.Wait()
	if len(f.Snapshot().Prices) != 4 {
		t.Errorf("prices = %v", f.Snapshot().Prices)
	}
}
