package advisor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db/dbtest"
)

// fakeModel is a loopback chat-completions server. step decides each answer from the
// request's messages; the server speaks JSON, or SSE when the request asks to stream.
type fakeModel struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []map[string]any
}

// turn is one answer of the fake model: text, tool calls, or a raw body to send as it is.
type turn struct {
	Content string
	Calls   [][2]string // name, arguments
	Raw     string
	Sleep   time.Duration
}

func newFakeModel(t *testing.T, step func(round int, req map[string]any) turn) *fakeModel {
	t.Helper()
	f := &fakeModel{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != "POST" {
			http.NotFound(w, r)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var req map[string]any
		_ = json.Unmarshal(raw, &req)
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		round := len(f.reqs) - 1
		f.mu.Unlock()
		tn := step(round, req)
		if tn.Sleep > 0 {
			select {
			case <-time.After(tn.Sleep):
			case <-r.Context().Done():
				return
			}
		}
		if tn.Raw != "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, tn.Raw)
			return
		}
		if stream, _ := req["stream"].(bool); stream {
			writeStream(w, tn)
			return
		}
		msg := map[string]any{"role": "assistant", "content": tn.Content}
		finish := "stop"
		if len(tn.Calls) > 0 {
			var calls []any
			for i, c := range tn.Calls {
				calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", round, i), "type": "function",
					"function": map[string]any{"name": c[0], "arguments": c[1]}})
			}
			msg["tool_calls"], msg["content"], finish = calls, nil, "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "cmpl-1", "object": "chat.completion", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}}})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// writeStream sends a turn as server-sent chat.completion.chunk events, text in small pieces.
func writeStream(w http.ResponseWriter, tn turn) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{"id": "cmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	if len(tn.Calls) > 0 {
		for i, c := range tn.Calls {
			send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_s_%d", i), "type": "function",
				"function": map[string]any{"name": c[0], "arguments": ""}}}}, nil)
			send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c[1]}}}}, nil)
		}
		send(map[string]any{}, "tool_calls")
	} else {
		for _, piece := range strings.SplitAfter(tn.Content, " ") {
			send(map[string]any{"content": piece}, nil)
		}
		send(map[string]any{}, "stop")
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func (f *fakeModel) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.reqs...)
}

// lastRole is the role of the request's last message.
func lastRole(req map[string]any) string {
	msgs, _ := req["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	m, _ := msgs[len(msgs)-1].(map[string]any)
	r, _ := m["role"].(string)
	return r
}

// callsThenSay is a model that calls the tools on its first turn and then says text.
func callsThenSay(text string, calls ...[2]string) func(int, map[string]any) turn {
	return func(_ int, req map[string]any) turn {
		if lastRole(req) == "tool" {
			return turn{Content: text}
		}
		return turn{Calls: calls}
	}
}

func llmFixture(t *testing.T, f *fakeModel, timeout time.Duration) *fixture {
	return newFixture(t, dbtest.SQLite(t), Config{LLMBaseURL: f.srv.URL + "/v1", LLMModel: "fake-model", LLMAPIKey: "sk-test", LLMTimeout: timeout}, true)
}

// TestLLMToolLoop: the model answers through the functions and its figures are the built-in
// engine's; every broken model falls back to the built-in answer with the reason.
func TestLLMToolLoop(t *testing.T) {
	ctx := context.Background()
	const q = "What's my stack worth?"
	t.Run("tool call then grounded answer", func(t *testing.T) {
		f := newFakeModel(t, callsThenSay("Your stack is worth $44,089.00 at spot; you paid $34,700.00.", [2]string{"stack_value", "{}"}))
		fx := llmFixture(t, f, 5*time.Second)
		r, err := fx.svc.Chat(ctx, fx.gold, ChatInput{Message: q})
		if err != nil {
			t.Fatal(err)
		}
		if r.Writer != "llm:fake-model" || r.FallbackReason != "" || !strings.Contains(r.Text, "$44,089.00") {
			t.Fatalf("reply %+v", r)
		}
		b, _ := fx.svc.Builtin(ctx, fx.gold, q)
		if fmt.Sprint(r.Facts) != fmt.Sprint(b.Facts) || len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "stack_value" {
			t.Fatalf("facts differ from the built-in engine's:\n%v\n%v", r.Facts, b.Facts)
		}
		reqs := f.requests()
		if len(reqs) != 2 {
			t.Fatalf("%d requests", len(reqs))
		}
		if tools, _ := reqs[0]["tools"].([]any); len(tools) != 13 || reqs[0]["model"] != "fake-model" {
			t.Fatalf("first request: %v", reqs[0])
		}
		msgs := reqs[1]["messages"].([]any)
		tool := msgs[len(msgs)-1].(map[string]any)
		if tool["tool_call_id"] != "call_0_0" || !strings.Contains(fmt.Sprint(tool["content"]), "$44,089.00") {
			t.Fatalf("tool result sent back: %v", tool)
		}
	})

	fallbacks := []struct {
		name   string
		step   func(int, map[string]any) turn
		reason string
	}{
		{"invented number", callsThenSay("Your stack is worth $51,200.00, up 12.5% this week.", [2]string{"stack_value", "{}"}), "figures not found in the tool results: $51,200.00"},
		{"answer without tools with a number", func(int, map[string]any) turn { return turn{Content: "Gold is $2,700.00 today."} }, "figures not found"},
		{"a tool's figure rounded another way", callsThenSay("Gold is about $2,650 an ounce.", [2]string{"spot_price", `{"metal":"gold"}`}), "figures not found"},
		{"unknown tool", callsThenSay("done", [2]string{"transfer_funds", `{"to":"me"}`}), `unknown tool "transfer_funds"`},
		{"malformed arguments", callsThenSay("done", [2]string{"spot_price", `{"metal": gold`}), "malformed arguments for spot_price"},
		{"unexpected argument", callsThenSay("done", [2]string{"spot_price", `{"metal":"gold","userId":7}`}), "malformed arguments"},
		{"malformed response", func(int, map[string]any) turn { return turn{Raw: `{"choices": [ {"message": `} }, "llm"},
		{"no choices", func(int, map[string]any) turn { return turn{Raw: `{"id":"x","object":"chat.completion","choices":[]}`} }, "no choices"},
		{"timeout", func(int, map[string]any) turn { return turn{Sleep: 2 * time.Second, Content: "late"} }, "timed out"},
		{"endless tool calls", func(int, map[string]any) turn { return turn{Calls: [][2]string{{"spot_price", `{"metal":"gold"}`}}} }, "more than 4 rounds"},
		{"empty answer", func(int, map[string]any) turn { return turn{Content: "  "} }, "empty"},
	}
	for _, c := range fallbacks {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeModel(t, c.step)
			fx := llmFixture(t, f, 300*time.Millisecond)
			start := time.Now()
			r, err := fx.svc.Chat(ctx, fx.gold, ChatInput{Message: q})
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			b, _ := fx.svc.Builtin(ctx, fx.gold, q)
			if r.Writer != BuiltinWriter || r.Text != b.Text || !strings.Contains(r.FallbackReason, c.reason) {
				t.Fatalf("want the built-in reply with reason %q, got %+v", c.reason, r)
			}
			if strings.Contains(r.FallbackReason, "sk-test") {
				t.Fatalf("reason leaks the key: %s", r.FallbackReason)
			}
		})
	}

	t.Run("streaming", func(t *testing.T) {
		f := newFakeModel(t, callsThenSay("Silver is $31.25 per ounce and gold $2,650.40.", [2]string{"spot_price", `{"metal":"silver"}`}, [2]string{"spot_price", `{"metal":"gold"}`}))
		fx := llmFixture(t, f, 5*time.Second)
		var deltas []string
		r, err := fx.svc.ChatStream(ctx, fx.gold, ChatInput{Message: "silver and gold prices"}, func(s string) { deltas = append(deltas, s) })
		if err != nil {
			t.Fatal(err)
		}
		if r.Writer != "llm:fake-model" || strings.Join(deltas, "") != r.Text || len(deltas) < 3 || len(r.ToolCalls) != 2 {
			t.Fatalf("stream: %q → %+v", deltas, r)
		}
		if stream, _ := f.requests()[0]["stream"].(bool); !stream {
			t.Fatal("request did not ask to stream")
		}
	})

	t.Run("streamed invented number is replaced", func(t *testing.T) {
		f := newFakeModel(t, callsThenSay("Silver is $33.00 per ounce.", [2]string{"spot_price", `{"metal":"silver"}`}))
		fx := llmFixture(t, f, 5*time.Second)
		r, err := fx.svc.ChatStream(ctx, fx.gold, ChatInput{Message: "silver price"}, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		if r.Writer != BuiltinWriter || !strings.Contains(r.Text, "$31.25") || !strings.Contains(r.FallbackReason, "$33.00") {
			t.Fatalf("reply %+v", r)
		}
	})
}
