package advisor

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"

	"github.com/ouncehq/ounce/internal/llm"
)

const briefSystemPrompt = `You edit the daily brief of Ounce, a precious-metals portfolio service, for one member.
You get the brief as JSON: a headline and sections of plain text. Rewrite the headline and each section's text
in clear, friendly prose for the member. Keep every section and its title. Use only the figures and dates that
appear in the input, written the same way; add no number of your own, no advice and no prediction.
Keep "not live" and demo labels wherever the input has them. Answer with one JSON object:
{"headline": "...", "sections": [{"title": "...", "text": "..."}]}`

// maxBriefRunes bounds a model's brief; past it the built-in text stays.
const maxBriefRunes = 8000

// polishBrief lets the configured model rewrite the brief's prose. The rewrite is used only
// when it keeps every section and states no figure the brief's figures do not hold; otherwise
// the built-in text stays and reason says why.
func (s *Service) polishBrief(ctx context.Context, b Brief) (Brief, string) {
	if s.llm == nil {
		return b, ""
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.LLMTimeout)
	defer cancel()
	type section struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	}
	in := struct {
		Headline string    `json:"headline"`
		Sections []section `json:"sections"`
	}{Headline: b.Headline}
	for _, sec := range b.Sections {
		in.Sections = append(in.Sections, section(sec))
	}
	raw, _ := json.Marshal(in)
	out, err := s.llm.Turn(ctx, []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(briefSystemPrompt), openai.UserMessage(string(raw))}, nil, nil)
	if err != nil {
		if le, ok := err.(llmError); ok {
			return b, string(le)
		}
		return b, llm.Reason(ctx, err, s.cfg.LLMTimeout)
	}
	content := out.Content
	if i := strings.LastIndex(content, "</think>"); i >= 0 {
		content = content[i+len("</think>"):]
	}
	start, end := strings.IndexByte(content, '{'), strings.LastIndexByte(content, '}')
	if start < 0 || end < start {
		return b, "llm brief has no JSON object"
	}
	var got struct {
		Headline string    `json:"headline"`
		Sections []section `json:"sections"`
	}
	if err := json.Unmarshal([]byte(content[start:end+1]), &got); err != nil {
		return b, "llm brief is not valid JSON"
	}
	if strings.TrimSpace(got.Headline) == "" || len(got.Sections) != len(b.Sections) {
		return b, "llm brief dropped the headline or a section"
	}
	nb := b
	nb.Headline = strings.TrimSpace(got.Headline)
	nb.Sections = make([]Section, len(got.Sections))
	var body []string
	for i, sec := range got.Sections {
		if strings.TrimSpace(sec.Text) == "" {
			return b, "llm brief has an empty section"
		}
		nb.Sections[i] = Section{Title: b.Sections[i].Title, Text: strings.TrimSpace(sec.Text)}
		body = append(body, nb.Sections[i].Text)
	}
	nb.Body = strings.Join(body, "\n\n")
	if utf8.RuneCountInString(nb.text()) > maxBriefRunes {
		return b, "llm brief too long"
	}
	if bad := ungrounded(nb.text(), b.known()); len(bad) > 0 {
		return b, "llm brief rejected: figures not in the brief's figures: " + strings.Join(firstN(bad, 5), ", ")
	}
	nb.Writer = s.llm.Name()
	return nb, ""
}
