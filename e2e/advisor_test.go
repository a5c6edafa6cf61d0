package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ouncehq/ounce/db/dbtest"
	"github.com/ouncehq/ounce/internal/prices"
	"github.com/ouncehq/ounce/web"
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
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	root, _ := filepath.Abs("..")
	_, errNode := exec.LookPath("node")
	_, errChrome := os.Stat(chromium)
	_, errPW := os.Stat(filepath.Join(root, "node_modules", "playwright-core"))
	if errNode != nil || errChrome != nil || errPW != nil {
		t.Fatal("the browser test needs node, Chromium at " + chromium + " and the npm packages: run `bash .ci/tools` (or apt-get install chromium; npm ci)")
	}
	model := fakeStreamingModel()
	defer model.Close()
	store := dbtest.SQLite(t)
	market, err := prices.NewService(context.Background(), store, prices.ServiceConfig{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := e2eConfig()
	cfg.Advisor.LLMBaseURL, cfg.Advisor.LLMModel = model.URL, "fake-model"
	srv, err := web.New(web.Options{Store: store, Market: market, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Handlers().Intel().EnsureSeed(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.App.Listener(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "e2e", "advisor.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BASE_URL=http://"+ln.Addr().String(), "CHROMIUM="+chromium, "SHOTS="+filepath.Join(root, "e2e", "screenshots"))
	out, err := cmd.CombinedOutput()
	t.Logf("advisor journey:\n%s", out)
	if err != nil {
		t.Fatalf("advisor journey failed: %v", err)
	}
}
