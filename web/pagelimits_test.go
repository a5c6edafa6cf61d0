package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ouncehq/ounce/internal/app"
)

// TestCostlyPagesLimited (issue 22 item 5): page POSTs that cost a model call are limited per
// member like /v1. With a limit of 3 a minute, three regenerations of the brief each ask the
// model; the fourth is a 429 page with Retry-After, and the model hears nothing of it.
func TestCostlyPagesLimited(t *testing.T) {
	var calls atomic.Int64
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"not a brief"}}]}`))
	}))
	defer model.Close()
	const limit = 3
	mod := func(o *app.Options) {
		offline(t)(o)
		o.Config.Advisor.LLMBaseURL, o.Config.Advisor.LLMModel = model.URL, "fake-model"
		o.Config.HTTP.CostlyPerMember = limit
	}
	eachEngine(t, mod, func(t *testing.T, e *env) {
		advisorLive(e)
		b := e.browser()
		b.signUp("regen@example.test")
		b.get("/brief")
		before := calls.Load()
		for i := range limit {
			if r := b.post("/brief/generate", url.Values{"regenerate": {"true"}}, false); r.Status != http.StatusSeeOther {
				t.Fatalf("regeneration %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		if got := calls.Load() - before; got != limit {
			t.Fatalf("model calls for %d regenerations: %d", limit, got)
		}
		r := b.post("/brief/generate", url.Values{"regenerate": {"true"}}, false)
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), "At most 3 of these requests a minute") {
			t.Fatalf("regeneration past the limit: %d Retry-After %q %s", r.Status, r.Header.Get("Retry-After"), r.Body)
		}
		if got := calls.Load() - before; got != limit {
			t.Errorf("the refused regeneration asked the model: %d calls", got)
		}
		// Another member has a budget of their own.
		other := e.browser()
		other.signUp("regen-other@example.test")
		other.get("/brief")
		if r := other.post("/brief/generate", url.Values{"regenerate": {"true"}}, false); r.Status != http.StatusSeeOther {
			t.Fatalf("another member: %d", r.Status)
		}
		// A page that costs nothing is not limited.
		if r := b.get("/brief"); r.Status != http.StatusOK {
			t.Fatalf("reading the brief page after the limit: %d", r.Status)
		}
	})
}
