package billing

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/billing/billingtest"
)

// How long a subscription event takes from signed body to committed tier change, against
// the baseline of verifying its signature alone (what any webhook must do). No Stripe call
// is made for subscription events, so stripe-mock is not needed here.

func benchEvent(i int, uid int64) []byte {
	now := time.Now()
	status := StatusActive
	if i%2 == 1 {
		status = StatusCanceled
	}
	typ := EventSubscriptionUpdated
	return billingtest.Event("evt_bench_"+strconv.Itoa(i), typ, now.Add(time.Duration(i)*time.Second),
		billingtest.Subscription("sub_bench_"+strconv.Itoa(i/2), "cus_bench", status, now.Add(time.Hour), map[string]string{"user_id": strconv.FormatInt(uid, 10)}))
}

func BenchmarkWebhookSignatureOnly(b *testing.B) {
	p := benchEvent(0, 1)
	sig := billingtest.Sign(p, testWebhookSecret, time.Now())
	for b.Loop() {
		if _, err := webhook.ConstructEventWithOptions(p, sig, testWebhookSecret, webhook.ConstructEventOptions{Tolerance: WebhookTolerance, IgnoreAPIVersionMismatch: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWebhookSubscriptionEvent(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			var s *db.Store
			if engine == "sqlite" {
				s = dbtest.SQLite(b)
			} else {
				u, ok := dbtest.PostgresURL(b)
				if !ok {
					b.Skip("no OUNCE_TEST_POSTGRES_URL")
				}
				s = dbtest.Postgres(b, u)
			}
			ctx := context.Background()
			u, _ := s.InsertUser(ctx, "bench@example.com", "x", db.TierFree, false)
			_, _ = s.LinkBillingCustomer(ctx, u.ID, "cus_bench")
			svc := New(Deps{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Config: Config{SecretKey: "sk_test_bench", WebhookSecret: testWebhookSecret, PriceMonthly: testPriceMonthly}})
			i := 0
			for b.Loop() {
				p := benchEvent(i, u.ID)
				if res, err := svc.HandleWebhook(ctx, p, billingtest.Sign(p, testWebhookSecret, time.Now())); err != nil || res.Duplicate {
					b.Fatal(res, err)
				}
				i++
			}
		})
	}
}
