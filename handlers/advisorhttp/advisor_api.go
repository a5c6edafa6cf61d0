package advisorhttp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ouncehq/ounce/handlers/kit"

	"github.com/gofiber/fiber/v2"

	"github.com/ouncehq/ounce/internal/advisor"
	"github.com/ouncehq/ounce/internal/apperr"
)

// BriefJSON is the wire form of a daily brief.
type BriefJSON struct {
	Date        string        `json:"date" schema:"format=date" doc:"The day in your time zone."`
	GeneratedAt time.Time     `json:"generated_at"`
	Writer      string        `json:"writer" doc:"builtin, or llm:<model>."`
	Headline    string        `json:"headline"`
	Body        string        `json:"body" doc:"The sections' text, paragraphs separated by blank lines."`
	Sections    []SectionJSON `json:"sections"`
	Figures     FiguresJSON   `json:"figures"`
	Sources     []SourceJSON  `json:"sources"`
	Stale       bool          `json:"stale" doc:"True when a price behind the brief is not live."`
}

// SectionJSON is one titled part of a brief.
type SectionJSON struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// SourceJSON is an item a brief draws on.
type SourceJSON struct {
	Kind  string     `json:"kind"`
	Title string     `json:"title"`
	URL   string     `json:"url"`
	AsOf  *time.Time `json:"as_of"`
}

// FiguresJSON are every figure a brief's text states.
type FiguresJSON struct {
	StackValue *kit.Num                    `json:"stack_value"`
	Change     *kit.Num                    `json:"change"`
	ChangePct  *kit.Num                    `json:"change_pct"`
	ChangeFrom *string                     `json:"change_from" doc:"The date of the previous brief the change is measured from, or \"previous close\"."`
	ByMetal    map[string]MetalFiguresJSON `json:"by_metal"`
	Alerts     []FiredAlertJSON            `json:"alerts"`
	Currency   string                      `json:"currency" schema:"optional" doc:"ISO 4217 code of the money figures, spot prices and break-even: the member's display currency when the brief was written; values at that day's rate, costs (break_even) at each lot's purchase day's rate (briefs written before 2026-11-28 kept break_even in USD per troy ounce)."`
	Unit       string                      `json:"unit" schema:"optional,enum=oz|g|kg|tola" doc:"Weight unit the spot prices and break-even are per."`
	// Performance is how the stack did this year and this month.
	Performance []PeriodFiguresJSON `json:"performance" schema:"optional" doc:"How the stack did this year (YTD) and this month (MTD), from GET /v1/portfolio/performance; empty without holdings or in briefs written before it was added."`
}

// PeriodFiguresJSON is how the stack did over one period, as a brief states it.
type PeriodFiguresJSON struct {
	Period   string     `json:"period" schema:"optional,enum=YTD|MTD"`
	From     string     `json:"from" schema:"optional,format=date"`
	To       string     `json:"to" schema:"optional,format=date"`
	Currency string     `json:"currency" schema:"optional" doc:"ISO 4217 code of gain (the performance service's currency)."`
	Gain     *kit.Num   `json:"gain" schema:"optional" doc:"End value − start value − money put in over the period."`
	TWRPct   *kit.Num   `json:"twr_pct" schema:"optional" doc:"Time-weighted return over the period, in percent."`
	AsOf     *time.Time `json:"as_of" schema:"optional" doc:"When the end value's prices are of."`
	Stale    bool       `json:"stale" schema:"optional" doc:"True when those prices are not live."`
}

// MetalFiguresJSON are one held metal's figures.
type MetalFiguresJSON struct {
	HeldOz                 kit.Num    `json:"held_oz" schema:"optional"`
	Spot                   *kit.Num   `json:"spot" schema:"optional" doc:"In the figures' currency per their unit (USD per troy ounce at its source's precision, 2 to 4 decimals, unless they say otherwise)."`
	SpotAsOf               *time.Time `json:"spot_as_of" schema:"optional"`
	SpotStale              bool       `json:"spot_stale" schema:"optional"`
	Value                  *kit.Num   `json:"value" schema:"optional"`
	ChangePct              *kit.Num   `json:"change_pct" schema:"optional"`
	ChangeFrom             *string    `json:"change_from" schema:"optional"`
	BreakEven              *kit.Num   `json:"break_even" schema:"optional"`
	DistanceToBreakEvenPct *kit.Num   `json:"distance_to_break_even_pct" schema:"optional"`
	ComexRegistered        *kit.Num   `json:"comex_registered" schema:"optional"`
	ComexRegisteredChange  *kit.Num   `json:"comex_registered_change" schema:"optional"`
	ComexAsOf              *time.Time `json:"comex_as_of" schema:"optional"`
}

// FiredAlertJSON is an alert that fired, as a brief lists it.
type FiredAlertJSON struct {
	Metal     string    `json:"metal" schema:"optional"`
	Direction string    `json:"direction" schema:"optional"`
	Target    string    `json:"target" schema:"optional"`
	Price     string    `json:"price" schema:"optional"`
	Currency  string    `json:"currency" schema:"optional" doc:"ISO 4217 code of target and price (USD unless the alert was set in another)."`
	Unit      string    `json:"unit" schema:"optional,enum=oz|g|kg|tola" doc:"Weight unit target and price are per."`
	FiredAt   time.Time `json:"fired_at" schema:"optional"`
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func strOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func briefJSON(b advisor.Brief) BriefJSON {
	out := BriefJSON{Date: b.Date.String(), GeneratedAt: b.GeneratedAt.UTC(), Writer: b.Writer, Headline: b.Headline, Body: b.Body,
		Sections: []SectionJSON{}, Sources: []SourceJSON{}, Stale: b.Stale}
	for _, s := range b.Sections {
		out.Sections = append(out.Sections, SectionJSON(s))
	}
	for _, s := range b.Sources {
		out.Sources = append(out.Sources, SourceJSON{Kind: s.Kind, Title: s.Title, URL: s.URL, AsOf: kit.AsOfOrNull(s.AsOf)})
	}
	f := b.Figures
	out.Figures = FiguresJSON{StackValue: kit.OptMoney(f.StackValue), Change: kit.OptMoney(f.Change), ChangePct: kit.NumOrNull(f.ChangePct, kit.Pct),
		ChangeFrom: strOrNull(f.ChangeFrom), ByMetal: map[string]MetalFiguresJSON{}, Alerts: []FiredAlertJSON{}, Performance: []PeriodFiguresJSON{}}
	out.Figures.Currency, out.Figures.Unit = f.Currency, f.Unit
	if out.Figures.Currency == "" {
		out.Figures.Currency = "USD"
	}
	if out.Figures.Unit == "" {
		out.Figures.Unit = "oz"
	}
	for m, x := range f.ByMetal {
		out.Figures.ByMetal[string(m)] = MetalFiguresJSON{HeldOz: kit.Ounces(x.HeldOz), Spot: kit.NumOrNull(x.Spot, kit.PriceNum), SpotAsOf: kit.AsOfOrNull(x.SpotAsOf),
			SpotStale: x.SpotStale, Value: kit.OptMoney(x.Value), ChangePct: kit.NumOrNull(x.ChangePct, kit.Pct), ChangeFrom: strOrNull(x.ChangeFrom),
			BreakEven: kit.OptMoney(x.BreakEven), DistanceToBreakEvenPct: kit.NumOrNull(x.DistanceToBreakEvenPct, kit.Pct),
			ComexRegistered: kit.NumOrNull(x.ComexRegistered, kit.Ounces), ComexRegisteredChange: kit.NumOrNull(x.ComexRegisteredChange, kit.Ounces),
			ComexAsOf: kit.AsOfOrNull(x.ComexAsOf)}
	}
	for _, p := range f.Performance {
		out.Figures.Performance = append(out.Figures.Performance, PeriodFiguresJSON{Period: p.Period, From: p.From.Format(time.DateOnly), To: p.To.Format(time.DateOnly),
			Currency: p.Currency, Gain: kit.OptMoney(p.Gain), TWRPct: kit.NumOrNull(p.TWRPct, kit.Pct), AsOf: kit.AsOfOrNull(p.AsOf), Stale: p.Stale})
	}
	for _, a := range f.Alerts {
		out.Figures.Alerts = append(out.Figures.Alerts, FiredAlertJSON{Metal: string(a.Metal), Direction: a.Direction, Target: a.Target, Price: a.Price,
			Currency: orDefault(a.Currency, "USD"), Unit: orDefault(a.Unit, "oz"), FiredAt: a.FiredAt.UTC()})
	}
	return out
}

// FactJSON is one figure a reply used.
type FactJSON struct {
	Label  string     `json:"label"`
	Value  string     `json:"value" doc:"The figure as the reply shows it."`
	AsOf   *time.Time `json:"as_of"`
	Source string     `json:"source"`
}

// ToolCallJSON is one function a reply called.
type ToolCallJSON struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments" doc:"The arguments as a JSON object."`
}

// ChatReplyJSON is the answer of POST /v1/advisor/chat.
type ChatReplyJSON struct {
	ConversationID string         `json:"conversation_id"`
	Reply          string         `json:"reply"`
	Facts          []FactJSON     `json:"facts"`
	ToolCalls      []ToolCallJSON `json:"tool_calls"`
	Writer         string         `json:"writer" doc:"builtin, or llm:<model> when a model wrote the reply."`
	Stale          bool           `json:"stale" doc:"True when a price behind the reply is not live (the reply names its date)."`
}

func factsJSON(fs []advisor.Fact) []FactJSON {
	out := []FactJSON{}
	for _, f := range fs {
		out = append(out, FactJSON{Label: f.Label, Value: f.Value, AsOf: kit.AsOfOrNull(f.AsOf), Source: f.Source})
	}
	return out
}

func callsJSON(cs []advisor.ToolCall) []ToolCallJSON {
	out := []ToolCallJSON{}
	for _, c := range cs {
		out = append(out, ToolCallJSON(c))
	}
	return out
}

func chatReplyJSON(r advisor.Reply) ChatReplyJSON {
	return ChatReplyJSON{ConversationID: r.ConversationID, Reply: r.Text, Facts: factsJSON(r.Facts), ToolCalls: callsJSON(r.ToolCalls), Writer: r.Writer, Stale: r.Stale}
}

// ConversationJSON is a conversation in the list (messages only when one is read).
type ConversationJSON struct {
	ID        string        `json:"id"`
	Title     string        `json:"title"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	Messages  []MessageJSON `json:"messages,omitempty" doc:"Only when one conversation is read."`
}

// MessageJSON is one turn of a conversation.
type MessageJSON struct {
	Role      string         `json:"role" schema:"enum=user|assistant"`
	Content   string         `json:"content"`
	Facts     []FactJSON     `json:"facts"`
	ToolCalls []ToolCallJSON `json:"tool_calls"`
	Writer    string         `json:"writer"`
	CreatedAt time.Time      `json:"created_at"`
}

func conversationJSON(c advisor.Conversation, withMessages bool) ConversationJSON {
	out := ConversationJSON{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
	if withMessages {
		out.Messages = []MessageJSON{}
		for _, m := range c.Messages {
			out.Messages = append(out.Messages, MessageJSON{Role: m.Role, Content: m.Content, Facts: factsJSON(m.Facts), ToolCalls: callsJSON(m.ToolCalls),
				Writer: m.Writer, CreatedAt: m.CreatedAt.UTC()})
		}
	}
	return out
}

// BriefEnvelopeJSON is the body of the daily-brief routes.
type BriefEnvelopeJSON struct {
	Brief BriefJSON `json:"brief" schema:"ref=DailyBrief"`
}

// ConversationsPageJSON is the body of GET /v1/advisor/conversations.
type ConversationsPageJSON struct {
	Conversations []ConversationJSON `json:"conversations" schema:"items.ref=AdvisorConversation"`
	Limit         int                `json:"limit" schema:"min=0"`
	Offset        int                `json:"offset" schema:"min=0"`
	Total         int                `json:"total" schema:"min=0"`
}

// ConversationEnvelopeJSON is the body of GET /v1/advisor/conversations/{id}.
type ConversationEnvelopeJSON struct {
	Conversation ConversationJSON `json:"conversation" schema:"ref=AdvisorConversation"`
}

// ChatBodyJSON documents the body of POST /v1/advisor/chat, which the handler reads member
// by member (kit.JSONObjectBody).
type ChatBodyJSON struct {
	_              struct{} `schema:"closed"`
	Message        string   `json:"message" schema:"minLength=1" doc:"The question, 1 to {MaxMessageRunes} characters."`
	ConversationID string   `json:"conversation_id" schema:"optional" doc:"Continue this conversation of yours; omit to start one."`
	UserID         any      `json:"userId" schema:"optional,use=UserIDClaim"`
}

// GenerateBodyJSON documents the optional body of POST /v1/daily-brief/generate.
type GenerateBodyJSON struct {
	_      struct{} `schema:"closed"`
	UserID any      `json:"userId" schema:"optional,use=UserIDClaim"`
}

// chatToolArgs are the arguments of the ask_advisor MCP tool.
type chatToolArgs struct {
	Message        string `json:"message" schema:"minLength=1,maxLength=MaxMessageRunes"`
	ConversationID string `json:"conversation_id" schema:"optional"`
}

// regenerateParam reads ?regenerate=true|false.
func regenerateParam(c *fiber.Ctx) (bool, error) {
	v := c.Query("regenerate")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, apperr.InvalidField("regenerate", "must be true or false")
	}
	return b, nil
}

// APIDailyBrief answers GET /v1/daily-brief.
func (h *Handlers) APIDailyBrief(c *fiber.Ctx) error {
	b, err := h.advisor.BriefOf(h.Ctx(c), kit.Caller(c), c.Query("date"), c.Query("userId"))
	if err != nil {
		return err
	}
	return kit.PrivateJSON(c, http.StatusOK, BriefEnvelopeJSON{Brief: briefJSON(b)})
}

// APIDailyBriefGenerate answers POST /v1/daily-brief/generate.
func (h *Handlers) APIDailyBriefGenerate(c *fiber.Ctx) error {
	_, claim, err := kit.ClaimBody(c, "userId")
	if err != nil {
		return err
	}
	regen, err := regenerateParam(c)
	if err != nil {
		return err
	}
	b, created, err := h.advisor.GenerateBrief(h.Ctx(c), kit.Caller(c), regen, claim)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return kit.PrivateJSON(c, status, BriefEnvelopeJSON{Brief: briefJSON(b)})
}

// APIAdvisorChat answers POST /v1/advisor/chat.
func (h *Handlers) APIAdvisorChat(c *fiber.Ctx) error {
	body, claim, err := kit.ClaimBody(c, "message", "conversation_id", "userId")
	if err != nil {
		return err
	}
	in := advisor.ChatInput{ClaimedUserID: claim}
	if err := stringMember(body, "message", &in.Message); err != nil {
		return err
	}
	if err := stringMember(body, "conversation_id", &in.ConversationID); err != nil {
		return err
	}
	r, err := h.advisor.Chat(h.Ctx(c), kit.Caller(c), in)
	if err != nil {
		return err
	}
	return kit.PrivateJSON(c, http.StatusOK, chatReplyJSON(r))
}

// APIAdvisorConversations answers GET /v1/advisor/conversations.
func (h *Handlers) APIAdvisorConversations(c *fiber.Ctx) error {
	limit, err := kit.QueryInt(c, "limit", advisor.DefaultConversationLimit, 1, advisor.MaxConversationLimit)
	if err != nil {
		return err
	}
	offset, err := kit.QueryInt(c, "offset", 0, 0, 1_000_000)
	if err != nil {
		return err
	}
	p, err := h.advisor.Conversations(h.Ctx(c), kit.Caller(c), limit, offset, c.Query("userId"))
	if err != nil {
		return err
	}
	list := []ConversationJSON{}
	for _, cv := range p.Conversations {
		list = append(list, conversationJSON(cv, false))
	}
	return kit.PrivateJSON(c, http.StatusOK, ConversationsPageJSON{Conversations: list, Limit: p.Limit, Offset: p.Offset, Total: p.Total})
}

// APIAdvisorConversation answers GET /v1/advisor/conversations/{id}.
func (h *Handlers) APIAdvisorConversation(c *fiber.Ctx) error {
	cv, err := h.advisor.ConversationByID(h.Ctx(c), kit.Caller(c), c.Params("id"), c.Query("userId"))
	if err != nil {
		return err
	}
	return kit.PrivateJSON(c, http.StatusOK, ConversationEnvelopeJSON{Conversation: conversationJSON(cv, true)})
}

// APIAdvisorConversationDelete answers DELETE /v1/advisor/conversations/{id}.
func (h *Handlers) APIAdvisorConversationDelete(c *fiber.Ctx) error {
	if err := h.advisor.DeleteConversation(h.Ctx(c), kit.Caller(c), c.Params("id"), c.Query("userId")); err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// stringMember reads an optional string member of a JSON body.
func stringMember(body map[string]json.RawMessage, name string, dst *string) error {
	raw, ok := body[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return apperr.InvalidField(name, "must be a string")
	}
	return nil
}
