package advisor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/llm"
	"github.com/ouncehq/ounce/internal/metals"
)

// maxToolRounds bounds the model's calls before it must answer.
const maxToolRounds = 4

// ChatModel is a chat-completions model the advisor can hand its functions to.
type ChatModel interface {
	Name() string
	// Turn sends the conversation so far and returns the model's next message; onDelta, when
	// not nil, receives its text as it streams.
	Turn(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, tools []openai.ChatCompletionToolUnionParam, onDelta func(string)) (openai.ChatCompletionMessage, error)
}

// openAIModel is a ChatModel over the shared SDK client.
type openAIModel struct {
	client openai.Client
	model  string
}

// NewOpenAIModel is the ChatModel of an OpenAI-compatible server.
func NewOpenAIModel(baseURL, model, apiKey string) ChatModel {
	return openAIModel{client: llm.NewClient(llm.Config{BaseURL: baseURL, Model: model, APIKey: apiKey}), model: model}
}

func (m openAIModel) Name() string { return "llm:" + m.model }

func (m openAIModel) Turn(ctx context.Context, msgs []openai.ChatCompletionMessageParamUnion, tools []openai.ChatCompletionToolUnionParam, onDelta func(string)) (openai.ChatCompletionMessage, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(m.model), Messages: msgs, Tools: tools, Temperature: openai.Float(0.2)}
	if onDelta == nil {
		res, err := m.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		if len(res.Choices) == 0 {
			return openai.ChatCompletionMessage{}, errNoChoices
		}
		return res.Choices[0].Message, nil
	}
	stream := m.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			onDelta(chunk.Choices[0].Delta.Content)
		}
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	if len(acc.Choices) == 0 {
		return openai.ChatCompletionMessage{}, errNoChoices
	}
	return acc.Choices[0].Message, nil
}

type llmError string

func (e llmError) Error() string { return string(e) }

const errNoChoices = llmError("llm response has no choices")

const systemPrompt = `You are the advisor of Ounce, a precious-metals portfolio service, talking to one member about their own stack.
Answer only from the results of the functions you call: every figure you state (prices, values, ounces, percentages, dates)
must appear in a function result. Never estimate, round differently or invent numbers. Call a function for each figure you need.
If the functions cannot answer, say what you can answer about instead. Do not give personal financial advice; describe, do not recommend.
Keep answers short and plain, in %s and %s as the functions state them, and say when a price is not live and from which date.`

// systemPromptFor is the system prompt in the member's money and weight unit.
func systemPromptFor(v view) string {
	unit := "troy ounces"
	if w, ok := unitWord[v.unit]; ok && v.unit != metals.Ounce {
		unit = "prices per " + w
	}
	return fmt.Sprintf(systemPrompt, currencyWords(v.cur), unit)
}

// toolParams are the functions as the SDK describes them to a model.
func (s *Service) toolParams() []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, len(s.tools))
	for i, t := range s.tools {
		out[i] = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(t.Params)})
	}
	return out
}

// answerLLM lets the model answer with the functions as tools. A reply is returned only when
// every figure in it comes from a function result (or the question); otherwise reason says
// why the built-in engine must answer instead.
func (s *Service) answerLLM(ctx context.Context, u db.User, history []db.ChatMessage, msg string, onDelta func(string)) (Reply, string) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.LLMTimeout)
	defer cancel()
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(systemPromptFor(s.memberView(ctx, u)) + "\nToday is " + day(s.now()) + ".")}
	for _, h := range history {
		switch h.Role {
		case "user":
			msgs = append(msgs, openai.UserMessage(h.Content))
		case "assistant":
			msgs = append(msgs, openai.AssistantMessage(h.Content))
		}
	}
	msgs = append(msgs, openai.UserMessage(msg))
	tools := s.toolParams()
	var facts []Fact
	var calls []ToolCall
	stale := false
	for round := 0; round <= maxToolRounds; round++ {
		// Only a turn that may be the answer streams; rounds of tool calls stay quiet.
		var deltas func(string)
		if onDelta != nil {
			deltas = onDelta
		}
		out, err := s.llm.Turn(ctx, msgs, tools, deltas)
		if err != nil {
			if le, ok := err.(llmError); ok {
				return Reply{}, string(le)
			}
			return Reply{}, llm.Reason(ctx, err, s.cfg.LLMTimeout)
		}
		if len(out.ToolCalls) == 0 {
			text := strings.TrimSpace(out.Content)
			if i := strings.LastIndex(text, "</think>"); i >= 0 {
				text = strings.TrimSpace(text[i+len("</think>"):])
			}
			if text == "" {
				return Reply{}, "llm answer was empty"
			}
			// The same check as the built-in replies: every figure exactly as a tool result (or
			// the question) shows it, no other rounding.
			shown := shownFigures(facts)
			addShown(shown, msg)
			if bad := unshown(text, shown); len(bad) > 0 {
				return Reply{}, "llm answer rejected: figures not found in the tool results: " + strings.Join(firstN(bad, 5), ", ")
			}
			return Reply{Text: text, Facts: facts, ToolCalls: calls, Writer: s.llm.Name(), Stale: stale}, ""
		}
		if round == maxToolRounds {
			break
		}
		msgs = append(msgs, out.ToParam())
		for _, tc := range out.ToolCalls {
			name := tc.Function.Name
			t, ok := s.toolByName(name)
			if !ok {
				return Reply{}, fmt.Sprintf("llm called an unknown tool %q", clip(name, 40))
			}
			var a args
			raw := strings.TrimSpace(tc.Function.Arguments)
			if raw == "" {
				raw = "{}"
			}
			dec := json.NewDecoder(strings.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&a); err != nil {
				return Reply{}, fmt.Sprintf("llm sent malformed arguments for %s", name)
			}
			calls = append(calls, ToolCall{Name: name, Arguments: a.json()})
			res, err := t.Run(ctx, u, a)
			content := ""
			if err != nil {
				content = `{"error":` + quote(err.Error()) + `}`
			} else {
				facts = append(facts, res.Facts...)
				stale = stale || res.Stale
				content = toolContent(res)
			}
			msgs = append(msgs, openai.ToolMessage(content, tc.ID))
		}
	}
	return Reply{}, fmt.Sprintf("llm made more than %d rounds of tool calls", maxToolRounds)
}

// toolContent is a function result as the model reads it: the answer and its facts.
func toolContent(r result) string {
	type fact struct {
		Label  string `json:"label"`
		Value  string `json:"value"`
		AsOf   string `json:"as_of,omitempty"`
		Source string `json:"source"`
	}
	out := struct {
		Answer string `json:"answer"`
		Facts  []fact `json:"facts"`
		Stale  bool   `json:"stale"`
	}{Answer: r.Text, Stale: r.Stale}
	for _, f := range r.Facts {
		x := fact{Label: f.Label, Value: f.Value, Source: f.Source}
		if !f.AsOf.IsZero() {
			x.AsOf = f.AsOf.UTC().Format("2006-01-02")
		}
		out.Facts = append(out.Facts, x)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
