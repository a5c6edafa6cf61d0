package advisor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ouncehq/ounce/db"
	"github.com/ouncehq/ounce/internal/account"
	"github.com/ouncehq/ounce/internal/apperr"
)

// BuiltinWriter names replies of the built-in engine.
const BuiltinWriter = "builtin"

// historyTurns is how many earlier messages of a conversation a model sees.
const historyTurns = 10

// ChatInput is one question to the advisor.
type ChatInput struct {
	Message        string
	ConversationID string
	// ClaimedUserID is a userId the client sent, if any; it must be the caller's.
	ClaimedUserID string
}

// Reply is the advisor's answer and what it is made of.
type Reply struct {
	ConversationID string
	Text           string
	Facts          []Fact
	ToolCalls      []ToolCall
	// Writer is "builtin" or "llm:<model>".
	Writer string
	// Intent is the built-in engine's reading of the question ("" for a model's reply).
	Intent string
	// Stale is true when a price behind the reply is not live.
	Stale bool
	// FallbackReason says why a configured model's reply was not used.
	FallbackReason string
	// Unverified are sentences the figure check left out of a built-in reply because they
	// state a figure no fact of the reply shows (none in a healthy engine; the log has them).
	Unverified []string
	CreatedAt  time.Time
}

// Quota is a member's chat allowance of the day.
type Quota struct {
	Limit, Used int
	// ResetAt is the next midnight in the member's time zone.
	ResetAt time.Time
}

// DailyQuota is the tier's number of chat messages a day.
func DailyQuota(u db.User) int {
	if account.IsGold(u) {
		return GoldDailyQuota
	}
	return FreeDailyQuota
}

// QuotaOf reports the member's allowance today.
func (s *Service) QuotaOf(ctx context.Context, u db.User) (Quota, error) {
	now := s.now()
	d, _ := localDay(u, now)
	used, err := s.store.AdvisorUsed(ctx, u.ID, d)
	return Quota{Limit: DailyQuota(u), Used: used, ResetAt: nextMidnight(u, now)}, err
}

// ValidateMessage trims a question and checks its length.
func ValidateMessage(msg string) (string, error) {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return "", apperr.InvalidField("message", "is required")
	}
	if !utf8.ValidString(msg) {
		return "", apperr.InvalidField("message", "must be UTF-8 text")
	}
	if n := utf8.RuneCountInString(msg); n > MaxMessageRunes {
		return "", apperr.InvalidField("message", fmt.Sprintf("has %d characters, at most %d are allowed", n, MaxMessageRunes))
	}
	return msg, nil
}

// Chat answers one question in a conversation (a new one when ConversationID is empty),
// counts it against the member's daily quota and stores both turns.
func (s *Service) Chat(ctx context.Context, u db.User, in ChatInput) (Reply, error) {
	return s.ChatStream(ctx, u, in, nil)
}

// ChatStream is Chat whose model text, when a model answers, is passed to onDelta as it
// streams. The returned Reply is what was checked and stored, which may be the built-in
// engine's answer after a streamed reply was rejected.
func (s *Service) ChatStream(ctx context.Context, u db.User, in ChatInput, onDelta func(string)) (Reply, error) {
	if err := checkClaim(u, in.ClaimedUserID); err != nil {
		return Reply{}, err
	}
	if u.ID == 0 {
		return Reply{}, apperr.New(apperr.Unauthorized, "sign in to talk to the advisor")
	}
	msg, err := ValidateMessage(in.Message)
	if err != nil {
		return Reply{}, err
	}
	conv := db.Conversation{ID: strings.TrimSpace(in.ConversationID), UserID: u.ID}
	var history []db.ChatMessage
	if conv.ID != "" {
		c, err := s.store.ConversationByID(ctx, u.ID, conv.ID)
		if errors.Is(err, db.ErrNotFound) {
			return Reply{}, apperr.NotFoundf("conversation")
		}
		if err != nil {
			return Reply{}, err
		}
		conv = c
		if history, err = s.store.MessagesOf(ctx, c.ID); err != nil {
			return Reply{}, err
		}
		if len(history) > historyTurns {
			history = history[len(history)-historyTurns:]
		}
	} else {
		conv.ID = newID("cv_")
		conv.Title = clip(strings.Join(strings.Fields(msg), " "), 80)
	}
	if err := s.useQuota(ctx, u); err != nil {
		return Reply{}, err
	}
	reply, err := s.answer(ctx, u, history, msg, onDelta)
	if err != nil {
		return Reply{}, err
	}
	facts, _ := json.Marshal(encodeFacts(reply.Facts))
	calls, _ := json.Marshal(encodeCalls(reply.ToolCalls))
	saved, err := s.store.AppendMessages(ctx, conv, []db.ChatMessage{
		{Role: "user", Content: msg, Facts: "[]", ToolCalls: "[]", Writer: ""},
		{Role: "assistant", Content: reply.Text, Facts: string(facts), ToolCalls: string(calls), Writer: reply.Writer},
	})
	if errors.Is(err, db.ErrNotFound) {
		return Reply{}, apperr.NotFoundf("conversation")
	}
	if err != nil {
		return Reply{}, err
	}
	reply.ConversationID = saved.ID
	reply.CreatedAt = saved.UpdatedAt
	return reply, nil
}

// useQuota counts one message, or refuses with the time the allowance resets.
func (s *Service) useQuota(ctx context.Context, u db.User) error {
	now := s.now()
	d, _ := localDay(u, now)
	limit := DailyQuota(u)
	ok, err := s.store.UseAdvisorQuota(ctx, u.ID, d, limit)
	if err != nil {
		return err
	}
	if !ok {
		reset := nextMidnight(u, now)
		e := apperr.Limited(reset.Sub(now), "you have used your %d advisor messages for today; they reset at %s (%s)", limit,
			reset.Format("15:04 MST on Jan 2"), reset.Location())
		e.Details = map[string]any{"reset_at": reset.UTC().Format(time.RFC3339), "limit": limit}
		return e
	}
	return nil
}

// answer asks the model first when one is configured, and the built-in engine otherwise or
// when the model's reply cannot be used.
func (s *Service) answer(ctx context.Context, u db.User, history []db.ChatMessage, msg string, onDelta func(string)) (Reply, error) {
	if s.llm != nil {
		r, reason := s.answerLLM(ctx, u, history, msg, onDelta)
		if reason == "" {
			return r, nil
		}
		s.log.Warn("advisor: model reply not used", "reason", reason)
		b, err := s.Builtin(ctx, u, msg)
		b.FallbackReason = reason
		return b, err
	}
	return s.Builtin(ctx, u, msg)
}

// Builtin answers with the built-in engine alone (no storage, no quota): the evaluation set
// and the benchmark call it. Every part of the question is answered, or named as one it
// cannot answer, and the reply passes the figure check (verifyText) before it is returned.
func (s *Service) Builtin(ctx context.Context, u db.User, msg string) (Reply, error) {
	ins := parseAll(msg)
	if len(ins) == 1 && ins[0].Name == IntentCapability {
		return Reply{Text: capabilities, Writer: BuiltinWriter, Intent: IntentCapability, ToolCalls: []ToolCall{}, Facts: []Fact{}}, nil
	}
	out := Reply{Writer: BuiltinWriter, Facts: []Fact{}, ToolCalls: []ToolCall{}}
	var texts, names, cannot []string
	skipped := 0
	if len(ins) > MaxQuestionParts {
		skipped, ins = len(ins)-MaxQuestionParts, ins[:MaxQuestionParts]
	}
	for _, in := range ins {
		names = append(names, in.Name)
		switch in.Name {
		case IntentCapability:
			continue
		case intentUnanswered:
			cannot = append(cannot, in.Part)
			out.Facts = append(out.Facts, Fact{Label: "Part of your question I cannot answer", Value: in.Part, Source: "your question"})
			continue
		}
		t, _ := s.toolByName(in.Name)
		r, err := t.Run(ctx, u, in.Args)
		if apperr.KindOf(err) == apperr.Invalid {
			why := apperr.Sentence(errMsg(err))
			r, err = result{Text: "I could not use that: " + why, Facts: []Fact{{Label: "Why I could not answer", Value: why, Source: "Ounce's input rules"}}}, nil
		}
		if err != nil {
			return Reply{}, err
		}
		texts = append(texts, r.Text)
		out.Facts = append(out.Facts, r.Facts...)
		out.ToolCalls = append(out.ToolCalls, ToolCall{Name: in.Name, Arguments: in.Args.json()})
		out.Stale = out.Stale || r.Stale
	}
	if len(cannot) > 0 {
		q := make([]string, len(cannot))
		for i, c := range cannot {
			q[i] = "\"" + c + "\""
		}
		texts = append(texts, "I cannot answer "+strings.Join(q, " or ")+" from my data; I can answer about your stack, prices, the gold/silver ratio, junk silver, premiums, COMEX and Stack Signal.")
	}
	if skipped > 0 {
		n := strconv.Itoa(MaxQuestionParts)
		out.Facts = append(out.Facts, Fact{Label: "Parts answered at most per question", Value: n, Source: "Ounce's limits"})
		texts = append(texts, "Your question has more parts than the "+n+" I answer at once; ask about the rest separately.")
	}
	out.Intent = strings.Join(names, "+")
	out.Text, out.Unverified = verifyText(strings.Join(texts, " "), shownFigures(out.Facts))
	if len(out.Unverified) > 0 {
		s.log.Warn("advisor: reply sentences left out by the figure check", "question", clip(msg, 200), "left_out", out.Unverified)
	}
	return out, nil
}

func errMsg(err error) string {
	if e, ok := apperr.As(err); ok {
		if len(e.Fields) > 0 {
			return e.Fields[0].Field + " " + e.Fields[0].Message
		}
		return e.Msg
	}
	return err.Error()
}

const capabilities = "I can answer questions about: your stack's value, profit or loss, break-even and allocation; " +
	"how your stack did over a period (\"this year\", \"since March\", \"in 2024\", \"last month\"); " +
	"a metal's price now or its change, high and low over a week, month, year or more; the gold/silver ratio; " +
	"the melt value of junk silver coins (\"20 quarters\", \"$10 face\"); what your metal would be worth at a target price; " +
	"dealer premiums over spot; the latest Stack Signal; and the COMEX registered stocks trend."

// Conversation is a conversation with its messages.
type Conversation struct {
	ID        string
	Title     string
	CreatedAt time.Time
	UpdatedAt time.Time
	Messages  []Message
}

// Message is one stored turn.
type Message struct {
	Role      string
	Content   string
	Facts     []Fact
	ToolCalls []ToolCall
	Writer    string
	CreatedAt time.Time
}

// ConversationPage is one page of a member's conversations, newest activity first.
type ConversationPage struct {
	Conversations []Conversation
	Limit, Offset int
	Total         int
}

// Conversations lists the member's own conversations (without messages).
func (s *Service) Conversations(ctx context.Context, u db.User, limit, offset int, claimed string) (ConversationPage, error) {
	if err := checkClaim(u, claimed); err != nil {
		return ConversationPage{}, err
	}
	if limit == 0 {
		limit = DefaultConversationLimit
	}
	if limit < 1 || limit > MaxConversationLimit {
		return ConversationPage{}, apperr.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", MaxConversationLimit))
	}
	if offset < 0 || offset > 1_000_000 {
		return ConversationPage{}, apperr.InvalidField("offset", "must be between 0 and 1000000")
	}
	rows, total, err := s.store.ConversationsByUser(ctx, u.ID, limit, offset)
	if err != nil {
		return ConversationPage{}, err
	}
	out := ConversationPage{Conversations: []Conversation{}, Limit: limit, Offset: offset, Total: total}
	for _, c := range rows {
		out.Conversations = append(out.Conversations, Conversation{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt})
	}
	return out, nil
}

// ConversationByID returns the member's own conversation with its messages; another
// member's is not found.
func (s *Service) ConversationByID(ctx context.Context, u db.User, id, claimed string) (Conversation, error) {
	if err := checkClaim(u, claimed); err != nil {
		return Conversation{}, err
	}
	c, err := s.store.ConversationByID(ctx, u.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return Conversation{}, apperr.NotFoundf("conversation")
	}
	if err != nil {
		return Conversation{}, err
	}
	rows, err := s.store.MessagesOf(ctx, c.ID)
	if err != nil {
		return Conversation{}, err
	}
	out := Conversation{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, Messages: []Message{}}
	for _, m := range rows {
		out.Messages = append(out.Messages, Message{Role: m.Role, Content: m.Content, Facts: decodeFacts(m.Facts),
			ToolCalls: decodeCalls(m.ToolCalls), Writer: m.Writer, CreatedAt: m.CreatedAt})
	}
	return out, nil
}

// DeleteConversation deletes the member's own conversation; another member's is not found.
func (s *Service) DeleteConversation(ctx context.Context, u db.User, id, claimed string) error {
	if err := checkClaim(u, claimed); err != nil {
		return err
	}
	err := s.store.DeleteConversation(ctx, u.ID, id)
	if errors.Is(err, db.ErrNotFound) {
		return apperr.NotFoundf("conversation")
	}
	return err
}

// storedFact and storedCall are the JSON the messages table keeps.
type storedFact struct {
	Label  string    `json:"label"`
	Value  string    `json:"value"`
	AsOf   time.Time `json:"as_of"`
	Source string    `json:"source"`
}

type storedCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func encodeFacts(fs []Fact) []storedFact {
	return convertAll(fs, func(f Fact) storedFact { return storedFact(f) })
}

func encodeCalls(cs []ToolCall) []storedCall {
	return convertAll(cs, func(c ToolCall) storedCall { return storedCall(c) })
}

func decodeFacts(s string) []Fact {
	var in []storedFact
	_ = json.Unmarshal([]byte(s), &in)
	return convertAll(in, func(f storedFact) Fact { return Fact(f) })
}

func decodeCalls(s string) []ToolCall {
	var in []storedCall
	_ = json.Unmarshal([]byte(s), &in)
	return convertAll(in, func(c storedCall) ToolCall { return ToolCall(c) })
}

// convertAll is f of each of in, in order (an empty slice, never nil, for none).
func convertAll[A, B any](in []A, f func(A) B) []B {
	out := make([]B, len(in))
	for i, a := range in {
		out[i] = f(a)
	}
	return out
}

// newID is a random identifier with a prefix.
func newID(prefix string) string {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		panic(err) // the OS random source failing is not recoverable
	}
	return prefix + hex.EncodeToString(b)
}
