package prices_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/metals"
	"github.com/ouncehq/ounce/internal/prices"
)

// TestOneLeaderPollsAndFollowersHearItsTicks runs two instances over one PostgreSQL: only
// the advisory-lock holder polls the provider (a loopback replay of gold-api payloads), and
// the other receives its prices over LISTEN/NOTIFY, live rather than stale.
func TestOneLeaderPollsAndFollowersHearItsTicks(t *testing.T) {
	url, ok := dbtest.PostgresURL(t)
	if !ok {
		t.Skip("needs PostgreSQL (OUNCE_TEST_POSTGRES_URL); required under CI=true")
	}
	payloads := map[string][]byte{}
	for _, sym := range []string{"XAU", "XAG"} {
		b, err := os.ReadFile("testdata/gold-api/" + sym + "_ok.json")
		if err != nil {
			t.Fatal(err)
		}
		payloads[sym] = b
	}
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sym := strings.TrimPrefix(r.URL.Path, "/price/")
		if b, ok := payloads[sym]; ok {
			// The recorded answer, stamped now: a live quote is newer than the embedded
			// history's last close, which a follower that seeded before the leader's first
			// tick was stored would otherwise keep as the newer price.
			var body map[string]any
			if err := json.Unmarshal(b, &body); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			body["updatedAt"] = time.Now().UTC().Format(time.RFC3339)
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(body)
			return
		}
		http.Error(w, `{"error":"not recorded"}`, http.StatusNotFound)
	}))
	defer provider.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	shared := dbtest.PostgresSchema(t, url)
	first, second := dbtest.OpenPostgres(t, shared), dbtest.OpenPostgres(t, shared)
	start := func(s *db.Store) *prices.Service {
		svc, err := prices.NewService(ctx, s, prices.ServiceConfig{
			Providers: []prices.Provider{prices.NewGoldAPICom(provider.URL, provider.Client())},
			Interval:  300 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		go svc.Run(ctx)
		return svc
	}
	a, b := start(first), start(second)

	deadline := time.Now().Add(20 * time.Second)
	for {
		leaders := 0
		for _, s := range []*prices.Service{a, b} {
			if s.IsLeader() {
				leaders++
			}
		}
		fa, fb := a.Snapshot().Prices[metals.Gold], b.Snapshot().Prices[metals.Gold]
		if leaders == 1 && !fa.Stale && !fb.Stale && fa.Price.Equal(fb.Price) && fa.Source == "gold-api" && fb.Source == "gold-api" {
			break
		}
		if leaders > 1 {
			t.Fatal("two instances lead at once")
		}
		if time.Now().After(deadline) {
			t.Fatalf("no agreement: leaders=%d a=%+v b=%+v", leaders, fa, fb)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The leader stored the tick, so a restart would seed from it.
	latest, err := first.Latest(ctx)
	if err != nil || len(latest) == 0 || latest[0].Source != "gold-api" {
		t.Fatalf("latest quotes: %+v %v", latest, err)
	}
}
