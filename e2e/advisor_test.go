package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeStreamingModel is a loopback chat-completions server that streams (SSE): it calls the
// tool the question names and then repeats the tool's answer, so its reply is grounded.
func fakeStreamingModel() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(raw, &req)
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(delta any) {
			b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "fake",
				"choices": []any{map[string]any{"index": 0, "delta": delta}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		last := req.Messages[len(req.Messages)-1]
		if last.Role != "tool" {
			tool := "stack_value"
			if strings.Contains(strings.ToLower(last.Content), "ratio") {
				tool = "gold_silver_ratio"
			}
			chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
				"function": map[string]any{"name": tool, "arguments": "{}"}}}})
		} else {
			var res struct{ Answer string }
			_ = json.Unmarshal([]byte(last.Content), &res)
			for _, word := range strings.SplitAfter(res.Answer, " ") {
				chunk(map[string]any{"content": word})
				time.Sleep(20 * time.Millisecond)
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

// TestAdvisorJourney: a Gold member records a holding, writes today's brief from the
// dashboard's first card, and asks the advisor, whose reply streams in over SSE from a fake
// model and ends with the facts; pages are photographed at 1280 px light and 375 px dark.
func TestAdvisorJourney(t *testing.T) {
	browserTools(t)
	model := fakeStreamingModel()
	defer model.Close()
	cfg := e2eConfig()
	cfg.Advisor.LLMBaseURL, cfg.Advisor.LLMModel = model.URL, "fake-model"
	app := serveOffline(t, cfg, true)
	if err := app.App.Intel.EnsureSeed(context.Background()); err != nil {
		t.Fatal(err)
	}
	runJourney(t, "advisor", app.Base, 3*time.Minute)
}
