package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// TestReasons: failures of a real SDK call against a loopback server become short reasons
// that carry neither the key nor the server's text, and nothing is retried.
func TestReasons(t *testing.T) {
	cases := []struct {
		name, ctype, body string
		status            int
		want              string
	}{
		{"server error", "application/json", `{"error":{"message":"secret boom"}}`, 500, "llm answered HTTP 500"},
		{"html", "text/html", "<html>oops</html>", 200, "llm response is not a chat completion"},
		{"garbage json", "application/json", "<html>oops</html>", 200, "llm response is not a chat completion"},
		{"too large", "application/json", `{"choices":[{"message":{"content":"` + strings.Repeat("x", MaxResponseBytes) + `"}}]}`, 200, "llm response is not a chat completion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
					t.Errorf("auth %q", got)
				}
				w.Header().Set("Content-Type", c.ctype)
				w.WriteHeader(c.status)
				_, _ = w.Write([]byte(c.body))
			}))
			defer srv.Close()
			t.Setenv("OPENAI_API_KEY", "sk-from-environment")
			cl := NewClient(Config{BaseURL: srv.URL, Model: "m", APIKey: "sk-test"})
			ctx := context.Background()
			_, err := cl.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
			if err == nil {
				t.Fatal("no error")
			}
			if got := Reason(ctx, err, time.Second); got != c.want {
				t.Errorf("reason %q, want %q", got, c.want)
			}
			if calls != 1 {
				t.Errorf("%d calls; retries must be off", calls)
			}
		})
	}
}
