package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/alerts"
	"github.com/ouncehq/ounce/internal/app"
	"github.com/ouncehq/ounce/internal/metals"
)

type briefOut struct {
	Brief struct {
		Date, Headline, Body, Writer string
		GeneratedAt                  string `json:"generated_at"`
		Stale                        bool
		Figures                      struct {
			StackValue *float64 `json:"stack_value"`
			ChangeFrom *string  `json:"change_from"`
			ByMetal    map[string]struct {
				HeldOz    float64  `json:"held_oz"`
				BreakEven *float64 `json:"break_even"`
			} `json:"by_metal"`
		}
		Sections []struct{ Title, Text string }
	}
}

type chatOut struct {
	ConversationID string `json:"conversation_id"`
	Reply, Writer  string
	Stale          bool
	Facts          []struct{ Label, Value, Source string }
	ToolCalls      []struct{ Name, Arguments string } `json:"tool_calls"`
}

// advisorStack records 10 oz of gold at $2,000 and 500 oz of silver at $25 for the key.
func advisorStack(t *testing.T, e *env, key string) {
	t.Helper()
	for _, h := range []map[string]any{
		{"metal": "gold", "product_name": "Gold Eagle", "quantity": 10, "weight_oz": 1, "purchase_price": 2000, "purchase_date": "2026-05-01"},
		{"metal": "silver", "product_name": "Silver Eagle", "quantity": 500, "weight_oz": 1, "purchase_price": 25, "purchase_date": "2026-05-01"},
	} {
		if r := e.api("POST", "/v1/holdings", key, h); r.Status != 201 {
			t.Fatalf("holding: %d %s", r.Status, r.Body)
		}
	}
}

func advisorLive(e *env) {
	setPrices(e.app.Market, intelNow, map[metals.Metal][2]string{
		metals.Gold: {"2650.40", "2641.15"}, metals.Silver: {"31.25", "30.90"}, metals.Platinum: {"980.00", "975.50"}, metals.Palladium: {"1010.00", "1020.00"},
	})
}

// TestAdvisorAPI runs the brief and chat scenarios on one app per engine.
func TestAdvisorAPI(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		advisorLive(e)
		a, keyA := e.user("stacker-a@example.test", db.TierGold)
		b, keyB := e.user("stacker-b@example.test", db.TierGold)
		advisorStack(t, e, keyA)
		t.Run("brief", func(t *testing.T) { advisorBrief(t, e, a, b, keyA, keyB) })
		t.Run("chat and IDOR", func(t *testing.T) { advisorChat(t, e, a, b, keyA, keyB) })
		t.Run("validation", func(t *testing.T) { advisorValidation(t, e, keyA) })
		t.Run("quota", func(t *testing.T) { advisorQuota(t, e) })
	})
}

func advisorBrief(t *testing.T, e *env, a, b db.User, keyA, keyB string) {
	wantStatus(t, "no brief yet", e.api("GET", "/v1/daily-brief", keyA, nil), 404, "not-found")
	wantStatus(t, "anonymous", e.api("GET", "/v1/daily-brief", "", nil), 401, "")
	first := e.api("POST", "/v1/daily-brief/generate", keyA, nil)
	wantStatus(t, "generate", first, 201, "")
	var got briefOut
	decodeInto(t, first, &got)
	if got.Brief.Figures.StackValue == nil || *got.Brief.Figures.StackValue != 42129.00 {
		t.Fatalf("stack value: %s", first.Body)
	}
	if got.Brief.Date != "2026-11-20" || !strings.Contains(got.Brief.Body, "$42,129.00") || got.Brief.Stale {
		t.Fatalf("brief: %s", first.Body)
	}
	if be := got.Brief.Figures.ByMetal["silver"].BreakEven; be == nil || *be != 25 {
		t.Fatalf("silver break-even: %s", first.Body)
	}
	again := e.api("POST", "/v1/daily-brief/generate", keyA, nil)
	wantStatus(t, "generate twice", again, 200, "")
	var second briefOut
	decodeInto(t, again, &second)
	if second.Brief.Body != got.Brief.Body || second.Brief.GeneratedAt != got.Brief.GeneratedAt {
		t.Fatalf("second generate changed the brief: %s", again.Body)
	}
	wantStatus(t, "regenerate", e.api("POST", "/v1/daily-brief/generate?regenerate=true", keyA, nil), 201, "")
	wantStatus(t, "bad regenerate", e.api("POST", "/v1/daily-brief/generate?regenerate=maybe", keyA, nil), 400, "invalid-parameter")
	wantStatus(t, "read", e.api("GET", "/v1/daily-brief", keyA, nil), 200, "")
	wantStatus(t, "read own id", e.api("GET", fmt.Sprintf("/v1/daily-brief?userId=%d", a.ID), keyA, nil), 200, "")
	wantStatus(t, "read by date", e.api("GET", "/v1/daily-brief?date=2026-11-20", keyA, nil), 200, "")
	wantStatus(t, "bad date", e.api("GET", "/v1/daily-brief?date=20-11-2026", keyA, nil), 400, "invalid-parameter")

	// B can neither name A nor see A's brief as their own.
	wantStatus(t, "B names A", e.api("GET", fmt.Sprintf("/v1/daily-brief?userId=%d", a.ID), keyB, nil), 403, "forbidden")
	wantStatus(t, "B generates as A", e.api("POST", fmt.Sprintf("/v1/daily-brief/generate?userId=%d", a.ID), keyB, nil), 403, "forbidden")
	wantStatus(t, "B generates as A in body", e.api("POST", "/v1/daily-brief/generate", keyB, map[string]any{"userId": a.ID}), 403, "forbidden")
	wantStatus(t, "B without userId", e.api("GET", "/v1/daily-brief", keyB, nil), 404, "not-found")
	wantStatus(t, "anonymous names A", e.api("GET", fmt.Sprintf("/v1/daily-brief?userId=%d", a.ID), "", nil), 401, "")
	mine := e.api("POST", "/v1/daily-brief/generate", keyB, nil)
	wantStatus(t, "B generates own", mine, 201, "")
	if strings.Contains(string(mine.Body), "42,129") {
		t.Fatalf("B's brief shows A's stack: %s", mine.Body)
	}
	_ = b
}

func advisorChat(t *testing.T, e *env, a, b db.User, keyA, keyB string) {
	r := e.api("POST", "/v1/advisor/chat", keyA, map[string]any{"message": "What's my stack worth?"})
	wantStatus(t, "chat", r, 200, "")
	var out chatOut
	decodeInto(t, r, &out)
	if !strings.Contains(out.Reply, "$42,129.00") || out.Writer != "builtin" || len(out.Facts) == 0 || out.ToolCalls[0].Name != "stack_value" || out.Stale {
		t.Fatalf("reply: %s", r.Body)
	}
	conv := out.ConversationID
	r = e.api("POST", "/v1/advisor/chat", keyA, map[string]any{"message": "and the gold silver ratio?", "conversation_id": conv})
	wantStatus(t, "continue", r, 200, "")
	decodeInto(t, r, &out)
	if out.ConversationID != conv || !strings.Contains(out.Reply, "84.81") {
		t.Fatalf("ratio: %s", r.Body)
	}
	got := e.api("GET", "/v1/advisor/conversations/"+conv, keyA, nil)
	wantStatus(t, "get own", got, 200, "")
	if n := strings.Count(string(got.Body), `"role"`); n != 4 {
		t.Fatalf("want 4 messages, got %d: %s", n, got.Body)
	}
	list := e.api("GET", "/v1/advisor/conversations", keyA, nil).JSON(t)
	if list["total"].(float64) != 1 {
		t.Fatalf("A's list: %v", list)
	}

	// B sees nothing of A's, with or without naming A.
	wantStatus(t, "B reads A's conversation", e.api("GET", "/v1/advisor/conversations/"+conv, keyB, nil), 404, "not-found")
	wantStatus(t, "B names A", e.api("GET", fmt.Sprintf("/v1/advisor/conversations/%s?userId=%d", conv, a.ID), keyB, nil), 403, "forbidden")
	wantStatus(t, "B lists as A", e.api("GET", fmt.Sprintf("/v1/advisor/conversations?userId=%d", a.ID), keyB, nil), 403, "forbidden")
	wantStatus(t, "B deletes A's", e.api("DELETE", "/v1/advisor/conversations/"+conv, keyB, nil), 404, "not-found")
	wantStatus(t, "B continues A's", e.api("POST", "/v1/advisor/chat", keyB, map[string]any{"message": "hi", "conversation_id": conv}), 404, "not-found")
	wantStatus(t, "B chats as A", e.api("POST", "/v1/advisor/chat", keyB, map[string]any{"message": "my stack?", "userId": a.ID}), 403, "forbidden")
	r = e.api("POST", "/v1/advisor/chat", keyB, map[string]any{"message": "what's my stack worth"})
	wantStatus(t, "B's own stack", r, 200, "")
	if strings.Contains(string(r.Body), "42,129") {
		t.Fatalf("B sees A's stack: %s", r.Body)
	}
	if bl := e.api("GET", "/v1/advisor/conversations", keyB, nil).JSON(t); bl["total"].(float64) != 1 {
		t.Fatalf("B's list: %v", bl)
	}
	wantStatus(t, "A deletes", e.api("DELETE", fmt.Sprintf("/v1/advisor/conversations/%s?userId=%d", conv, a.ID), keyA, nil), 204, "")
	wantStatus(t, "gone", e.api("GET", "/v1/advisor/conversations/"+conv, keyA, nil), 404, "not-found")
	_ = b
}

func advisorValidation(t *testing.T, e *env, key string) {
	for _, c := range []struct {
		name  string
		body  any
		field string
	}{
		{"empty", map[string]any{"message": "  "}, "message"},
		{"missing", map[string]any{}, "message"},
		{"too long", map[string]any{"message": strings.Repeat("é", 2001)}, "message"},
		{"not a string", map[string]any{"message": 7}, "message"},
		{"unknown field", map[string]any{"message": "hi", "user": 1}, "user"},
		{"garbage", `{"message":`, "body"},
	} {
		r := e.api("POST", "/v1/advisor/chat", key, c.body)
		wantStatus(t, c.name, r, 400, "invalid-parameter")
		if !strings.Contains(string(r.Body), `"field":"`+c.field+`"`) {
			t.Errorf("%s: field not named: %s", c.name, r.Body)
		}
	}
	wantStatus(t, "2000 characters", e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": strings.Repeat("é", 2000)}), 200, "")
}

func advisorQuota(t *testing.T, e *env) {
	_, key := e.user("free-asker@example.test", db.TierFree)
	for i := 0; i < 5; i++ {
		r := e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": "gold price"})
		wantStatus(t, fmt.Sprintf("free message %d", i+1), r, 200, "")
		if i == 0 && !strings.Contains(string(r.Body), "$2,650.40") {
			t.Fatalf("free member price: %s", r.Body)
		}
	}
	r := e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": "gold price"})
	wantStatus(t, "sixth free message", r, 429, "rate-limited")
	if r.Header.Get("Retry-After") == "" || !strings.Contains(string(r.Body), `"reset_at":"2026-11-21T05:00:00Z"`) {
		t.Fatalf("quota answer: %v %s", r.Header, r.Body)
	}
	// Bad input is refused before it costs a message.
	wantStatus(t, "empty after quota", e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": ""}), 400, "invalid-parameter")
	// Free members cannot read briefs.
	wantStatus(t, "free brief", e.api("GET", "/v1/daily-brief", key, nil), 403, "")
}

// TestAdvisorOffline: with only last known prices the advisor says so and names their dates.
func TestAdvisorOffline(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		_, key := e.user("offline@example.test", db.TierGold)
		advisorStack(t, e, key)
		r := e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": "silver price"})
		wantStatus(t, "price", r, 200, "")
		var out chatOut
		decodeInto(t, r, &out)
		if !out.Stale || !strings.Contains(out.Reply, "last known price, from ") || !strings.Contains(out.Reply, "not live") {
			t.Fatalf("stale price reply: %s", r.Body)
		}
		r = e.api("POST", "/v1/advisor/chat", key, map[string]any{"message": "what is my stack worth"})
		decodeInto(t, r, &out)
		if !out.Stale || !strings.Contains(out.Reply, "price is the last known one, from ") {
			t.Fatalf("stale stack reply: %s", r.Body)
		}
		g := e.api("POST", "/v1/daily-brief/generate", key, nil)
		wantStatus(t, "offline brief", g, 201, "")
		var br briefOut
		decodeInto(t, g, &br)
		if !br.Brief.Stale || !strings.Contains(br.Brief.Body, "last known price from") {
			t.Fatalf("offline brief: %s", g.Body)
		}
	})
}

// TestAdvisorPages: the chat page over HTMX, another member's conversation, the brief list,
// generating from the page and the dashboard's brief card.
func TestAdvisorPages(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		advisorLive(e)
		ann, bob := e.browser(), e.browser()
		ann.signUp("ann-advisor@example.test")
		bob.signUp("bob-advisor@example.test")
		ann.get("/holdings/new")
		for _, f := range []url.Values{
			{"metal": {"gold"}, "product_name": {"Gold Eagle"}, "quantity": {"10"}, "weight_oz": {"1"}, "purchase_price": {"2000"}, "purchase_date": {"2026-05-01"}},
		} {
			if r := ann.post("/holdings", f, false); r.Status != 303 {
				t.Fatalf("holding: %d %s", r.Status, r.Body)
			}
		}
		if r := ann.get("/advisor"); r.Status != 200 || !strings.Contains(string(r.Body), `id="advisor-form"`) {
			t.Fatalf("advisor page: %d", r.Status)
		}
		r := ann.post("/advisor", url.Values{"message": {"what is my stack worth"}}, true)
		if r.Status != 200 || !strings.Contains(string(r.Body), "$26,504.00") || !strings.Contains(string(r.Body), "Facts used") {
			t.Fatalf("ask: %d %s", r.Status, r.Body)
		}
		m := regexp.MustCompile(`id="advisor-conversation-id" name="conversation_id" value="(cv_[0-9a-f]+)"`).FindSubmatch(r.Body)
		if m == nil {
			t.Fatalf("no conversation id in %s", r.Body)
		}
		conv := string(m[1])
		if r := ann.get("/advisor?c=" + conv); r.Status != 200 || !strings.Contains(string(r.Body), "what is my stack worth") {
			t.Fatalf("conversation page: %d", r.Status)
		}
		if r := bob.get("/advisor?c=" + conv); r.Status != 404 || strings.Contains(string(r.Body), "26,504") {
			t.Fatalf("bob reads ann's conversation: %d", r.Status)
		}
		if r := ann.post("/advisor", url.Values{"message": {strings.Repeat("x", 2001)}}, true); r.Status != 200 || !strings.Contains(string(r.Body), "at most 2000") {
			t.Fatalf("long question: %d %s", r.Status, r.Body)
		}
		if r := ann.post("/advisor", url.Values{"message": {"gold price"}}, false); r.Status != 303 {
			t.Fatalf("no-JS ask: %d", r.Status)
		}

		// The card is drawn in the dashboard's own response, not fetched and swapped after it.
		if r := ann.get("/"); !strings.Contains(string(r.Body), `<section id="brief-card"`) || !strings.Contains(string(r.Body), "Generate today") ||
			strings.Contains(string(r.Body), `hx-get="/brief/card"`) {
			t.Fatalf("dashboard lacks the brief card in its first response")
		}
		if r := ann.get("/brief/card"); r.Status != 200 || !strings.Contains(string(r.Body), "Generate today") {
			t.Fatalf("card before: %d %s", r.Status, r.Body)
		}
		ann.get("/brief")
		if r := ann.post("/brief/generate", nil, false); r.Status != 303 {
			t.Fatalf("generate: %d %s", r.Status, r.Body)
		}
		if r := ann.get("/brief"); r.Status != 200 || !strings.Contains(string(r.Body), "$26,504.00") {
			t.Fatalf("brief page: %d", r.Status)
		}
		if r := ann.get("/brief/card"); !strings.Contains(string(r.Body), "$26,504.00") {
			t.Fatalf("card after: %s", r.Body)
		}
		if r := ann.get("/"); !strings.Contains(string(r.Body), "Read the whole brief") || !strings.Contains(string(r.Body), "$26,504.00") {
			t.Fatalf("dashboard card after: %d", r.Status)
		}
		if r := bob.get("/brief"); strings.Contains(string(r.Body), "26,504") {
			t.Fatalf("bob sees ann's brief")
		}
		// A free member, who has no brief, gets no card (GET /brief/card refuses them too).
		e.user("free-advisor@example.test", db.TierFree)
		carl := e.browser()
		carl.get("/login")
		if r := carl.post("/login", url.Values{"email": {"free-advisor@example.test"}, "password": {"correct horse battery"}}, false); r.Status != 303 {
			t.Fatalf("free member sign-in: %d", r.Status)
		}
		if r := carl.get("/"); r.Status != 200 || strings.Contains(string(r.Body), `id="brief-card"`) {
			t.Fatalf("free member's dashboard: %d, card shown: %v", r.Status, strings.Contains(string(r.Body), `id="brief-card"`))
		}
	})
}

// TestAdvisorPageStreams: with a model configured the page's reply streams over SSE and ends
// with the checked reply.
func TestAdvisorPageStreams(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta string) {
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":%s}]}\n\n", delta)
		}
		if !strings.Contains(string(raw), `"role":"tool"`) {
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"spot_price","arguments":"{\"metal\":\"gold\"}"}}]}`)
		} else {
			for _, p := range []string{"Gold is ", "$2,650.40 ", "per ounce."} {
				chunk(`{"content":"` + p + `"}`)
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer model.Close()
	withModel := func(o *app.Options) {
		offline(t)(o)
		o.Config.Advisor.LLMBaseURL, o.Config.Advisor.LLMModel = model.URL, "fake-model"
	}
	eachEngine(t, withModel, func(t *testing.T, e *env) {
		advisorLive(e)
		ann := e.browser()
		ann.signUp("stream-ann@example.test")
		ann.get("/advisor")
		r := ann.post("/advisor", url.Values{"message": {"gold price"}}, true)
		m := regexp.MustCompile(`sse-connect="(/advisor/stream/q_[0-9a-f]+)"`).FindSubmatch(r.Body)
		if m == nil {
			t.Fatalf("no stream: %s", r.Body)
		}
		if other := e.browser(); true {
			other.signUp("stream-bob@example.test")
			if r := other.get(string(m[1])); r.Status != 404 {
				t.Fatalf("bob opens ann's stream: %d", r.Status)
			}
		}
		s := ann.get(string(m[1]))
		body := string(s.Body)
		if s.Status != 200 || !strings.Contains(body, "event: delta\ndata: Gold is") || !strings.Contains(body, "event: done\ndata: <div id=\"reply-") ||
			!strings.Contains(body, "Written by fake-model") {
			t.Fatalf("stream: %d %s", s.Status, body)
		}
		if r := ann.get(string(m[1])); r.Status != 404 {
			t.Fatalf("a stream token works once: %d", r.Status)
		}
	})
}

// The brief names the alerts that fired, read from the alerts service through web's adapter.
func TestBriefNamesFiredAlerts(t *testing.T) {
	eachEngine(t, offline(t), func(t *testing.T, e *env) {
		advisorLive(e)
		_, key := e.user("alerted@example.test", db.TierGold)
		advisorStack(t, e, key)
		r := e.api("POST", "/v1/push/price-alerts", key, map[string]any{"metal": "silver", "direction": "above", "target_price": "32", "repeat": "once"})
		wantStatus(t, "create alert", r, 201, "")
		res, err := e.app.Alerts.Evaluate(context.Background(), alerts.Tick{Metal: metals.Silver, Price: decimal.RequireFromString("32.4150"), AsOf: intelNow})
		if err != nil || res.Fired != 1 {
			t.Fatalf("evaluate: %+v %v", res, err)
		}
		var got briefOut
		g := e.api("POST", "/v1/daily-brief/generate", key, nil)
		wantStatus(t, "generate", g, 201, "")
		decodeInto(t, g, &got)
		if !strings.Contains(got.Brief.Body, "Silver went above $32 (at $32.42 on") {
			t.Fatalf("the brief does not name the fired alert: %s", g.Body)
		}
	})
}

// TestAdvisorMCP: ask_advisor answers a Gold member's key like POST /v1/advisor/chat and is
// not offered to others.
func TestAdvisorMCP(t *testing.T) {
	e := newEnv(t, sqliteStore(t), offline(t))
	advisorLive(e)
	_, goldKey := e.user("mcp-gold@example.test", db.TierGold)
	_, freeKey := e.user("mcp-free@example.test", db.TierFree)
	advisorStack(t, e, goldKey)
	base := e.live()
	if names := toolNames(t, mcpSession(t, base, freeKey)); contains(names, "ask_advisor") {
		t.Fatalf("free key sees ask_advisor: %v", names)
	}
	gold := mcpSession(t, base, goldKey)
	res, out := callTool(t, gold, "ask_advisor", map[string]any{"message": "what's my stack worth"})
	if res.IsError || !strings.Contains(fmt.Sprint(out["reply"]), "$42,129.00") || out["conversation_id"] == "" {
		t.Fatalf("ask_advisor: %v %v", res.Content, out)
	}
}
