package alerts_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/apperr"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// market is a price board the test sets.
type market struct {
	mu   sync.Mutex
	snap prices.Snapshot
}

func (m *market) set(metal metals.Metal, price string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.snap.Prices == nil {
		m.snap.Prices = map[metals.Metal]prices.Spot{}
	}
	m.snap.Prices[metal] = prices.Spot{Metal: metal, Price: decimal.RequireFromString(price)}
}
func (m *market) Snapshot() prices.Snapshot { m.mu.Lock(); defer m.mu.Unlock(); return m.snap }
func (m *market) Subscribe() (<-chan prices.Snapshot, func()) {
	ch := make(chan prices.Snapshot)
	return ch, func() {}
}

type fixture struct {
	store  *db.Store
	svc    *alerts.Service
	clock  *clock
	market *market
}

func newFixture(t testing.TB, s *db.Store, cfg alerts.Config) *fixture {
	t.Helper()
	clk := &clock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
	s.Now = clk.now
	mk := &market{}
	mk.set(metals.Silver, "39.00")
	return &fixture{store: s, clock: clk, market: mk, svc: alerts.New(alerts.Deps{Store: s, Market: mk, Now: clk.now, Config: cfg})}
}

func (f *fixture) user(t *testing.T, email, tier string) db.User {
	t.Helper()
	u, err := f.store.InsertUser(context.Background(), email, "h", tier, false)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func (f *fixture) tick(t *testing.T, price string) alerts.TickResult {
	t.Helper()
	f.clock.add(time.Minute)
	f.market.set(metals.Silver, price)
	r, err := f.svc.Evaluate(context.Background(), alerts.Tick{Metal: metals.Silver, Price: decimal.RequireFromString(price), AsOf: f.clock.now()})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	testKey, _ = ecdh.P256().GenerateKey(rand.Reader)
	testP256   = base64.RawURLEncoding.EncodeToString(testKey.PublicKey().Bytes())
	testAuth   = base64.RawURLEncoding.EncodeToString(make([]byte, 16))
)

func ptr[T any](v T) *T { return &v }

func alertIn(dir, target, repeat string) alerts.AlertInput {
	return alerts.AlertInput{Metal: ptr("silver"), Direction: ptr(dir), TargetPrice: ptr(decimal.RequireFromString(target)), Repeat: ptr(repeat)}
}

func kind(err error) apperr.Kind { return apperr.KindOf(err) }

// TestCrossingTable: an alert fires when the price crosses its target in its direction, once
// per crossing.
func TestCrossingTable(t *testing.T) {
	cases := []struct {
		name                      string
		dir, target, repeat, seed string
		ticks                     []string
		fired                     []int // cumulative firings after each tick
	}{
		{"above crosses up", "above", "40", "once", "39", []string{"39.50", "40.50"}, []int{0, 1}},
		{"below crosses down", "below", "40", "once", "41", []string{"40.50", "39.50"}, []int{0, 1}},
		{"above is not fired by a fall", "above", "40", "once", "41", []string{"39", "38"}, []int{0, 0}},
		{"gap over the target", "above", "40", "once", "35", []string{"48"}, []int{1}},
		{"gap under the target", "below", "40", "once", "45", []string{"31"}, []int{1}},
		{"touching exactly fires above", "above", "40", "once", "39.99", []string{"40.00"}, []int{1}},
		{"touching exactly fires below", "below", "40", "once", "40.01", []string{"40.00"}, []int{1}},
		{"flat never fires", "above", "40", "rearm", "39", []string{"39", "39", "39"}, []int{0, 0, 0}},
		{"flat above the target after firing", "above", "40", "rearm", "39", []string{"41", "41", "41"}, []int{1, 1, 1}},
		{"created while holding waits for a crossing", "above", "40", "once", "45", []string{"46", "39.99", "40.10"}, []int{0, 0, 1}},
		{"once fires once", "above", "40", "once", "39", []string{"41", "30", "41"}, []int{1, 1, 1}},
		{"rearm needs 0.5 % back", "above", "40", "rearm", "39", []string{"41", "39.81", "41", "39.80", "40"}, []int{1, 1, 1, 1, 2}},
		{"rearm below", "below", "40", "rearm", "41", []string{"39", "40.19", "39", "40.20", "39.99"}, []int{1, 1, 1, 1, 2}},
	}
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, alerts.Config{})
		ctx := context.Background()
		for i, c := range cases {
			u := f.user(t, fmt.Sprintf("c%d@example.com", i), db.TierGold)
			// Each case owns the board: the seed is the price when the alert is made.
			f.market.set(metals.Silver, c.seed)
			a, err := f.svc.Create(ctx, u, alertIn(c.dir, c.target, c.repeat))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for j, p := range c.ticks {
				f.tick(t, p)
				got, err := f.store.Alert(ctx, u.ID, a.ID)
				if err != nil {
					t.Fatal(err)
				}
				if int(got.FiredCount) != c.fired[j] {
					t.Fatalf("%s: after tick %d (%s) fired %d times, want %d", c.name, j, p, got.FiredCount, c.fired[j])
				}
			}
			// Retire the case's alert so the next case starts clean.
			if err := f.svc.Delete(ctx, u, a.ID); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSpikeHeldTickNeverFires drives the real price feed: a jump the spike guard holds is not
// published, so no alert fires on it; the confirming tick is a real price and fires.
func TestSpikeHeldTickNeverFires(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, alerts.Config{})
		ctx := context.Background()
		src := &source{}
		feed := prices.NewFeed(src, prices.FeedOptions{Clock: f.clock.now})
		f.svc = alerts.New(alerts.Deps{Store: s, Market: feed, Now: f.clock.now})
		src.set("39.00")
		if err := feed.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
		u := f.user(t, "spike@example.com", db.TierGold)
		a, err := f.svc.Create(ctx, u, alertIn("above", "40", "once"))
		if err != nil || !a.Armed {
			t.Fatalf("alert %+v err %v: want armed at 39", a, err)
		}
		ch, unsub := feed.Subscribe()
		defer unsub()
		next := func() prices.Snapshot { t.Helper(); return <-ch }
		next()           // the current board
		src.set("45.00") // +15 %: held for confirmation
		if err := feed.PollOnce(ctx); err != nil {
			t.Fatal(err)
		}
		snap := next()
		f.svc.EvaluateSnapshot(ctx, snap)
		if got, _ := f.store.Alert(ctx, u.ID, a.ID); got.FiredCount != 0 {
			t.Fatalf("a held spike fired the alert (board %s)", snap)
		}
		// A tick flagged as a spike never fires either.
		if r, err := f.svc.Evaluate(ctx, alerts.Tick{Metal: metals.Silver, Price: decimal.RequireFromString("45"), Spike: true}); err != nil || r.Fired != 0 {
			t.Fatalf("spike-flagged tick: %+v %v", r, err)
		}
		if err := feed.PollOnce(ctx); err != nil { // the same jump again: confirmed
			t.Fatal(err)
		}
		f.svc.EvaluateSnapshot(ctx, next())
		if got, _ := f.store.Alert(ctx, u.ID, a.ID); got.FiredCount != 1 {
			t.Fatalf("confirmed price fired %d times, want 1", got.FiredCount)
		}
	})
}

type source struct {
	mu    sync.Mutex
	price decimal.Decimal
}

func (s *source) set(p string) { s.mu.Lock(); s.price = decimal.RequireFromString(p); s.mu.Unlock() }
func (s *source) Latest(context.Context) (map[metals.Metal]prices.Agg, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[metals.Metal]prices.Agg{metals.Silver: {Quote: prices.Quote{Metal: metals.Silver, Price: s.price, Source: "test"}}}, nil
}

func TestAlertRules(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, alerts.Config{})
		ctx := context.Background()
		free := f.user(t, "free@example.com", db.TierFree)
		gold := f.user(t, "gold@example.com", db.TierGold)
		other := f.user(t, "other@example.com", db.TierGold)

		bad := []alerts.AlertInput{
			alertIn("above", "0", "once"), alertIn("above", "-1", "once"), alertIn("above", "10000000.01", "once"),
			alertIn("sideways", "40", "once"), alertIn("above", "40", "twice"), alertIn("above", "40.00001", "once"),
			{Metal: ptr("tin"), Direction: ptr("above"), TargetPrice: ptr(decimal.NewFromInt(40))},
			{Direction: ptr("above"), TargetPrice: ptr(decimal.NewFromInt(40))},
		}
		for _, in := range bad {
			if _, err := f.svc.Create(ctx, gold, in); kind(err) != apperr.Invalid {
				t.Fatalf("%+v: err %v, want invalid", in, err)
			}
		}
		if _, err := f.svc.Create(ctx, gold, alertIn("above", "10000000", "once")); err != nil {
			t.Fatal("10^7 is allowed:", err)
		}
		// Free members may hold one alert.
		if _, err := f.svc.Create(ctx, free, alertIn("above", "40", "once")); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Create(ctx, free, alertIn("above", "41", "once")); !errors.Is(err, apperr.ErrMembershipRequired) {
			t.Fatalf("second free alert: %v", err)
		}
		for i := 1; i < alerts.MaxAlerts; i++ {
			if _, err := f.svc.Create(ctx, gold, alertIn("below", fmt.Sprint(10+i), "rearm")); err != nil {
				t.Fatal(i, err)
			}
		}
		if _, err := f.svc.Create(ctx, gold, alertIn("below", "5", "once")); kind(err) != apperr.Conflict {
			t.Fatalf("alert 51: %v", err)
		}
		list, _ := f.svc.List(ctx, gold)
		if len(list) != alerts.MaxAlerts {
			t.Fatalf("%d alerts", len(list))
		}
		id := list[0].ID
		if _, err := f.svc.Update(ctx, other, id, alerts.AlertInput{Enabled: ptr(false)}); kind(err) != apperr.NotFound {
			t.Fatalf("other's patch: %v", err)
		}
		if err := f.svc.Delete(ctx, other, id); kind(err) != apperr.NotFound {
			t.Fatalf("other's delete: %v", err)
		}
		a, err := f.svc.Update(ctx, gold, id, alerts.AlertInput{Enabled: ptr(false)})
		if err != nil || a.Enabled {
			t.Fatal(a, err)
		}
		// Toggle resumes a paused alert and pauses it again; another member's is not found.
		if a, err := f.svc.Toggle(ctx, gold, id); err != nil || !a.Enabled {
			t.Fatalf("toggle a paused alert: %+v %v", a, err)
		}
		if a, err := f.svc.Toggle(ctx, gold, id); err != nil || a.Enabled || a.State() != alerts.StatePaused {
			t.Fatalf("toggle an enabled alert: %+v %v", a, err)
		}
		// Each state follows from the fields the firing and re-arming rules set.
		states := map[string]alerts.Alert{
			alerts.StateWatching:   {Enabled: true, Armed: true, Direction: alerts.Below},
			alerts.StateFired:      {Enabled: false, Repeat: alerts.Once, LastTriggeredAt: ptr(time.Now())},
			alerts.StatePaused:     {Enabled: false, Repeat: alerts.Rearm, LastTriggeredAt: ptr(time.Now())},
			alerts.StateWaitsUnder: {Enabled: true, Direction: alerts.Above},
			alerts.StateWaitsOver:  {Enabled: true, Direction: alerts.Below},
		}
		for want, a := range states {
			if got := a.State(); got != want {
				t.Errorf("%+v: state %q, want %q", a, got, want)
			}
		}
		if _, err := f.svc.Toggle(ctx, other, id); kind(err) != apperr.NotFound {
			t.Fatalf("other's toggle: %v", err)
		}
		if alerts.CanCreate(gold, alerts.MaxAlerts) || !alerts.CanCreate(gold, alerts.MaxAlerts-1) || alerts.CanCreate(free, 1) || !alerts.CanCreate(free, 0) {
			t.Error("CanCreate disagrees with the limits Create enforces")
		}
		if err := f.svc.Delete(ctx, gold, id); err != nil {
			t.Fatal(err)
		}
	})
}

func TestDeviceRules(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, alerts.Config{})
		ctx := context.Background()
		a := f.user(t, "a@example.com", db.TierFree)
		b := f.user(t, "b@example.com", db.TierFree)
		tok := "ExponentPushToken[abcdefghijklmnopqrstuv]"
		for _, in := range []alerts.DeviceInput{
			{Platform: "ios", Token: "abc"}, {Platform: "android", Token: "ExponentPushToken[]"}, {Platform: "fax", Token: tok},
			{Platform: "web", Endpoint: "http://push.example/x", P256dh: testP256, Auth: testAuth},
			{Platform: "web", Endpoint: "https://push.example/x", P256dh: "AAAA", Auth: testAuth},
			{Platform: "web", Endpoint: "https://push.example/x", P256dh: testP256, Auth: "AAAA"},
		} {
			if _, err := f.svc.Register(ctx, a, in); kind(err) != apperr.Invalid {
				t.Fatalf("%+v: %v", in, err)
			}
		}
		d, err := f.svc.Register(ctx, a, alerts.DeviceInput{Platform: "ios", Token: tok})
		if err != nil || d.ID == 0 {
			t.Fatal(d, err)
		}
		if _, err := f.svc.Register(ctx, a, alerts.DeviceInput{Platform: "web", Endpoint: "https://push.example/x", P256dh: testP256, Auth: testAuth}); err != nil {
			t.Fatal(err)
		}
		// b may not delete a's token; registering it moves it to b.
		if err := f.svc.Unregister(ctx, b, tok); kind(err) != apperr.NotFound {
			t.Fatalf("delete other's: %v", err)
		}
		if _, err := f.svc.Register(ctx, b, alerts.DeviceInput{Platform: "android", Token: tok}); err != nil {
			t.Fatal(err)
		}
		if ds, _ := f.svc.Devices(ctx, a); len(ds) != 1 {
			t.Fatalf("a has %d devices after the move", len(ds))
		}
		if err := f.svc.Unregister(ctx, b, tok); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < alerts.MaxDevices; i++ {
			if _, err := f.svc.Register(ctx, a, alerts.DeviceInput{Platform: "ios", Token: fmt.Sprintf("ExpoPushToken[device%020d]", i)}); err != nil {
				t.Fatal(i, err)
			}
		}
		if _, err := f.svc.Register(ctx, a, alerts.DeviceInput{Platform: "ios", Token: "ExpoPushToken[onetoomanydevice]"}); kind(err) != apperr.Conflict {
			t.Fatalf("device 21: %v", err)
		}
		// Re-registering one it holds is not a new device.
		if _, err := f.svc.Register(ctx, a, alerts.DeviceInput{Platform: "ios", Token: fmt.Sprintf("ExpoPushToken[device%020d]", 3)}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTwoInstancesOneNotification: two instances on one PostgreSQL evaluate the same tick at
// the same moment; the member is told once.
func TestTwoInstancesOneNotification(t *testing.T) {
	base, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip("OUNCE_TEST_POSTGRES_URL not set: this test needs PostgreSQL")
	}
	u := dbtest.PostgresSchema(t, base)
	s1, s2 := dbtest.OpenPostgres(t, u), dbtest.OpenPostgres(t, u)
	f := newFixture(t, s1, alerts.Config{})
	s2.Now = f.clock.now
	other := alerts.New(alerts.Deps{Store: s2, Market: f.market, Now: f.clock.now})
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		m := f.user(t, fmt.Sprintf("m%d@example.com", round), db.TierGold)
		if _, err := f.svc.Register(ctx, m, alerts.DeviceInput{Platform: "ios", Token: fmt.Sprintf("ExpoPushToken[twoinstances%08d]", round)}); err != nil {
			t.Fatal(err)
		}
		f.market.set(metals.Silver, "39")
		if _, err := f.svc.Create(ctx, m, alertIn("above", "40", "once")); err != nil {
			t.Fatal(err)
		}
		tick := alerts.Tick{Metal: metals.Silver, Price: decimal.RequireFromString("40.10"), AsOf: f.clock.now()}
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make([]alerts.TickResult, 2)
		for i, svc := range []*alerts.Service{f.svc, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r, err := svc.Evaluate(ctx, tick)
				if err != nil {
					t.Error(err)
				}
				results[i] = r
			}()
		}
		close(start)
		wg.Wait()
		if n := results[0].Fired + results[1].Fired; n != 1 {
			t.Fatalf("round %d: fired %d times across two instances", round, n)
		}
		ns, _ := f.svc.Notifications(ctx, m, 10)
		rows, _ := s1.OutboxRows(ctx, m.ID)
		if len(ns) != 1 || len(rows) != 1 {
			t.Fatalf("round %d: %d notifications, %d outbox rows", round, len(ns), len(rows))
		}
		// Back under, so the next round's alert starts armed.
		f.tick(t, "39")
	}
}

// TestFiredSince: the daily brief's view of a member's firings.
func TestFiredSince(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		f := newFixture(t, s, alerts.Config{})
		ctx := context.Background()
		u := f.user(t, "brief@example.com", db.TierGold)
		other := f.user(t, "other@example.com", db.TierGold)
		since := f.clock.now()
		for _, m := range []db.User{u, other} {
			if _, err := f.svc.Create(ctx, m, alertIn("above", "40", "rearm")); err != nil {
				t.Fatal(err)
			}
		}
		f.tick(t, "40.25")
		f.tick(t, "39.50")
		f.tick(t, "40.75")
		got, err := f.svc.FiredSince(ctx, u.ID, since)
		if err != nil || len(got) != 2 {
			t.Fatalf("%+v %v", got, err)
		}
		g := got[0]
		if g.Metal != metals.Silver || g.Direction != "above" || !g.TargetPrice.Equal(decimal.NewFromInt(40)) || g.FiredPrice.String() != "40.25" || g.FiredAt.Before(since) {
			t.Fatalf("first firing %+v", g)
		}
		if later, _ := f.svc.FiredSince(ctx, u.ID, f.clock.now().Add(time.Second)); len(later) != 0 {
			t.Fatalf("firings after now: %+v", later)
		}
	})
}

// TestNotificationWordsGroupThousands: a notification's title and body write prices with the
// one formatter: separators, cents, and a source's third decimal kept.
func TestNotificationWordsGroupThousands(t *testing.T) {
	n := alerts.Notification{Metal: metals.Gold, Direction: "below", TargetPrice: decimal.RequireFromString("4410"), Price: decimal.RequireFromString("4405.8")}
	if got := n.Title(); got != "Gold below $4,410.00" {
		t.Errorf("title %q", got)
	}
	if got := n.Body(); got != "Gold is at $4,405.80 an ounce, below your target of $4,410.00." {
		t.Errorf("body %q", got)
	}
	s := alerts.Notification{Metal: metals.Silver, Direction: "above", TargetPrice: decimal.RequireFromString("63.9"), Price: decimal.RequireFromString("63.935")}
	if got := s.Body(); got != "Silver is at $63.935 an ounce, above your target of $63.90." {
		t.Errorf("body %q", got)
	}
}
