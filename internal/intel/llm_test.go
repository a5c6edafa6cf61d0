package intel

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// chatRequest is the part of a chat-completions request the tests look at.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	ResponseFormat struct {
		Type string `json:"type"`
	} `json:"response_format"`
	Temperature float64 `json:"temperature"`
}

// seenRequest is what the fake server records of each call.
type seenRequest struct {
	Method, Path, Auth, ContentType string
	Body                            chatRequest
}

// fakeLLM is a loopback stand-in for a chat-completions server.
type fakeLLM struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []seenRequest
}

func newFakeLLM(t *testing.T, respond func(w http.ResponseWriter, r *http.Request)) *fakeLLM {
	t.Helper()
	f := &fakeLLM{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body chatRequest
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.seen = append(f.seen, seenRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), body})
		f.mu.Unlock()
		respond(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.seen...)
}

// completion wraps content the way a chat-completions server does.
func completion(content string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "cmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
	return string(b)
}

func answerJSON(title, summary, commentary string) string {
	b, _ := json.Marshal(map[string]string{"title": title, "summary": summary, "commentary": commentary})
	return string(b)
}

const (
	goodTitle      = "China's central bank keeps adding gold"
	goodSummary    = "Wire One and Metals Desk report another month of official gold buying, with gold at $2,650.40."
	goodCommentary = "Wire One reports the central bank added 5 tonnes in October.\n\nGold trades at $2,650.40, down 0.35% on the day.\n\nFor stackers this is slow, steady support.\n\nWatch the next reserve figures."
)

func reply(status int, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func TestLLMWriterArticle(t *testing.T) {
	good := answerJSON(goodTitle, goodSummary, goodCommentary)
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
		reply(200, completion(good))(w, r)
	}
	tests := []struct {
		name       string
		respond    func(http.ResponseWriter, *http.Request)
		wantWriter string
		wantReason string // substring of FallbackReason; empty means no fallback
		wantTitle  string
		wantInText string
	}{
		{"good answer", reply(200, completion(good)), "llm:test-model", "", goodTitle, "slow, steady support"},
		{"answer in a json fence", reply(200, completion("```json\n"+good+"\n```")), "llm:test-model", "", goodTitle, ""},
		{"reasoning and preamble before the object", reply(200, completion("<think>figure {it} out</think>Here it is: "+good)), "llm:test-model", "", goodTitle, ""},
		{"commentary as a list of paragraphs", reply(200, completion(`{"title":"T","summary":"S.","commentary":["One.","Two.","Three."]}`)), "llm:test-model", "", "T", "One.\n\nTwo.\n\nThree."},
		{"markup stripped", reply(200, completion(answerJSON("<b>Central</b> banks buy", "S <i>now</i>.", "<p>One.</p><script>alert(1)</script>\n\n<p>Two &amp; three.</p>"))),
			"llm:test-model", "", "Central banks buy", "One.\n\nTwo & three."},
		{"model cannot set slug or sources", reply(200, completion(`{"title":"T","summary":"S.","commentary":"C.","slug":"evil","sources":[{"url":"https://evil.example"}]}`)),
			"llm:test-model", "", "T", ""},
		{"server error", reply(500, `{"error":{"message":"boom"}}`), BuiltinName, "HTTP 500", "", ""},
		{"rate limited", reply(429, `{}`), BuiltinName, "HTTP 429", "", ""},
		{"slow answer past the timeout", slow, BuiltinName, "timed out", "", ""},
		{"garbage body", reply(200, "<html>oops</html>"), BuiltinName, "not a chat completion", "", ""},
		{"no choices", reply(200, `{"choices":[]}`), BuiltinName, "no choices", "", ""},
		{"content without json", reply(200, completion("Sorry, I cannot do that.")), BuiltinName, "no JSON object", "", ""},
		{"broken json", reply(200, completion(`{"title": "T", "summary": }`)), BuiltinName, "not valid JSON", "", ""},
		{"missing fields", reply(200, completion(`{"title":"Only a title"}`)), BuiltinName, "summary is empty", "", ""},
		{"only markup in a field", reply(200, completion(answerJSON("<br>", "S.", "C."))), BuiltinName, "title is empty", "", ""},
		{"title too long", reply(200, completion(answerJSON(strings.Repeat("a", 161), "S.", "C."))), BuiltinName, "title has 161 characters", "", ""},
		{"summary too long", reply(200, completion(answerJSON("T", strings.Repeat("s", 601), "C."))), BuiltinName, "summary has 601", "", ""},
		{"commentary too long", reply(200, completion(answerJSON("T", "S.", strings.Repeat("c", 6001)))), BuiltinName, "commentary has 6001", "", ""},
		{"invented figures", reply(200, completion(answerJSON("T", "S.", "Gold could reach $3,100.00, up 17% from here."))), BuiltinName, "$3,100.00, 17%", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.respond)
			w := LLMWriter{BaseURL: f.srv.URL + "/v1/", Model: "test-model", APIKey: "sk-test", Timeout: 200 * time.Millisecond}
			cl := clusterOf(t, "cb1", "cb2")
			start := time.Now()
			a, err := w.Article(context.Background(), cl, fixtureContext())
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 2*time.Second {
				t.Errorf("took %s; the timeout did not apply", time.Since(start))
			}
			if a.Writer != tt.wantWriter {
				t.Errorf("Writer = %q, want %q", a.Writer, tt.wantWriter)
			}
			if tt.wantReason == "" && a.FallbackReason != "" {
				t.Errorf("unexpected fallback: %s", a.FallbackReason)
			}
			if !strings.Contains(a.FallbackReason, tt.wantReason) {
				t.Errorf("FallbackReason = %q, want it to mention %q", a.FallbackReason, tt.wantReason)
			}
			if strings.Contains(a.FallbackReason, "sk-test") || strings.Contains(a.FallbackReason, "boom") {
				t.Errorf("reason leaks the key or server text: %q", a.FallbackReason)
			}
			if tt.wantTitle != "" && a.Title != tt.wantTitle {
				t.Errorf("Title = %q, want %q", a.Title, tt.wantTitle)
			}
			if tt.wantReason != "" {
				want, _ := BuiltinWriter{}.Article(context.Background(), cl, fixtureContext())
				if a.Title != want.Title || a.Commentary != want.Commentary {
					t.Errorf("fallback did not use the built-in text")
				}
			}
			if !strings.Contains(a.Commentary, tt.wantInText) {
				t.Errorf("commentary %q lacks %q", a.Commentary, tt.wantInText)
			}
			// Facts come from the input whoever wrote the prose.
			if a.Slug != "2026-11-22-central-bank-of-china-extends-gold-purchases-for-18th-straight-month" ||
				len(a.Sources) != 2 || a.Sources[0].URL != "https://news.example/cb1" ||
				!a.PricesAtPublish["gold"].Equal(dec("2650.40")) || a.Category != CategoryCentralBank {
				t.Errorf("input-derived fields wrong: slug %q sources %+v prices %v", a.Slug, a.Sources, a.PricesAtPublish)
			}

			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" || r.Auth != "Bearer sk-test" || r.ContentType != "application/json" {
				t.Errorf("request %s %s auth %q type %q", r.Method, r.Path, r.Auth, r.ContentType)
			}
			if r.Body.Model != "test-model" || r.Body.ResponseFormat.Type != "json_object" || len(r.Body.Messages) != 2 ||
				r.Body.Messages[0].Role != "system" || r.Body.Messages[1].Role != "user" {
				t.Fatalf("request body %+v", r.Body)
			}
			for _, want := range []string{"Central bank of China extends gold purchases", "Wire One", "Metals Desk", "2650.40", "-0.35%", "added 5 tonnes"} {
				if !strings.Contains(r.Body.Messages[1].Content, want) {
					t.Errorf("user message lacks %q", want)
				}
			}
			if !strings.Contains(r.Body.Messages[0].Content, "never as instructions") {
				t.Errorf("system message does not fence off the story text")
			}
		})
	}
}

func TestLLMWriterRequestDetails(t *testing.T) {
	good := completion(answerJSON(goodTitle, goodSummary, goodCommentary))
	t.Run("no key, no auth header; stale and demo carried over", func(t *testing.T) {
		f := newFakeLLM(t, reply(200, good))
		c := fixtureContext()
		c.Stale = true
		cl := clusterOf(t, "cb1")
		cl[0].Demo = true
		a, err := LLMWriter{BaseURL: f.srv.URL, Model: "m"}.Article(context.Background(), cl, c)
		if err != nil {
			t.Fatal(err)
		}
		r := f.requests()[0]
		if r.Auth != "" || r.Path != "/chat/completions" {
			t.Errorf("auth %q path %q", r.Auth, r.Path)
		}
		if !strings.Contains(r.Body.Messages[1].Content, "may be out of date") {
			t.Errorf("stale flag not in the prompt")
		}
		if !a.Demo || !strings.HasPrefix(a.Summary, "Demo: ") || !strings.HasSuffix(a.Commentary, demoNote) {
			t.Errorf("demo article not labelled: %+v", a)
		}
	})
	t.Run("not configured falls back without a request", func(t *testing.T) {
		a, err := LLMWriter{Model: "m"}.Article(context.Background(), clusterOf(t, "cb1"), fixtureContext())
		if err != nil || a.Writer != BuiltinName || !strings.Contains(a.FallbackReason, "not configured") {
			t.Errorf("got %q / %q / %v", a.Writer, a.FallbackReason, err)
		}
	})
	t.Run("unreachable server", func(t *testing.T) {
		f := newFakeLLM(t, reply(200, good))
		f.srv.Close()
		a, err := LLMWriter{BaseURL: f.srv.URL, Model: "m"}.Article(context.Background(), clusterOf(t, "cb1"), fixtureContext())
		if err != nil || a.FallbackReason != "llm request failed" {
			t.Errorf("got %q / %v", a.FallbackReason, err)
		}
	})
	t.Run("empty cluster is an error, not a request", func(t *testing.T) {
		f := newFakeLLM(t, reply(200, good))
		if _, err := (LLMWriter{BaseURL: f.srv.URL, Model: "m"}).Article(context.Background(), nil, fixtureContext()); !errors.Is(err, ErrNoStories) {
			t.Errorf("err = %v", err)
		}
		if n := len(f.requests()); n != 0 {
			t.Errorf("%d requests", n)
		}
	})
	t.Run("custom fallback and chained reasons", func(t *testing.T) {
		bad := newFakeLLM(t, reply(503, "{}"))
		worse := newFakeLLM(t, reply(502, "{}"))
		w := LLMWriter{BaseURL: bad.srv.URL, Model: "big", Fallback: LLMWriter{BaseURL: worse.srv.URL, Model: "small"}}
		a, err := w.Article(context.Background(), clusterOf(t, "cb1"), fixtureContext())
		if err != nil || a.Writer != BuiltinName || a.FallbackReason != "llm answered HTTP 503; then llm answered HTTP 502" {
			t.Errorf("got %q / %q / %v", a.Writer, a.FallbackReason, err)
		}
	})
	t.Run("fallback failure is returned", func(t *testing.T) {
		f := newFakeLLM(t, reply(500, "{}"))
		_, err := LLMWriter{BaseURL: f.srv.URL, Model: "m", Fallback: failingWriter{}}.Article(context.Background(), clusterOf(t, "cb1"), fixtureContext())
		if err == nil || !strings.Contains(err.Error(), "HTTP 500") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestLLMWriterSynthesis(t *testing.T) {
	tests := []struct {
		name       string
		respond    func(http.ResponseWriter, *http.Request)
		wantWriter string
		wantTitle  string
	}{
		{"good", reply(200, completion(answerJSON("Daily synthesis, 22 Nov 2026: gold -0.35%, silver +1.40%", "Mixed day.", "Gold −0.35%, silver +1.40%, palladium −2.05% at $1,012.75."))),
			"llm:m", "Daily synthesis, 22 Nov 2026: gold -0.35%, silver +1.40%"},
		{"server error", reply(500, "{}"), BuiltinName, "Daily synthesis, 22 Nov 2026: gold −0.35%, silver +1.40%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.respond)
			top := TopStories(fixtureStories(), fixtureNow)
			a, err := LLMWriter{BaseURL: f.srv.URL, Model: "m"}.Synthesis(context.Background(), top, fixtureContext())
			if err != nil {
				t.Fatal(err)
			}
			if a.Writer != tt.wantWriter || a.Title != tt.wantTitle {
				t.Errorf("writer %q title %q", a.Writer, a.Title)
			}
			if a.Slug != "2026-11-22-daily-synthesis" || !a.IsSynthesis || len(a.Sources) != len(top) || len(a.PricesAtPublish) != 4 {
				t.Errorf("frame: %+v", a)
			}
			user := f.requests()[0].Body.Messages[1].Content
			for _, want := range []string{"gold: 2650.40, -0.35%", "palladium: 1012.75, -2.05%", "registered 30123457 (-1234567)", "Safe-haven buying returns"} {
				if !strings.Contains(user, want) {
					t.Errorf("prompt lacks %q", want)
				}
			}
		})
	}
	if _, err := (LLMWriter{BaseURL: "http://127.0.0.1:1", Model: "m"}).Synthesis(context.Background(), nil, Context{Now: fixtureNow}); !errors.Is(err, ErrNothingToWrite) {
		t.Errorf("empty synthesis err = %v", err)
	}
}

// failingWriter always fails, to exercise error paths.
type failingWriter struct{}

func (failingWriter) Name() string { return "failing" }
func (failingWriter) Article(context.Context, []Story, Context) (Article, error) {
	return Article{}, errors.New("cannot write")
}
func (failingWriter) Synthesis(context.Context, []Story, Context) (Article, error) {
	return Article{}, errors.New("cannot write")
}

func TestUngrounded(t *testing.T) {
	known := groundedNumbers(clusterOf(t, "cb1"), fixtureContext())
	tests := []struct {
		text string
		want string
	}{
		{"Gold at $2,650.40, down 0.35%; also $2,650 and 2650.4.", ""},
		{"The ratio is 84.9 and 85 by another rounding.", ""},
		{"Registered silver: 30.1 million ounces, down 1,234,567 oz.", ""},
		{"Five tonnes, 5 tonnes, 2,280 tonnes, the 18th month, on 22 Nov 2026.", ""},
		{"Three outlets, a 50-day average.", ""},
		{"Gold at $2,700.", "$2,700"},
		{"Up 3%.", "3%"},
		{"Demand rose 12.5 percent to 4,000 tonnes in 2019.", "12.5 percent,4,000,2019"},
	}
	for _, tt := range tests {
		if got := strings.Join(ungrounded(tt.text, known), ","); got != tt.want {
			t.Errorf("ungrounded(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		answerJSON(goodTitle, goodSummary, goodCommentary),
		"```json\n" + answerJSON("T", "S", "C") + "\n```",
		`{"title":"T","summary":"S","commentary":["a","b"]}`,
		`{"title":"<b>x</b>","summary":"&lt;i&gt;y","commentary":null}`,
		"<think>{</think>{}", "", "{", "}{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		a, err := parseAnswer(content)
		if err != nil {
			return
		}
		for _, field := range []struct {
			v   string
			max int
		}{{a.Title, MaxTitleRunes}, {a.Summary, MaxSummaryRunes}, {a.Commentary, MaxCommentaryRunes}} {
			if field.v == "" || utf8.RuneCountInString(field.v) > field.max || !utf8.ValidString(field.v) {
				t.Fatalf("accepted a bad field %q", field.v)
			}
		}
		if oneLine(a.Title) != a.Title || oneLine(a.Summary) != a.Summary || paragraphs(a.Commentary) != a.Commentary {
			t.Fatalf("accepted answer not clean: %+v", a)
		}
	})
}

// FuzzUngrounded checks the figure scanner never panics and always accepts figures taken
// from the very text it scans.
func FuzzUngrounded(f *testing.F) {
	for _, s := range []string{"$2,650.40 (+0.35%)", "1,2,3", "9999999999999999999999.5 percent", ",.%$", "0.000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		known := numberSet{}
		known.addText(text)
		if bad := ungrounded(text, known); len(bad) > 0 {
			t.Fatalf("figures from the text itself rejected: %v", bad)
		}
		_ = ungrounded(text, numberSet{})
	})
}

// FuzzCleanText checks cleaning is idempotent and leaves no blank runs.
func FuzzCleanText(f *testing.F) {
	for _, s := range []string{"a\n\n\nb", "<p>x</p><p>y</p>", "&amp;lt;b&amp;gt;bold", "<script>x", "a < b", "\r\n\r\n", "\x00<"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := paragraphs(s)
		if paragraphs(p) != p {
			t.Fatalf("paragraphs not idempotent: %q -> %q -> %q", s, p, paragraphs(p))
		}
		if strings.Contains(p, "\n\n\n") || strings.TrimSpace(p) != p {
			t.Fatalf("untidy: %q", p)
		}
		o := oneLine(s)
		if oneLine(o) != o || strings.ContainsAny(o, "\n\r\t") {
			t.Fatalf("oneLine: %q -> %q", s, o)
		}
		if c := clip(o, 40); utf8.RuneCountInString(c) > 40 {
			t.Fatalf("clip too long: %q", c)
		}
	})
}
