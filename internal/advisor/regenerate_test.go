package advisor

import (
	"context"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/apperr"
)

// TestRegenerateUsesQuota (issue 22 item 5): writing today's brief again costs a model call,
// so each regeneration is one of the day's advisor messages; once they are used the next is
// refused (RateLimited with the reset) and the model is not asked. The first brief of the day
// costs no message. Both engines.
func TestRegenerateUsesQuota(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, s *db.Store) {
		ctx := context.Background()
		model := newFakeModel(t, func(int, map[string]any) turn { return turn{Content: "not a brief"} })
		fx := newFixture(t, s, Config{LLMBaseURL: model.srv.URL + "/v1", LLMModel: "fake-model", LLMAPIKey: "sk-test", LLMTimeout: 5 * time.Second}, true)
		if _, created, err := fx.svc.GenerateBrief(ctx, fx.gold, false, ""); err != nil || !created {
			t.Fatalf("first brief: %v %v", created, err)
		}
		if q, _ := fx.svc.QuotaOf(ctx, fx.gold); q.Used != 0 {
			t.Fatalf("the first brief of the day used %d messages", q.Used)
		}
		// Spend all but one of today's messages, as chats would.
		day, _ := localDay(fx.gold, *fx.clock)
		for range GoldDailyQuota - 1 {
			if ok, err := s.UseAdvisorQuota(ctx, fx.gold.ID, day, GoldDailyQuota); err != nil || !ok {
				t.Fatalf("spending the quota: %v %v", ok, err)
			}
		}
		calls := len(model.requests())
		if _, _, err := fx.svc.GenerateBrief(ctx, fx.gold, true, ""); err != nil {
			t.Fatalf("regenerate with one message left: %v", err)
		}
		if got := len(model.requests()); got != calls+1 {
			t.Fatalf("model calls for one regeneration: %d", got-calls)
		}
		_, _, err := fx.svc.GenerateBrief(ctx, fx.gold, true, "")
		if e, ok := apperr.As(err); !ok || e.Kind != apperr.RateLimited || e.RetryAfter <= 0 {
			t.Fatalf("regenerate past the quota: %v", err)
		}
		if got := len(model.requests()); got != calls+1 {
			t.Errorf("the refused regeneration still asked the model (%d calls)", got-calls)
		}
		// Reading today's brief is still free.
		if _, created, err := fx.svc.GenerateBrief(ctx, fx.gold, false, ""); err != nil || created {
			t.Fatalf("reading today's brief after the quota: %v %v", created, err)
		}
	})
}
