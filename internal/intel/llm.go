package intel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/ouncehq/ounce/internal/llm"
	"github.com/ouncehq/ounce/internal/metals"
)

// Limits on a model's answer. Past them the answer is rejected rather than cut, because a
// truncated commentary tends to stop mid-thought.
const (
	MaxTitleRunes      = 160
	MaxSummaryRunes    = 600
	MaxCommentaryRunes = 6000
)

// DefaultLLMTimeout applies when LLMWriter.Timeout is zero; local models on modest hardware
// can take most of a minute for an article.
const DefaultLLMTimeout = 60 * time.Second

// maxPromptStories bounds the stories sent for one article, which keeps prompts within the
// context windows of small local models.
const maxPromptStories = 8

// LLMWriter asks an OpenAI-compatible chat-completions server (OpenAI, Ollama's /v1, vLLM,
// LM Studio and the like) to write the prose, and keeps everything factual around it (slug,
// sources, metals, prices, demo flag) from the input. BaseURL is the API root, for example
// "https://api.openai.com/v1" or "http://localhost:11434/v1". APIKey, when set, is sent as a
// bearer token. Client defaults to http.DefaultClient, Timeout to DefaultLLMTimeout and
// Fallback to BuiltinWriter.
//
// The answer must be a JSON object with title, summary and commentary within the size limits
// and without figures the input does not contain; otherwise, and on timeouts and HTTP errors,
// the article comes from Fallback and FallbackReason says what went wrong. A broken model
// therefore costs quality, never availability.
type LLMWriter struct {
	BaseURL  string
	Model    string
	APIKey   string
	Client   *http.Client
	Timeout  time.Duration
	Fallback Writer
}

var _ Writer = LLMWriter{}

// Name identifies the writer as "llm:<model>" in Article.Writer.
func (w LLMWriter) Name() string { return "llm:" + w.Model }

// Article asks the model to write up a cluster, falling back as described on LLMWriter.
func (w LLMWriter) Article(ctx context.Context, cluster []Story, c Context) (Article, error) {
	if len(cluster) == 0 {
		return Article{}, ErrNoStories
	}
	ordered := sorted(cluster)
	if len(ordered) > maxPromptStories {
		ordered = ordered[:maxPromptStories]
	}
	a := articleFrame(cluster, c)
	user := "Write a Stack Signal article about the following news, for the " +
		voiceOf(ordered[0].Category).label + " section.\n\n" + promptData(ordered, c, citedMetals(a.Metals))
	ans, reason := w.ask(ctx, articleSystemPrompt, user, groundedNumbers(ordered, c))
	if reason != "" {
		return w.fallBack(reason, func(f Writer) (Article, error) { return f.Article(ctx, cluster, c) })
	}
	return w.finish(a, ans), nil
}

// Synthesis asks the model for the daily synthesis, falling back as described on LLMWriter.
func (w LLMWriter) Synthesis(ctx context.Context, top []Story, c Context) (Article, error) {
	ordered, err := synthesisInput(top, c)
	if err != nil {
		return Article{}, err
	}
	a := synthesisFrame(ordered, c)
	user := "Write today's daily synthesis. A suitable title is: " + asciiMinus(synthesisTitle(c)) +
		"\n\n" + promptData(ordered, c, metals.All)
	ans, reason := w.ask(ctx, synthesisSystemPrompt, user, groundedNumbers(ordered, c))
	if reason != "" {
		return w.fallBack(reason, func(f Writer) (Article, error) { return f.Synthesis(ctx, top, c) })
	}
	return w.finish(a, ans), nil
}

// finish puts the model's prose into the input-derived frame.
func (w LLMWriter) finish(a Article, ans answer) Article {
	a.Title, a.Summary, a.Commentary = ans.Title, ans.Summary, ans.Commentary
	if a.Demo {
		a.Summary = "Demo: " + a.Summary
		a.Commentary += "\n\n" + demoNote
	}
	a.Writer = w.Name()
	return a
}

// fallBack writes with the fallback writer and records why the model's text was not used.
func (w LLMWriter) fallBack(reason string, write func(Writer) (Article, error)) (Article, error) {
	f := w.Fallback
	if f == nil {
		f = BuiltinWriter{}
	}
	a, err := write(f)
	if err != nil {
		return Article{}, fmt.Errorf("intel: %s, and the fallback writer failed: %w", reason, err)
	}
	if a.FallbackReason != "" {
		reason += "; then " + a.FallbackReason
	}
	a.FallbackReason = reason
	return a, nil
}

// answer is the prose a model returns, already cleaned and validated.
type answer struct {
	Title, Summary, Commentary string
}

// ask sends one chat completion through the shared SDK client (internal/llm) and returns the
// validated answer, or a short reason to fall back. Reasons name the kind of failure only:
// they are stored with the article and must not carry the key or the server's error text.
func (w LLMWriter) ask(ctx context.Context, system, user string, known numberSet) (answer, string) {
	cfg := llm.Config{BaseURL: w.BaseURL, Model: w.Model, APIKey: w.APIKey, HTTPClient: w.Client}
	if !cfg.Configured() {
		return answer{}, "llm not configured (base URL or model missing)"
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = DefaultLLMTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	client := llm.NewClient(cfg)
	res, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(w.Model),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(user)},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		},
		// Low temperature: the model is reporting, not inventing.
		Temperature: openai.Float(0.3),
	})
	if err != nil {
		return answer{}, llm.Reason(ctx, err, timeout)
	}
	if len(res.Choices) == 0 {
		return answer{}, "llm response has no choices"
	}
	ans, err := parseAnswer(res.Choices[0].Message.Content)
	if err != nil {
		return answer{}, "llm answer rejected: " + err.Error()
	}
	if bad := ungrounded(ans.Title+"\n"+ans.Summary+"\n"+ans.Commentary, known); len(bad) > 0 {
		return answer{}, "llm answer rejected: figures not found in the input: " + strings.Join(firstN(bad, 5), ", ")
	}
	return ans, ""
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// parseAnswer reads the model's JSON object. It tolerates what real servers send around it:
// Markdown code fences, a reasoning block before the answer, or a sentence of preamble. The
// commentary may come as one string or as a list of paragraphs.
func parseAnswer(content string) (answer, error) {
	obj := extractObject(content)
	if obj == "" {
		return answer{}, errors.New("no JSON object in the answer")
	}
	var raw struct {
		Title      string          `json:"title"`
		Summary    string          `json:"summary"`
		Commentary json.RawMessage `json:"commentary"`
	}
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return answer{}, errors.New("answer is not valid JSON")
	}
	var commentary string
	if len(raw.Commentary) > 0 && string(raw.Commentary) != "null" {
		if err := json.Unmarshal(raw.Commentary, &commentary); err != nil {
			var paras []string
			if err := json.Unmarshal(raw.Commentary, &paras); err != nil {
				return answer{}, errors.New("commentary is neither text nor a list of paragraphs")
			}
			commentary = strings.Join(paras, "\n\n")
		}
	}
	return validate(raw.Title, raw.Summary, commentary)
}

// extractObject cuts the outermost {...} out of a model's message.
func extractObject(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		s = s[i+len("</think>"):]
	}
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end < start {
		return ""
	}
	return s[start : end+1]
}

// validate cleans the three fields (no markup, tidy whitespace) and checks they are present
// and within limits.
func validate(title, summary, commentary string) (answer, error) {
	a := answer{
		Title:      oneLine(title),
		Summary:    oneLine(summary),
		Commentary: paragraphs(commentary),
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{
		{"title", a.Title, MaxTitleRunes},
		{"summary", a.Summary, MaxSummaryRunes},
		{"commentary", a.Commentary, MaxCommentaryRunes},
	} {
		if f.value == "" {
			return answer{}, fmt.Errorf("%s is empty", f.name)
		}
		if n := utf8.RuneCountInString(f.value); n > f.max {
			return answer{}, fmt.Errorf("%s has %d characters, limit %d", f.name, n, f.max)
		}
	}
	return a, nil
}
